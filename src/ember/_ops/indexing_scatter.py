"""Indexing along one dim: gather / scatter (+ reductions), index_select / add / copy / fill /
reduce. (Masks, nonzero and the flat-index ops take / put live in indexing_masked.py.)

Kernels copy `self` and write into the copy; the in-place variants (`scatter_`, ...) copy that
result back (dispatch.call_inplace). A 0-d input is treated as 1-d of size 1, as in PyTorch.
Accumulating kernels work in float32 for half types (see `accumulate_dtype`).
"""
from __future__ import annotations

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import arguments, complex_half, dispatch
from ember._core.checks import _check, _check_index
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.host_kernels import to_device, to_host
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import wrap_dim
from ember._ops.filling import fill_value
from ember._ops.grad_utils import conj, identity, where
from ember._ops.indexing import (
    accumulate_dtype,
    check_in_bounds,
    cpp_name,
    device_at,
    index_arg,
)

_FULL = slice(None)


def _as_1d(array):
    return array.reshape(1) if array.ndim == 0 else array


def _check_int_index(index, message):
    # (An empty index may have any dtype: PyTorch's gather and scatter look at it only when
    # it has elements.)
    _check(index.dtype == np.int64 or index.dtype == np.int32 or index.size == 0, message)


def _along(dim, index):
    """The index tuple that applies `index` at `dim` (every other leading dim whole)."""
    return (_FULL,) * dim + (index,)


def _coordinates(xp, dim, index):
    """Index arrays addressing, for each element of `index`, its position with `dim` replaced
    by its value (they broadcast together to index's shape)."""
    position = []
    for d, size in enumerate(index.shape):
        if d == dim:
            position.append(index)
        else:
            shape = [1] * index.ndim
            shape[d] = size
            position.append(xp.arange(size).reshape(shape))
    return tuple(position)


# --------------------------------------------------------------------------- reductions into

_REDUCE_UFUNC = {"sum": "add", "mean": "add", "add": "add", "prod": "multiply",
                 "multiply": "multiply", "amax": "maximum", "amin": "minimum"}


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if reduce == "amax" else info.max
    return -np.inf if reduce == "amax" else np.inf


def reduce_into(xp, self, position, src, reduce, include_self=True):
    """A copy of `self` with `src` reduced into `self[position]` (duplicates accumulate)."""
    compute = accumulate_dtype(self)
    # (NOTE [back-end helpers])
    if not backend_helpers(xp).host and not device_at(reduce, compute):
        host = to_host(xp, (self, position, src))
        return to_device(xp, reduce_into(np, *host, reduce, include_self))
    out = self.astype(compute, copy=True)
    src = src.astype(compute, copy=False) if hasattr(src, "astype") else src
    if not include_self:
        out[position] = _identity(reduce, out.dtype)
    getattr(xp, _REDUCE_UFUNC[reduce]).at(out, position, src)
    if reduce == "mean":
        count = xp.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        xp.add.at(count, position, 1)
        count = xp.maximum(count, 1)
        if out.dtype.kind in "iu":
            out = xp.floor_divide(out, count).astype(out.dtype)
        else:
            out = (out / count).astype(out.dtype)
    return out.astype(self.dtype, copy=False)


# --------------------------------------------------------------------------- derivatives
# See NOTE [indexing derivatives] in indexing.py.

def _checked_src_grad(grad, src, node):
    """src's gradient has index's shape; PyTorch rejects it when src is larger than index."""
    got, wanted = tuple(grad.shape), tuple(src.shape)
    _check(len(wanted) <= len(got) and all(
        w in (g, 1) for w, g in zip(reversed(wanted), reversed(got))), lambda: (
        f"Function {node} returned an invalid gradient at index 1 - got {list(got)} but "
        f"expected shape compatible with {list(wanted)}"))
    return grad


def _gather_self_grad(c):
    return c.grad.new_zeros(tuple(c.self.shape)).scatter_add(c.dim, index_arg(c), c.grad)


def _scatter_self_grad(c):
    return c.grad.scatter(c.dim, index_arg(c), 0)


