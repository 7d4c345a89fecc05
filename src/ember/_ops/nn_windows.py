"""Geometry the pooling and resampling entries share (nn_pooling.py, nn_sampling.py): argument
normalisation, output sizes, and separable linear maps applied one spatial axis at a time.

NOTE [separable linear maps]: average pooling, adaptive average pooling and every interpolation
mode except grid sampling are linear maps that act on each spatial axis independently: the
result is the input multiplied along axis d by a small sparse (out_d, in_d) map, for each d in
turn. So one routine (`apply_axes`) runs them all over the whole batch (as a gather, or a BLAS
matmul where that gives the same result, NOTE [taps, not matrices]), and their backward is the
same routine with the maps transposed. A window's divisor (the count of elements it covers) is
a product of per-axis counts, applied once to the window sums (`run_separable`'s divisor).
"""
from __future__ import annotations

import functools

import numpy as np

from ember._backends.array_helpers import backend_helpers
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
        out += (code == k) * backend_helpers(xp).from_host(choice)
    return out


# --------------------------------------------------------------------------- separable maps

# NOTE [taps, not matrices]: a map is stored as the taps PyTorch's loops read -- output o reads
# input index[o, k] with weight[o, k] -- zero weights included (a linear interpolation at an
# exact source pixel still reads its neighbour, with weight 0), and nothing else. A dense
# product multiplies every input of a row by the row's weights, so one inf or NaN would turn
# every output of the row into NaN (0 * inf); the product is used only where it is proven to
# give the taps' result: when every input it reads is finite. Every input of a row enters every
# output of that row, so the check is the sum of each row's first output (finite exactly when
# all the row's inputs are); a non-finite sum (or an overflow) recomputes the axis from the
# taps. Rows with fewer taps than the widest are padded with `valid` False. Taps are built per
# geometry once (the builders are cached) and hold their dense and transposed forms.

class Taps:
    """A sparse (len(index), size) map as its taps: index and weight (out, width), valid
    (out, width) bool or None (all taps real). See NOTE [taps, not matrices]."""

    __slots__ = ("index", "weight", "valid", "size", "_dense", "_transposed", "_gather")

    def __init__(self, index, weight, size, valid=None):
        self.index = index
        self.weight = weight
        self.size = size
        self.valid = None if valid is None or valid.all() else valid
        self._dense = {}
        self._transposed = None
        self._gather = None

    def is_gather(self):
        """Whether each output copies one input (nearest): a take, never a product."""
        if self._gather is None:
            self._gather = bool(self.index.shape[1] == 1 and self.valid is None
                                and (self.weight == 1).all())
        return self._gather

    @classmethod
    def ranges(cls, starts, ends, size):
        """Windows [starts[o], ends[o]) of weight 1 (empty windows allowed)."""
        width = int((ends - starts).max()) if len(starts) else 0
        index = starts[:, None] + np.arange(width)
        valid = index < ends[:, None]
        index = np.where(valid, index, 0)
        return cls(index, np.ones(index.shape), size, valid)

    @property
    def out(self):
        return self.index.shape[0]

    def dense(self, dtype):
        """The (out, size) matrix in `dtype` (repeated taps add up)."""
        matrix = self._dense.get(dtype)
        if matrix is None:
            weight = self.weight if self.valid is None else self.weight * self.valid
            flat = np.arange(self.out)[:, None] * self.size + self.index
            matrix = np.bincount(flat.ravel(), weight.ravel(), minlength=self.out * self.size)
            matrix = self._dense[dtype] = matrix.reshape(self.out, self.size).astype(dtype)
        return matrix

    def transposed(self):
        """The taps of the transposed map: input i's row lists each (o, weight) that reads it."""
        if self._transposed is None:
            self._transposed = self._transpose()
        return self._transposed

    def _transpose(self):
        rows = np.broadcast_to(np.arange(self.out)[:, None], self.index.shape)
        keep = np.ones(self.index.shape, bool) if self.valid is None else self.valid
        columns, rows, weights = self.index[keep], rows[keep], self.weight[keep]
        order = np.argsort(columns, kind="stable")
        columns, rows, weights = columns[order], rows[order], weights[order]
        counts = np.bincount(columns, minlength=self.size)
        width = int(counts.max()) if counts.size else 0
        first = np.cumsum(counts) - counts
        slot = np.arange(len(columns)) - first[columns]
        index = np.zeros((self.size, width), np.int64)
        weight = np.zeros((self.size, width))
        valid = np.zeros((self.size, width), bool)
        index[columns, slot] = rows
        weight[columns, slot] = weights
        valid[columns, slot] = True
        return Taps(index, weight, self.out, valid)


def apply_axes(xp, x, maps):
    """`x` with maps[i] (Taps, or None: that axis unchanged) applied along its i-th of the
    last len(maps) axes. See NOTE [separable linear maps]."""
    spatial = len(maps)
    for i, taps in enumerate(maps):
        if taps is not None:
            x = _apply_axis(xp, x, x.ndim - spatial + i, taps)
    return x


