"""Numerical helpers built from other ops: vander, trapezoid/trapz, cumulative_trapezoid,
unravel_index, and the Tensor methods sum_to_size and __reversed__.

All are composites of registry ops (cumprod, sum, cumsum, diff, floor_divide, remainder, flip),
so gradients and the dispatch levels come from those ops.
"""
from __future__ import annotations

import itertools
import operator

from ember._core import arguments, dispatch
from ember._core import dtype as dt
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_type, _check_value
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_frontend
from ember._core.shape import wrap_dim
from ember._ops.creation_data import as_tensor

# --------------------------------------------------------------------------- vander

@register_frontend("vander", method=False)
@checked("vander(Tensor x, int? N=None, bool increasing=False)")
def vander(x, N=None, increasing=False):
    """vander(x, N=None, increasing=False) -> Tensor: the Vandermonde matrix of the 1-D `x`: its
    columns are the powers x**(N-1), ..., x**0 (x**0 first when `increasing`); integer and bool
    inputs give int64."""
    if _state.entry and _wants(locals()):
        return _handle(vander, locals())
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
        shape[dim] = x.shape[0]
        return x.view(shape).diff(dim=dim)      # (PyTorch's order: the view, then diff)
    return x.diff(dim=dim)


def _zeros_without(y, axis):
    """Zeros of y's dtype and shape less `axis` (the integral over no samples)."""
    shape = [s for d, s in enumerate(y.shape) if d != axis]
    return dispatch.call(OPS["zeros"], (shape, y.dtype, None, y.device, None))


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
        return dispatch.call(OPS["div.Scalar"], ((spacing * _neighbour_sums(y, axis)).sum(axis),
                                                 2.0))
    dx = 1 if dx is None else dx
    if y.shape[axis] == 0:
        return _zeros_without(y, axis)
    # (the numbers multiply as PyTorch's C++ does: a mode sees mul.Scalar, NOTE [overload forms])
    ends = y.select(dim, -1) + y.select(dim, 0)
    half = dispatch.call(OPS["mul.Scalar"], (ends, 0.5))
    return dispatch.call(OPS["mul.Scalar"], (y.sum(dim) - half, dx))


