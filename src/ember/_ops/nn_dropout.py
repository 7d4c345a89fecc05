"""Dropout: `dropout`, `feature_dropout` (whole channels), `alpha_dropout` and
`feature_alpha_dropout` (which keep a SELU network's mean and variance), their in-place forms,
and `native_dropout` (output and keep-mask).

NOTE [dropout noise]: as in PyTorch, the noise is `empty(shape).bernoulli_(1 - p)` (shape the
input's, or (N, C, 1, ...) for the feature forms), so its random stream follows ember's
bernoulli op and the generator; the result is input * noise / (1 - p) (a product, so autograd
gives the gradient grad * noise / (1 - p), consistent with the mask). Out of training, with
p == 0 or on an empty input the input itself is returned.
"""
from __future__ import annotations

import math

from ember._core import arguments, dispatch
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend
from ember._ops.creation import empty_like

# The SELU fixed point that alpha dropout keeps (-alpha' = -scale * alpha of SELU).
_SELU_NEGATIVE = 1.7580993408473766


def _check_p(p):
    _check(0 <= p <= 1, lambda: f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, p, feature):
    if feature:
        _check(input.ndim >= 2, lambda: (
            "Feature dropout requires at least 2 dimensions in the input"))
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
        noise = input.new_empty(shape)
    else:
        noise = empty_like(input)
    return noise.bernoulli_(1 - p)


def _parsed_p(input, p, train, feature, alpha, inplace):
    """p as PyTorch's parser takes it, or its TypeError for a non-tensor input, a p that is
    no float or a train flag that is no bool."""
    name = f"{'feature_' if feature else ''}{'alpha_' if alpha else ''}dropout" \
        f"{'_' if inplace else ''}"
    arguments.tensor_(input, (name, "input", 1))
    p = arguments.float_(p, (name, "p", 2))
    if train is not True and train is not False:
        arguments.bool_(train, (name, "train", 3))
    return p


def _dropout_impl(input, p, train, feature, alpha, inplace):
    if not isinstance(input, dispatch.Tensor) or train is not True and train is not False or \
            type(p) is not float and type(p) is not int:
        p = _parsed_p(input, p, train, feature, alpha, inplace)
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zeros = input.new_zeros(())
        return input.mul_(zeros) if inplace else input * zeros
    noise = _noise(input, p, feature)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_NEGATIVE * _SELU_NEGATIVE * p + 1) * (1 - p))
        shift = (noise - 1) * (_SELU_NEGATIVE * a) + _SELU_NEGATIVE * a * p
        noise = noise * a
        if inplace:
            return input.mul_(noise).add_(shift)
        return input * noise + shift
    dispatch.call_inplace(OPS["div.Scalar"], (noise, 1 - p))
    return input.mul_(noise) if inplace else input * noise


@register_frontend(method=False)
@checked("dropout(Tensor input, float p, bool train)")
def dropout(input, p, train):
    """dropout(input, p, train) -> Tensor: in training, each element zeroed with probability
    p and the rest scaled by 1 / (1 - p) (NOTE [dropout noise])."""
    if _state.entry and _wants(locals()):
        return _handle(dropout, locals())
    return _dropout_impl(input, p, train, False, False, False)


@register_frontend(method=False)
def dropout_(input, p, train):
    """dropout_(input, p, train) -> Tensor: dropout written into input."""
    if _state.entry and _wants(locals()):
        return _handle(dropout_, locals())
    return _dropout_impl(input, p, train, False, False, True)


@register_frontend(method=False)
@checked("feature_dropout(Tensor input, float p, bool train)")
def feature_dropout(input, p, train):
    """feature_dropout(input, p, train) -> Tensor: whole channels (dim 1) zeroed with
    probability p, the rest scaled by 1 / (1 - p)."""
    if _state.entry and _wants(locals()):
        return _handle(feature_dropout, locals())
    return _dropout_impl(input, p, train, True, False, False)


@register_frontend(method=False)
def feature_dropout_(input, p, train):
    """feature_dropout_(input, p, train) -> Tensor: feature_dropout written into input."""
    if _state.entry and _wants(locals()):
        return _handle(feature_dropout_, locals())
    return _dropout_impl(input, p, train, True, False, True)


@register_frontend(method=False)
@checked("alpha_dropout(Tensor input, float p, bool train)")
def alpha_dropout(input, p, train):
    """alpha_dropout(input, p, train) -> Tensor: dropout that keeps zero mean and unit
    variance for SELU activations (dropped elements set to SELU's negative saturation, then an
    affine correction)."""
    if _state.entry and _wants(locals()):
        return _handle(alpha_dropout, locals())
    return _dropout_impl(input, p, train, False, True, False)


@register_frontend(method=False)
def alpha_dropout_(input, p, train):
    """alpha_dropout_(input, p, train) -> Tensor: alpha_dropout written into input."""
    if _state.entry and _wants(locals()):
        return _handle(alpha_dropout_, locals())
    return _dropout_impl(input, p, train, False, True, True)


@register_frontend(method=False)
@checked("feature_alpha_dropout(Tensor input, float p, bool train)")
def feature_alpha_dropout(input, p, train):
    """feature_alpha_dropout(input, p, train) -> Tensor: alpha dropout of whole channels."""
    if _state.entry and _wants(locals()):
        return _handle(feature_alpha_dropout, locals())
    return _dropout_impl(input, p, train, True, True, False)


@register_frontend(method=False)
def feature_alpha_dropout_(input, p, train):
    """feature_alpha_dropout_(input, p, train) -> Tensor: feature_alpha_dropout written into
    input."""
    if _state.entry and _wants(locals()):
        return _handle(feature_alpha_dropout_, locals())
    return _dropout_impl(input, p, train, True, True, True)


@register_frontend(method=False)
@checked("native_dropout(Tensor input, float p, bool? train)")
def native_dropout(input, p, train):
    """native_dropout(input, p, train) -> (Tensor, Tensor): the dropout output and the
    boolean keep-mask (all True out of training)."""
    if _state.entry and _wants(locals()):
        return _handle(native_dropout, locals())
    _check_p(p)
    if train is False:
        return input.clone(), input.new_ones(input.shape, dtype=_bool())
    if p == 1:
        return input * input.new_zeros(()), input.new_zeros(input.shape, dtype=_bool())
    mask = input.new_empty(input.shape).bernoulli_(1 - p)
    return input * mask * (1.0 / (1 - p)), mask.bool()


def _bool():
    from ember._core import dtype as dt
    return dt.bool