def _scatter_src_grad(c):
    return _checked_src_grad(c.grad.gather(c.dim, index_arg(c)), c.src, "ScatterBackward0")


def _scatter_add_src_grad(c):
    return _checked_src_grad(c.grad.gather(c.dim, index_arg(c)), c.src, "ScatterAddBackward0")


def _window(src, shape):
    """The leading corner of `src` with `shape`: the part of src a scatter reads."""
    for d, size in enumerate(shape):
        if src.shape[d] != size:
            src = src.narrow(d, 0, size)
    return src


def _counts(grad, shape, dim, index, include_self):
    """How many values each position of a mean reduction averaged (at least 1, so dividing
    by it stays finite where nothing landed)."""
    counts = grad.new_full(tuple(shape), 1 if include_self else 0)
    counts = counts.scatter_add(dim, index, grad.new_ones(tuple(index.shape)))
    return counts.clamp(min=1)


def _ties(grad, self, dim, index, src, include_self, result):
    """amax / amin: which of self and src equal their position's result (1 or 0), and how many
    tie there (at least 1); the gradient is shared evenly among the tied values."""
    src_hit = (src == result.gather(dim, index)).to(grad.dtype)
    if include_self:
        self_hit = (self == result).to(grad.dtype)
    else:
        self_hit = grad.new_zeros(tuple(self.shape))
    return self_hit, src_hit, self_hit.scatter_add(dim, index, src_hit).clamp(min=1)


def _reduce_self_grad(grad, self, dim, index, src, reduce, include_self, result):
    """self's gradient of scatter_reduce (index_reduce goes through here too)."""
    if not include_self:
        # Positions that index reaches drop self's value; the others keep it unchanged.
        return grad.scatter(dim, index, 0)
    src = _window(src, tuple(index.shape))
    if reduce == "sum":
        return grad
    if reduce == "mean":
        return grad / _counts(grad, self.shape, dim, index, True)
    if reduce == "prod":
        # d result / d self is the product of what was scattered in (1 where nothing was):
        # computed as such rather than result / self, which fails where self is 0.
        others = grad.new_ones(tuple(self.shape)).scatter_reduce(dim, index, src, "prod")
        return grad * conj(others)
    self_hit, _, ties = _ties(grad, self, dim, index, src, include_self, result)
    return grad * self_hit / ties


def _reduce_src_grad(grad, self, dim, index, src, reduce, include_self, result):
    """src's gradient of scatter_reduce, at index's shape."""
    src = _window(src, tuple(index.shape))
    if reduce == "sum":
        return grad.gather(dim, index)
    if reduce == "mean":
        return (grad / _counts(grad, self.shape, dim, index, include_self)).gather(dim, index)
    if reduce == "prod":
        return _prod_src_grad(grad, self, dim, index, src, include_self, result)
    _, src_hit, ties = _ties(grad, self, dim, index, src, include_self, result)
    return (grad / ties).gather(dim, index) * src_hit


def _prod_src_grad(grad, self, dim, index, src, include_self, result):
    # The derivative for one src value is the product of the others at its position. Where src
    # is not 0 that is result / src (0 when another value there is 0). Where src is the only 0
    # at its position, it is the product taken with that 0 replaced by 1; with two or more 0s
    # it is 0, which is what result / 1 gives.
    zero = src == 0
    general = (grad * conj(result)).gather(dim, index) / conj(src.masked_fill(zero, 1))
    zeros_there = grad.new_zeros(tuple(self.shape)).scatter_add(
        dim, index, zero.to(grad.dtype)).gather(dim, index)
    without_zeros = self.scatter_reduce(dim, index, src.masked_fill(zero, 1), "prod",
                                        include_self=include_self)
    lone = (grad * conj(without_zeros)).gather(dim, index)
    return where(zero & (zeros_there == 1), lone, general)


def _scatter_reduce_args(c):
    return (c.grad, c.self, c.dim, index_arg(c), c.src, c.reduce, c.include_self, c.result)


def _scatter_reduce_self_grad(c):
    return _reduce_self_grad(*_scatter_reduce_args(c))


