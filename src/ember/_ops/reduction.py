"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, all/any, count_nonzero,
logsumexp ... over every element or over `dim` (with `keepdim`).

Moments and order statistics (std, var, norm, median, kthvalue, mode, quantile) live in
reduction_stats.py. The meta rule of a reduction is `reduction_meta(dtype_rule, ...)`: the
reduced shape comes from `dim`/`keepdim` the same way for all of them.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.arguments import parser_error
from ember._core.checks import _check, _check_index, _check_not_implemented, _check_type
from ember._core.dispatch import call, call_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import (
    OPS,
    kernel_entry,
    register_form,
    register_frontend,
    register_op,
)
from ember._core.return_types import return_type
from ember._core.shape import wrap_dim, wrap_dims
from ember._ops.creation_ranges import arange
from ember._ops.grad_utils import by_dim, conj, unreduce, where
from ember._ops.pointwise import div_by_number, not_implemented_for
from ember._ops.summation import THREADED_SUM, accurate_sum, cast_for_sum, widen_half

_INT64 = dt.int64._np
_np_add_reduce = np.add.reduce
_np_asarray = np.asarray
# NOTE [half reductions accumulate in float32]: PyTorch's CPU kernels sum, average and compare
# float16/bfloat16 (and float8) in float32 and round once at the end; so do we.
_LOW_PRECISION = frozenset(d._np for d in (dt.float16, dt.bfloat16, dt.float8_e4m3fn,
                                           dt.float8_e5m2))


# --------------------------------------------------------------------------- shared helpers

def is_all_dims(dim) -> bool:
    """None, () and [] all mean "reduce every dim"."""
    return dim is None or (not isinstance(dim, int) and len(dim) == 0)


def reduced_dims(dim, ndim: int) -> tuple:
    """`dim` as a tuple of non-negative dims (wrapped and checked).

    None or () means every dim. A 0-d tensor accepts dim 0 and -1 but has no dim to reduce,
    so it gets () -- which NumPy reads as "reduce nothing".
    """
    if is_all_dims(dim):
        return tuple(range(ndim))
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()


def reduced_shape(shape, dim, keepdim) -> tuple:
    """The shape after reducing `dim` (None or () = every dim)."""
    dims = reduced_dims(dim, len(shape))
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def reduction_meta(*dtype_rules, dim_at=1, keepdim_at=2, dtype_at=3):
    """The meta rule of a reduction: one (shape, dtype) per rule (a list for several outputs).

    Each rule is `rule(self_dtype, requested_dtype) -> dtype`; `*_at` say where in the schema
    the dim, keepdim and dtype arguments sit (None: the op has no such argument).
    """
    def meta(*args):
        self = args[0]
        dim = args[dim_at] if dim_at is not None and len(args) > dim_at else None
        keepdim = args[keepdim_at] if keepdim_at is not None and len(args) > keepdim_at \
            else False
        requested = args[dtype_at] if dtype_at is not None and len(args) > dtype_at else None
        shape = reduced_shape(self._data.shape, dim, keepdim)
        specs = [(shape, rule(self._dtype, requested)) for rule in dtype_rules]
        return specs[0] if len(specs) == 1 else specs
    return meta


def same_dtype(self_dtype, requested=None):
    return self_dtype


def long_dtype(self_dtype, requested=None):
    return dt.int64


def sum_dtype(self_dtype, dtype=None):
    """sum/prod/cumsum accumulate integers and bools as int64 unless a dtype is given."""
    if dtype is not None:
        return dtype
    if self_dtype._category <= dt.INT:
        return dt.int64
    return self_dtype


def accumulate_type(np_dtype):
    """The NumPy dtype to compute in (see NOTE [half reductions accumulate in float32])."""
    return np.dtype(np.float32) if np_dtype in _LOW_PRECISION else np_dtype


def finish(xp, out, np_dtype):
    """A kernel result as a fresh array of `np_dtype` (NumPy reductions may return scalars)."""
    return xp.asarray(out).astype(np_dtype, copy=False)


