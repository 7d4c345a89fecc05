"""Geometry the pooling and resampling entries share (nn_pooling.py, nn_sampling.py): argument
normalisation, output sizes, and separable linear maps applied one spatial axis at a time.

NOTE [separable linear maps]: average pooling, adaptive average pooling and every interpolation
mode except grid sampling are linear maps that act on each spatial axis independently: the
result is the input multiplied along axis d by a small (out_d, in_d) matrix, for each d in
turn. So one routine (`apply_axes`) runs them all as BLAS matmuls over the whole batch, and
their backward is the same routine with the matrices transposed. A window's divisor (the count
of elements it covers) is a product of per-axis counts, so it folds into the matrices too.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented

LOW_PRECISION = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


def expand_arg(value, n, name, op_name):
    """An int or a sequence of 1 or n ints as a tuple of n ints (as PyTorch's int[n])."""
    if isinstance(value, (list, tuple)):
        _check(len(value) in (1, n), lambda: (
            f"{op_name}: {name} must either be a single int, or a tuple of {n} ints"))
        values = tuple(int(v) for v in value)
        return values * n if len(values) == 1 else values
    return (int(value),) * n


def compute_dtype(x):
    """The dtype a kernel computes in: float32 for the half types (rounded once at the end)."""
    return np.dtype(np.float32) if x.dtype in LOW_PRECISION else x.dtype


def check_float(x, kernel_name, cpp_name):
    _check_not_implemented(x.dtype.kind in "fc" or x.dtype in LOW_PRECISION, lambda: (
        f'"{kernel_name}" not implemented for \'{cpp_name}\''))


def check_batch_dims(shape, spatial, op_name):
    """PyTorch's check that a pooling input is (C, *spatial) or (N, C, *spatial) with no
    empty dim other than the batch."""
    ndim = len(shape)
    lo, hi = spatial + 1, spatial + 2
    _check(ndim in (lo, hi) and all(s != 0 for s in shape[ndim - spatial - 1:]), lambda: (
        f"Expected {lo}D or {hi}D (batch mode) tensor with optional 0 dim batch size for "
        f"{op_name}, but got:{list(shape)}"))


# --------------------------------------------------------------------------- window pooling

def pooled_size(size, kernel, pad, stride, dilation, ceil_mode):
    """PyTorch's pooling_output_shape for one axis."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = span // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def pool_geometry(shape, kernel, stride, padding, dilation, ceil_mode):
    """Checks the window arguments against an input shape and returns the output's spatial
    sizes (the messages are PyTorch's)."""
    spatial = len(kernel)
    _check(all(k > 0 for k in kernel), lambda: (
        f"kernel size should be greater than zero, but got {_sizes(kernel)}"))
    _check(all(s > 0 for s in stride), "stride should not be zero")
    _check(all(d > 0 for d in dilation), lambda: (
        f"dilation should be greater than zero, but got {_sizes(dilation)}"))
    for k, p, d in zip(kernel, padding, dilation):
        _check(p >= 0, "pad must be non-negative")
        _check(p <= ((k - 1) * d + 1) // 2, lambda k=k, p=p, d=d: (
            f"pad should be at most half of effective kernel size, but got pad={p}, "
            f"kernel_size={k} and dilation={d}"))
    sizes = tuple(shape[-spatial:])
    out = tuple(pooled_size(*args, ceil_mode) for args in zip(
        sizes, kernel, padding, stride, dilation))
    channels = shape[-spatial - 1]
    _check(all(o >= 1 for o in out), lambda: (
        f"Given input size: ({'x'.join(map(str, (channels,) + sizes))}). Calculated output "
        f"size: ({'x'.join(map(str, (channels,) + out))}). Output size is too small"))
    return out


def _sizes(values):
    return "(" + ", ".join(map(str, values)) + ")" if len(values) > 1 else str(values[0])


# NOTE [max pooling ties]: a window's maximum is a chain of np.maximum over its offsets (NaN
# propagates). Its offset is the first one that equals it: a pass over the offsets in reverse
# with branch-free arithmetic on small integer codes (np.where and masked writes are several
# times slower on random masks). Windows holding NaN take their last NaN's offset, as
# PyTorch's `val > max || isnan(val)` loops do.

def max_and_first_offset(xp, views):
    """(elementwise maximum of `views`, which view holds it first) -- see the NOTE above."""
    best = views[0].copy()
    for values in views[1:]:
        xp.maximum(best, values, out=best)
    code_dtype = np.int8 if len(views) < 128 else np.int32
    code = xp.full(best.shape, len(views) - 1, code_dtype)
    for k in range(len(views) - 2, -1, -1):
        hit = (views[k] == best).view(np.int8).astype(code_dtype, copy=False)
        code += hit * (code_dtype(k) - code)
    if best.dtype.kind not in "iub" and xp.isnan(best).any():
        for k, values in enumerate(views):
            code = xp.where(xp.isnan(values), code_dtype(k), code)
    return best, code


def select_by_code(xp, code, choices):
    """choices[code] elementwise (each choice, a host array or number, broadcasts to code's
    shape), in int64."""
    out = xp.zeros(code.shape, np.int64)
    for k, choice in enumerate(choices):
        out += (code == k) * (choice if xp is np else xp.asarray(choice))
    return out


# --------------------------------------------------------------------------- separable maps

def apply_axes(xp, x, matrices):
    """`x` with matrices[i] (out_i, in_i) applied along its i-th of the last len(matrices)
    axes (None: that axis unchanged). See NOTE [separable linear maps]."""
    spatial = len(matrices)
    for i, matrix in enumerate(matrices):
        if matrix is not None:
            x = _apply_axis(xp, x, x.ndim - spatial + i, matrix)
    return x


# A matrix is applied as a dense matmul while its input size is at most this many times its
# most nonzeros in a row (BLAS multiply-adds are that much cheaper than gathered ones, measured
# on (N, C, 32..224, 32..224) float32); sparser ones gather their few nonzeros per row, which
# keeps the cost linear in the size (a 2x bilinear of a 224-pixel axis is 2 taps, not 224).
_DENSE_WORK = 64


def _apply_axis(xp, x, axis, matrix):
    """`matrix`, a host array, applied along `axis` (on a device as a dense product)."""
    nonzero = matrix != 0
    taps = int(nonzero.sum(axis=1).max()) if matrix.size else 0
    if xp is not np:
        matrix = xp.asarray(matrix)
    if xp is not np or matrix.shape[1] <= _DENSE_WORK * taps:
        if axis == x.ndim - 1:
            return x @ matrix.T
        lead, n, rest = x.shape[:axis], x.shape[axis], x.shape[axis + 1:]
        flat = x.reshape(lead + (n, int(np.prod(rest))))
        return (matrix @ flat).reshape(lead + (matrix.shape[0],) + rest)
    # Each row's nonzero columns first (padded with weight-0 columns up to `taps`).
    columns = np.argsort(~nonzero, axis=1, kind="stable")[:, :taps]
    weights = np.take_along_axis(matrix, columns, axis=1)
    shape = [1] * x.ndim
    shape[axis] = matrix.shape[0]
    out = None
    for k in range(taps):
        term = np.take(x, columns[:, k], axis=axis)
        if not (weights[:, k] == 1).all():
            term *= weights[:, k].reshape(shape)
        if out is None:
            out = term
        else:
            out += term
    return out


def run_separable(xp, x, matrices, transpose=False):
    """The kernel shared by the separable entries: half types in float32, matrices built in
    float64 and cast to the compute dtype once."""
    dtype = compute_dtype(x)
    mats = [None if m is None else (m.T if transpose else m).astype(dtype) for m in matrices]
    if x.size == 0:
        shape = x.shape[:x.ndim - len(mats)] + tuple(
            (x.shape[x.ndim - len(mats) + i] if m is None else m.shape[0])
            for i, m in enumerate(mats))
        return xp.zeros(shape, x.dtype)
    out = apply_axes(xp, x.astype(dtype, copy=False), mats)
    if out is x:
        return x.copy()
    return xp.ascontiguousarray(out.astype(x.dtype, copy=False))


def window_matrix(size, out, kernel, stride, pad, ceil_count_include_pad):
    """Average pooling along one axis: (out, size) with 1 where window o covers an input
    element, and the per-axis window counts (with padding, without)."""
    starts = np.arange(out) * stride - pad
    ends_padded = np.minimum(starts + kernel, size + pad)
    counts_padded = ends_padded - starts
    lo = np.maximum(starts, 0)
    hi = np.minimum(ends_padded, size)
    positions = np.arange(size)
    matrix = ((positions >= lo[:, None]) & (positions < hi[:, None])).astype(np.float64)
    return matrix, counts_padded.astype(np.float64), (hi - lo).astype(np.float64)


def adaptive_bounds(size, out):
    """Adaptive pooling windows along one axis: start = floor(o*size/out),
    end = ceil((o+1)*size/out)."""
    o = np.arange(out)
    starts = (o * size) // out
    ends = -((-(o + 1) * size) // out)
    return starts, ends


def adaptive_matrix(size, out):
    starts, ends = adaptive_bounds(size, out)
    positions = np.arange(size)
    matrix = ((positions >= starts[:, None]) & (positions < ends[:, None])).astype(np.float64)
    return matrix / (ends - starts)[:, None]
