"""Numerical helpers built from other ops: vander, trapezoid/trapz, cumulative_trapezoid,
unravel_index, and the Tensor methods sum_to_size and __reversed__.

All are composites of registry ops (cumprod, sum, cumsum, diff, floor_divide, remainder, flip),
so gradients and the dispatch levels come from those ops.
"""
from __future__ import annotations

import itertools
import operator

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type, _check_value
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_frontend
from ember._core.shape import wrap_dim
from ember._ops.creation_data import as_tensor

# --------------------------------------------------------------------------- vander

@register_frontend("vander", method=False)
def vander(x, N=None, increasing=False):
    """vander(x, N=None, increasing=False) -> Tensor: the Vandermonde matrix of the 1-D `x`: its
    columns are the powers x**(N-1), ..., x**0 (x**0 first when `increasing`); integer and bool
    inputs give int64."""
    _check(x.ndim == 1, "x must be a one-dimensional tensor.")
    columns = x.shape[0] if N is None else N
    _check(columns >= 0, "N must be non-negative.")
    dtype = promote_types(x.dtype, dt.int64)
    ones = x.new_ones((x.shape[0], 1), dtype=dtype)
    if columns == 0:
        result = x.new_empty((x.shape[0], 0), dtype=dtype)
    elif columns == 1:
        result = ones
    else:
        powers = x.to(dtype).unsqueeze(1).expand(x.shape[0], columns - 1).cumprod(1)
        result = dispatch.call(OPS["cat"], ([ones, powers], 1))
    return result if increasing else result.flip(1)


# --------------------------------------------------------------------------- trapezoid

def _sample_spacing(y, x, dim, where):
    """The spacing between neighbouring samples along `dim`, shaped to broadcast with y."""
    _check_type(isinstance(x, dispatch.Tensor), lambda: (
        f"{where}() received an invalid combination of arguments - got (Tensor, "
        f"{type(x).__name__}): `x` must be a Tensor (use dx= for a constant spacing)"))
    if x.ndim == 1:
        _check(x.shape[0] == y.shape[dim], lambda: (
            f"{where}: There must be one `x` value for each sample point"))
        shape = [1] * y.ndim
        shape[dim] = max(x.shape[0] - 1, 0)
        return x.diff().reshape(shape)
    return x.diff(dim=dim)


def _zeros_without(y, axis):
    """Zeros of y's dtype and shape less `axis` (the integral over no samples)."""
    shape = tuple(s for d, s in enumerate(y.shape) if d != axis)
    return y.new_zeros(shape)


def _neighbour_sums(y, dim):
    length = y.shape[dim]
    return y.narrow(dim, 1, length - 1) + y.narrow(dim, 0, length - 1)


def _trapezoid(y, x, dx, dim, where):
    axis = wrap_dim(dim, y.ndim)
    if x is not None:
        _check_type(dx is None, lambda: f"{where}() takes either x or dx, not both")
        if y.shape[axis] == 0:
            return _zeros_without(y, axis)
        spacing = _sample_spacing(y, x, axis, where)
        return (spacing * _neighbour_sums(y, axis)).sum(axis) / 2.0
    dx = 1 if dx is None else dx
    if y.shape[axis] == 0:
        return _zeros_without(y, axis)
    ends = y.select(axis, 0) + y.select(axis, -1)
    return (y.sum(axis) - ends * 0.5) * dx


@register_frontend("trapezoid", method=False)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor: the integral of the samples `y` along
    `dim` by the trapezoid rule, at the points `x` or a constant spacing `dx` (1 by default)."""
    return _trapezoid(y, x, dx, dim, "trapezoid")


@register_frontend("trapz", method=False)
def trapz(y, x=None, *, dx=None, dim=-1):
    """trapz(y, x=None, *, dx=None, dim=-1) -> Tensor: another name of trapezoid."""
    return _trapezoid(y, x, dx, dim, "trapezoid")


@register_frontend("cumulative_trapezoid", method=False)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """cumulative_trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor: the running trapezoid-rule
    integral of `y` along `dim` (one element shorter than y there)."""
    axis = wrap_dim(dim, y.ndim)
    if y.shape[axis] == 0:
        return y * 0.5
    if x is not None:
        _check_type(dx is None, "cumulative_trapezoid() takes either x or dx, not both")
        spacing = _sample_spacing(y, x, axis, "cumulative_trapezoid")
        return ((spacing * _neighbour_sums(y, axis)) / 2.0).cumsum(axis)
    dx = 1 if dx is None else dx
    return (dx / 2.0 * _neighbour_sums(y, axis)).cumsum(axis)


# --------------------------------------------------------------------------- unravel_index

@register_frontend("unravel_index", method=False)
def unravel_index(indices, shape):
    """unravel_index(indices, shape) -> tuple of Tensors: the coordinates in a tensor of `shape`
    of each flat index (indices wrap around the size, as floor division and remainder do)."""
    _check_type(isinstance(indices, dispatch.Tensor), lambda: (
        f"unravel_index(): expected 'indices' to be a Tensor, but got {type(indices).__name__}"))
    _check_type(not (indices.dtype.is_floating_point or indices.dtype.is_complex
                     or indices.dtype is dt.bool_), lambda: (
        f"expected 'indices' to be integer dtype, but got {indices.dtype}"))
    if isinstance(shape, int):
        shape = (shape,)
    _check_type(all(isinstance(s, int) for s in shape), lambda: (
        f"expected 'shape' to be int or sequence of ints, but got {shape}"))
    shape = tuple(shape)
    _check_value(all(s >= 0 for s in shape), lambda: (
        f"'shape' cannot have negative values, but got {shape}"))
    strides = list(itertools.accumulate(reversed(shape[1:] + (1,)), operator.mul))[::-1]
    strides = as_tensor(strides, dtype=dt.int64, device=indices.device)
    sizes = as_tensor(list(shape), dtype=dt.int64, device=indices.device)
    coordinates = indices.unsqueeze(-1).floor_divide(strides).remainder(sizes)
    return coordinates.unbind(-1)


# --------------------------------------------------------------------------- Tensor methods

def sum_to_size(self, *size):
    """Tensor.sum_to_size(*size) -> Tensor: `self` summed over the dimensions that broadcasting
    `size` to self's shape would add or expand."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = size[0]
    size = tuple(size)
    _check_type(len(size) > 0, 'sum_to_size() missing 1 required positional arguments: "size"')
    shape = tuple(self.shape)
    expandable = len(size) <= len(shape) and all(
        s == 1 or s == t for s, t in zip(reversed(size), reversed(shape)))
    _check(expandable, lambda: (
        f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}."))
    lead = len(shape) - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    if not dims:
        return self
    result = self.sum(dims, keepdim=True)
    return result.reshape(size) if lead else result


def reversed_(self):
    """Tensor.__reversed__() -> Tensor: self flipped along its first dimension (a 0-d tensor is
    itself)."""
    return self if self.ndim == 0 else self.flip(0)


register_frontend("sum_to_size", function=False)(sum_to_size)
register_frontend("__reversed__", function=False)(reversed_)