def check_nonempty(name, shape, dims, specified=True, unspecified_error=RuntimeError):
    """Reductions without an identity (max, argmax, median ...) refuse an empty reduction."""
    if 0 not in shape:
        return
    if not specified:
        raise unspecified_error(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        _check_index(shape[d] != 0, lambda d=d: (
            f"{name}(): Expected reduction dim {d} to have non-zero size."))


def no_complex(kernel_name, x):
    if x.dtype.kind == "c":
        not_implemented_for(kernel_name, x)


def run(op, args, out, result_type=None):
    """Call `op` (or write into `out`), wrapping several outputs into `result_type`; a wrong
    argument first gets the parser's error (NOTE [the parser's errors come first])."""
    args = parser_error(op, tuple(args), op.python_name)
    result = call(op, args) if out is None else call_out(op, args, out)
    return result if result_type is None else result_type(*result)


# --------------------------------------------------------------------------- gradient helpers

def split_by_count(grad, self, value, dim, keepdim):
    """The gradient of amax/amin-like reductions: shared equally by the elements equal to the
    reduced `value`. A NaN result matches nothing, so its row gets 0/0 = NaN, as in PyTorch."""
    shape = self.shape
    mask = self == unreduce(value, shape, dim, keepdim)
    count = mask.sum(reduced_dims(dim, len(shape)), keepdim=True)
    return unreduce(grad, shape, dim, keepdim) / count * mask


def split_evenly(c):
    """The gradient of a full reduction that picks one value (max(), median() ...): shared
    equally by every element equal to it; a NaN result is shared by the NaN elements."""
    self, result = c.self, c.result
    mask = (self == result) | (self.isnan() & result.isnan())
    return where(mask, c.grad / mask.sum(), 0.0)


def select_back(grad, indices, shape, dim, keepdim):
    """The gradient of a reduction along `dim` that returns the index of the value it picked
    (max.dim, median.dim, kthvalue, mode): `grad` goes to that index, zero elsewhere."""
    ndim = len(shape)
    if ndim == 0:
        return grad
    d = wrap_dim(dim, ndim)
    if not keepdim:
        grad, indices = grad.unsqueeze(d), indices.unsqueeze(d)
    positions = arange(shape[d], device=grad.device).reshape((-1,) + (1,) * (ndim - d - 1))
    return where(positions == indices, grad, 0.0)


def select_back_formula(c):
    self = c.self
    return select_back(c.grad, c.results[1], self.shape, c.dim, c.keepdim)


# --------------------------------------------------------------------------- sum, mean, prod

# The float dtypes a full sum hands to NumPy's own pairwise loop as they are (kind "f", no half).
_PAIRWISE_FLOATS = frozenset(d for d in dt.NP_TO_DTYPE if d.kind == "f") - _LOW_PRECISION


@register_op("sum.dim_IntList(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(sum_dtype), saves=(),
             derivatives={"self": lambda c: unreduce(c.grad, c.self.shape, c.dim, c.keepdim)},
             node_name=by_dim("Sum"), tags=("out_dtype_computes",))
def sum(xp, self, dim=None, keepdim=False, dtype=None):
    """sum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor.

    Bools and integers sum to int64; with `dtype` the input is cast first, then summed.
    """
    if dim is None and dtype is None and self.dtype in _PAIRWISE_FLOATS \
            and self.size < THREADED_SUM:
        # A plain full sum: the array library's own (the CPU entry below keeps NumPy's
        # pairwise loop to contiguous arrays).
        return xp.asarray(self.sum(keepdims=keepdim))
    return _sum(xp, self, dim, keepdim, dtype)


@kernel_entry("sum.dim_IntList", "CPU")
def _sum_cpu(xp, self, dim=None, keepdim=False, dtype=None):
    """sum's CPU entry (NOTE [the kernel table])."""
    if dim is None and dtype is None and self.dtype in _PAIRWISE_FLOATS \
            and self.size < THREADED_SUM and self.flags.forc:
        # The common case, a plain full sum of a contiguous array: NumPy's own loop is pairwise
        # over it (NOTE [pairwise sums]); NumPy's ufunc itself, as np.sum's dispatch layer
        # costs more than a tiny sum itself (and the array's method is a Python frame around
        # the ufunc).
        return _np_asarray(_np_add_reduce(self, None, None, None, keepdim))
    return _sum(np, self, dim, keepdim, dtype)


def _sum(xp, self, dim, keepdim, dtype):
    """sum in accurate (pairwise) order, cast as PyTorch casts."""
    result = sum_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)._np
    # Cast to the result dtype first (rounding as PyTorch), then widen halves to accumulate.
    x = self if self.dtype == result else cast_for_sum(self, result)
    if result in _LOW_PRECISION:
        x = widen_half(x) if result == np.float16 else x.astype(np.float32)
    return finish(xp, accurate_sum(xp, x, reduced_dims(dim, self.ndim), keepdim), result)


