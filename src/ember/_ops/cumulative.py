"""Scans along one dim: cumsum, cumprod (and their in-place forms), cummax, cummin and
logcumsumexp.

Every kernel works on a view with at least one dim (a 0-d tensor scans as a 1-element vector,
as in PyTorch) and returns a fresh array of the input's shape. Half types are scanned in float32
and rounded back, as PyTorch's CPU kernels accumulate them.

The derivative formulas sit next to each entry, written in ember ops (see grad_utils.py). A scan
sends the gradient of output j to every input i <= j, so most of them are scans run backwards
(`reverse_cumsum`).
"""
from __future__ import annotations

import numpy as np

from ember._core import arguments, complex_half, dispatch
from ember._core import dtype as dt
from ember._core.arguments import parser_error
from ember._core.checks import _check, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.finfo import finfo
from ember._core.host_kernels import host_kernel
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.return_types import return_type
from ember._core.shape import wrap_dim
from ember._ops.grad_utils import conj, where
from ember._ops.pointwise_binary import complex_log_add_exp
from ember._ops.reduction import sum_dtype

_HALF = (np.dtype(dt.float16._np), np.dtype(dt.bfloat16._np))
_INT64 = np.dtype(np.int64)

# PyTorch returns these as `torch.return_types.cummax` / `cummin`: tuples with named fields.
cummax_result = return_type("cummax", ("values", "indices"))
cummin_result = return_type("cummin", ("values", "indices"))


def not_implemented(kernel_name: str, np_dtype) -> None:
    """PyTorch's error for a dtype a kernel has no implementation for."""
    name = dt.NP_TO_DTYPE[np.dtype(np_dtype)]._cpp_name
    raise NotImplementedError(f'"{kernel_name}" not implemented for \'{name}\'')


def scan_axis(x, dim):
    """(x with at least one dim, the wrapped axis to scan along)."""
    axis = wrap_dim(dim, x.ndim)
    return (x.reshape(1) if x.ndim == 0 else x), axis


def _same_shape_meta(self, dim, *rest):
    wrap_dim(dim, len(self._data.shape))
    return tuple(self._data.shape), self._dtype


def _scan_meta(self, dim, dtype=None):
    wrap_dim(dim, len(self._data.shape))
    return tuple(self._data.shape), sum_dtype(self._dtype, dtype)


# --------------------------------------------------------------------------- derivatives

def _reversed(x, dim):
    """`x` in reverse order along `dim`."""
    from ember._ops.creation_ranges import arange
    # (index_select rather than flip: flip has no derivative yet, and these formulas must be
    # differentiable themselves.)
    n = x.shape[dim]
    return x.index_select(dim, arange(n - 1, -1, -1, device=x.device))


def reverse_cumsum(x, dim):
    """Sums from each position to the end of `dim` (the adjoint of cumsum)."""
    return _reversed(_reversed(x, dim).cumsum(dim), dim)


def _cumsum_grad(c):
    grad = c.grad
    if grad.ndim == 0:
        return grad
    return reverse_cumsum(grad, wrap_dim(c.dim, grad.ndim))


def _cumprod_grad(c):
    """d out_j / d x_i = prod over m <= j, m != i of x_m (for i <= j)."""
    grad, result = c.grad, c.result
    x = c.self
    if x.ndim == 0 or x.numel() == 0:
        return grad
    dim = wrap_dim(c.dim, x.ndim)
    if x.shape[dim] == 1:
        return grad
    if x._dtype is not result._dtype:
        # (dtype=...) the scan ran in the result's dtype.
        x = x.to(result._dtype)
    is_zero = x == 0
    if not bool(is_zero.any()):
        return reverse_cumsum(grad * conj(result), dim) / conj(x)
    if dispatch.state.grad_enabled():
        # A second derivative needs a formula that stays a polynomial in x.
        return _cumprod_grad_quadratic(x, grad, dim)
    # With zeros: before the first zero along dim the division above holds; at the first zero
    # the product skips that zero; after it every product holds the first zero.
    zeros_so_far = is_zero.cumsum(dim)
    before = zeros_so_far == 0
    first_zero = is_zero & (zeros_so_far == 1)
    below = reverse_cumsum(grad * conj(result), dim) / conj(where(before, x, 1))
    skipping = where(first_zero, 1, x).cumprod(dim)
    at_zero = reverse_cumsum(grad * conj(skipping), dim)
    return where(before, below, where(first_zero, at_zero, 0))