# A map is applied as a dense matmul while its input size is at most this many times its
# taps per row (BLAS multiply-adds are that much cheaper than gathered ones, measured on
# (N, C, 32..224, 32..224) float32); wider ones gather their taps, which keeps the cost linear
# in the size (a 2x bilinear of a 224-pixel axis is 2 taps, not 224).
_DENSE_WORK = 64


def _apply_axis(xp, x, axis, taps):
    """`taps` applied along `axis` (weights in x's dtype)."""
    width = taps.index.shape[1]
    if width == 0:
        shape = list(x.shape)
        shape[axis] = taps.out
        return xp.zeros(shape, x.dtype)
    if taps.is_gather():
        return xp.take(x, _device(xp, taps.index[:, 0]), axis=axis)
    if taps.size <= _DENSE_WORK * width or not backend_helpers(xp).host:
        out = _dense_product(xp, x, axis, taps)
        first = out[(slice(None),) * axis + (slice(0, 1),)]
        if out.size == 0 or bool(xp.isfinite(first.sum())):
            return out
    shape = [1] * x.ndim
    shape[axis] = taps.out
    out = None
    for k in range(width):
        term = xp.take(x, _device(xp, taps.index[:, k]), axis=axis)
        weight = taps.weight[:, k]
        if not (weight == 1).all():
            term *= _device(xp, weight.astype(x.dtype).reshape(shape))
        if taps.valid is not None and not taps.valid[:, k].all():
            xp.copyto(term, 0, where=_device(xp, ~taps.valid[:, k].reshape(shape)))
        if out is None:
            out = term
        else:
            out += term
    return out


def _device(xp, array):
    return backend_helpers(xp).from_host(array)          # NOTE [back-end helpers]


def _dense_product(xp, x, axis, taps):
    matrix = _device(xp, taps.dense(x.dtype))
    if axis == x.ndim - 1:
        return x @ matrix.T
    lead, n, rest = x.shape[:axis], x.shape[axis], x.shape[axis + 1:]
    flat = x.reshape(lead + (n, int(np.prod(rest))))
    return (matrix @ flat).reshape(lead + (matrix.shape[0],) + rest)


def run_separable(xp, x, maps, transpose=False, divisor=None):
    """The kernel shared by the separable entries: half types in float32. `divisor` (a host
    array broadcasting over the spatial dims of the result, or None) divides the forward
    map's sums, as PyTorch's pooling loops divide a window's sum; the transposed map (the
    backward) divides the gradient before spreading it."""
    dtype = compute_dtype(x)
    if transpose:
        maps = [None if m is None else m.transposed() for m in maps]
    spatial = len(maps)
    if x.size == 0:
        shape = x.shape[:x.ndim - spatial] + tuple(
            (x.shape[x.ndim - spatial + i] if m is None else m.out) for i, m in enumerate(maps))
        return xp.zeros(shape, x.dtype)
    values = x.astype(dtype, copy=False)
    if transpose and divisor is not None:
        values = values / _device(xp, divisor.astype(dtype))
    out = apply_axes(xp, values, maps)
    if not transpose and divisor is not None:
        out = out / _device(xp, divisor.astype(dtype))
    if out is x:
        return x.copy()
    return xp.ascontiguousarray(out.astype(x.dtype, copy=False))


@functools.lru_cache(maxsize=256)
def window_taps(size, out, kernel, stride, pad):
    """Average pooling along one axis: the windows' taps (weight 1), and the per-axis window
    counts (with padding, without)."""
    starts = np.arange(out) * stride - pad
    ends_padded = np.minimum(starts + kernel, size + pad)
    counts_padded = ends_padded - starts
    lo = np.maximum(starts, 0)
    hi = np.minimum(ends_padded, size)
    return (Taps.ranges(lo, np.maximum(hi, lo), size), counts_padded.astype(np.float64),
            (hi - lo).astype(np.float64))


def adaptive_bounds(size, out):
    """Adaptive pooling windows along one axis: start = floor(o*size/out),
    end = ceil((o+1)*size/out)."""
    o = np.arange(out)
    starts = (o * size) // out
    ends = -((-(o + 1) * size) // out)
    return starts, ends


@functools.lru_cache(maxsize=256)
def adaptive_taps(size, out):
    """Adaptive average pooling along one axis: the windows' taps and their counts."""
    starts, ends = adaptive_bounds(size, out)
    return Taps.ranges(starts, ends, size), (ends - starts).astype(np.float64)


def outer_divisor(counts):
    """The product of per-axis counts (None: 1) as an array over the spatial dims."""
    spatial = len(counts)
    divisor = np.ones((1,) * spatial)
    for axis, count in enumerate(counts):
        if count is not None:
            divisor = divisor * count.reshape([-1 if a == axis else 1 for a in range(spatial)])
    return divisor