def _nansum_grad(c):
    # A product, not a where: an infinite incoming gradient gives NaN at a NaN, as in PyTorch.
    return unreduce(c.grad, c.self.shape, c.dim, c.keepdim) * c.self.isnan().logical_not()


@register_op("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(sum_dtype), saves=("self",),
             derivatives={"self": _nansum_grad}, tags=("out_dtype_computes",))
def nansum(xp, self, dim=None, keepdim=False, dtype=None):
    """nansum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor: sum treating NaN as 0."""
    _check(self.dtype.kind != "c" and self.dtype.names is None,   # (names: complex32)
           "nansum on CPU does not support complex inputs")
    if self.dtype.kind not in "biu":
        # astype: CuPy's where widens bfloat16 to float32.
        self = xp.where(xp.isnan(self), xp.zeros((), self.dtype), self).astype(self.dtype,
                                                                              copy=False)
        if self.dtype == np.float16 and dtype is not None and not (
                dtype.is_floating_point or dtype.is_complex):
            # PyTorch's float16 nansum into an integer dtype takes the infinities as the
            # largest finite half, +-65504 (its sum, and float32's nansum, do not).
            self = xp.clip(self, np.float16(-65504), np.float16(65504))
    return sum(xp, self, dim, keepdim, dtype)


def mean_dtype(self_dtype, dtype=None, name="mean"):
    chosen = self_dtype if dtype is None else dtype
    _check(chosen.is_floating_point or chosen.is_complex, lambda: (
        f"{name}(): could not infer output dtype. "
        f"{'Input' if dtype is None else 'Optional'} dtype must be either a floating point or "
        f"complex dtype. Got: {chosen._cpp_name}"))
    return chosen


def _count(shape, dims):
    return math.prod(shape[d] for d in dims)


def _mean_grad(c):
    shape = c.self.shape
    count = 1
    for d in reduced_dims(c.dim, len(shape)):
        count *= shape[d]
    return div_by_number(unreduce(c.grad, shape, c.dim, c.keepdim), count)


@register_op("mean.dim(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(mean_dtype), saves=(), derivatives={"self": _mean_grad},
             node_name=by_dim("Mean"))
def mean(xp, self, dim=None, keepdim=False, dtype=None):
    """mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor (NaN over no elements)."""
    result = mean_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)._np
    dims = reduced_dims(dim, self.ndim)
    x = cast_for_sum(cast_for_sum(self, result), accumulate_type(result))
    total = accurate_sum(xp, x, dims, keepdim)
    count = _count(self.shape, dims)
    # 0 * nan is nan without NumPy's divide-by-zero warning.
    out = total / count if count else total * np.nan
    return finish(xp, out, result)


def nanmean_dtype(self_dtype, dtype=None):
    _check(self_dtype.is_floating_point or self_dtype.is_complex, lambda: (
        "nanmean(): expected input to have floating point or complex dtype but got "
        f"{self_dtype._cpp_name}"))
    _check(dtype is None or dtype.is_floating_point or dtype.is_complex, lambda: (
        "nanmean(): could not infer output dtype. Optional dtype must be either a floating "
        f"point or complex dtype. Got: {dtype._cpp_name}"))
    return self_dtype if dtype is None else dtype


def _nanmean_grad(c):
    self = c.self
    present = self.isnan().logical_not()
    count = present.sum(reduced_dims(c.dim, self.ndim), keepdim=True)
    # An all-NaN row has count 0: grad / 0 * 0 is NaN there, as in PyTorch.
    return unreduce(c.grad, self.shape, c.dim, c.keepdim) / count * present