def _cumprod_grad_quadratic(x, grad, dim):
    """The cumprod gradient without divisions: a (n, n) table per slice along dim whose row i
    is the running product of x with x_i taken as 1."""
    from ember._ops.creation_ranges import arange
    n = x.shape[dim]
    positions = arange(n, device=x.device)
    same = positions.unsqueeze(-1) == positions       # [i, m]: m == i
    later = positions.unsqueeze(-1) <= positions      # [i, j]: j >= i
    rows = where(same, 1, x.movedim(dim, -1).unsqueeze(-2))
    products = rows.cumprod(-1)
    terms = where(later, grad.movedim(dim, -1).unsqueeze(-2) * conj(products), 0)
    return terms.sum(-1).movedim(-1, dim)


def selection_grad(c):
    """For ops whose values are the input gathered at `indices` along `dim`: scatter back,
    adding where one element was picked more than once. Its ops save only the indices
    (saves=("result1",)): PyTorch lets the values output be changed in place."""
    grad, indices = c.grad, c.results[1]
    if c.self.ndim == 0:
        return grad
    return grad.new_zeros(c.self.shape).scatter_add(c.dim, indices, grad)


def _reverse_logcumsumexp(x, dim):
    return _reversed(_reversed(x, dim).logcumsumexp(dim), dim)


def _logcumsumexp_grad(c):
    """d out_j / d x_i = exp(x_i - out_j) for i <= j, summed against grad in log space so that
    neither exp(x_i) nor exp(-out_j) overflows."""
    grad, result, x = c.grad, c.result, c.self
    if x.ndim == 0:
        return grad
    dim = wrap_dim(c.dim, x.ndim)
    if x._dtype.is_complex:
        return (_reverse_logcumsumexp(grad.log() - conj(result), dim) + conj(x)).exp()
    # Positive and negative parts go through separate logs; a zero part is the lowest finite
    # number rather than -inf, so that -inf - -inf never makes a NaN.
    lowest = finfo(grad.dtype).min
    log_size = grad.abs().log()
    up = where(grad > 0, log_size, lowest)
    down = where(grad < 0, log_size, lowest)
    return ((_reverse_logcumsumexp(up - result, dim) + x).exp()
            - (_reverse_logcumsumexp(down - result, dim) + x).exp())


# --------------------------------------------------------------------------- cumsum / cumprod

def _accumulate(xp, self, dim, dtype, ufunc_name, kernel_name):
    x, axis = scan_axis(self, dim)
    result = sum_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)._np
    if result.kind == "b" and self.ndim and self.size:
        # (0-d and empty inputs are copied before PyTorch looks for a kernel)
        not_implemented(kernel_name, result)
    compute = np.float32 if result in _HALF else result
    if x.dtype.names is not None:    # complex32 with a dtype asked for: NOTE [complex32 storage]
        x = complex_half.widen(x)
    x = x.astype(compute, copy=False)
    if ufunc_name == "multiply" and x.dtype.kind == "c" and x.shape[axis]:
        # PyTorch's running product starts from 1: (1+0j) * x[0] is a complex product, so a
        # NaN or infinity in one part of x[0] reaches both (NOTE [complex alpha multiplies]).
        x = x.copy()
        first = (slice(None),) * axis + (slice(0, 1),)
        x[first] = xp.multiply(x.dtype.type(1), x[first])
    # NOTE [running sums in double]: PyTorch's CPU scan carries a float32 (complex64) running
    # value in double (its accumulate type) and rounds each output once: -inf * 0 later in a
    # float32 product is the double's -0.0, not NaN; float16/bfloat16 carry float32.
    carry = _WIDER_CARRY.get(np.dtype(compute), compute)
    out = getattr(xp, ufunc_name).accumulate(x, axis=axis, dtype=carry)
    return out.reshape(self.shape).astype(result, copy=False)


