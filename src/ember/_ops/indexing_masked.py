"""Masks, nonzero / argwhere, and the flat-index ops take / take_along_dim / put.

Like the rest of the indexing family (indexing.py, indexing_scatter.py), kernels that write
copy `self` first; the in-place variants copy the result back.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.cpu_allocator import MIN_BYTES as POOLED_BYTES
from ember._backends.meta import iterator_order
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_index
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import wrap_dim
from ember._ops.creation_ranges import arange
from ember._ops.filling import fill_value
from ember._ops.grad_utils import where
from ember._ops.indexing import check_in_bounds, cpp_name, index_arg
from ember._ops.indexing_scatter import _as_1d, _same_meta, reduce_into

# --------------------------------------------------------------------------- nonzero

@register_op("nonzero(Tensor self) -> Tensor", function=False, method=False,
             differentiable=False, tags=("keeps_layout",))
def _nonzero(xp, self):
    """The (n, ndim) int64 coordinates of the nonzero elements, column-major as PyTorch's
    (strides (1, n): each dim's coordinates lie together)."""
    mask = self != 0 if self.dtype.kind != "b" else self
    if self.ndim == 0:
        return xp.argwhere(mask).astype(np.int64)
    return xp.stack(xp.nonzero(mask)).astype(np.int64).T


@register_frontend("nonzero")
def nonzero(input, *, out=None, as_tuple=False):
    """nonzero(input, *, out=None, as_tuple=False): indices of the nonzero elements."""
    if _state.entry and _wants(locals()):
        return _handle(nonzero, locals())
    if as_tuple:
        _check(out is None, "nonzero(): as_tuple=True does not take out=")
        flat = input.unsqueeze(0) if input.dim() == 0 else input
        coords = dispatch.call(OPS["nonzero"], (flat,))
        # (its columns, as PyTorch's unbind views them: a (n, ndim) result in column order)
        return tuple(dispatch.call(OPS["unbind.int"], (coords, 1)))
    if out is None:
        return dispatch.call(OPS["nonzero"], (input,))
    return dispatch.call_out(OPS["nonzero"], (input,), out)


@register_op("argwhere(Tensor self) -> Tensor", out=False, differentiable=False,
             tags=("keeps_layout",))
def argwhere(xp, self):
    """argwhere(input) -> Tensor: the (n, ndim) coordinates of the nonzero elements."""
    return _nonzero(xp, self)


# --------------------------------------------------------------------------- masks

def _check_bool_mask(mask, what):
    _check(mask.dtype.kind == "b", lambda: (
        f"{what} only supports boolean masks, but got mask with dtype {_torch_dtype(mask)}"))


def _torch_dtype(array):
    name = dt.NP_TO_DTYPE[array.dtype]._name
    return {"uint8": "unsigned char", "int8": "signed char"}.get(name, name)


def _broadcast_meta(self, mask, *rest):
    return np.broadcast_shapes(self._data.shape, mask._data.shape), self._dtype


def _masked_fill(xp, self, mask, value):
    _check_bool_mask(mask, "masked_fill_")
    dispatch.check_broadcastable(OPS["masked_fill.Scalar"], [self.shape, mask.shape])
    if self.nbytes >= POOLED_BYTES:
        # (value has self's dtype) NOTE [CPU caching allocator], NOTE [back-end helpers]
        out = backend_helpers(xp).empty(self.shape if self.shape == mask.shape else
                               np.broadcast_shapes(self.shape, mask.shape), self.dtype)
        xp.copyto(out, self)
        xp.copyto(out, value, where=mask)
        return out
    return xp.where(mask, value, self).astype(self.dtype, copy=False)


# Derivatives: see NOTE [indexing derivatives] in indexing.py.

def _unmasked_grad(c):
    return c.grad.masked_fill(c.mask, 0)


def _masked_fill_value_grad(c):
    # The 0-d value lands at every masked position of the (broadcast) result.
    return where(c.mask, c.grad, 0).sum()


@register_op("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
             function=False, method=False, meta=_broadcast_meta, saves=("mask",),
             derivatives={"self": _unmasked_grad}, tags=("fp_errors",))
def _masked_fill_scalar(xp, self, mask, value):
    """A copy of input with `value` where `mask` is True."""
    return _masked_fill(xp, self, mask, fill_value(value, self.dtype))


@register_op("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
             function=False, method=False, meta=_broadcast_meta, saves=("mask",),
             derivatives={"self": _unmasked_grad, "value": _masked_fill_value_grad},
             node_name="MaskedFillBackward1", tags=("fp_errors",))
def _masked_fill_tensor(xp, self, mask, value):
    """A copy of input with the 0-d tensor `value` where `mask` is True."""
    _check(value.ndim == 0, lambda: (
        "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
        f"{value.ndim} dimension(s)."))
    if value.dtype.kind == "c" and self.dtype.kind != "c":
        value = value.real
    return _masked_fill(xp, self, mask, xp.asarray(value).astype(self.dtype))


def _masked_fill_overload(value):
    return OPS["masked_fill.Tensor" if isinstance(value, dispatch.Tensor)
               else "masked_fill.Scalar"]


def masked_fill_(self, mask, value):
    """Fill self with `value` where `mask` is True, in place."""
    if _state.entry and _wants(locals()):
        return _handle(masked_fill_, locals())
    return dispatch.call_inplace(_masked_fill_overload(value), (self, mask, value))


@register_frontend("masked_fill", inplace=masked_fill_)
def masked_fill(input, mask, value):
    """masked_fill(input, mask, value) -> Tensor: `value` where `mask`, else input."""
    if _state.entry and _wants(locals()):
        return _handle(masked_fill, locals())
    return dispatch.call(_masked_fill_overload(value), (input, mask, value))


def _masked_select_self_grad(c):
    shape = np.broadcast_shapes(tuple(c.self.shape), tuple(c.mask.shape))
    return c.grad.new_zeros(shape).masked_scatter(c.mask, c.grad)


def _masked_scatter_source_grad(c):
    # The first count(mask) elements of source were written; the rest get zeros.
    taken = c.grad.masked_select(c.mask)
    numel = c.source.numel()
    if taken.numel() < numel:
        leading = arange(numel, device=c.grad.device) < taken.numel()
        taken = c.grad.new_zeros((numel,)).masked_scatter(leading, taken)
    return taken.reshape(tuple(c.source.shape))


@register_op("masked_select(Tensor self, Tensor mask) -> Tensor", saves=("mask",),
             derivatives={"self": _masked_select_self_grad})
def masked_select(xp, self, mask):
    """masked_select(input, mask, *, out=None) -> Tensor: the 1-D elements where `mask`."""
    _check(mask.dtype.kind == "b", "masked_select: expected BoolTensor for mask")
    dispatch.check_broadcastable(OPS["masked_select"], [mask.shape, self.shape])  # (its order)
    shape = np.broadcast_shapes(self.shape, mask.shape)
    return xp.broadcast_to(self, shape)[xp.broadcast_to(mask, shape)]


@register_op("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", inplace=True,
             out=False, meta=_broadcast_meta, saves=("mask",),
             derivatives={"self": _unmasked_grad, "source": _masked_scatter_source_grad},
             tags=("fp_errors",))
def masked_scatter(xp, self, mask, source):
    """masked_scatter(input, mask, source) -> Tensor: a copy of input whose positions where
    `mask` is True take consecutive elements of `source`."""
    _check_bool_mask(mask, "masked_scatter_")
    _check(source.dtype == self.dtype, lambda: (
        "masked_scatter: expected self and source to have same dtypes but got "
        f"{cpp_name(self)} and {cpp_name(source)}"))
    shape = np.broadcast_shapes(self.shape, mask.shape)
    out = xp.array(xp.broadcast_to(self, shape), copy=True, order="C")
    mask = xp.broadcast_to(mask, shape)
    count = int(mask.sum())
    _check(source.size >= count, "Number of elements of source < number of ones in mask")
    out[mask] = source.reshape(-1)[:count]
    return out


# --------------------------------------------------------------------------- flat indices

def _check_flat_bounds(xp, index, numel):
    if index.size == 0:
        return
    low, high = int(index.min()), int(index.max())
    if low < -numel or high >= numel:
        bad = low if low < -numel else high
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {numel} "
                         "elements.")


