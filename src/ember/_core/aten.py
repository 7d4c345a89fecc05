"""`ember.ops.aten`: every registry op by its ATen name, as in `torch.ops.aten` (`ember/ops.py`
is its public face; it lives here because `OpDef.overloadpacket` answers with a packet).

`ember.ops.aten.add` is an overload packet; `ember.ops.aten.add.Tensor` is the op entry itself
(an `OpDef`, called with every schema argument positionally), `ember.ops.aten.relu.default` the
one without an overload name. Calling the packet binds the arguments (keywords and defaults
included) to the first overload they fit, the unnamed ("default") one tried first.
"""
from __future__ import annotations

from ember._core import dispatch
from ember._core.checks import _check_type
from ember._core.dispatch import stack
from ember._core.dispatch.process_state import state
from ember._core.registry import OPS

_DEFAULT = "default"


def _overload_name(op) -> str:
    return op.schema.overload or _DEFAULT


def _bind(op, args, kwargs):
    """All of `op`'s schema arguments as a positional tuple, or None when the call can't bind."""
    try:
        return op.bind(args, kwargs)
    except TypeError:
        return None


def _types_fit(op, bound) -> bool:
    """Tensor arguments get tensors and scalar arguments don't (overload choice only)."""
    Tensor = dispatch.Tensor
    for param, value in zip(op.schema.arguments, bound):
        if param.is_tensor and not (value is None and param.optional):
            if not isinstance(value, Tensor):
                return False
        elif param.base_type == "Scalar" and isinstance(value, Tensor):
            return False
    return True


class OpOverloadPacket:
    """All overloads of one ATen name (`ember.ops.aten.add`)."""

    def __init__(self, name: str, overloads: dict):
        self._name = name
        self._overloads = overloads           # overload name -> OpDef, in registration order

    @property
    def __name__(self) -> str:
        return self._name

    @property
    def _qualified_op_name(self) -> str:
        return f"aten::{self._name}"

    def overloads(self) -> list:
        return list(self._overloads)

    def __getattr__(self, overload: str):
        found = self.__dict__.get("_overloads", {}).get(overload)
        if found is None:
            raise AttributeError(f"The underlying op of 'aten.{self._name}' has no overload "
                                 f"name '{overload}'")
        return found

    def _candidates(self):
        ops = list(self._overloads.values())
        default = self._overloads.get(_DEFAULT)
        if default is not None:
            ops.remove(default)
            ops.insert(0, default)
        return ops

    def __call__(self, *args, **kwargs):
        if state.entry and stack.torch_function_wanted(args + tuple(kwargs.values())):
            # the packet itself reaches __torch_function__, as PyTorch's does (NOTE
            # [overloads reach __torch_function__], dispatch/stack.py)
            return stack.handle_torch_function(self, args + tuple(kwargs.values()), args,
                                               kwargs)
        fallback = None
        for op in self._candidates():
            bound = _bind(op, args, kwargs)
            if bound is None:
                continue
            if _types_fit(op, bound):
                return op(*bound)
            fallback = fallback or (op, bound)
        _check_type(fallback is not None, lambda: (
            f"aten.{self._name}() received arguments that match none of its overloads "
            f"({', '.join(self._overloads)})"))
        op, bound = fallback
        return op(*bound)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self._name}')>"

    def __str__(self) -> str:
        return f"aten.{self._name}"


class _OpNamespace:
    """`ember.ops.aten`: attribute access builds (and caches) the overload packets."""

    def __init__(self, name: str):
        self.name = name
        self._packets = {}

    def __getattr__(self, name: str) -> OpOverloadPacket:
        if name.startswith("__") and not any(key.startswith(name + ".") for key in OPS):
            raise AttributeError(name)      # (a protocol lookup; `aten.__lshift__` is an op)
        packet = self._packets.get(name)
        if packet is None:
            overloads = {_overload_name(op): op for op in OPS.values()
                         if op.name.partition(".")[0] == name}
            if not overloads:
                raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute "
                                     f"'{name}'")
            packet = self._packets[name] = OpOverloadPacket(name, overloads)
        return packet

    def __dir__(self):
        return sorted({op.name.partition(".")[0] for op in OPS.values()})

    def __repr__(self) -> str:
        return f"<module 'ember.ops.{self.name}' from 'ember.ops'>"


aten = _OpNamespace("aten")