def _scatter_reduce_src_grad(c):
    return _checked_src_grad(_reduce_src_grad(*_scatter_reduce_args(c)), c.src,
                             "ScatterReduceBackward0")


def _index_reduce_args(c):
    """index_reduce is scatter_reduce with index spread over source's shape along dim."""
    grad, self, source, result = c.grad, c.self, c.source, c.result
    if self.ndim == 0:
        grad, self, source, result = (t.reshape(1) for t in (grad, self, source, result))
    dim = wrap_dim(c.dim, self.ndim)
    spread = [1] * source.ndim
    spread[dim] = -1
    index = index_arg(c).reshape(spread).expand(tuple(source.shape))
    return grad, self, dim, index, source, c.reduce, c.include_self, result


def _index_reduce_self_grad(c):
    return _reduce_self_grad(*_index_reduce_args(c)).reshape(tuple(c.self.shape))


def _index_reduce_source_grad(c):
    return _reduce_src_grad(*_index_reduce_args(c)).reshape(tuple(c.source.shape))


def _index_select_self_grad(c):
    return c.grad.new_zeros(tuple(c.self.shape)).index_add(c.dim, index_arg(c), c.grad)


def _index_add_source_grad(c):
    grad = c.grad.index_select(c.dim, index_arg(c))
    return grad if c.alpha == 1 else grad * conj(c.alpha)


def _index_filled_self_grad(c):
    return c.grad.index_fill(c.dim, index_arg(c), 0)


def _index_copy_source_grad(c):
    return c.grad.index_select(c.dim, index_arg(c))


def _index_fill_value_grad(c):
    # grad minus grad with the filled slices zeroed is exactly grad on those slices (each
    # counted once, however often index repeats it).
    return (c.grad - c.grad.index_fill(c.dim, index_arg(c), 0)).sum()


# --------------------------------------------------------------------------- gather / scatter

def _gather_meta(self, dim, index, sparse_grad=False):
    return index._data.shape, self._dtype


@register_op("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
             meta=_gather_meta, saves=("index",), derivatives={"self": _gather_self_grad})
def gather(xp, self, dim, index, sparse_grad=False):
    """gather(input, dim, index) -> Tensor: out[i][j] = input[index[i][j]][j] (for dim=0)."""
    dim = wrap_dim(dim, self.ndim)           # (PyTorch checks the dimension first)
    _check_int_index(index, "gather(): Expected dtype int32/int64 for index")
    if index.size == 0:
        return xp.empty(index.shape, self.dtype)      # (no more checks, as in PyTorch)
    source, positions = _as_1d(self), _as_1d(index)
    _check(source.ndim == positions.ndim,
           "Index tensor must have the same number of dimensions as input tensor")
    for d in range(source.ndim):
        if d != dim and positions.shape[d] > source.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(index.shape)} to be no larger than self "
                               f"{list(self.shape)} apart from dimension {dim}")
    check_in_bounds(xp, positions, source.shape[dim], dim)
    window = tuple(_FULL if d == dim else slice(0, positions.shape[d])
                   for d in range(source.ndim))
    return xp.take_along_axis(source[window], positions, axis=dim).reshape(index.shape)


def _check_scatter(self, dim, index, src, check_reduce=None):
    """PyTorch's scatter argument checks; returns (self, index, src) viewed as >= 1-d.
    `check_reduce` checks the reduction's name: after the shapes, before the bounds."""
    _check_int_index(index, "scatter(): Expected dtype int32/int64 for index")
    target, positions = _as_1d(self), _as_1d(index)
    has_src = hasattr(src, "shape")
    if has_src:
        _check(src.dtype == self.dtype, "scatter(): Expected self.dtype to be equal to src.dtype")
        src = _as_1d(src)
    if positions.size == 0:
        if check_reduce is not None:
            check_reduce()
        return target, positions, src
    _check(target.ndim == positions.ndim,
           "Index tensor must have the same number of dimensions as self tensor")
    if has_src:
        _check(src.ndim == positions.ndim,
               "Index tensor must have the same number of dimensions as src tensor")
    for d in range(target.ndim):
        fits = d == dim or positions.shape[d] <= target.shape[d]
        fits_src = not has_src or positions.shape[d] <= src.shape[d]
        _check(fits and fits_src, lambda: (
            f"Expected index {list(index.shape)} to be no larger than self {list(self.shape)} "
            f"apart from dimension {dim}"
            + (f" and to be no larger size than src {list(src.shape)}" if has_src else "")))
    if check_reduce is not None:
        check_reduce()
    check_in_bounds(np, positions, target.shape[dim], dim)
    return target, positions, src