@register_op("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(nanmean_dtype), saves=("self",),
             derivatives={"self": _nanmean_grad})
def nanmean(xp, self, dim=None, keepdim=False, dtype=None):
    """nanmean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor: mean of non-NaNs."""
    _check(self.dtype.kind != "c" and self.dtype.names is None,   # (names: complex32)
           "nansum on CPU does not support complex inputs")
    result = nanmean_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)._np
    # (PyTorch's nansum kernel, which nanmean runs, has no complex form; an empty input never
    # reaches it)
    _check_not_implemented(np.dtype(result).kind != "c" or self.size == 0, lambda: (
        f"\"nansum_cpu\" not implemented for '{dt.NP_TO_DTYPE[np.dtype(result)]._cpp_name}'"))
    dims = reduced_dims(dim, self.ndim)
    x = self.astype(accumulate_type(result), copy=False)
    missing = xp.isnan(x)
    total = accurate_sum(xp, xp.where(missing, xp.zeros((), x.dtype), x), dims, keepdim)
    count = xp.sum(~missing, axis=dims, keepdims=keepdim)
    # (a row with no numbers is 0 / 0: NaN, and in a complex dtype NaN in both parts)
    empty = complex(np.nan, np.nan) if x.dtype.kind == "c" else np.nan
    out = xp.where(count > 0, total / xp.maximum(count, 1), xp.asarray(empty, x.dtype))
    return finish(xp, out, result)


def _prod(xp, self, dims, keepdim, dtype):
    result = sum_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)._np
    x = cast_for_sum(self, result)
    out = xp.prod(x, axis=dims, keepdims=keepdim, dtype=accumulate_type(result))
    return finish(xp, out, result)


def _prod_grad(c, dim, keepdim):
    """d prod / d x_i is the product of the other elements (NOTE [prod at zeros])."""
    self = c.self
    shape = self.shape
    grad = unreduce(c.grad, shape, dim, keepdim)
    if self.ndim == 0:
        return grad
    zero = self == 0
    if not bool(zero.any()):
        return grad * conj(unreduce(c.result, shape, dim, keepdim) / self)
    # NOTE [prod at zeros]: result / x is 0/0 at a zero. Write the product of the others as
    # (product of the nonzero elements) * (product of the zero elements but x_i), each part
    # written so that its value is exact and its first derivative too (for double backward):
    # at a nonzero x_i the zero part is the product of all zero elements; at a zero x_i it is
    # 1 with no other zero, the other zero (their sum minus x_i) with one, and 0 with more.
    dims = reduced_dims(dim, self.ndim)

    def reduce(t):
        return t.prod() if dim is None else t.prod(dims[0], keepdim=True)
    safe = where(zero, 1, self)
    nonzero_part = reduce(safe)
    zeros = zero.sum(dims, keepdim=True)
    at_others = nonzero_part / safe * reduce(where(zero, self, 1))
    other_zero = where(zero, self, 0).sum(dims, keepdim=True) - self
    at_zero = nonzero_part * where(zeros == 1, 1, where(zeros == 2, other_zero, 0))
    return grad * conj(where(zero, at_zero, at_others))


@register_op("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(sum_dtype, dim_at=None, keepdim_at=None, dtype_at=1),
             function=False, method=False, saves=("self", "result"),
             derivatives={"self": lambda c: _prod_grad(c, None, False)},
             tags=("out_dtype_computes",))
def prod_all(xp, self, dtype=None):
    """The product of every element (bools and integers multiply in int64)."""
    return _prod(xp, self, None, False, dtype)


@register_op("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(sum_dtype), function=False, method=False,
             saves=("self", "result"),
             derivatives={"self": lambda c: _prod_grad(c, c.dim, c.keepdim)},
             node_name="ProdBackward1", tags=("out_dtype_computes",))
def prod_dim(xp, self, dim, keepdim=False, dtype=None):
    """The product along one dim."""
    d = wrap_dim(dim, self.ndim)
    return _prod(xp, self, (d,) if self.ndim else (), keepdim, dtype)


