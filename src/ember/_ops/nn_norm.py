"""Normalisation ops: native_batch_norm, native_layer_norm, native_group_norm and their
backward ops (the backward ops are kernels, not compositions, because they run in every
training step; their own derivatives, for second derivatives and forward-mode AD, are in
nn_norm_double.py: NOTE [normalisation double backward]).

All three normalise x to x_hat = (x - mean) * rstd over some axes, then scale and shift it.
NOTE [normalisation gradient]: with dy = grad * weight and the means taken over the normalised
axes, dx = rstd * (dy - mean(dy) - x_hat * mean(dy * x_hat)) (in eval mode batch norm's
statistics are constants and dx = rstd * dy).

NOTE [running statistics]: in training native_batch_norm writes the running mean and variance
in place (new = (1 - momentum) * old + momentum * batch statistic), the variance being the
unbiased one (n / (n - 1) times the biased variance used to normalise), as PyTorch does.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import suggested_strides
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.layout import CHANNELS_LAST, CHANNELS_LAST_3D, CONTIGUOUS, is_contiguous_as
from ember._core.registry import OPS, register_op
from ember._core.shape import size_at
from ember._ops import nn_norm_double as double
from ember._ops.nn_norm_moments import LANES, pytorch_row_moments
from ember._ops.pointwise import not_implemented_for

_WIDEN = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


def _compute_dtype(name, x):
    """The dtype the statistics are computed in: float32 for the half types."""
    if x.dtype in _WIDEN:
        return np.dtype(np.float32)
    if x.dtype.kind != "f":
        not_implemented_for(name, x)
    return x.dtype


def _normalize_grad(xp, dy, x_hat, rstd, axes):
    """NOTE [normalisation gradient]; rstd broadcasts against dy."""
    mean_dy = dy.mean(axis=axes, keepdims=True)
    mean_dy_xhat = (dy * x_hat).mean(axis=axes, keepdims=True)
    return (dy - mean_dy - x_hat * mean_dy_xhat) * rstd


def _moments(xp, x, axes):
    """(mean, biased variance) over `axes`, kept as size-1 dimensions.

    Sums times 1/n rather than `mean` (which costs several times more on small arrays)."""
    count = 1
    for axis in axes:
        count *= x.shape[axis]
    scale = x.dtype.type(1 / count) if count else x.dtype.type(np.nan)
    mean = xp.add.reduce(x, axis=axes, keepdims=True) * scale
    centered = x - mean
    centered *= centered
    return mean, xp.add.reduce(centered, axis=axes, keepdims=True) * scale


def _memo_grads(c, backward):
    """The node's backward op runs once for all inputs (ctx.memo keeps its outputs)."""
    if c.memo is None:
        c.memo = backward(c)
    return c.memo


# --------------------------------------------------------------------------- batch norm

def _channel_shape(ndim, channels):
    return (1, channels) + (1,) * (ndim - 2)


# NOTE [batch norm of an empty input]: PyTorch's native_batch_norm refuses an empty input in
# training ("input tensor must have at least one element") and in evaluation returns empty
# results at once, unchecked (no running statistics needed: save_mean and save_invstd of size
# 0). nn.functional.batch_norm never reaches it there: its composite returns input.clone()
# (times weight[0], plus bias[0]) for an empty input, in training too.
def _batch_norm_checks(input, weight, bias, running_mean, running_var, training):
    _check(input.ndim >= 1, lambda: (
        f"batch_norm(): expected input with at least 2 dimensions, got {input.ndim}"))
    channels = size_at(input.shape, 1)      # (PyTorch reads size(1): a 1-d input's IndexError)
    if input.size == 0:                        # NOTE [batch norm of an empty input]
        _check(not training, lambda: (
            "input tensor must have at least one element, but got input_sizes = "
            f"{list(input.shape)}"))
        return None
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        _check(t is None or t.size == channels, lambda name=name, t=t: (
            f"{name} should contain {channels} elements not {t.size}"))
    _check(training or (running_mean is not None and running_var is not None),
           "running_mean and running_var must be defined in evaluation mode")
    return channels


