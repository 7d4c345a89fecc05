"""Reductions: sum, mean, ... over all elements or over `dim` (with `keepdim`).

The meta rule of a reduction is `reduction_meta(result_dtype_rule)`: the reduced shape comes
from `dim`/`keepdim` the same way for all of them.
"""
from __future__ import annotations

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.registry import register_op
from ember._core.shape import wrap_dims


def reduced_shape(shape, dim, keepdim):
    """The shape after reducing `dim` (None or () = every dim)."""
    ndim = len(shape)
    dims = tuple(range(ndim)) if dim is None or dim == () else wrap_dims(dim, ndim)
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def axes(dim, ndim):
    """`dim` as a NumPy axis argument: None or () means all dims."""
    if dim is None or dim == ():
        return None
    return wrap_dims(dim, ndim)


def sum_dtype(self_dtype, dtype=None):
    """sum/prod/cumsum accumulate integers and bools as int64 unless a dtype is given."""
    if dtype is not None:
        return dtype
    if self_dtype._category <= dt.INT:
        return dt.int64
    return self_dtype


def reduction_meta(dtype_rule):
    """Build the meta rule for a reduction whose schema is (self, dim, keepdim, *, dtype)."""
    def meta(self, dim=None, keepdim=False, *rest, dtype=None):
        requested = rest[-1] if rest else dtype
        return (reduced_shape(self._data.shape, dim, keepdim),
                dtype_rule(self._dtype, requested))
    return meta


def _np_accumulate(self, dtype):
    """The NumPy dtype to accumulate in (float32 for half types, as PyTorch's CPU kernels)."""
    if dtype is not None:
        return dtype._np
    if self.dtype.kind in "biu":
        return dt.int64._np
    return None


@register_op("sum.dim_IntList(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(sum_dtype))
def sum(xp, self, dim=None, keepdim=False, dtype=None):
    """sum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor."""
    result_type = _np_accumulate(self, dtype) or self.dtype
    low_precision = result_type.itemsize <= 2 and result_type.kind == "f"
    acc = "float32" if low_precision else result_type
    out = xp.sum(self, axis=axes(dim, self.ndim), keepdims=keepdim, dtype=acc)
    return xp.asarray(out).astype(result_type, copy=False)


def mean_dtype(self_dtype, dtype=None):
    chosen = self_dtype if dtype is None else dtype
    _check(chosen.is_floating_point or chosen.is_complex, lambda: (
        f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
        f"complex dtype. Got: {chosen._cpp_name}"))
    return chosen


@register_op("mean.dim(Tensor self, int[1]? dim=None, bool keepdim=False, *, "
             "ScalarType? dtype=None) -> Tensor", kind="reduction",
             meta=reduction_meta(mean_dtype))
def mean(xp, self, dim=None, keepdim=False, dtype=None):
    """mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor."""
    result = mean_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)._np
    acc = "float32" if result.itemsize <= 2 and result.kind == "f" else result
    out = xp.mean(self, axis=axes(dim, self.ndim), keepdims=keepdim, dtype=acc)
    return xp.asarray(out).astype(result, copy=False)