def _src_window(src, index):
    return src[tuple(slice(0, s) for s in index.shape)]


def _scatter(xp, self, dim, index, src, reduce=None):
    dim = wrap_dim(dim, self.ndim)
    target, positions, src = _check_scatter(self, dim, index, src, None if reduce is None else (
        lambda: _check(reduce in ("add", "multiply"),
                       "reduce argument must be either add or multiply.")))
    if positions.size == 0:
        return target.copy().reshape(self.shape)
    values = _src_window(src, positions) if hasattr(src, "shape") else \
        fill_value(src, self.dtype)             # (range-checked, as PyTorch converts it)
    position = _coordinates(xp, dim, positions)
    if reduce is None:
        out = target.copy()
        out[position] = values
    else:
        out = reduce_into(xp, target, position, values, reduce)
    return out.reshape(self.shape)


def _same_meta(self, *args, **kwargs):
    return self._data.shape, self._dtype


_SCATTER = {"function": False, "method": False, "meta": _same_meta}


@register_op("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", **_SCATTER,
             saves=("index",),
             derivatives={"self": _scatter_self_grad, "src": _scatter_src_grad},
             tags=("fp_errors",))
def _scatter_src(xp, self, dim, index, src):
    """A copy of input with src's values written at `index` along `dim`."""
    return _scatter(xp, self, dim, index, src)


@register_op("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
             **_SCATTER, saves=("index",), derivatives={"self": _scatter_self_grad},
             node_name="ScatterBackward1", tags=("fp_errors",))
def _scatter_value(xp, self, dim, index, value):
    """A copy of input with `value` written at `index` along `dim`."""
    return _scatter(xp, self, dim, index, value)


# The legacy reduce overloads have no derivative, as in PyTorch (backward through them raises).
@register_op("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) "
             "-> Tensor", **_SCATTER, tags=("fp_errors",))
def _scatter_reduce_legacy(xp, self, dim, index, src, reduce):
    """A copy of input with src's values added / multiplied in at `index` along `dim`."""
    return _scatter(xp, self, dim, index, src, reduce)


@register_op("scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, "
             "str reduce) -> Tensor", **_SCATTER, tags=("fp_errors",))
def _scatter_value_reduce(xp, self, dim, index, value, reduce):
    """A copy of input with `value` added / multiplied in at `index` along `dim`."""
    return _scatter(xp, self, dim, index, value, reduce)


_UNSET = object()        # an argument not given (told apart from None)


def _scatter_call(name, input, dim, index, positional, src, value, reduce):
    """PyTorch's choice among scatter's overloads: the fourth argument a tensor (`src`, by
    position or name) or a number (`value`, by position or name), `reduce` a keyword; the
    parser's checks on the rest. Returns (op, arguments)."""
    given = [v for v in (*positional, src, value) if v is not _UNSET]
    if len(positional) > 1 or len(given) != 1 or src is not _UNSET and not isinstance(
            src, dispatch.Tensor) or value is not _UNSET and isinstance(value, dispatch.Tensor):
        keywords = {k: v for k, v in (("src", src), ("value", value), ("reduce", reduce))
                    if v is not _UNSET}
        raise arguments.combination_error(name, OPS["scatter.src"],
                                          (input, dim, index, *positional), keywords)
    given = given[0]
    tensor = isinstance(given, dispatch.Tensor)
    if reduce is _UNSET:
        op, args = OPS["scatter.src" if tensor else "scatter.value"], (input, dim, index, given)
    else:
        op = OPS["scatter.reduce" if tensor else "scatter.value_reduce"]
        args = (input, dim, index, given, reduce)
    if type(dim) is not int or not isinstance(index, dispatch.Tensor) or not tensor and \
            type(given) is not float and type(given) is not int or \
            reduce is not _UNSET and type(reduce) is not str:
        args = arguments.parser_error(op, args, name, none_refused=True)
    return op, args