def _batch_norm_meta(input, weight, bias, running_mean, running_var, training, momentum, eps):
    arrays = [None if a is None else a._data
              for a in (input, weight, bias, running_mean, running_var)]
    channels = _batch_norm_checks(*arrays, training)
    stats = (channels,) if training else (0,)
    shape = tuple(input.shape)
    strides = suggested_strides(shape, input._data, input._dtype.itemsize)
    return [(shape, input._dtype, strides), (stats, input._dtype), (stats, input._dtype)]


def _batch_norm_backward(c):
    return call(OPS["native_batch_norm_backward"], (
        c.grad, c.input, c.weight, c.running_mean, c.running_var, c.results[1],
        c.results[2], c.training, c.eps, [True, c.weight is not None, True]))


@register_op("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
             "Tensor? running_mean, Tensor? running_var, bool training, float momentum, "
             "float eps) -> (Tensor, Tensor, Tensor)", kind="generic", method=False,
             tags=("fp_errors",), meta=_batch_norm_meta,
             saves=("input", "weight", "running_mean", "running_var", "result1", "result2"),
             derivatives={
                 "input": lambda c: _memo_grads(c, _batch_norm_backward)[0],
                 "weight": lambda c: _memo_grads(c, _batch_norm_backward)[1],
                 "bias": lambda c: _memo_grads(c, _batch_norm_backward)[2]})
def native_batch_norm(xp, input, weight, bias, running_mean, running_var, training, momentum,
                      eps):
    """native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
    eps) -> (output, save_mean, save_invstd): batch normalisation over every dimension but
    the channels (dim 1). In training the batch's statistics normalise and update the running
    ones in place; otherwise the running ones normalise (and save_mean/save_invstd are empty).
    """
    if input.size == 0:
        _compute_dtype("batch_norm", input)
    if _batch_norm_checks(input, weight, bias, running_mean, running_var, training) is None:
        empty = xp.empty((0,), input.dtype)             # NOTE [batch norm of an empty input]
        return input.copy(), empty, empty.copy()
    compute_dtype = _compute_dtype("batch_norm", input)
    x = input.astype(compute_dtype, copy=False)
    if training:
        # NOTE [batch norm by rows]: seen as (N, C, L) rows, the statistics are sums along
        # contiguous rows, and the output is the centred input scaled in place.
        rows = _as_rows(x)
        count = rows.shape[0] * rows.shape[2]
        scale_by = compute_dtype.type(1 / count) if count else compute_dtype.type(np.nan)
        mean = _channel_sums(rows) * scale_by
        if input.dtype == np.float32 and backend_helpers(xp).host and not bool(np.isfinite(mean).all()) \
                and input.flags.c_contiguous:
            # PyTorch sums a contiguous float32 input's channels in float64 (an input in
            # channels-last or in no memory format, and bfloat16 input, in float32 straight,
            # so two values of 3.4e38 in a channel make its mean inf and the channel NaN):
            # a finite mean is taken where the float64 sum finds one.
            wide = rows.sum(axis=(0, 2), dtype=np.float64) * (1 / count if count else np.nan)
            mean = np.where(np.isfinite(mean) | ~np.isfinite(wide.astype(np.float32)), mean,
                            wide.astype(np.float32))
        out = rows - mean[:, None]
        var = _channel_dots(xp, out, out) * scale_by
        invstd = 1 / xp.sqrt(var + compute_dtype.type(eps))
        if input.dtype == np.float32 and backend_helpers(xp).host and not bool(np.isfinite(var).all()) \
                and not _dense_in_a_memory_format(input):
            # For an input in neither memory format PyTorch accumulates float32 statistics
            # in float64 (for the others in float32): a variance past float32's largest
            # (values near 3e38) still gives a finite invstd (1e-38), which
            # NOTE [batch norm output by layout] then multiplies.
            wide = rows.astype(np.float64) - mean.astype(np.float64)[:, None]
            wide_var = (wide * wide).sum(axis=(0, 2)) * (1 / count if count else np.nan)
            invstd = np.where(np.isfinite(var), invstd,
                              (1 / np.sqrt(wide_var + eps)).astype(np.float32))
        if running_mean is not None:
            running_mean *= 1 - momentum
            running_mean += (momentum * mean).astype(running_mean.dtype)
        if running_var is not None:
            unbiased = var * (count / (count - 1)) if count > 1 else var * np.inf
            running_var *= 1 - momentum
            running_var += (momentum * unbiased).astype(running_var.dtype)
        out = _normalized(xp, input, rows, mean, invstd, weight, bias, out=out)
        out = out.reshape(x.shape)
        saved = (mean.astype(input.dtype), invstd.astype(input.dtype))
    else:
        invstd = 1 / xp.sqrt(running_var.astype(compute_dtype) + compute_dtype.type(eps))
        out = _normalized(xp, input, _as_rows(x), running_mean.astype(compute_dtype),
                          invstd, weight, bias).reshape(x.shape)
        empty = xp.empty((0,), input.dtype)
        saved = (empty, empty.copy())
    return (out.astype(input.dtype, copy=False),) + saved


