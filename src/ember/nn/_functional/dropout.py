"""Functional dropout (NOTE [dropout noise] in ember/_ops/nn_dropout.py): dropout, the
channel-wise forms dropout1d/2d/3d, alpha_dropout and feature_alpha_dropout."""
from __future__ import annotations

import warnings

from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.lazy_method import LazyModule

_ops = LazyModule("ember._ops.nn_dropout", globals(), "_ops")   # (loads on first use)

__all__ = ["alpha_dropout", "dropout", "dropout1d", "dropout2d", "dropout3d",
           "feature_alpha_dropout"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p in training, scaling the rest by 1 / (1 - p)."""
    if _state.entry and _wants(locals()):
        return _handle(dropout, locals())
    _check_p(p)
    if inplace:
        return _ops.dropout_(input, p, training)
    return _ops.dropout(input, p, training)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps a SELU network's mean and variance."""
    if _state.entry and _wants(locals()):
        return _handle(alpha_dropout, locals())
    _check_p(p)
    if inplace:
        return _ops.alpha_dropout_(input, p, training)
    return _ops.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels."""
    if _state.entry and _wants(locals()):
        return _handle(feature_alpha_dropout, locals())
    _check_p(p)
    if inplace:
        return _ops.feature_alpha_dropout_(input, p, training)
    return _ops.feature_alpha_dropout(input, p, training)


def _channel_dropout(input, p, training, inplace, name, dims):
    _check_p(p)
    batched = input.ndim == dims + 2
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{name}: Expected {dims + 1}D or {dims + 2}D input, but received a "
            f"{input.ndim}D input. Note that {name} exists to provide channel-wise dropout on "
            f"inputs with {dims} spatial dimension{'s' if dims > 1 else ''}, a channel "
            "dimension, and an optional batch dimension (i.e. "
            f"{dims + 1}D or {dims + 2}D inputs).")
    if not batched:
        input = input.unsqueeze(0)
    fn = _ops.feature_dropout_ if inplace else _ops.feature_dropout
    result = fn(input, p, training)
    return result if batched else result.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, L) or (C, L) input with probability p."""
    if _state.entry and _wants(locals()):
        return _handle(dropout1d, locals())
    return _channel_dropout(input, p, training, inplace, "dropout1d", 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, H, W) input with probability p."""
    if _state.entry and _wants(locals()):
        return _handle(dropout2d, locals())
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret "
            "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", stacklevel=2)
    fn = _ops.feature_dropout_ if inplace else _ops.feature_dropout
    return fn(input, p, training)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input with probability p."""
    if _state.entry and _wants(locals()):
        return _handle(dropout3d, locals())
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    batched = input.ndim == 5
    if not batched:
        input = input.unsqueeze(0)
    fn = _ops.feature_dropout_ if inplace else _ops.feature_dropout
    result = fn(input, p, training)
    return result if batched else result.squeeze(0)
