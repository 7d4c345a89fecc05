"""Masked reductions and normalizations over strided tensors: `ember.masked.sum(x, dim, mask=m)`.

Each function is a composite of registry ops, so autograd and the dispatch levels see ordinary
ops. NOTE [masked identity]: a masked-out element is replaced by the reduction's identity (0 for
sum, 1 for prod, -inf or the dtype's minimum for amax/argmax/logsumexp/softmax, +inf or the
maximum for amin/argmin/softmin, 0 for norm except ord=-inf (+inf), NaN for median) before the
plain reduction runs. So a fully masked-out slice gives the identity itself (sum 0, prod 1, amax
-inf, norm 0), or what the plain op makes of it (mean and var 0/0 = NaN, softmax of all -inf =
NaN), as PyTorch's `torch.masked` does. The gradient flows through `where`, so masked-out
elements get zero gradient.
"""
from __future__ import annotations

import functools
import math
import sys

import ember
from ember._core import dtype as dt
from ember._core.checks import _check, _check_index, _check_not_implemented, _check_value
from ember._core.shape import wrap_dim

_WIDENED_FOR_SUM = frozenset((dt.uint8, dt.bool_, dt.int8, dt.int16, dt.int32))


def _takes_masked_tensor(reduction):
    """A MaskedTensor input reduces over its data with its own mask (any `mask` argument is
    ignored, as in PyTorch); the result is a plain tensor, and the data's gradient returns to
    the MaskedTensor with its mask."""
    @functools.wraps(reduction)
    def run(input, *args, **kwargs):
        module = sys.modules.get("ember.masked._tensor")    # loaded once one exists
        if module is not None and isinstance(input, module.MaskedTensor):
            kwargs["mask"] = input.get_mask()
            input = input.get_data()
        return reduction(input, *args, **kwargs)
    return run


def _canonical_dims(dim, ndim: int) -> tuple:
    """dim (None, an int or a sequence of ints) as sorted non-negative dims; None means all."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    wrapped = set()
    for d in dims:
        d = wrap_dim(d, ndim)
        _check(d not in wrapped, lambda d=d: f"dim={d} appears multiple times in the list of dims")
        wrapped.add(d)
    return tuple(sorted(wrapped))


def _input_mask(input, mask):
    """The mask broadcast to input's shape, as bool."""
    if tuple(mask.shape) != tuple(input.shape):
        _check_index(mask.ndim <= input.ndim, "_input_mask expected broadcastable mask (got "
                     "mask dimensionality higher than of the input)")
        mask = ember.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=ember.bool)


# The reduction a `_identity` name stands for, in error messages.
_PUBLIC_NAME = {"max": "amax", "min": "amin", "norm": "norm", "sum": "sum", "prod": "prod"}


def _lowest(dtype):
    if dtype.is_floating_point:
        return -math.inf
    if dtype.is_complex:
        return complex(-math.inf, 0)
    return ember.iinfo(dtype).min


def _highest(dtype):
    if dtype.is_floating_point:
        return math.inf
    return ember.iinfo(dtype).max


def _identity(name: str, input, ord=None):
    """NOTE [masked identity]: the value a masked-out element stands for in reduction `name`."""
    dtype = input.dtype
    _check_not_implemented(dtype is not dt.bool_ or name in ("sum", "prod"), lambda: (
        f"identity of {_PUBLIC_NAME[name]} on {dtype} input"))
    if name == "sum":
        return 0
    if name == "prod":
        return 1
    if name == "max":
        return _lowest(dtype)
    if name == "min":
        return _highest(dtype)
    if name == "norm":
        return math.inf if ord == -math.inf else 0
    raise AssertionError(name)


def _fill_masked(name: str, input, mask, ord=None):
    """input with its masked-out elements set to the identity of `name` (unchanged if no mask)."""
    if mask is None:
        return input
    keep = _input_mask(input, mask)
    fill = ember.tensor(_identity(name, input, ord), dtype=input.dtype, device=input.device)
    return ember.where(keep, input, fill)


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return dt.int64 if input.dtype in _WIDENED_FOR_SUM else input.dtype


@_takes_masked_tensor
def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """sum(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the sum of the
    elements `mask` keeps (0 where it keeps none)."""
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dims(dim, input.ndim)
    return ember.sum(_fill_masked("sum", input, mask), dims, bool(keepdim), dtype=dtype)


@_takes_masked_tensor
def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """prod(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the product of
    the elements `mask` keeps (1 where it keeps none)."""
    dtype = _sum_dtype(input, dtype)
    result = _fill_masked("prod", input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dims(dim, input.ndim)):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


@_takes_masked_tensor
def cumsum(input, dim, *, dtype=None, mask=None):
    """cumsum(input, dim, *, dtype=None, mask=None) -> Tensor: running sums that skip masked-out
    elements (they contribute 0)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dims(dim, input.ndim)[0]
    return ember.cumsum(_fill_masked("sum", input, mask), axis, dtype=dtype).to(dtype=dtype)


@_takes_masked_tensor
def cumprod(input, dim, *, dtype=None, mask=None):
    """cumprod(input, dim, *, dtype=None, mask=None) -> Tensor: running products that skip
    masked-out elements (they contribute 1)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dims(dim, input.ndim)[0]
    return ember.cumprod(_fill_masked("prod", input, mask), axis, dtype=dtype).to(dtype=dtype)