@register_frontend("trapezoid", method=False)
@checked("trapezoid(Tensor y, Tensor x, *, int dim=-1)",
         "trapezoid(Tensor y, *, Scalar dx=1, int dim=-1)")
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor: the integral of the samples `y` along
    `dim` by the trapezoid rule, at the points `x` or a constant spacing `dx` (1 by default)."""
    if _state.entry and _wants(locals()):
        return _handle(trapezoid, locals())
    return _trapezoid(y, x, dx, dim, "trapezoid")


@register_frontend("trapz", method=False)
@checked("trapz(Tensor y, Tensor x, *, int dim=-1)",
         "trapz(Tensor y, *, float dx=1., int dim=-1)")
def trapz(y, x=None, *, dx=None, dim=-1):
    """trapz(y, x=None, *, dx=None, dim=-1) -> Tensor: another name of trapezoid."""
    if _state.entry and _wants(locals()):
        return _handle(trapz, locals())
    return _trapezoid(y, x, dx, dim, "trapezoid")


@register_frontend("cumulative_trapezoid", method=False)
@checked("cumulative_trapezoid(Tensor y, Tensor x, *, int dim=-1)",
         "cumulative_trapezoid(Tensor y, *, Scalar dx=1, int dim=-1)")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """cumulative_trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor: the running trapezoid-rule
    integral of `y` along `dim` (one element shorter than y there)."""
    if _state.entry and _wants(locals()):
        return _handle(cumulative_trapezoid, locals())
    axis = wrap_dim(dim, y.ndim)
    if y.shape[axis] == 0:
        return y * 0.5
    if x is not None:
        _check_type(dx is None, "cumulative_trapezoid() takes either x or dx, not both")
        spacing = _sample_spacing(y, x, axis, "cumulative_trapezoid")
        return dispatch.call(OPS["div.Scalar"], ((spacing * _neighbour_sums(y, axis)).cumsum(axis),
                                                 2.0))
    dx = 1 if dx is None else dx
    return dispatch.call(OPS["mul.Scalar"], (_neighbour_sums(y, axis), dx / 2.0)).cumsum(axis)


# --------------------------------------------------------------------------- unravel_index

@register_frontend("unravel_index", method=False)
def unravel_index(indices, shape):
    """unravel_index(indices, shape) -> tuple of Tensors: the coordinates in a tensor of `shape`
    of each flat index (indices wrap around the size, as floor division and remainder do)."""
    if _state.entry and _wants(locals()):
        return _handle(unravel_index, locals())
    # (PyTorch's Python body asks `indices.is_complex()` first: a non-tensor's AttributeError)
    _check_type(not (indices.is_complex() or indices.dtype.is_floating_point
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
    if _state.entry and _wants(locals()):
        return _handle(sum_to_size, locals())
    given = size[0] if len(size) == 1 and not isinstance(size[0], int) else size  # (read)
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = size[0]
    size = tuple(size)
    _check_type(len(size) > 0, 'sum_to_size() missing 1 required positional arguments: "size"')
    shape = tuple(self.shape)
    expandable = len(size) <= len(shape) and all(
        s == 1 or s == t for s, t in zip(reversed(size), reversed(shape)))
    if not expandable:          # (a size that is no int list: the parser's TypeError first)
        arguments.int_list(given, ("sum_to_size", "size", 1))
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
    if _state.entry and _wants(locals()):
        return _handle(reversed_, locals())
    return self if self.ndim == 0 else self.flip(0)


register_frontend("sum_to_size", function=False)(sum_to_size)
register_frontend("__reversed__", function=False)(reversed_)


# --------------------------------------------------------------------------- renorm, gradient

def _norms_except(input, p, dim):
    """The p-norm of each slice input.select(dim, i), shaped to broadcast against input."""
    others = [d for d in range(input.ndim) if d != dim]
    return dispatch.call(OPS["norm.ScalarOpt_dim_dtype"], (input, p, others, True, None))


@register_frontend("renorm")
@checked("renorm(Tensor self, Scalar p, int dim, Scalar maxnorm)")
def renorm(input, p, dim, maxnorm):
    """renorm(input, p, dim, maxnorm) -> Tensor: each slice along `dim` whose p-norm exceeds
    `maxnorm` scaled down to norm `maxnorm` (to within 1e-7), the others unchanged."""
    if _state.entry and _wants(locals()):
        return _handle(renorm, locals())
    _check(p > 0, lambda: f"renorm: non-positive-norm not supported, got p={p}")
    _check(maxnorm >= 0, lambda: f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    _check(input.ndim > 1, lambda: (
        f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"))
    axis = wrap_dim(dim, input.ndim)
    norms = _norms_except(input, p, axis)
    factor = (maxnorm / (norms + 1e-7)).where(norms > maxnorm, norms.new_ones(()))
    return input * factor


def renorm_(self, p, dim, maxnorm):
    """Tensor.renorm_(p, dim, maxnorm) -> Tensor: renorm, in place."""
    if _state.entry and _wants(locals()):
        return _handle(renorm_, locals())
    return self.copy_(renorm(self, p, dim, maxnorm))


register_frontend("renorm_", function=False)(renorm_)


@register_frontend("norm_except_dim", method=False)
@checked("norm_except_dim(Tensor v, int pow=2, int dim=0)")
def norm_except_dim(v, pow=2, dim=0):
    """norm_except_dim(v, pow=2, dim=0) -> Tensor: the pow-norm of each slice along `dim`
    (keeping dims, so it broadcasts against v); dim=-1 means the norm of all of v."""
    if _state.entry and _wants(locals()):
        return _handle(norm_except_dim, locals())
    if dim == -1:
        return v.norm(pow)
    return _norms_except(v, pow, wrap_dim(dim, v.ndim))


def _along(f, axis, start, stop):
    return f.narrow(axis, start, stop - start)


def _gradient_uniform(f, axis, h, edge_order):
    n = f.shape[axis]
    interior = (_along(f, axis, 2, n) - _along(f, axis, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (_along(f, axis, 1, 2) - _along(f, axis, 0, 1)) / h
        last = (_along(f, axis, n - 1, n) - _along(f, axis, n - 2, n - 1)) / h
    else:
        first = (-1.5 * _along(f, axis, 0, 1) + 2 * _along(f, axis, 1, 2)
                 - 0.5 * _along(f, axis, 2, 3)) / h
        last = (0.5 * _along(f, axis, n - 3, n - 2) - 2 * _along(f, axis, n - 2, n - 1)
                + 1.5 * _along(f, axis, n - 1, n)) / h
    return dispatch.call(OPS["cat"], ([first, interior, last], axis))


def _gradient_coordinates(f, axis, x, edge_order):
    """Second-order differences at unevenly spaced coordinates x (a 1-D tensor)."""
    n = f.shape[axis]
    shape = [1] * f.ndim
    shape[axis] = -1
    dx = x.diff()
    left, right = dx[:-1].reshape(shape), dx[1:].reshape(shape)
    interior = (-right / (left * (left + right)) * _along(f, axis, 0, n - 2)
                + (right - left) / (left * right) * _along(f, axis, 1, n - 1)
                + left / (right * (left + right)) * _along(f, axis, 2, n))
    if edge_order == 1:
        first = (_along(f, axis, 1, 2) - _along(f, axis, 0, 1)) / dx[0]
        last = (_along(f, axis, n - 1, n) - _along(f, axis, n - 2, n - 1)) / dx[-1]
    else:
        a, b = dx[0], dx[1]
        first = (-(2 * a + b) / (a * (a + b)) * _along(f, axis, 0, 1)
                 + (a + b) / (a * b) * _along(f, axis, 1, 2)
                 - a / (b * (a + b)) * _along(f, axis, 2, 3))
        a, b = dx[-2], dx[-1]
        last = (b / (a * (a + b)) * _along(f, axis, n - 3, n - 2)
                - (a + b) / (a * b) * _along(f, axis, n - 2, n - 1)
                + (2 * b + a) / (b * (a + b)) * _along(f, axis, n - 1, n))
    return dispatch.call(OPS["cat"], ([first, interior, last], axis))


@register_frontend("gradient", method=False)
@checked("gradient(Tensor self, *, Scalar? spacing=None, int? dim=None, int edge_order=1)",
         "gradient(Tensor self, *, Scalar spacing, int[] dim, int edge_order=1)",
         "gradient(Tensor self, *, int[] dim, int edge_order=1)",
         "gradient(Tensor self, *, Scalar[] spacing, int? dim=None, int edge_order=1)",
         "gradient(Tensor self, *, Scalar[] spacing, int[] dim, int edge_order=1)",
         "gradient(Tensor self, *, Tensor[] spacing, int? dim=None, int edge_order=1)",
         "gradient(Tensor self, *, Tensor[] spacing, int[] dim, int edge_order=1)")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """gradient(input, *, spacing=1, dim=None, edge_order=1) -> tuple of Tensors: the derivative
    of the samples along each dim by central differences inside and one-sided ones (of order
    edge_order) at the ends; spacing is a number, one number per dim, or one coordinate tensor
    per dim."""
    if _state.entry and _wants(locals()):
        return _handle(gradient, locals())
    _check(edge_order in (1, 2), lambda: (
        f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}"))
    dims = list(range(input.ndim)) if dim is None else \
        [dim] if isinstance(dim, int) else list(dim)
    dims = [wrap_dim(d, input.ndim) for d in dims]
    spacings = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(spacings) == 1 and len(dims) > 1 and not isinstance(spacings[0], dispatch.Tensor):
        spacings = spacings * len(dims)
    _check(len(spacings) == len(dims), lambda: (
        f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
        f"arguments to have the same length, but got a spacing argument of length "
        f"{len(spacings)} and a dim argument of length {len(dims)}."))
    for d in dims:
        _check(input.shape[d] >= edge_order + 1,
               "torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if (input.dtype.is_floating_point or input.dtype.is_complex) else \
        input.to(dt.float32)
    results = []
    for d, step in zip(dims, spacings):
        if isinstance(step, dispatch.Tensor):
            results.append(_gradient_coordinates(f, d, step, edge_order))
        else:
            results.append(_gradient_uniform(f, d, step, edge_order))
    return tuple(results)
