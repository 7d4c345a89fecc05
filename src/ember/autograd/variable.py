"""`ember.autograd.Variable`: the pre-0.4 wrapper, kept because old code still calls it.

`Variable(t, requires_grad=...)` gives a tensor sharing t's data (tensors carry autograd state
themselves now), and `isinstance(x, Variable)` is true for every tensor, as in PyTorch.
"""
from __future__ import annotations

from ember._core import dispatch


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, dispatch.Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False) -> Tensor sharing `data`."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            from ember._ops.creation import empty
            data = empty(0)
        if not isinstance(data, dispatch.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