@_takes_masked_tensor
def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """amax(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the largest kept
    element (-inf, or the dtype's minimum, where none is kept)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dims(dim, input.ndim)
    return ember.amax(_fill_masked("max", input, mask), dims, bool(keepdim)).to(dtype=dtype)


@_takes_masked_tensor
def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """amin(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the smallest kept
    element (+inf, or the dtype's maximum, where none is kept)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dims(dim, input.ndim)
    return ember.amin(_fill_masked("min", input, mask), dims, bool(keepdim)).to(dtype=dtype)


@_takes_masked_tensor
def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the index of
    the largest kept element, in `dtype` (the input's dtype by default, as PyTorch)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _fill_masked("max", input, mask)
    return ember.argmax(filled, dim, bool(keepdim)).to(dtype=dtype)


@_takes_masked_tensor
def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the index of
    the smallest kept element, in `dtype` (the input's dtype by default, as PyTorch)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _fill_masked("min", input, mask)
    return ember.argmin(filled, dim, bool(keepdim)).to(dtype=dtype)


def _float_dtype_or_raise(input, dtype, where):
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    _check_value(dtype.is_floating_point or dtype.is_complex, lambda: (
        f"{where}(): Could not infer output dtype. {source} dtype must be either a floating "
        f"point or complex dtype. Got: {dtype}"))
    return dtype


def _count(input, dim, keepdim, mask):
    """How many elements each output reduces over (kept elements when there is a mask)."""
    if mask is None:
        ones = ember.ones(input.shape, dtype=ember.int64, device=input.device)
        return sum(ones, dim, keepdim=keepdim)
    return mask.sum(dim=dim, keepdim=bool(keepdim))


@_takes_masked_tensor
def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """mean(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the mean of the
    kept elements (NaN where none is kept)."""
    dtype = _float_dtype_or_raise(input, dtype, "mean")
    keep = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, keepdim, keep)
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=keep)
    return total / count


@_takes_masked_tensor
def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """median(input, dim=-1, *, keepdim=False, dtype=None, mask=None) -> Tensor: the median of the
    kept elements (NaN where none is kept; an error for integer input then)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dims(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=ember.float32)
    if mask is not None:
        nan = ember.tensor(math.nan, dtype=input.dtype, device=input.device)
        input = ember.where(_input_mask(input, mask), input, nan)
    output = ember.nanmedian(input, axis, keepdim).values
    if is_float:
        return output
    _check_value(not bool(ember.isnan(output).any()), "masked median expects no fully masked "
                 "out rows if dtype is not floating point")
    return output.to(dtype=dtype)


@_takes_masked_tensor
def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: log of the
    sum of exp over the kept elements (-inf where none is kept)."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dims(dim, input.ndim)
    filled = _fill_masked("max", input, mask)
    return ember.logsumexp(filled, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None) -> Tensor: log of
    exp(input) + exp(other), each side's masked-out elements counting as -inf."""
    dtype = input.dtype if dtype is None else dtype
    left = _fill_masked("max", input, input_mask)
    right = _fill_masked("max", other, other_mask)
    return ember.logaddexp(left, right).to(dtype=dtype)


@_takes_masked_tensor
def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor: the
    vector `ord`-norm of the kept elements (0 where none is kept; +inf for ord=-inf)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _fill_masked("norm", input, mask, ord)
    dims = _canonical_dims(dim, input.ndim)
    return ember.norm(filled, ord, dims, bool(keepdim), dtype=dtype)


def _var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    _check_value(unbiased is None or correction is None,
                 "Only one of unbiased and correction may be given")
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    correction = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = ember.float32
    compute = dtype if (dtype.is_floating_point or dtype.is_complex) else ember.float32
    keep = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, True, keep)
    center = sum(input, dim, keepdim=True, dtype=dtype, mask=keep) / count
    deviation = input - center
    total = sum(deviation * deviation.conj(), dim, keepdim=keepdim, dtype=compute, mask=keep)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real = compute.to_real() if compute.is_complex else compute
        count = ember.clamp_min(count.to(real) - correction, 0)
    output = (total / count).to(dtype=dtype)
    return ember.sqrt(output) if take_sqrt else output


@_takes_masked_tensor
def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
    mask=None) -> Tensor: the variance of the kept elements (NaN where too few are kept)."""
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


@_takes_masked_tensor
def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    """std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
    mask=None) -> Tensor: the standard deviation of the kept elements."""
    return _var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


@_takes_masked_tensor
def softmax(input, dim, *, dtype=None, mask=None):
    """softmax(input, dim, *, dtype=None, mask=None) -> Tensor: softmax over the kept elements
    (masked-out ones get 0; a slice with none kept is NaN)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dims(dim, input.ndim)[0]
    filled = _fill_masked("max", input, mask)
    return ember.nn.functional.softmax(filled, axis, dtype=dtype)


@_takes_masked_tensor
def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax(input, dim, *, dtype=None, mask=None) -> Tensor: log of the masked softmax
    (masked-out elements get -inf)."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dims(dim, input.ndim)[0]
    filled = _fill_masked("max", input, mask)
    return ember.nn.functional.log_softmax(filled, axis, dtype=dtype)


@_takes_masked_tensor
def softmin(input, dim, *, dtype=None, mask=None):
    """softmin(input, dim, *, dtype=None, mask=None) -> Tensor: softmax of -input over the kept
    elements."""
    dtype = input.dtype if dtype is None else dtype
    axis = _canonical_dims(dim, input.ndim)[0]
    filled = _fill_masked("min", input, mask)
    return ember.nn.functional.softmin(filled, axis, dtype=dtype)


@_takes_masked_tensor
def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None) -> Tensor: the kept
    elements divided by their `ord`-norm along dim (at least eps); masked-out elements give 0."""
    dtype = input.dtype if dtype is None else dtype
    filled = _fill_masked("sum", input, mask)
    denominator = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denominator = ember.maximum(denominator, denominator.new_full([], eps))
    return ember.divide(filled, denominator)
