"""Functional affine maps: linear (one BLAS product, NOTE [linear is one product] in
ember/_ops/nn_linear.py) and bilinear."""
from __future__ import annotations

from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS

__all__ = ["bilinear", "linear"]

_LINEAR = OPS["linear"]
_BILINEAR = OPS["bilinear"]


def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight^T + bias."""
    if _state.entry and _wants(locals()):
        return _handle(linear, locals())
    return call(_LINEAR, (input, weight, bias))


def bilinear(input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor: input1^T weight[o] input2 +
    bias[o] for each output feature o."""
    if _state.entry and _wants(locals()):
        return _handle(bilinear, locals())
    return call(_BILINEAR, (input1, input2, weight, bias))
