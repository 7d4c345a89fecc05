"""ember.backends.quantized: which engine quantized kernels would run on (`engine`, one of
`supported_engines`). ember has no quantized kernels; the engine is stored, and an assignment
is checked as PyTorch checks it (NOTE [back-end flags are module properties])."""
from __future__ import annotations

from ember.backends._props import ContextProp, PropModule, wrap

_SUPPORTED = ("qnnpack", "onednn", "x86", "fbgemm")
_engine = ["x86"]


def _set_engine(value: str) -> None:
    if value not in _SUPPORTED:
        raise RuntimeError(f"{value} is not a valid value for quantized engine")
    _engine[0] = value


def _read_only(value) -> None:
    raise AttributeError("property 'supported_engines' of 'QuantizedEngine' object has no "
                         "setter")


class QuantizedEngine(PropModule):
    """This module with `engine` and `supported_engines` as properties."""

    engine = ContextProp(lambda: _engine[0], _set_engine)
    supported_engines = ContextProp(lambda: list(_SUPPORTED), _read_only)


wrap(__name__, QuantizedEngine)
