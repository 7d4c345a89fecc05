"""Moments and order statistics: std, var (and their *_mean forms), norm, median, nanmedian,
kthvalue, mode, quantile and nanquantile.

The shared dim handling, meta rules and named result tuples come from reduction.py.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type, _user_stacklevel
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.host_kernels import host_kernel
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_form, register_frontend, register_op
from ember._core.shape import wrap_dim, wrap_dims
from ember._ops.grad_utils import unreduce, where
from ember._ops.linalg_common import svd_arrays
from ember._ops.pointwise import not_implemented_for
from ember._ops.reduction import (
    accumulate_type,
    check_nonempty,
    finish,
    is_all_dims,
    long_dtype,
    reduced_dims,
    reduced_shape,
    reduction_meta,
    return_type,
    run,
    same_dtype,
    select_back_formula,
    split_evenly,
)
from ember._ops.summation import accurate_sum

_INT64 = np.dtype(np.int64)


# --------------------------------------------------------------------------- std, var

def _moment_dtype(self_dtype, requested=None):
    _check(self_dtype._category >= dt.FLOAT,
           "std and var only support floating point and complex dtypes")
    return self_dtype.to_real()


# NOTE [moments accumulate in float64]: PyTorch's CPU var/std accumulate real inputs in double,
# so the squares of float32 (or bfloat16) deviations neither overflow (std([2.39, 1e30]) is
# 7.07e29; var is inf only when the variance itself passes float32's range) nor underflow, and
# the mean of values near float32's largest stays finite. Computing everything in float64 would
# cost a cast and twice the memory traffic on every call, so the float32 pass runs first and is
# kept when its sums of squares all lie where float32 squares are exact enough and cannot have
# overflowed ([1e-30, 1e38]: an overflowed or NaN mean makes them inf or NaN too); otherwise
# (overflow, underflow, constant rows, inf or NaN inputs) the sums are redone in float64.
_SAFE_SQUARES = (1e-30, 1e38)


def _variance(xp, self, dim, correction, keepdim, name):
    """(variance with the given correction, mean with keepdims) in the compute dtype."""
    _moment_dtype(dt.NP_TO_DTYPE[self.dtype])
    x = self.astype(accumulate_type(self.dtype), copy=False)
    dims = reduced_dims(dim, self.ndim)
    count = math.prod(self.shape[d] for d in dims)
    correction = 1 if correction is None else correction
    total, mean = _squares_and_mean(xp, x, dims, keepdim, count)
    if x.dtype == np.float32:
        low, high = _SAFE_SQUARES
        if not bool(((total >= low) & (total <= high)).all()):
            total, mean = _squares_and_mean(xp, self.astype(np.float64), dims, keepdim, count)
    if count == 0:                  # (an empty slice's variance is NaN whatever the correction)
        total = xp.full_like(total, xp.nan)
    dof = count - correction
    if dof > 0:
        return total / dof, mean
    warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                  "than the reduction factor (input numel divided by output numel).",
                  UserWarning, stacklevel=_user_stacklevel())
    with np.errstate(divide="ignore", invalid="ignore"):
        return total / 0.0, mean


def _squares_and_mean(xp, x, dims, keepdim, count):
    """(sum of squared deviations from the mean, mean with keepdims), in x's dtype."""
    total = accurate_sum(xp, x, dims, True)
    mean = total / count if count else xp.full_like(total, xp.nan)   # (an empty mean is NaN)
    deviation = x - mean
    if x.dtype.kind == "c":
        squares = deviation.real * deviation.real + deviation.imag * deviation.imag
    else:
        squares = deviation * deviation
    return accurate_sum(xp, squares, dims, keepdim), mean


def _running_mean(xp, self, dim, mean):
    """The mean var_mean and std_mean return, with PyTorch's running-mean infinities.

    NOTE [a running mean meets infinity]: PyTorch computes var_mean's mean by Welford's
    update, in index order along the reduced elements: once the running mean is infinite, the
    next element x gives x - inf and the mean becomes NaN. So a slice holding a NaN or an
    infinity has mean NaN, unless its only non-finite element is an infinity in the last place,
    which is then the mean. (`mean()` itself sums and divides: [inf, 1] has mean inf there, NaN
    here.) Finite slices keep the accurate sum's mean.
    """
    if self.dtype.kind == "c" or self.size == 0 or bool(xp.isfinite(mean).all()):
        return mean
    dims = reduced_dims(dim, self.ndim)
    kept = [d for d in range(self.ndim) if d not in dims]
    rows = xp.transpose(self, kept + list(dims)).reshape(
        [self.shape[d] for d in kept] + [-1])
    finite = xp.isfinite(rows)
    last = rows[..., -1]
    only_last = xp.isinf(last) & finite[..., :-1].all(-1)
    running = xp.where(only_last, last, xp.nan).astype(mean.dtype)
    return xp.where(finite.all(-1), mean.reshape(running.shape), running).reshape(mean.shape)