def scatter_(self, dim, index, *positional, src=_UNSET, value=_UNSET, reduce=_UNSET):
    """Write src (or value) into self at `index` along `dim`, in place."""
    if _state.entry and _wants(locals()):
        return _handle(scatter_, locals())
    return dispatch.call_inplace(*_scatter_call("scatter_", self, dim, index, positional, src,
                                                value, reduce))


@register_frontend("scatter", inplace=scatter_)
def scatter(input, dim, index, *positional, src=_UNSET, value=_UNSET, reduce=_UNSET, out=None):
    """scatter(input, dim, index, src | value, *, reduce=None) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(scatter, locals())
    op, args = _scatter_call("scatter", input, dim, index, positional, src, value, reduce)
    return dispatch.call(op, args) if out is None else dispatch.call_out(op, args, out)


@register_op("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
             inplace=True, meta=_same_meta, saves=("index",),
             derivatives={"self": identity, "src": _scatter_add_src_grad}, tags=("fp_errors",))
def scatter_add(xp, self, dim, index, src):
    """scatter_add(input, dim, index, src) -> Tensor: src's values summed in at `index`."""
    return _scatter(xp, self, dim, index, src, "add")


_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


@register_op("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
             "bool include_self=True) -> Tensor", inplace=True, meta=_same_meta,
             saves=("self", "index", "src", "result"),
             derivatives={"self": _scatter_reduce_self_grad, "src": _scatter_reduce_src_grad},
             tags=("fp_errors",))