_WIDER_CARRY = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128}


@register_op("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
             meta=_scan_meta, saves=(), derivatives={"self": _cumsum_grad},
             tags=("fp_errors", "out_casts", "out_dtype_computes"))
def cumsum(xp, self, dim, dtype=None):
    """cumsum(input, dim, *, dtype=None, out=None) -> Tensor: running sums along `dim`
    (integers and bools accumulate as int64 unless `dtype` is given)."""
    return _accumulate(xp, self, dim, dtype, "add", "cumsum_out_cpu")


@register_op("cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
             meta=_scan_meta, saves=("self", "result"), derivatives={"self": _cumprod_grad},
             tags=("fp_errors", "out_casts", "out_dtype_computes"))
def cumprod(xp, self, dim, dtype=None):
    """cumprod(input, dim, *, dtype=None, out=None) -> Tensor: running products along `dim`
    (integers and bools accumulate as int64 unless `dtype` is given)."""
    return _accumulate(xp, self, dim, dtype, "multiply", "cumprod_out_cpu")


def _scan_inplace(name):
    op = OPS[name]

    def scan_(self, dim, *, dtype=None):
        # In place the scan runs in self's own dtype (a bool self has no such kernel).
        if _state.entry and _wants(locals()):
            return _handle(scan_, locals())
        _check_type(isinstance(self, dispatch.Tensor), lambda: (
            f"{name}_(): self must be a Tensor, not {type(self).__name__}"))
        if dtype is not None and type(dtype) is not type(self._dtype):
            dtype = arguments.dtype_(dtype, (name + "_", "dtype", None))
        _check(dtype is None or dtype is self._dtype, lambda: (
            f"Bad in-place call: input tensor dtype {self._dtype._name} and output tensor "
            f"dtype {dtype._name} should match"))
        return dispatch.call_inplace(op, (self, dim, self._dtype))
    scan_.__name__ = name + "_"
    scan_.__doc__ = f"Tensor.{name}_(dim, *, dtype=None) -> Tensor: {name} in place."
    return scan_


register_frontend("cumsum_", function=False)(_scan_inplace("cumsum"))
register_frontend("cumprod_", function=False)(_scan_inplace("cumprod"))


# --------------------------------------------------------------------------- cummax / cummin

@host_kernel
def _running_extreme(xp, self, dim, ufunc_name, kernel_name):
    """Running max/min and the index where it was reached; a tie (and a NaN, which wins and
    sticks) takes the latest index, as PyTorch does."""
    if self.size == 0:
        # (PyTorch returns an empty input before it looks at the dim or for a kernel)
        return self.copy(), xp.zeros(self.shape, dtype=_INT64)
    x, axis = scan_axis(self, dim)
    if self.ndim == 0:
        # (PyTorch copies these before it looks for a kernel, so any dtype passes)
        return self.copy(), xp.zeros(self.shape, dtype=_INT64)
    if self.dtype.kind == "c":
        not_implemented(kernel_name, self.dtype)
    compute = x.astype(np.float32) if x.dtype in _HALF else x
    values = getattr(xp, ufunc_name).accumulate(compute, axis=axis)
    hit = compute == values
    if compute.dtype.kind == "f":
        hit |= xp.isnan(compute)
    positions = xp.arange(x.shape[axis], dtype=_INT64).reshape(
        (-1,) + (1,) * (x.ndim - axis - 1))
    # Each position that reaches the running extreme records itself; the rest carry it on.
    indices = xp.maximum.accumulate(xp.where(hit, positions, 0), axis=axis)
    return (values.astype(self.dtype, copy=False).reshape(self.shape),
            indices.reshape(self.shape))