@register_frontend("prod")
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """prod(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor.

    `dim` is a single int (not a tuple), as in PyTorch.
    """
    if _state.entry and _wants(locals()):
        return _handle(prod, locals())
    if dim is None:
        return run(OPS["prod"], (input, dtype), out)
    _check_type(isinstance(dim, int) or hasattr(dim, "__index__"), lambda: (
        f"prod(): argument 'dim' must be int, not {type(dim).__name__}"))
    return run(OPS["prod.dim_int"], (input, dim, keepdim, dtype), out)


# --------------------------------------------------------------------------- max, min

Max = return_type("max", ("values", "indices"))
Min = return_type("min", ("values", "indices"))
Aminmax = return_type("aminmax", ("min", "max"))


def _extreme(xp, self, dims, keepdim, name, kernel_name, specified):
    no_complex(kernel_name, self)
    check_nonempty(name, self.shape, dims, specified)
    x = self.astype(accumulate_type(self.dtype), copy=False)
    reduce = xp.max if name in ("max", "amax") else xp.min
    return finish(xp, reduce(x, axis=dims, keepdims=keepdim), self.dtype)


@register_op("max(Tensor self) -> Tensor", kind="reduction", function=False, method=False,
             meta=reduction_meta(same_dtype, dim_at=None, keepdim_at=None, dtype_at=None),
             saves=("self", "result"), derivatives={"self": split_evenly},
             node_name="MaxBackward1", tags=("no_fp_errors",))
def max_all(xp, self):
    """The largest element; NaN if there is one."""
    return _extreme(xp, self, None, False, "max", "max_all", False)


@register_op("min(Tensor self) -> Tensor", kind="reduction", function=False, method=False,
             meta=reduction_meta(same_dtype, dim_at=None, keepdim_at=None, dtype_at=None),
             saves=("self", "result"), derivatives={"self": split_evenly},
             node_name="MinBackward1", tags=("no_fp_errors",))
def min_all(xp, self):
    """The smallest element; NaN if there is one."""
    return _extreme(xp, self, None, False, "min", "min_all", False)


def _amax_grad(c):
    return split_by_count(c.grad, c.self, c.result, c.dim, c.keepdim)


@register_op("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
             kind="reduction", meta=reduction_meta(same_dtype, dtype_at=None),
             saves=("self", "result"), derivatives={"self": _amax_grad},
             tags=("no_fp_errors", "out_dtype_exact"))
def amax(xp, self, dim=(), keepdim=False):
    """amax(input, dim=(), keepdim=False, *, out=None) -> Tensor: the largest values
    (NaN propagates)."""
    dims = reduced_dims(dim, self.ndim)
    return _extreme(xp, self, dims, keepdim, "amax", "max_values_cpu", not is_all_dims(dim))


@register_op("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
             kind="reduction", meta=reduction_meta(same_dtype, dtype_at=None),
             saves=("self", "result"), derivatives={"self": _amax_grad},
             tags=("no_fp_errors", "out_dtype_exact"))
def amin(xp, self, dim=(), keepdim=False):
    """amin(input, dim=(), keepdim=False, *, out=None) -> Tensor: the smallest values
    (NaN propagates)."""
    dims = reduced_dims(dim, self.ndim)
    return _extreme(xp, self, dims, keepdim, "amin", "min_values_cpu", not is_all_dims(dim))


def _with_index(xp, self, dim, keepdim, name):
    """(values, indices) of the max/min along `dim`: the first occurrence wins, NaN counts as
    the extreme (as in PyTorch's CPU kernels and NumPy's argmax)."""
    d = wrap_dim(dim, self.ndim)
    no_complex(f"{name}_cpu", self)
    if self.ndim == 0:
        return self.copy(), xp.zeros((), _INT64)
    check_nonempty(name, self.shape, (d,))
    pick = xp.argmax if name == "max" else xp.argmin
    indices = pick(self, axis=d, keepdims=True)
    values = xp.take_along_axis(self, indices, axis=d)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    return values, indices.astype(_INT64, copy=False)


_INDEX_META = reduction_meta(same_dtype, long_dtype, dtype_at=None)


