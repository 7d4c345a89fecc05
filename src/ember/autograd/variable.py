"""`ember.autograd.Variable`: the pre-0.4 wrapper, kept because old code still calls it.

`Variable(t, requires_grad=...)` gives a tensor sharing t's data (tensors carry autograd state
themselves now), and `isinstance(x, Variable)` is true for every tensor, as in PyTorch.
"""
from __future__ import annotations

from ember._core import dispatch


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, dispatch.Tensor)


class _ExecutionEngine:
    """`Variable._execution_engine`: what code reaches of the backward engine."""

    @staticmethod
    def queue_callback(callback) -> None:
        """Run `callback()` once the backward pass now running ends (NOTE [final callbacks])."""
        from ember.autograd.engine import queue_callback
        queue_callback(callback)

    @staticmethod
    def run_backward(tensors, grad_tensors, retain_graph=False, create_graph=False,
                     inputs=(), allow_unreachable=True, accumulate_grad=True):
        from ember.autograd.engine import backward
        backward(tensors, grad_tensors, retain_graph, create_graph, inputs or None)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False, volatile=False) -> Tensor sharing `data`."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            from ember._ops.creation import empty
            data = empty(0)
        if not isinstance(data, dispatch.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