def _normalized(xp, input, rows, mean, invstd, weight, bias, out=None):
    """NOTE [batch norm output by layout]: the normalised output, formed as PyTorch forms it for
    the input's layout. A contiguous input (either memory format) goes through one fused
    multiply-add per element, x * scale + shift in the compute dtype (scale = invstd * weight,
    shift = bias - mean * scale); any other layout through ((x - mean) * invstd) * weight + bias,
    each step rounded to the input's dtype. The two differ where a step overflows (a running
    mean of -3.4e38: NaN at x = -inf in the first, -inf in the second) and, for the half types,
    in the last bits. `rows` is the input in the compute dtype seen as (N, C, L)."""
    if not _dense_in_a_memory_format(input):
        dtype = input.dtype.type
        shape = (1, -1, 1)
        result = (xp.asarray(input.reshape(rows.shape)) - mean.astype(dtype).reshape(shape)) * \
            invstd.astype(dtype).reshape(shape)
        if weight is not None:
            result = result * weight.astype(dtype, copy=False).reshape(shape)
        if bias is not None:
            result = result + bias.astype(dtype, copy=False).reshape(shape)
        return result
    compute = rows.dtype
    scale = (invstd if weight is None else invstd * weight).astype(compute, copy=False)
    shift = -mean * scale
    if bias is not None:
        shift += bias.astype(compute, copy=False)
    if out is None:
        out = xp.empty_like(rows)
    xp.multiply(rows, scale[:, None], out=out)
    out += shift[:, None]
    # Without the fused multiply-add, x * scale may round to an infinity that a shift would
    # pull back to a finite sum (or inf + -inf = NaN): possible only where a shift is not
    # finite or exceeds half a unit of float32's largest value (2 ** 103), and then seen as a
    # non-finite output (a non-finite sum of the outputs: a pass without a temporary); there
    # the sum is taken again in float64 (exact products of float32 values).
    if compute != np.float64 and backend_helpers(xp).host and not (
            np.isfinite(shift).all() and np.all(np.abs(shift) < 2.0 ** 100)) and \
            not np.isfinite(np.add.reduce(out, axis=None)):
        wide = rows.astype(np.float64) * scale.astype(np.float64)[:, None] + \
            shift.astype(np.float64)[:, None]
        out[...] = wide
    return out