def _squeeze_mean(mean, self, dim, keepdim):
    if keepdim:
        return mean
    return mean.reshape(reduced_shape(self.shape, dim, False))


_MOMENT_ARGS = {"dim_at": 1, "keepdim_at": 3, "dtype_at": None}


def _var_back(grad, self, dim, correction, keepdim):
    """d var / d x = 2 (x - mean) / (N - correction), times the incoming gradient."""
    shape = self.shape
    dims = reduced_dims(dim, self.ndim)
    dof = math.prod(shape[d] for d in dims) - (1 if correction is None else correction)
    centered = self - self.mean(dims, keepdim=True)
    if dof <= 0 and (dim is None or self.ndim == 0):
        # 2 / 0 is inf: inf * 0 = NaN where x equals the mean, +-inf elsewhere (as PyTorch).
        return grad * where(centered == 0, math.nan, math.inf)
    scale = 2.0 / dof if dof else math.inf
    return unreduce(grad, shape, dim, keepdim) * centered * scale


def _mean_back(grad, self, dim, keepdim):
    shape = self.shape
    return unreduce(grad, shape, dim, keepdim) / math.prod(
        shape[d] for d in reduced_dims(dim, self.ndim))


def _std_to_var_grad(grad, std):
    """d std = d var / (2 std); a zero std takes gradient 0 (not inf), as in PyTorch."""
    return where(std == 0, 0.0, grad / (2 * std))


def _var_grad(c):
    return _var_back(c.grad, c.self, c.dim, c.correction, c.keepdim)


def _std_grad(c):
    return _var_back(_std_to_var_grad(c.grad, c.result), c.self, c.dim, c.correction,
                     c.keepdim)


def _var_mean_grad(c):
    return (_var_back(c.grad, c.self, c.dim, c.correction, c.keepdim)
            + _mean_back(c.grads[1], c.self, c.dim, c.keepdim))


def _std_mean_grad(c):
    var_grad = _std_to_var_grad(c.grad, c.results[0])
    return (_var_back(var_grad, c.self, c.dim, c.correction, c.keepdim)
            + _mean_back(c.grads[1], c.self, c.dim, c.keepdim))


@register_op("var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
             "bool keepdim=False) -> Tensor", kind="reduction", function=False, method=False,
             meta=reduction_meta(_moment_dtype, **_MOMENT_ARGS), saves=("self",),
             derivatives={"self": _var_grad})
def var_kernel(xp, self, dim=None, correction=None, keepdim=False):
    """The variance: sum of squared deviations / (N - correction)."""
    out, _ = _variance(xp, self, dim, correction, keepdim, "var")
    return finish(xp, out, _moment_dtype(dt.NP_TO_DTYPE[self.dtype])._np)


@register_op("std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
             "bool keepdim=False) -> Tensor", kind="reduction", function=False, method=False,
             meta=reduction_meta(_moment_dtype, **_MOMENT_ARGS), saves=("self", "result"),
             derivatives={"self": _std_grad})
def std_kernel(xp, self, dim=None, correction=None, keepdim=False):
    """The standard deviation: the square root of var."""
    out, _ = _variance(xp, self, dim, correction, keepdim, "std")
    return finish(xp, xp.sqrt(out), _moment_dtype(dt.NP_TO_DTYPE[self.dtype])._np)


@register_op("var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
             "bool keepdim=False) -> (Tensor, Tensor)", kind="reduction", function=False,
             method=False, meta=reduction_meta(_moment_dtype, same_dtype, **_MOMENT_ARGS),
             saves=("self",), derivatives={"self": _var_mean_grad})
def var_mean_kernel(xp, self, dim=None, correction=None, keepdim=False):
    """(var, mean) in one pass over the data."""
    out, mean = _variance(xp, self, dim, correction, keepdim, "var_mean")
    mean = _running_mean(xp, self, dim, mean)
    real = _moment_dtype(dt.NP_TO_DTYPE[self.dtype])._np
    return finish(xp, out, real), finish(xp, _squeeze_mean(mean, self, dim, keepdim),
                                         self.dtype)


@register_op("std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
             "bool keepdim=False) -> (Tensor, Tensor)", kind="reduction", function=False,
             method=False, meta=reduction_meta(_moment_dtype, same_dtype, **_MOMENT_ARGS),
             saves=("self", "result"), derivatives={"self": _std_mean_grad})
def std_mean_kernel(xp, self, dim=None, correction=None, keepdim=False):
    """(std, mean) in one pass over the data."""
    out, mean = _variance(xp, self, dim, correction, keepdim, "std_mean")
    mean = _running_mean(xp, self, dim, mean)
    real = _moment_dtype(dt.NP_TO_DTYPE[self.dtype])._np
    return finish(xp, xp.sqrt(out), real), finish(xp, _squeeze_mean(mean, self, dim, keepdim),
                                                  self.dtype)