@register_op("max.dim(Tensor self, int dim, bool keepdim=False) -> "
             "(Tensor values, Tensor indices)", kind="reduction", meta=_INDEX_META,
             function=False, method=False, saves=("result1",),
             derivatives={"self": select_back_formula}, tags=("no_fp_errors",))
def max_dim(xp, self, dim, keepdim=False):
    """The largest value along `dim` and its index."""
    return _with_index(xp, self, dim, keepdim, "max")


@register_op("min.dim(Tensor self, int dim, bool keepdim=False) -> "
             "(Tensor values, Tensor indices)", kind="reduction", meta=_INDEX_META,
             function=False, method=False, saves=("result1",),
             derivatives={"self": select_back_formula}, tags=("no_fp_errors",))
def min_dim(xp, self, dim, keepdim=False):
    """The smallest value along `dim` and its index."""
    return _with_index(xp, self, dim, keepdim, "min")


def _max_min_frontend(name, elementwise, result_type):
    all_op, dim_op = OPS[name], OPS[f"{name}.dim"]

    def frontend(input, dim=None, keepdim=None, *, other=None, out=None):
        if _state.entry and _wants(locals()):
            return _handle(frontend, locals())
        if isinstance(dim, dispatch.Tensor):
            dim, other = None, dim
        if other is not None:
            _check_type(dim is None and keepdim is None, lambda: (
                f"{name}(): takes either `other` or `dim` (with `keepdim`), not both"))
            return run(OPS[elementwise], (input, other), out)
        if dim is None:
            _check_type(keepdim is None, lambda: f"{name}(): keepdim needs a dim")
            return run(all_op, (input,), out)
        return run(dim_op, (input, dim, False if keepdim is None else keepdim), out,
                   result_type)
    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = (
        f"{name}(input) -> Tensor; {name}(input, dim, keepdim=False) -> (values, indices); "
        f"{name}(input, other) -> Tensor (elementwise {elementwise}).")
    return frontend


max = register_frontend("max")(_max_min_frontend("max", "maximum", Max))
min = register_frontend("min")(_max_min_frontend("min", "minimum", Min))


def _aminmax_grad(c):
    self, dim, keepdim = c.self, c.dim, c.keepdim
    low, high = c.results
    return (split_by_count(c.grad, self, low, dim, keepdim)
            + split_by_count(c.grads[1], self, high, dim, keepdim))


@register_op("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> "
             "(Tensor min, Tensor max)", kind="reduction", function=False, method=False,
             meta=reduction_meta(same_dtype, same_dtype, dtype_at=None),
             saves=("self", "result"), derivatives={"self": _aminmax_grad}, tags=("no_fp_errors",))