def scatter_reduce(xp, self, dim, index, src, reduce, include_self=True):
    """scatter_reduce(input, dim, index, src, reduce, *, include_self=True) -> Tensor:
    src's values reduced (sum, prod, mean, amax, amin) into input at `index`."""
    dim = wrap_dim(dim, self.ndim)
    target, positions, src = _check_scatter(self, dim, index, src, lambda: _check(
        reduce in _SCATTER_REDUCTIONS,
        lambda: f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"))
    if positions.size == 0:
        return target.copy().reshape(self.shape)
    out = reduce_into(xp, target, _coordinates(xp, dim, positions),
                      _src_window(src, positions), reduce, include_self)
    return out.reshape(self.shape)


# --------------------------------------------------------------------------- index_* along dim

def _index_select_meta(self, dim, index):
    shape = list(self._data.shape)
    if shape:
        shape[wrap_dim(dim, len(shape))] = index._data.size
    return tuple(shape), self._dtype


@register_op("index_select(Tensor self, int dim, Tensor index) -> Tensor",
             meta=_index_select_meta, saves=("index",),
             derivatives={"self": _index_select_self_grad})
def index_select(xp, self, dim, index):
    """index_select(input, dim, index) -> Tensor: the entries `index` of input along `dim`."""
    dim = wrap_dim(dim, self.ndim)           # (PyTorch's order of the checks)
    _check_index(index.ndim <= 1, "index_select(): Index is supposed to be a vector")
    _check_int_index(index, "index_select(): Expected dtype int32 or int64 for index")
    if self.ndim == 0:
        _check(index.size == 1, lambda: (
            f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)"))
    positions = index.reshape(-1)
    size = _as_1d(self).shape[dim]
    if positions.size and (int(positions.min()) < 0 or int(positions.max()) >= size):
        bad = int(positions[(positions < 0) | (positions >= size)][0])
        # PyTorch's CPU kernel for dim 1 of a matrix or higher checks with a RuntimeError;
        # every other case is an IndexError.
        _check(not (self.ndim > 1 and dim == 1), lambda: (
            f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}"))
        raise IndexError("index out of range in self")
    return xp.take(_as_1d(self), positions, axis=dim).reshape(
        () if self.ndim == 0 else self.shape[:dim] + (positions.size,) + self.shape[dim + 1:])


def _check_index_source(name, self, dim, index, source):
    """index_add / index_reduce checks: vector index of int32/int64, matching source shape."""
    _check_index(index.ndim <= 1, lambda: (
        f"{name}(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
        f"{cpp_name(index)} and size: {list(index.shape)}"))
    _check(index.dtype in (np.int32, np.int64), lambda: (
        f"{name}(): Expected dtype int32/int64 for index but got: {cpp_name(index)}"))
    _check(source.dtype == self.dtype, lambda: (
        f"{name}(): self ({cpp_name(self)}) and source ({cpp_name(source)}) must have the same "
        "scalar type"))
    target, src = _as_1d(self), _as_1d(source)
    _check(index.size == src.shape[dim] if dim < src.ndim else False, lambda: (
        f"{name}(): Number of indices ({index.size}) should be equal to source.size(dim): "
        f"({src.shape[dim] if dim < src.ndim else 1}), for dim: {dim}"))
    _check(self.ndim == source.ndim and all(
        d == dim or a == b for d, (a, b) in enumerate(zip(target.shape, src.shape))), lambda: (
        "source tensor shape must match self tensor shape, excluding the specified dimension. "
        f"Got self.shape = {list(self.shape)} source.shape = {list(source.shape)}"))
    return target, index.reshape(-1), src


@register_op("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) "
             "-> Tensor", inplace=True, meta=_same_meta, saves=("index",),
             derivatives={"self": identity, "source": _index_add_source_grad}, tags=("fp_errors",))
def index_add(xp, self, dim, index, source, alpha=1):
    """index_add(input, dim, index, source, *, alpha=1) -> Tensor: alpha * source's slices
    added into input's slices `index` along `dim` (repeated indices accumulate)."""
    dim = wrap_dim(dim, self.ndim)
    target, positions, src = _check_index_source("index_add_", self, dim, index, source)
    check_in_bounds(xp, positions, target.shape[dim], dim)
    if alpha != 1 and src.dtype.kind != "b":
        src = src.astype(accumulate_dtype(src)) * alpha
    return reduce_into(xp, target, _along(dim, positions), src, "add").reshape(self.shape)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@register_op("index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
             "bool include_self=True) -> Tensor", inplace=True, meta=_same_meta,
             saves=("self", "index", "source", "result"),
             derivatives={"self": _index_reduce_self_grad, "source": _index_reduce_source_grad},
             tags=("fp_errors",))
def index_reduce(xp, self, dim, index, source, reduce, include_self=True):
    """index_reduce(input, dim, index, source, reduce, *, include_self=True) -> Tensor:
    source's slices reduced (prod, mean, amax, amin) into input's slices `index` along `dim`."""
    _check(reduce in _INDEX_REDUCTIONS, lambda: (
        "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
        f"{reduce}."))
    dim = wrap_dim(dim, self.ndim)
    target, positions, src = _check_index_source("index_reduce_", self, dim, index, source)
    if positions.size and (int(positions.min()) < 0
                           or int(positions.max()) >= target.shape[dim]):
        raise IndexError("index out of range in self")
    return reduce_into(xp, target, _along(dim, positions), src, reduce,
                       include_self).reshape(self.shape)


@register_op("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
             inplace=True, meta=_same_meta, saves=("index",),
             derivatives={"self": _index_filled_self_grad, "source": _index_copy_source_grad},
             tags=("fp_errors",))
def index_copy(xp, self, dim, index, source):
    """index_copy(input, dim, index, source) -> Tensor: input with its slices `index` along
    `dim` replaced by source's slices."""
    # PyTorch's order: the dimension, the index's and source's dimensions (IndexError), the
    # dtypes, the slice shapes, the count of indices.
    dim = wrap_dim(dim, self.ndim)
    _check_index(index.ndim <= 1, lambda: (
        f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})"))
    _check_index(source.ndim != 0 or index.size == 1, lambda: (
        f"index_copy_(): When source is scalar, index should have one element (got "
        f"{index.size})"))
    _check_index(source.ndim == self.ndim or source.ndim == 0 or self.ndim == 0, lambda: (
        "index_copy_(): When source and destination are not scalars, their dimensionality "
        f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
        f"({self.ndim})"))
    _check(index.dtype == np.int64, lambda: (
        f"index_copy_(): Expected a long tensor for index, but got {cpp_name(index)}"))
    _check(source.dtype == self.dtype, lambda: (
        "index_copy_(): self and source expected to have the same dtype, but got (self) "
        f"{cpp_name(self)} and (source) {cpp_name(source)}"))
    self_slice = self.shape[:dim] + self.shape[dim + 1:]
    source_slice = source.shape[:dim] + source.shape[dim + 1:]
    _check(self_slice == source_slice, lambda: (
        "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
        f"slice shape: {' '.join(map(str, self_slice))} at dimension {dim} and source slice "
        f"shape: {' '.join(map(str, source_slice))} at dimension 0."))
    target, src, positions = _as_1d(self), _as_1d(source), index.reshape(-1)
    _check_index(positions.size == src.shape[dim], lambda: (
        f"index_copy_(): Number of indices ({positions.size}) should be equal to "
        f"source.size(dim) ({src.shape[dim]})"))
    check_in_bounds(xp, positions, target.shape[dim], dim, error=IndexError,
                    prefix="index_copy_(): ")
    out = target.copy()
    out[_along(dim, positions)] = src
    return out.reshape(self.shape)


def _index_fill(xp, self, dim, index, value, value_is_complex, convert):
    # PyTorch's order: the index's dtype, a complex value into a real self, the index's
    # dimensions, the dimension, and last the value's range (when it is converted).
    _check_index(index.dtype == np.int64, "index_fill_(): Expected dtype int64 for index.")
    _check(not value_is_complex or self.dtype.kind == "c" or complex_half.is_chalf(self.dtype),
           "index_fill_(): Converting complex Scalar to non-complex type is not supported")
    _check(index.ndim <= 1, "Index has to be a vector/scalar")
    dim = wrap_dim(dim, self.ndim)
    value = convert(value)
    target, positions = _as_1d(self), index.reshape(-1)
    check_in_bounds(xp, positions, target.shape[dim], dim, error=IndexError, negative=True)
    out = target.copy()
    out[_along(dim, positions)] = value
    return out.reshape(self.shape)


@register_op("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
             **_SCATTER, saves=("index",), derivatives={"self": _index_filled_self_grad},
             tags=("fp_errors",))
def _index_fill_scalar(xp, self, dim, index, value):
    """A copy of input with `value` in its slices `index` along `dim`."""
    return _index_fill(xp, self, dim, index, value, isinstance(value, complex),
                       lambda v: fill_value(v, self.dtype))


@register_op("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
             **_SCATTER, saves=("index",),
             derivatives={"self": _index_filled_self_grad, "value": _index_fill_value_grad},
             tags=("fp_errors",))
def _index_fill_tensor(xp, self, dim, index, value):
    """A copy of input with the 0-d tensor `value` in its slices `index` along `dim`."""
    _check(value.ndim == 0, lambda: (
        "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
        f"{value.ndim} dimension(s)."))
    return _index_fill(xp, self, dim, index, value, value.dtype.kind == "c",
                       lambda v: xp.asarray(v).astype(self.dtype))


def _index_fill_op(value):
    return OPS["index_fill.int_Tensor" if isinstance(value, dispatch.Tensor)
               else "index_fill.int_Scalar"]


def index_fill_(self, dim, index, value):
    """Fill self's slices `index` along `dim` with `value`, in place."""
    if _state.entry and _wants(locals()):
        return _handle(index_fill_, locals())
    return dispatch.call_inplace(_index_fill_op(value), (self, dim, index, value))


@register_frontend("index_fill", inplace=index_fill_)
def index_fill(input, dim, index, value):
    """index_fill(input, dim, index, value) -> Tensor: input with `value` in its slices `index`
    along `dim`."""
    if _state.entry and _wants(locals()):
        return _handle(index_fill, locals())
    return dispatch.call(_index_fill_op(value), (input, dim, index, value))