def _values_indices_meta(self, dim):
    if 0 in self._data.shape:         # (any dim: _running_extreme)
        return [(tuple(self._data.shape), self._dtype), (tuple(self._data.shape), dt.int64)]
    shape, dtype = _same_shape_meta(self, dim)
    return [(shape, dtype), (shape, dt.int64)]


@register_op("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
             function=False, method=False, meta=_values_indices_meta,
             saves=("result1",), derivatives={"self": selection_grad}, tags=("fp_errors",))
def _cummax(xp, self, dim):
    """cummax(input, dim) -> (values, indices): the running maximum along `dim` and where
    it was reached (NaN propagates)."""
    return _running_extreme(xp, self, dim, "maximum", "cummax_cpu")


@register_op("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
             function=False, method=False, meta=_values_indices_meta,
             saves=("result1",), derivatives={"self": selection_grad}, tags=("fp_errors",))
def _cummin(xp, self, dim):
    """cummin(input, dim) -> (values, indices): the running minimum along `dim` and where
    it was reached (NaN propagates)."""
    return _running_extreme(xp, self, dim, "minimum", "cummin_cpu")


def named_call(op, result_type, args, out):
    """Run a two-output op and return PyTorch's named tuple (writing into `out` if given)."""
    args = parser_error(op, tuple(args), op.python_name)   # (the parser's errors first)
    if out is None:
        return result_type(*dispatch.call(op, args))
    return result_type(*dispatch.call_out(op, args, out))


@register_frontend("cummax")
def cummax(input, dim, *, out=None):
    """cummax(input, dim, *, out=None) -> (values, indices): running maximum along `dim`."""
    if _state.entry and _wants(locals()):
        return _handle(cummax, locals())
    return named_call(OPS["cummax"], cummax_result, (input, dim), out)


@register_frontend("cummin")
def cummin(input, dim, *, out=None):
    """cummin(input, dim, *, out=None) -> (values, indices): running minimum along `dim`."""
    if _state.entry and _wants(locals()):
        return _handle(cummin, locals())
    return named_call(OPS["cummin"], cummin_result, (input, dim), out)


# --------------------------------------------------------------------------- logcumsumexp

@register_op("logcumsumexp(Tensor self, int dim) -> Tensor", meta=_same_shape_meta,
             saves=("self", "result"), derivatives={"self": _logcumsumexp_grad},
             tags=("fp_errors",))
@host_kernel
def logcumsumexp(xp, self, dim):
    """logcumsumexp(input, dim, *, out=None) -> Tensor: log of the running sum of exp along
    `dim`, computed without overflow."""
    wrap_dim(dim, self.ndim)                 # (PyTorch checks the dimension first)
    if self.dtype.kind in "biu":
        not_implemented("logcumsumexp_out_cpu", self.dtype)
    x, axis = scan_axis(self, dim)
    if x.dtype.kind == "c":
        out = _complex_logcumsumexp(xp, x, axis)
    else:
        compute = x.astype(np.float32) if x.dtype in _HALF else x
        out = xp.logaddexp.accumulate(compute, axis=axis)
    return out.astype(self.dtype, copy=False).reshape(self.shape)


def _complex_logcumsumexp(xp, x, axis):
    """The complex scan step by step along `axis` (vectorized across the other dims): its
    imaginary parts depend on the path, so no closed form gives PyTorch's branch."""
    x = xp.moveaxis(x, axis, 0)
    out = xp.empty_like(x)
    if x.shape[0]:
        out[0] = x[0]
    with np.errstate(all="ignore"):
        for i in range(1, x.shape[0]):
            out[i] = complex_log_add_exp(xp, out[i - 1], x[i])
    return xp.moveaxis(out, 0, axis)