def _take_meta(self, index):
    return index._data.shape, self._dtype


def _take_self_grad(c):
    zeros = c.grad.new_zeros(tuple(c.self.shape))
    return dispatch.call(OPS["put"], (zeros, index_arg(c), c.grad, True))


@register_op("take(Tensor self, Tensor index) -> Tensor", meta=_take_meta, saves=("index",),
             derivatives={"self": _take_self_grad})
def take(xp, self, index):
    """take(input, index) -> Tensor: input's elements at the flat positions `index`."""
    _check(index.dtype == np.int64, lambda: (
        f"take(): Expected a long tensor for index, but got {cpp_name(index)}"))
    _check_flat_bounds(xp, index, self.size)
    return xp.take(self.reshape(-1), index)


def _take_along_dim_shape(self_shape, index_shape, dim):
    _check(len(self_shape) == len(index_shape), lambda: (
        "torch.take_along_dim(): input and indices should have the same number of dimensions, "
        f"but got {len(self_shape)} dimensions for input, and {len(index_shape)} dimensions "
        "for indices"))
    padded_self = tuple(1 if d == dim else s for d, s in enumerate(self_shape))
    padded_index = tuple(1 if d == dim else s for d, s in enumerate(index_shape))
    dispatch.check_broadcastable(None, [padded_self, padded_index])
    return np.broadcast_shapes(padded_self, padded_index)