def _moment_frontend(name, with_out):
    op = OPS[f"{name}.correction"]

    def frontend(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        if _state.entry and _wants(locals()):
            return _handle(frontend, locals())
        if isinstance(dim, bool):
            # The legacy overload std(input, unbiased): a bool in dim's place.
            _check_type(unbiased is None, lambda: f"{name}(): unbiased given twice")
            dim, unbiased = None, dim
        if unbiased is not None:
            _check_type(correction is None, lambda: (
                f"{name}(): takes either the legacy `unbiased` or `correction`, not both"))
            correction = 1 if unbiased else 0
        _check_type(with_out or out is None, lambda: f"{name}() got an unexpected keyword "
                                                     "argument 'out'")
        return run(op, (input, dim, correction, keepdim), out)
    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = (f"{name}(input, dim=None, unbiased=True, keepdim=False, *, "
                        "correction=1) -> Tensor: `correction` (or the legacy `unbiased` bool) "
                        "is subtracted from the element count in the divisor.")
    return frontend


var = register_frontend("var")(_moment_frontend("var", True))
std = register_frontend("std")(_moment_frontend("std", True))
var_mean = register_frontend("var_mean", method=False)(_moment_frontend("var_mean", False))
std_mean = register_frontend("std_mean", method=False)(_moment_frontend("std_mean", False))


# --------------------------------------------------------------------------- norm

def _norm_dtype(self_dtype, dtype, where="linalg.vector_norm"):
    _check(self_dtype._category >= dt.FLOAT, lambda: (
        f"{where}: Expected a floating point or complex tensor as input. Got "
        f"{self_dtype._cpp_name}"))
    if dtype is None:
        return self_dtype
    _check(dtype._category >= dt.FLOAT, lambda: (
        f"{where}: dtype should be floating point or complex, but got {dtype._cpp_name}"))
    _check(dtype.is_complex == self_dtype.is_complex, lambda: (
        f"{where}: dtype should be {'complex' if self_dtype.is_complex else 'real'} for "
        f"{'complex' if self_dtype.is_complex else 'real'} inputs, but got {dtype._cpp_name}"))
    _check(promote_types(self_dtype, dtype) is dtype, lambda: (
        f"{where}: the dtype of the input ({self_dtype._cpp_name}) should be convertible "
        f"without narrowing to the specified dtype ({dtype._cpp_name})"))
    return dtype


def _vector_norm_meta(self, p, dim, keepdim, dtype=None):
    chosen = _norm_dtype(self._dtype, dtype).to_real()
    return reduced_shape(self._data.shape, dim, keepdim), chosen


def _unsqueeze_reduced(t, dim, ndim):
    """A reduction's result with its reduced dims put back as size 1 (PyTorch's
    unsqueeze_multiple; a full reduction's 0-d result broadcasts as it is)."""
    if dim is None or ndim == 0:
        return t
    for d in sorted(wrap_dims(dim, ndim)):
        t = t.unsqueeze(d)
    return t


def _zero_where(t, mask):
    """`t` with zeros where `mask` holds: filled in place, as PyTorch's formula does, unless
    the backward builds a graph (create_graph), whose division saved `t` (PyTorch refuses that
    second backward; ember gives its value)."""
    if _state.grad_enabled():
        return t.masked_fill(mask, 0)
    return t.masked_fill_(mask, 0)


def _norm_grad(c):
    """The gradient of the vector p-norm; where the norm is 0 the gradient is 0, not NaN.
    Written as PyTorch's norm_backward, so a mode sees its ops (div, eq, masked_fill_, mul)."""
    self = c.self
    p = 2.0 if c.p is None else float(c.p)
    grad, norm = c.grad, c.result
    if not c.keepdim:
        grad = _unsqueeze_reduced(grad, c.dim, self.ndim)
        norm = _unsqueeze_reduced(norm, c.dim, self.ndim)
    if p == 0:
        return grad.new_zeros(self.shape)
    if p == 1:
        return self.sgn() * grad
    if p == 2:
        return grad * _zero_where(self / norm, norm == 0)
    if math.isinf(p):
        # Shared among the elements of largest (smallest) modulus, and any NaN.
        magnitude = self.abs()
        mask = (magnitude == norm) | magnitude.isnan()
        count = mask.sum(reduced_dims(c.dim, self.ndim), keepdim=True)
        return self.sgn() * (grad / count * mask)
    if p < 1:
        # |x| ** (p - 1) is inf at 0, where the gradient is taken as 0.
        scaled = self.sgn() * _zero_where(self.abs().pow_(p - 1), self == 0)
        return scaled * grad * norm.pow(1 - p)
    if p < 2:
        scaled = self.sgn() * self.abs().pow_(p - 1)
    else:
        scaled = self * self.abs().pow_(p - 2)
    return scaled * _zero_where(grad / norm.pow(p - 1), norm == 0)


@register_op("norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, "
             "ScalarType dtype) -> Tensor", kind="reduction", function=False, method=False,
             meta=_vector_norm_meta, saves=("self", "result"),
             derivatives={"self": _norm_grad},
             node_name="LinalgVectorNormBackward0")
def vector_norm(xp, self, p, dim, keepdim, dtype=None):
    """The p-norm of the entries over `dim` (None: all): (sum |x|^p)^(1/p); p = inf/-inf take
    the max/min of |x|, p = 0 counts the nonzeros. `dtype` (if given) is cast to first."""
    chosen = _norm_dtype(dt.NP_TO_DTYPE[self.dtype], dtype)
    p = 2.0 if p is None else p
    x = self.astype(accumulate_type(chosen._np), copy=False)
    dims = reduced_dims(dim, self.ndim)
    if p < 0 or math.isinf(p):
        _check(self.size != 0 or not is_all_dims(dim), lambda: (
            f"linalg.vector_norm cannot compute the {_p_text(p)} norm on an empty tensor "
            "because the operation does not have an identity"))
        for d in dims:
            _check(self.shape[d] != 0, lambda d=d: (
                f"linalg.vector_norm cannot compute the {_p_text(p)} norm on the dimension "
                f"{d}because this dimension is empty and the operation does not have an "
                "identity"))
    magnitude = xp.abs(x)
    if p != 0 and self.size and all(self.shape[d] == 1 for d in dims) and not (
            self.ndim == 0 and dim and x.dtype == np.float32):
        # NOTE [a norm of one element]: where every output reduces a single element PyTorch
        # returns |x| itself (no square to overflow or underflow: |3e38| stays 3e38); but not
        # for a 0-d float32 or half tensor reduced over a named dim (dim=-1), which takes the
        # powers in its dtype (|1e-30| ** 2 underflows: 0, as cosine_similarity's norm there).
        out = magnitude if keepdim else magnitude.reshape(
            [n for d, n in enumerate(self.shape) if d not in dims])
    elif p == 2:
        out = xp.sqrt(accurate_sum(xp, magnitude * magnitude, dims, keepdim))
    elif p == 1:
        out = accurate_sum(xp, magnitude, dims, keepdim)
    elif p == 0:
        out = xp.sum(magnitude != 0, axis=dims, keepdims=keepdim, dtype=magnitude.dtype)
    elif p == math.inf:
        out = xp.max(magnitude, axis=dims, keepdims=keepdim)
    elif p == -math.inf:
        out = xp.min(magnitude, axis=dims, keepdims=keepdim)
    else:
        with np.errstate(divide="ignore"):  # negative p: |0| ** p is inf, as in PyTorch
            out = accurate_sum(xp, magnitude ** p, dims, keepdim) ** (1.0 / p)
    return finish(xp, out, chosen.to_real()._np)


# PyTorch's `norm` and `linalg.vector_norm` on a strided tensor both call `linalg_vector_norm`
# (clip_grad_norm_, F.normalize, x.norm()): every call of this op reaches a mode as that
# overload (NOTE [overload forms]); `norm.ScalarOpt_dim_dtype` called by name stays itself.
register_form("norm.ScalarOpt_dim_dtype", "linalg_vector_norm(Tensor self, Scalar ord=2, "
              "int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
              when=lambda args: True, saves=("self", "result"),
              to_base=lambda self, ord=2, dim=None, keepdim=False, dtype=None: (
                  self, ord, dim, keepdim, dtype))


def _p_text(p):
    return ("inf" if p > 0 else "-inf") if math.isinf(p) else f"{p:g}"


def _nuclear_meta(self, dim, keepdim=False):
    return reduced_shape(self._data.shape, dim, keepdim), self._dtype.to_real()


def _nuclear_grad(c):
    """d/dA sum(S) = U @ Vh (the svd op's own derivative gives the second order)."""
    from ember._ops.decomposition import svd
    dims = wrap_dims(c.dim, c.self.ndim)
    grad = c.grad
    if not c.keepdim:
        for d in sorted(dims):
            grad = grad.unsqueeze(d)
    U, _, Vh = svd(c.self.movedim(dims, (-2, -1)))
    grad = grad.movedim(dims, (-2, -1)).to(U._dtype)
    return (grad * (U @ Vh)).movedim((-2, -1), dims)


@register_op("nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor",
             kind="reduction", function=False, method=False, meta=_nuclear_meta,
             derivatives={"self": _nuclear_grad}, node_name="LinalgMatrixNormBackward0")
def nuclear_norm(xp, self, dim, keepdim=False):
    """The sum of the singular values of the matrices spanned by the two dims in `dim`."""
    where = "linalg.matrix_norm"
    _check(self.ndim >= 2, f"{where}: The input tensor A must have at least 2 dimensions.")
    kind = dt.NP_TO_DTYPE[self.dtype]
    _check(kind._category >= dt.FLOAT, lambda: (
        f"{where}: Expected a floating point or complex tensor as input. Got {kind._cpp_name}"))
    _check(self.dtype not in (np.float16, dt.bfloat16._np), lambda: (
        f"{where}: Low precision dtypes not supported. Got {kind._cpp_name}"))
    dims = wrap_dims(dim, self.ndim)
    _check(len(dims) == 2, lambda: (
        f"{where}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}"))
    matrices = xp.moveaxis(self, dims, (-2, -1))
    out = xp.sum(svd_arrays(xp, matrices, compute_uv=False), axis=-1)
    if keepdim:
        out = out.reshape(reduced_shape(self.shape, dims, True))
    return finish(xp, out, kind.to_real()._np)


@register_frontend("norm")
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None) -> Tensor.

    A number p (or 'fro' over at most two dims) gives the vector p-norm of the entries;
    'nuc' gives the nuclear norm of the matrices over two dims.
    """
    if _state.entry and _wants(locals()):
        return _handle(norm, locals())
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return run(OPS["norm.ScalarOpt_dim_dtype"], (input, 2, dim, keepdim, dtype), out)
        _check(p in ("fro", "nuc"), lambda: (
            f"linalg.matrix_norm: Order {p} not supported."))
        if dim is None:
            dim = tuple(range(input.ndim))
        if p == "fro":  # more than two dims: matrix norms take exactly two
            _check(False, lambda: f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                                  f"{' '.join(str(d) for d in dim)}")
        if dtype is not None:
            input = input.to(dtype)
        return run(OPS["nuclear_norm.dim"], (input, dim, keepdim), out)
    return run(OPS["norm.ScalarOpt_dim_dtype"], (input, p, dim, keepdim, dtype), out)


# --------------------------------------------------------------------------- order statistics

Median = return_type("median", ("values", "indices"))
Nanmedian = return_type("nanmedian", ("values", "indices"))
Kthvalue = return_type("kthvalue", ("values", "indices"))
Mode = return_type("mode", ("values", "indices"))


def _no_kind(kernel_name, x, kinds):
    if x.dtype.kind in kinds:
        not_implemented_for(kernel_name, x)


def _sorted_along(xp, x, d):
    """(sorted values, their original indices) along `d`; NaN sorts last, ties keep order."""
    order = xp.argsort(x, axis=d, kind="stable")
    return xp.take_along_axis(x, order, axis=d), order


def _pick(xp, values, order, position, d, keepdim, zero_dim):
    """Values and indices at `position` (keepdims-shaped) of sorted data along `d`."""
    found = xp.take_along_axis(values, position, axis=d)
    indices = xp.take_along_axis(order, position, axis=d).astype(_INT64, copy=False)
    if zero_dim:
        return found.reshape(()), indices.reshape(())
    if not keepdim:
        found, indices = found.squeeze(d), indices.squeeze(d)
    return found, indices


def _select(xp, self, dim, keepdim, name, position_of):
    """Sort along `dim` and pick the element at `position_of(sorted, d)` in each row."""
    d = wrap_dim(dim, self.ndim)
    zero_dim = self.ndim == 0
    x = self.reshape(1) if zero_dim else self
    check_nonempty(name, x.shape, (d,))
    if x.size == 0:
        shape = reduced_shape(self.shape, dim, keepdim)
        return xp.empty(shape, self.dtype), xp.empty(shape, _INT64)
    # NaN breaks the comparison sort of ml_dtypes' bfloat16; float32 holds the values exactly.
    values, order = _sorted_along(xp, x.astype(accumulate_type(x.dtype), copy=False), d)
    found, indices = _pick(xp, values, order, position_of(xp, values, d), d, keepdim, zero_dim)
    return finish(xp, found, self.dtype), indices


def _nan_count(xp, values, d):
    if values.dtype.kind in "biu":
        return xp.zeros(values.shape[:d] + (1,) + values.shape[d + 1:], _INT64)
    return xp.sum(xp.isnan(values), axis=d, keepdims=True)


def _median_position(xp, values, d):
    """The lower median, or the first NaN of a row holding NaN (NaN propagates)."""
    n = values.shape[d]
    nans = _nan_count(xp, values, d)
    return xp.where(nans > 0, n - nans, (n - 1) // 2)


def _nanmedian_position(xp, values, d):
    """The lower median of the non-NaN values (a row of only NaN gives its first NaN)."""
    valid = values.shape[d] - _nan_count(xp, values, d)
    return xp.maximum((valid - 1) // 2, 0)


def _median_all(xp, self, position_of):
    if self.size == 0:                # (any dtype: PyTorch fills NaN before it looks for one)
        with np.errstate(invalid="ignore"):
            return xp.full((), np.nan).astype(self.dtype)
    _no_kind("median_cpu", self, "bc")
    flat = self.reshape(-1).astype(accumulate_type(self.dtype), copy=False)
    values, _ = _sorted_along(xp, flat, 0)
    found = xp.take_along_axis(values, position_of(xp, values, 0), axis=0)
    return finish(xp, found.reshape(()), self.dtype)


_ALL_META = reduction_meta(same_dtype, dim_at=None, keepdim_at=None, dtype_at=None)
_INDEX_META = reduction_meta(same_dtype, long_dtype, dtype_at=None)


@register_op("median(Tensor self) -> Tensor", kind="reduction", function=False,
             method=False, meta=_ALL_META, saves=("self", "result"),
             derivatives={"self": split_evenly})
def median_all(xp, self):
    """The lower median of every element; NaN if there is one."""
    return _median_all(xp, self, _median_position)


@register_op("median.dim(Tensor self, int dim, bool keepdim=False) -> "
             "(Tensor values, Tensor indices)", kind="reduction", function=False,
             method=False, meta=_INDEX_META, saves=("result1",),
             derivatives={"self": select_back_formula},
             node_name="MedianBackward1")
def median_dim(xp, self, dim, keepdim=False):
    """The lower median along `dim` and an index where it occurs."""
    _no_kind("median_cpu", self, "bc")
    return _select(xp, self, dim, keepdim, "median", _median_position)


@register_op("nanmedian(Tensor self) -> Tensor", kind="reduction", function=False,
             method=False, meta=_ALL_META, saves=("self", "result"),
             derivatives={"self": split_evenly})
def nanmedian_all(xp, self):
    """The lower median of the non-NaN elements."""
    return _median_all(xp, self, _nanmedian_position)


@register_op("nanmedian.dim(Tensor self, int dim, bool keepdim=False) -> "
             "(Tensor values, Tensor indices)", kind="reduction", function=False,
             method=False, meta=_INDEX_META, saves=("result1",),
             derivatives={"self": select_back_formula},
             node_name="NanmedianBackward1")
def nanmedian_dim(xp, self, dim, keepdim=False):
    """The lower median of the non-NaN values along `dim` and an index where it occurs."""
    _no_kind("median_cpu", self, "bc")
    return _select(xp, self, dim, keepdim, "nanmedian", _nanmedian_position)


def _median_frontend(name, result_type):
    all_op, dim_op = OPS[name], OPS[f"{name}.dim"]

    def frontend(input, dim=None, keepdim=False, *, out=None):
        if _state.entry and _wants(locals()):
            return _handle(frontend, locals())
        if dim is None:
            return run(all_op, (input,), out)
        return run(dim_op, (input, dim, keepdim), out, result_type)
    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = (f"{name}(input) -> Tensor; {name}(input, dim, keepdim=False) -> "
                        "(values, indices): the lower of the two middle values.")
    return frontend


median = register_frontend("median")(_median_frontend("median", Median))
nanmedian = register_frontend("nanmedian")(_median_frontend("nanmedian", Nanmedian))


@register_op("kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> "
             "(Tensor values, Tensor indices)", kind="reduction", function=False,
             method=False, meta=reduction_meta(same_dtype, long_dtype, dim_at=2,
                                                keepdim_at=3, dtype_at=None),
             saves=("result1",), derivatives={"self": select_back_formula})
def kthvalue_kernel(xp, self, k, dim=-1, keepdim=False):
    """The k-th smallest value along `dim` (k counts from 1) and an index where it occurs."""
    d = wrap_dim(dim, self.ndim)             # (PyTorch checks the dimension first)
    _no_kind("kthvalue_cpu", self, "bc")
    size = self.shape[d] if self.ndim else 1
    _check(1 <= k <= size or size == 0, lambda: (
        f"kthvalue(): selected number k out of range for dimension {d}"))
    return _select(xp, self, dim, keepdim, "kthvalue",
                   lambda xp, values, d: xp.full((1,) * values.ndim, k - 1, _INT64))


@register_frontend("kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """kthvalue(input, k, dim=-1, keepdim=False, *, out=None) -> (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(kthvalue, locals())
    return run(OPS["kthvalue"], (input, k, dim, keepdim), out, Kthvalue)


@host_kernel
def _mode_position(xp, values, d):
    """The end of the longest run of equal sorted values (the smallest value on a tie): a
    stable sort puts there the value's last occurrence, the index PyTorch reports."""
    n = values.shape[d]
    positions = xp.arange(n).reshape((n,) + (1,) * (values.ndim - d - 1))
    starts_run = xp.ones(values.shape, bool)
    ends_run = xp.ones(values.shape, bool)
    later = xp.take(values, xp.arange(1, n), axis=d)
    earlier = xp.take(values, xp.arange(n - 1), axis=d)
    differs = later != earlier
    if values.dtype.kind in "fc":
        differs &= ~(xp.isnan(later) & xp.isnan(earlier))
    _assign(starts_run, d, slice(1, None), differs)
    _assign(ends_run, d, slice(None, -1), differs)
    run_start = xp.maximum.accumulate(xp.where(starts_run, positions, 0), axis=d)
    length = xp.where(ends_run, positions - run_start + 1, 0)
    return xp.argmax(length, axis=d, keepdims=True)


def _assign(target, d, part, value):
    index = (slice(None),) * d + (part,)
    target[index] = value


@register_op("mode(Tensor self, int dim=-1, bool keepdim=False) -> "
             "(Tensor values, Tensor indices)", kind="reduction", function=False,
             method=False, meta=_INDEX_META, saves=("result1",),
             derivatives={"self": select_back_formula})
def mode_kernel(xp, self, dim=-1, keepdim=False):
    """The most frequent value along `dim` (the smallest of equally frequent ones) and the
    index of its last occurrence."""
    _no_kind("mode_cpu", self, "c")
    return _select(xp, self, dim, keepdim, "mode", _mode_position)


@register_frontend("mode")
def mode(input, dim=-1, keepdim=False, *, out=None):
    """mode(input, dim=-1, keepdim=False, *, out=None) -> (values, indices)."""
    if _state.entry and _wants(locals()):
        return _handle(mode, locals())
    return run(OPS["mode"], (input, dim, keepdim), out, Mode)


# --------------------------------------------------------------------------- quantile

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_meta(self, q, dim=None, keepdim=False, interpolation="linear"):
    shape = reduced_shape(self._data.shape, dim, keepdim)
    if isinstance(q, dispatch.Tensor) and q.ndim == 1:
        shape = (q.shape[0],) + shape
    return shape, self._dtype


def _check_quantile_args(self, q, interpolation, name):
    _check(self.dtype in (np.float32, np.float64),
           f"{name}() input tensor must be either float or double dtype")
    _check(self.size != 0, f"{name}() input tensor must be non-empty")
    _check(self.size <= 2 ** 24, f"{name}() input tensor is too large")
    _check(interpolation in _INTERPOLATIONS, lambda: (
        f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
        f"but got {interpolation}"))
    if isinstance(q, float):
        _check(0 <= q <= 1, lambda: f"{name}() q must be in the range [0, 1] but got {q}")
        return
    _check(q.ndim <= 1, f"{name}() q must be a scalar or 1D tensor")
    _check(q.dtype == self.dtype, f"{name}() q tensor must be same dtype as the input tensor")


def _quantile(xp, self, q, dim, keepdim, interpolation, ignore_nan, name):
    _check_quantile_args(self, q, interpolation, name)
    scalar_q = isinstance(q, float)
    qs = xp.asarray([q] if scalar_q else q.reshape(-1), dtype=self.dtype)
    _check(bool(xp.all((qs >= 0) & (qs <= 1))), f"{name}() q values must be in the range [0, 1]")
    if dim is None:
        x, d = self.reshape(-1), 0
    else:
        d = wrap_dim(dim, self.ndim)
        x = self.reshape(1) if self.ndim == 0 else self
    # Rows go last; the quantiles get a new leading axis.
    rows = xp.sort(xp.moveaxis(x, d, -1), axis=-1)[None]
    n = rows.shape[-1]
    nans = xp.sum(xp.isnan(rows), axis=-1, keepdims=True)
    count = n - nans if ignore_nan else xp.full(nans.shape, n, _INT64)
    qs = qs.reshape((-1,) + (1,) * (rows.ndim - 1))
    # PyTorch ranks in the input's dtype, which decides where lower/higher land.
    rank = qs * (xp.maximum(count, 1) - 1).astype(self.dtype)
    below = xp.floor(rank).astype(_INT64)
    above = xp.ceil(rank).astype(_INT64)
    if interpolation == "lower":
        above = below
    elif interpolation == "higher":
        below = above
    elif interpolation == "nearest":
        below = above = xp.round(rank).astype(_INT64)
    low = xp.take_along_axis(rows, below, axis=-1)
    high = xp.take_along_axis(rows, above, axis=-1)
    if interpolation == "midpoint":
        weight = xp.asarray(0.5, self.dtype)
    elif interpolation == "linear":
        weight = rank - below
    else:
        weight = xp.asarray(0.0, self.dtype)
    out = low + weight * (high - low)
    invalid = (count == 0) if ignore_nan else (nans > 0)
    out = xp.where(invalid, xp.asarray(np.nan, self.dtype), out)[..., 0]
    shape = reduced_shape(self.shape, dim, keepdim)
    out = out.reshape((qs.shape[0],) + shape)
    return finish(xp, out[0] if scalar_q or q.ndim == 0 else out, self.dtype)


# NOTE [quantile gradient]: the quantile is low + weight * (high - low), where low and high are
# the sorted row's elements at positions floor(rank) and ceil(rank) (both round(rank) for
# "nearest", ...), rank = q * (count - 1), and weight = rank - floor(rank) for "linear", 0.5
# for "midpoint", 0 otherwise. So the input's gradient lands on those two elements, found by
# their position in the sorted row, and q's (linear only) is grad * (high - low) * (count - 1).
# A row the quantile is NaN for uses PyTorch's rank: the last position (quantile) or 0
# (nanquantile of an all-NaN row), with no gradient for q.

def _rows(self, dim):
    """The reduced elements of `self` as rows along the last dim, and the inverse map."""
    if dim is None:
        return self.reshape(-1), lambda t: t.reshape(self.shape)
    if self.ndim == 0:
        return self.reshape(1), lambda t: t.reshape(())
    d = wrap_dim(dim, self.ndim)
    return self.movedim(d, -1), lambda t: t.movedim(-1, d)


def _quantile_parts(c, ignore_nan):
    """Every piece of NOTE [quantile gradient], as (Q, *rows, 1)-shaped tensors except
    `positions` (1, *rows, n): each element's position in its sorted row."""
    self, q, how = c.self, c.q, c.interpolation
    rows, back = _rows(self, c.dim)
    n = rows.shape[-1]
    fixed = rows.detach()
    order = dispatch.call(OPS["argsort.stable"], (fixed, True, -1, False))
    positions = dispatch.call(OPS["argsort.stable"], (order, True, -1, False)).unsqueeze(0)
    nans = fixed.isnan().sum(-1, keepdim=True)
    q_shape = (-1,) + (1,) * rows.ndim
    qs = q.reshape(q_shape) if isinstance(q, dispatch.Tensor) else self.new_full(
        (1,) * (rows.ndim + 1), q)
    if ignore_nan:
        scale = n - nans - 1
        no_q_grad = qs * scale < 0    # an all-NaN row: its first (NaN) element
        ranks = where(no_q_grad, 0.0, qs * scale)
    else:
        scale = n - 1
        no_q_grad = nans > 0          # a row with NaN: its last (NaN) element
        ranks = where(no_q_grad, float(scale), qs * scale)
    rounded = ranks.detach()
    if how == "lower":
        below = above = rounded.floor()
    elif how == "higher":
        below = above = rounded.ceil()
    elif how == "nearest":
        below = above = rounded.round()
    else:
        below, above = rounded.floor(), rounded.ceil()
    weight = ranks - below if how == "linear" else (0.5 if how == "midpoint" else None)
    grad = c.grad.reshape((qs.shape[0],) + tuple(rows.shape[:-1]) + (1,))
    return rows, back, positions, grad, below, above, weight, scale, no_q_grad


def _quantile_grad(c, ignore_nan):
    _, back, positions, grad, below, above, weight, _, _ = _quantile_parts(c, ignore_nan)
    if weight is None:
        spread = where(positions == below, grad, 0.0)
    else:
        spread = (where(positions == below, grad * (1 - weight), 0.0)
                  + where(positions == above, grad * weight, 0.0))
    return back(spread.sum(0))


def _quantile_q_grad(c, ignore_nan):
    if c.interpolation != "linear":
        return None
    rows, _, positions, grad, below, above, _, scale, no_q_grad = _quantile_parts(
        c, ignore_nan)
    rows = rows.unsqueeze(0)
    low = where(positions == below, rows, 0.0).sum(-1, keepdim=True)
    high = where(positions == above, rows, 0.0).sum(-1, keepdim=True)
    per_row = where(no_q_grad, 0.0, grad * (high - low) * scale)
    return per_row.sum(tuple(range(1, per_row.ndim))).reshape(c.q.shape)


_QUANTILE_SCHEMA = ("(Tensor self, {q} q, int? dim=None, bool keepdim=False, *, "
                    "str interpolation='linear') -> Tensor")
for _name, _ignore_nan in (("quantile", False), ("nanquantile", True)):
    for _q, _overload in (("Tensor", ""), ("float", ".scalar")):
        def _kernel(xp, self, q, dim=None, keepdim=False, interpolation="linear",
                    _ignore_nan=_ignore_nan, _name=_name):
            return _quantile(xp, self, q, dim, keepdim, interpolation, _ignore_nan, _name)
        _kernel.__doc__ = (f"The q-th quantiles along `dim` (None: of all elements)"
                           f"{', ignoring NaN' if _ignore_nan else ''}.")
        _derivatives = {
            "self": lambda c, _ignore_nan=_ignore_nan: _quantile_grad(c, _ignore_nan),
            "q": lambda c, _ignore_nan=_ignore_nan: _quantile_q_grad(c, _ignore_nan)}
        register_op(_name + _overload + _QUANTILE_SCHEMA.format(q=_q), kind="reduction",
                    function=False, method=False, meta=_quantile_meta, saves=("self", "q"),
                    derivatives=_derivatives)(_kernel)


def _quantile_frontend(name):
    def frontend(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
        if _state.entry and _wants(locals()):
            return _handle(frontend, locals())
        if isinstance(q, dispatch.Tensor):
            return run(OPS[name], (input, q, dim, keepdim, interpolation), out)
        _check_type(isinstance(q, (int, float)), lambda: (
            f"{name}(): argument 'q' must be float or Tensor, not {type(q).__name__}"))
        return run(OPS[f"{name}.scalar"], (input, float(q), dim, keepdim, interpolation), out)
    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = (f"{name}(input, q, dim=None, keepdim=False, *, interpolation='linear', "
                        "out=None) -> Tensor: q is a float or a 0-d/1-d tensor in [0, 1]; "
                        "interpolation is linear, lower, higher, midpoint or nearest.")
    return frontend


quantile = register_frontend("quantile")(_quantile_frontend("quantile"))
nanquantile = register_frontend("nanquantile")(_quantile_frontend("nanquantile"))
