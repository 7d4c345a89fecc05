"""Functional affine maps: linear (one BLAS product, NOTE [linear is one product] in
ember/_ops/nn_linear.py) and bilinear."""
from __future__ import annotations

from ember._core.arguments import explain as _explain
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.dispatch.stack import _prepare as _prepared
from ember._core.registry import OPS

__all__ = ["bilinear", "linear"]

_LINEAR = OPS["linear"]
_BILINEAR = OPS["bilinear"]


def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight^T + bias."""
    if _state.entry and _wants(locals()):
        return _handle(linear, locals())
    if _state.slow:
        return call(_LINEAR, (input, weight, bias))
    # `call`'s plain step, as the generated bindings take it (a frame less per layer call).
    try:
        return (_LINEAR.runner or _prepared(_LINEAR))(_LINEAR, (input, weight, bias))
    except Exception as exc:
        _explain(exc, _LINEAR.python_name, False, _LINEAR, (input, weight, bias))
        raise


def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor: input1^T weight[o] input2 +
    bias[o] for each output feature o."""
    if _state.entry and _wants(locals()):
        return _handle(bilinear, locals())
    return call(_BILINEAR, (input1, input2, weight, bias))