def _take_along_dim_meta(self, indices, dim=None):
    if dim is None:
        return (indices._data.size,), self._dtype
    dim = wrap_dim(dim, self._data.ndim)
    shape = list(_take_along_dim_shape(self._data.shape, indices._data.shape, dim))
    if shape:
        shape[dim] = indices._data.shape[dim]
    return tuple(shape), self._dtype


def _flat_view(array):
    try:
        return array.reshape(-1, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None


def _take_along_dim_self_grad(c):
    grad, indices, dim = c.grad, c.indices, c.dim
    if dim is None:
        zeros = grad.new_zeros(tuple(c.self.shape))
        return dispatch.call(OPS["put"], (zeros, indices, grad, True))
    shape = tuple(c.self.shape)
    if not shape:
        return grad.sum()     # 0-d input is read as 1-d of size 1: every index hits it
    dim = wrap_dim(dim, len(shape))
    # The result is a gather from input broadcast against indices (but for `dim`); scatter the
    # gradient back into that broadcast input and let the engine sum it down to input's shape.
    size = shape[dim]
    positions = indices.expand(tuple(grad.shape))
    positions = where(positions < 0, positions + size, positions)
    source_shape = list(grad.shape)
    source_shape[dim] = size
    return grad.new_zeros(tuple(source_shape)).scatter_add(dim, positions, grad)


@register_op("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
             meta=_take_along_dim_meta, saves=("indices",),
             derivatives={"self": _take_along_dim_self_grad})
def take_along_dim(xp, self, indices, dim=None):
    """take_along_dim(input, indices, dim=None) -> Tensor: gather along `dim` with indices
    broadcast against input (flattened input and indices when dim is None)."""
    _check(indices.dtype == np.int64, lambda: (
        "torch.take_along_dim(): dtype of indices should be Long but got "
        f"{cpp_name(indices)}"))
    if dim is None:
        # PyTorch flattens both with view(-1): a layout that needs a copy is an error there.
        flat = _flat_view(indices)
        check_in_bounds(xp, flat, self.size, 0)
        return xp.take(_flat_view(self), flat)
    dim = wrap_dim(dim, self.ndim)
    source, positions = _as_1d(self), _as_1d(indices)
    shape = _take_along_dim_shape(source.shape, positions.shape, dim)
    size = source.shape[dim]
    source = xp.broadcast_to(source, shape[:dim] + (size,) + shape[dim + 1:])
    positions = xp.broadcast_to(positions, shape[:dim] + (positions.shape[dim],)
                                + shape[dim + 1:])
    check_in_bounds(xp, positions, size, dim, negative=True)
    result = xp.take_along_axis(source, xp.where(positions < 0, positions + size, positions),
                                axis=dim)
    return result.reshape(()) if self.ndim == 0 else result


def _put_self_grad(c):
    if c.accumulate:
        return c.grad
    zeros = c.grad.new_zeros(tuple(c.source.shape))
    return dispatch.call(OPS["put"], (c.grad, index_arg(c), zeros, False))


def _put_source_grad(c):
    return c.grad.take(index_arg(c)).reshape(tuple(c.source.shape))


@register_op("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
             inplace=True, out=False, meta=_same_meta, saves=("index",),
             derivatives={"self": _put_self_grad, "source": _put_source_grad}, tags=("fp_errors",))
def put(xp, self, index, source, accumulate=False):
    """put(input, index, source, accumulate=False) -> Tensor: a copy of input with source's
    elements written at the flat positions `index` (summed when `accumulate`)."""
    _check(index.dtype == np.int64, lambda: (
        f"put_(): Expected a long tensor for index, but got {cpp_name(index)}"))
    _check(source.dtype == self.dtype, lambda: (
        "put_(): self and source expected to have the same dtype, but got self.dtype = "
        f"{cpp_name(self)} and source.dtype = {cpp_name(source)}"))
    _check_index(index.size == source.size, lambda: (
        "put_(): Expected source and index to have the same number of elements, but got "
        f"source.numel() = {source.size}, index.numel() = {index.size}"))
    _check_flat_bounds(xp, index, self.size)
    if not accumulate and dispatch.state.deterministic is not None:
        # Only the overwriting form has no deterministic CPU kernel in PyTorch.
        dispatch.state.deterministic(OPS["put"])
    positions, values = index.reshape(-1), source.reshape(-1)
    if accumulate:
        flat = reduce_into(xp, self.reshape(-1), (positions,), values, "add")
        return flat.reshape(self.shape)
    if index.size > 1 and xp is np:             # NOTE [put_'s order]
        order = iteration_order(source.shape, (source.strides,
                                               index.reshape(source.shape).strides))
        if order is not None:
            positions, values = positions[order], values[order]
    out = self.copy()
    out.reshape(-1)[positions] = values
    return out


# NOTE [put_'s order]: where `index` repeats a position, put_ without accumulate keeps the value
# written last, and PyTorch's kernel walks source and index as its TensorIterator orders their
# dimensions: by the strides, smallest innermost, the first operand (source) deciding and a
# stride-0 dimension left to the next (index) -- the memory order of a transposed source, not
# its logical order. `iteration_order` gives that walk's flat logical positions (None for the
# logical order itself).
def iteration_order(shape, operand_strides):
    ndim = len(shape)
    if ndim < 2:
        return None

    def should_swap(dim0, dim1):
        for strides in operand_strides:
            first, second = strides[dim0], strides[dim1]
            if first == 0 or second == 0:
                continue
            if first != second:
                return 1 if first > second else -1
            if shape[dim0] > shape[dim1]:      # (equal strides: the smaller size inner)
                return 1
        return 0

    outer_first = iterator_order(ndim, should_swap)[::-1]
    if outer_first == list(range(ndim)):
        return None
    return np.arange(math.prod(shape)).reshape(shape).transpose(outer_first).reshape(-1)