def aminmax_kernel(xp, self, dim=None, keepdim=False):
    """(min, max) over every element or along `dim`."""
    no_complex("aminmax_cpu", self)
    if dim is None:
        _check(self.size != 0, "aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        dims = None
    else:
        d = wrap_dim(dim, self.ndim)
        dims = (d,) if self.ndim else ()
        for d in dims:
            _check_index(self.shape[d] != 0, lambda d=d: (
                f"aminmax: Expected reduction dim {d} to have non-zero size."))
    x = self.astype(accumulate_type(self.dtype), copy=False)
    low = xp.min(x, axis=dims, keepdims=keepdim)
    high = xp.max(x, axis=dims, keepdims=keepdim)
    return finish(xp, low, self.dtype), finish(xp, high, self.dtype)


@register_frontend("aminmax")
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """aminmax(input, *, dim=None, keepdim=False, out=None) -> (min, max)."""
    if _state.entry and _wants(locals()):
        return _handle(aminmax, locals())
    return run(OPS["aminmax"], (input, dim, keepdim), out, Aminmax)


def _arg_extreme(xp, self, dim, keepdim, name):
    _check(self.dtype.kind != "b", lambda: f"{name}(): does not support bool input")
    _check(self.dtype.kind != "c" and self.dtype.names is None,   # (names: complex32)
           lambda: f"{name}(): does not support complex input")
    pick = xp.argmax if name == "argmax" else xp.argmin
    if dim is None:
        _check_index(self.size != 0, lambda: (
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0."))
        found = pick(self.reshape(-1))
        shape = (1,) * self.ndim if keepdim else ()
        return finish(xp, found, _INT64).reshape(shape)
    d = wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        return xp.zeros((), _INT64)
    check_nonempty(name, self.shape, (d,))
    return finish(xp, pick(self, axis=d, keepdims=keepdim), _INT64)


@register_op("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
             kind="reduction", meta=reduction_meta(long_dtype, dtype_at=None),
             differentiable=False, tags=("no_fp_errors", "out_dtype_exact"))
def argmax(xp, self, dim=None, keepdim=False):
    """argmax(input, dim=None, keepdim=False) -> Tensor: the index of the first largest value
    (of the flattened input when dim is None); NaN counts as largest."""
    return _arg_extreme(xp, self, dim, keepdim, "argmax")


@register_op("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
             kind="reduction", meta=reduction_meta(long_dtype, dtype_at=None),
             differentiable=False, tags=("no_fp_errors", "out_dtype_exact"))
def argmin(xp, self, dim=None, keepdim=False):
    """argmin(input, dim=None, keepdim=False) -> Tensor: the index of the first smallest value
    (of the flattened input when dim is None); NaN counts as smallest."""
    return _arg_extreme(xp, self, dim, keepdim, "argmin")


# --------------------------------------------------------------------------- all, any

def _logical_dtype(self_dtype, requested=None):
    # uint8 input keeps uint8 (0/1), a leftover of the days before torch.bool.
    return dt.uint8 if self_dtype is dt.uint8 else dt.bool_


def _logical_meta(self, dim=None, keepdim=False):
    shape = self._data.shape
    if dim is not None and is_all_dims(dim):
        reduced_dims(dim, len(shape))
        return shape, _logical_dtype(self._dtype)
    return reduced_shape(shape, dim, keepdim), _logical_dtype(self._dtype)


def _logical(xp, self, dim, keepdim, reduce):
    truth = self != 0
    # An explicit empty dim list reduces nothing (unlike sum, where it means every dim).
    if dim is None or not is_all_dims(dim):
        truth = reduce(truth, axis=reduced_dims(dim, self.ndim), keepdims=keepdim)
    return finish(xp, truth, self.dtype if self.dtype == np.uint8 else np.bool_)


@register_op("all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
             kind="reduction", meta=_logical_meta, differentiable=False,
             tags=("no_fp_errors", "out_dtype_exact"))
def all(xp, self, dim=None, keepdim=False):
    """all(input, dim=None, keepdim=False, *, out=None) -> Tensor: whether every element is
    nonzero (bool; uint8 for uint8 input)."""
    return _logical(xp, self, dim, keepdim, xp.all)


@register_op("any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
             kind="reduction", meta=_logical_meta, differentiable=False,
             tags=("no_fp_errors", "out_dtype_exact"))
def any(xp, self, dim=None, keepdim=False):
    """any(input, dim=None, keepdim=False, *, out=None) -> Tensor: whether some element is
    nonzero (bool; uint8 for uint8 input)."""
    return _logical(xp, self, dim, keepdim, xp.any)


def _count_nonzero(xp, self, dim):
    dims = reduced_dims(dim, self.ndim)
    return finish(xp, xp.sum(self != 0, axis=dims, dtype=_INT64), _INT64)


_COUNT_META = reduction_meta(long_dtype, keepdim_at=None, dtype_at=None)


@register_op("count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor", kind="reduction",
             meta=_COUNT_META, function=False, method=False, out=False, differentiable=False,
             tags=("no_fp_errors",))
def count_nonzero_dims(xp, self, dim):
    """The number of nonzero elements over the dims in `dim`."""
    return _count_nonzero(xp, self, dim)


@register_op("count_nonzero(Tensor self, int? dim=None) -> Tensor", kind="reduction",
             meta=_COUNT_META, function=False, method=False, out=False, differentiable=False,
             tags=("no_fp_errors",))
def count_nonzero_dim(xp, self, dim=None):
    """The number of nonzero elements (along one dim, or in all)."""
    return _count_nonzero(xp, self, dim)


def _count_nonzero_method(self, *dims, dim=None):
    """Tensor.count_nonzero(dim=None): the dims may also come as arguments (x.count_nonzero(0,
    1)), as PyTorch's int[] overload takes them."""
    if _state.entry and _wants(locals()):
        return _handle(_count_nonzero_method, locals())
    if len(dims) > 1 or dims and dim is not None:
        if dim is not None:
            raise TypeError("count_nonzero() received an invalid combination of arguments")
        return count_nonzero(self, dims)
    return count_nonzero(self, dims[0] if dims else dim)


@register_frontend("count_nonzero", method=_count_nonzero_method)
def count_nonzero(input, dim=None):
    """count_nonzero(input, dim=None) -> Tensor: int64 counts; dim is an int or a tuple."""
    if _state.entry and _wants(locals()):
        return _handle(count_nonzero, locals())
    if dim is None or type(dim) is int:
        return call(OPS["count_nonzero"], (input, dim))
    # Anything else as PyTorch's parser takes it: a list of ints (no bools), a NumPy integer
    # or a 0-d integer tensor for the one dim (NOTE [the parser's errors come first]).
    op = OPS["count_nonzero.dim_IntList" if isinstance(dim, (tuple, list)) else "count_nonzero"]
    return call(op, parser_error(op, (input, dim), "count_nonzero"))


# --------------------------------------------------------------------------- logsumexp

def _float_result(self_dtype, requested=None):
    return self_dtype if self_dtype._category >= dt.FLOAT else dt.get_default_dtype()


def _logsumexp_grad(c):
    shape = c.self.shape
    weights = (c.self - unreduce(c.result, shape, c.dim, c.keepdim)).exp()
    return unreduce(c.grad, shape, c.dim, c.keepdim) * conj(weights)


@register_op("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
             kind="reduction", meta=reduction_meta(_float_result, dtype_at=None),
             varargs=False, saves=("self", "result"), derivatives={"self": _logsumexp_grad})
def logsumexp(xp, self, dim, keepdim=False):
    """logsumexp(input, dim, keepdim=False, *, out=None) -> Tensor: log(sum(exp(input))),
    computed without overflow (integers give the default float dtype)."""
    result = _float_result(dt.NP_TO_DTYPE[self.dtype])._np
    dims = reduced_dims(dim, self.ndim)
    if self.size == 0:
        shape = reduced_shape(self.shape, dim, keepdim)
        return xp.full(shape, -np.inf, dtype=result)
    x = self.astype(accumulate_type(result), copy=False)
    shift = xp.max(x.real, axis=dims, keepdims=True)
    # An infinite maximum would give inf - inf = nan; shifting by 0 there is exact anyway.
    shift = xp.where(xp.isinf(shift), xp.zeros((), shift.dtype), shift)
    with np.errstate(divide="ignore"):  # every term -inf: log(0) = -inf is the answer
        out = xp.log(accurate_sum(xp, xp.exp(x - shift), dims, True)) + shift
    if not keepdim:
        out = out.reshape(reduced_shape(self.shape, dim, False))
    return finish(xp, out, result)


# x.sum() and x.mean() as PyTorch's overloads without a dim (NOTE [overload forms]).
def _whole(args):
    return args[1] is None and not args[2]


def _over_all(self, dtype=None):
    return (self, None, False, dtype)


for _name in ("any", "all"):
    # x.any() / x.any(0) reach a mode as any.default / any.dim (int), as PyTorch's parser picks.
    register_form(f"{_name}.dims", f"{_name}(Tensor self) -> Tensor", when=_whole,
                  to_base=lambda self: (self, None, False))
    register_form(f"{_name}.dims", f"{_name}.dim(Tensor self, int dim, bool keepdim=False) -> "
                  "Tensor", when=lambda args: type(args[1]) is int,
                  to_base=lambda self, dim, keepdim=False: (self, dim, keepdim))
for _name in ("sum", "mean"):
    register_form(f"{_name}.dim_IntList" if _name == "sum" else "mean.dim",
                  f"{_name}(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                  when=_whole, to_base=_over_all)