def _dense_in_a_memory_format(a):
    """Whether PyTorch sees the array as contiguous in its rank's memory formats."""
    strides = tuple(s // a.itemsize for s in a.strides)
    return is_contiguous_as(a.shape, strides, CONTIGUOUS) or any(
        is_contiguous_as(a.shape, strides, name) for name in (CHANNELS_LAST, CHANNELS_LAST_3D))


def _as_rows(x):
    """(N, C, *spatial) -> (N, C, L), a view where the layout allows."""
    return x.reshape(x.shape[:2] + (math.prod(x.shape[2:]),))


def _channel_sums(rows):
    """(N, C, L) -> (C,): pairwise sums along the rows, then over N."""
    return rows.sum(axis=2).sum(axis=0)


def _channel_dots(xp, a, b):
    """(N, C, L) twice -> (C,): the sum over N and L of a * b; rows of 32 or more go
    through one BLAS dot each (no product array), shorter ones through the product."""
    if a.shape[2] >= 32:
        return xp.matmul(a[:, :, None, :], b[:, :, :, None]).reshape(a.shape[:2]).sum(axis=0)
    return _channel_sums(a * b)


def _batch_norm_backward_meta(grad_out, input, weight, running_mean, running_var, save_mean,
                              save_invstd, train, eps, output_mask):
    channels = (input.shape[1],)
    return [(tuple(input.shape), input._dtype), (channels, input._dtype),
            (channels, input._dtype)]


@register_op("native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, "
             "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, "
             "Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> "
             "(Tensor, Tensor, Tensor)", kind="generic", function=False, method=False,
             tags=("fp_errors",), meta=_batch_norm_backward_meta,
             derivatives=double.derivatives(double.batch_norm_grads, (
                 "running_mean", "running_var", "save_mean", "save_invstd")))
def native_batch_norm_backward(xp, grad_out, input, weight, running_mean, running_var,
                               save_mean, save_invstd, train, eps, output_mask):
    """The gradients of native_batch_norm's output with respect to (input, weight, bias)."""
    compute_dtype = _compute_dtype("batch_norm_backward", input)
    x = input.astype(compute_dtype, copy=False)
    g = grad_out.astype(compute_dtype, copy=False)
    if train:
        mean, invstd = save_mean, save_invstd
    else:
        mean = running_mean
        invstd = 1 / xp.sqrt(running_var.astype(compute_dtype) + compute_dtype.type(eps))
    mean = mean.astype(compute_dtype, copy=False)
    invstd = invstd.astype(compute_dtype, copy=False)
    # NOTE [normalisation gradient] by rows (NOTE [batch norm by rows]): with the per-channel
    # sums Sg = sum(g) and S = sum(g * (x - mean)) over M = N * L values,
    #   grad_weight = invstd * S,   grad_bias = Sg,
    #   dx = k * g - k * Sg / M - k * invstd**2 * S / M * (x - mean),   k = invstd * weight.
    rows = _as_rows(x)
    grads = g.reshape(rows.shape)
    count = rows.shape[0] * rows.shape[2]
    centered = rows - mean[:, None]
    sum_g = _channel_sums(grads)
    sum_gx = _channel_dots(xp, grads, centered)
    k = invstd if weight is None else invstd * weight.astype(compute_dtype, copy=False)
    grad_input = grads * k[:, None]
    if train:
        inv_count = compute_dtype.type(1 / count) if count else compute_dtype.type(np.nan)
        centered *= (-k * invstd * invstd * sum_gx * inv_count)[:, None]
        grad_input += centered
        grad_input -= (k * sum_g * inv_count)[:, None]
    grad_weight = invstd * sum_gx
    return (grad_input.reshape(x.shape).astype(input.dtype, copy=False),
            grad_weight.astype(input.dtype), sum_g.astype(input.dtype))


# --------------------------------------------------------------------------- layer norm

def _layer_norm_checks(input, normalized_shape, weight, bias):
    normalized_shape = tuple(normalized_shape)
    count = len(normalized_shape)
    _check(count >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., "
           "containing at least one element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        _check(t is None or t.shape == normalized_shape, lambda name=name, t=t: (
            f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
            f"shape {list(t.shape)} and normalized_shape = {list(normalized_shape)}"))
    _check(input.ndim >= count and input.shape[input.ndim - count:] == normalized_shape,
           lambda: (f"Given normalized_shape={list(normalized_shape)}, expected input with "
                    f"shape [*, {', '.join(str(s) for s in normalized_shape)}], but got "
                    f"input of size{list(input.shape)}"))
    return count


def _layer_norm_meta(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    count = _layer_norm_checks(input._data, normalized_shape,
                               None if weight is None else weight._data,
                               None if bias is None else bias._data)
    stats = tuple(input.shape[:input.ndim - count]) + (1,) * count
    return [(tuple(input.shape), input._dtype), (stats, input._dtype), (stats, input._dtype)]


def _layer_norm_backward(c):
    return call(OPS["native_layer_norm_backward"], (
        c.grad, c.input, c.normalized_shape, c.results[1], c.results[2], c.weight,
        c.bias, [True, c.weight is not None, c.bias is not None]))


@register_op("native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, "
             "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", kind="generic",
             method=False, tags=("fp_errors",), meta=_layer_norm_meta,
             saves=("input", "weight", "bias", "result1", "result2"),
             derivatives={
                 "input": lambda c: _memo_grads(c, _layer_norm_backward)[0],
                 "weight": lambda c: _memo_grads(c, _layer_norm_backward)[1],
                 "bias": lambda c: _memo_grads(c, _layer_norm_backward)[2]})
def native_layer_norm(xp, input, normalized_shape, weight, bias, eps):
    """native_layer_norm(input, normalized_shape, weight, bias, eps) -> (output, mean, rstd):
    normalisation over the last len(normalized_shape) dimensions."""
    count = _layer_norm_checks(input, normalized_shape, weight, bias)
    compute_dtype = _compute_dtype("LayerNormKernelImpl", input)
    x = input.astype(compute_dtype, copy=False)
    lead = x.shape[:x.ndim - count]
    # NOTE [layer norm by rows]: seen as (R, F) rows, the statistics are one BLAS product
    # (the sums) and one row-wise dot (the squared deviations); the output is the centred
    # input, scaled and shifted in place.
    rows = x.reshape(math.prod(lead), math.prod(x.shape[x.ndim - count:]))
    features = rows.shape[1]
    scale_by = compute_dtype.type(1 / features) if features else compute_dtype.type(np.nan)
    mean = _row_sums(xp, rows) * scale_by
    out = rows - mean[:, None]
    var = _row_dots(xp, out, out) * scale_by
    if compute_dtype in LANES and backend_helpers(xp).host:     # NOTE [back-end helpers]
        replayed = pytorch_row_moments(rows, mean, var, input.dtype in _WIDEN)
        if replayed is not None:
            out[replayed] = rows[replayed] - mean[replayed, None]
    else:
        replayed = None
    rstd = 1 / xp.sqrt(var + compute_dtype.type(eps))
    out *= rstd[:, None]
    if replayed is not None and input.dtype in _WIDEN:
        # (PyTorch's output of a half type is x * rstd - rstd * mean, of float32 and float64
        # (x - mean) * rstd: on these rows x - mean may overflow)
        out[replayed] = rows[replayed] * rstd[replayed, None] - \
            (rstd[replayed] * mean[replayed])[:, None]
    if weight is not None:
        out *= weight.astype(compute_dtype, copy=False).reshape(-1)
    if bias is not None:
        out += bias.astype(compute_dtype, copy=False).reshape(-1)
    stats = lead + (1,) * count
    return (out.reshape(x.shape).astype(input.dtype, copy=False),
            mean.reshape(stats).astype(input.dtype, copy=False),
            rstd.reshape(stats).astype(input.dtype, copy=False))


def _row_sums(xp, rows):
    """(R, F) -> (R,): one BLAS product with a vector of ones."""
    return xp.matmul(rows, xp.ones(rows.shape[1], rows.dtype))


def _row_dots(xp, a, b):
    """(R, F) twice -> (R,): sum over F of a * b, without the product array."""
    return xp.einsum("rf,rf->r", a, b)


def _column_dots(xp, a, b):
    """(R, F) twice -> (F,): sum over R of a * b, without the product array."""
    return xp.einsum("rf,rf->f", a, b)


def _layer_norm_backward_meta(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                              output_mask):
    shape = tuple(normalized_shape)
    return [(tuple(input.shape), input._dtype), (shape, input._dtype), (shape, input._dtype)]


@register_op("native_layer_norm_backward(Tensor grad_out, Tensor input, "
             "SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, "
             "Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)", kind="generic",
             function=False, method=False, tags=("fp_errors",),
             meta=_layer_norm_backward_meta,
             derivatives=double.derivatives(double.layer_norm_grads, ("mean", "rstd", "bias")))
def native_layer_norm_backward(xp, grad_out, input, normalized_shape, mean, rstd, weight, bias,
                               output_mask):
    """The gradients of native_layer_norm's output with respect to (input, weight, bias)."""
    compute_dtype = _compute_dtype("LayerNormBackwardKernelImpl", input)
    x = input.astype(compute_dtype, copy=False)
    g = grad_out.astype(compute_dtype, copy=False)
    count = len(normalized_shape)
    features = math.prod(x.shape[x.ndim - count:])
    rows = x.reshape(math.prod(x.shape[:x.ndim - count]), features)
    grads = g.reshape(rows.shape)
    rstd = rstd.astype(compute_dtype, copy=False).reshape(-1)
    # NOTE [normalisation gradient] by rows (NOTE [layer norm by rows]), dy = g * weight:
    #   dx = rstd * (dy - sum(dy) / F - x_hat * sum(dy * x_hat) / F).
    x_hat = rows - mean.astype(compute_dtype, copy=False).reshape(-1, 1)
    x_hat *= rstd[:, None]
    grad_weight = _column_dots(xp, grads, x_hat)
    grad_bias = xp.matmul(xp.ones(rows.shape[0], compute_dtype), grads)
    dy = grads if weight is None else grads * weight.astype(compute_dtype, copy=False).reshape(-1)
    inv_features = compute_dtype.type(1 / features) if features else compute_dtype.type(np.nan)
    x_hat *= (_row_dots(xp, dy, x_hat) * inv_features)[:, None]
    grad_input = dy - x_hat
    grad_input -= (_row_sums(xp, dy) * inv_features)[:, None]
    grad_input *= rstd[:, None]
    weight_shape = tuple(normalized_shape)
    return (grad_input.reshape(x.shape).astype(input.dtype, copy=False),
            grad_weight.reshape(weight_shape).astype(input.dtype),
            grad_bias.reshape(weight_shape).astype(input.dtype))


# --------------------------------------------------------------------------- group norm

def _group_norm_checks(input, weight, bias, n, c, hxw, group):
    _check(group > 0 and c % group == 0, lambda: (
        f"Expected number of channels in input to be divisible by num_groups, but got input "
        f"of shape {list(input.shape)} and num_groups={group}"))
    for name, t in (("weight", weight), ("bias", bias)):
        _check(t is None or (t.ndim == 1 and t.size == c), lambda name=name, t=t: (
            f"Expected {name} to be a vector of size equal to the number of channels in "
            f"input, but got {name} of shape {list(t.shape)} and input of shape "
            f"{list(input.shape)}"))
    _check(input.size == n * c * hxw, lambda: (
        f"Expected the input of {n}x{c}x{hxw} elements, got {list(input.shape)}"))


def _group_norm_meta(input, weight, bias, n, c, hxw, group, eps):
    _group_norm_checks(input._data, None if weight is None else weight._data,
                       None if bias is None else bias._data, n, c, hxw, group)
    stats = (n, group)
    return [(tuple(input.shape), input._dtype), (stats, input._dtype), (stats, input._dtype)]


def _group_norm_backward(c):
    return call(OPS["native_group_norm_backward"], (
        c.grad, c.input, c.results[1], c.results[2], c.weight, c.N, c.C, c.HxW, c.group,
        [True, c.weight is not None, True]))


@register_op("native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, "
             "SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)",
             kind="generic", method=False, tags=("fp_errors",), meta=_group_norm_meta,
             saves=("input", "weight", "result1", "result2"),
             derivatives={
                 "input": lambda c: _memo_grads(c, _group_norm_backward)[0],
                 "weight": lambda c: _memo_grads(c, _group_norm_backward)[1],
                 "bias": lambda c: _memo_grads(c, _group_norm_backward)[2]})
def native_group_norm(xp, input, weight, bias, N, C, HxW, group, eps):
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (output, mean, rstd):
    the channels split into `group` groups, each normalised over its channels and positions
    per sample; mean and rstd have shape (N, group)."""
    _group_norm_checks(input, weight, bias, N, C, HxW, group)
    compute_dtype = _compute_dtype("GroupNormKernelImpl", input)
    x = input.astype(compute_dtype, copy=False).reshape(N, group, -1)
    mean, var = _moments(xp, x, (2,))
    if compute_dtype in LANES and backend_helpers(xp).host:     # NOTE [back-end helpers]
        # (mean and var are (N, group, 1): their flat views are written through)
        pytorch_row_moments(x.reshape(N * group, -1), mean.reshape(-1), var.reshape(-1),
                             input.dtype in _WIDEN)
    centered = x - mean
    rstd = 1 / xp.sqrt(var + compute_dtype.type(eps))
    out = (centered * rstd).reshape(N, C, HxW)
    if weight is not None:
        out *= weight.astype(compute_dtype, copy=False)[:, None]
    if bias is not None:
        out += bias.astype(compute_dtype, copy=False)[:, None]
    return (out.reshape(input.shape).astype(input.dtype, copy=False),
            mean.reshape(N, group).astype(input.dtype), rstd.reshape(N, group).astype(input.dtype))


def _group_norm_backward_meta(grad_out, input, mean, rstd, weight, N, C, HxW, group,
                              output_mask):
    return [(tuple(input.shape), input._dtype), ((C,), input._dtype), ((C,), input._dtype)]


@register_op("native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, "
             "Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, "
             "bool[3] output_mask) -> (Tensor, Tensor, Tensor)", kind="generic",
             function=False, method=False, tags=("fp_errors",),
             meta=_group_norm_backward_meta,
             derivatives=double.derivatives(double.group_norm_grads, ("mean", "rstd")))
def native_group_norm_backward(xp, grad_out, input, mean, rstd, weight, N, C, HxW, group,
                               output_mask):
    """The gradients of native_group_norm's output with respect to (input, weight, bias)."""
    compute_dtype = _compute_dtype("GroupNormBackwardKernelImpl", input)
    x = input.astype(compute_dtype, copy=False).reshape(N, group, -1)
    g = grad_out.astype(compute_dtype, copy=False).reshape(N, C, HxW)
    rstd = rstd.astype(compute_dtype, copy=False).reshape(N, group, 1)
    x_hat = (x - mean.astype(compute_dtype, copy=False).reshape(N, group, 1)) * rstd
    dy = g if weight is None else g * weight.astype(compute_dtype, copy=False)[:, None]
    grad_input = _normalize_grad(xp, dy.reshape(N, group, -1), x_hat, rstd, (2,))
    grad_weight = (g * x_hat.reshape(N, C, HxW)).sum(axis=(0, 2))
    grad_bias = g.sum(axis=(0, 2))
    return (grad_input.reshape(input.shape).astype(input.dtype, copy=False),
            grad_weight.astype(input.dtype), grad_bias.astype(input.dtype))
