"""Pointwise special functions: erf, erfc, erfinv, lgamma, digamma, polygamma, i0, sigmoid and
logit. The rest of the unary math family lives in pointwise_math.py.

NOTE [special functions without SciPy]: SciPy is optional. When it can be imported (on first
use, never at `import ember`) erf, erfc, erfinv, lgamma and digamma (polygamma(0, x)) use
`scipy.special` (`cupyx.scipy.special` on CUDA); without it they fall back to the versions
below, written with NumPy and Python's `math` module, which agree with SciPy to a few units in
the last place. Either way the result is computed in float64 and cast to the result dtype,
except float32 erf (and half erf through float32), which has its own few-pass kernel
(NOTE [float32 erf as x / sqrt(x**2 + g)] in special_fast_erf.py).
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dispatch
from ember._core.checks import _check, _check_type
from ember._core.dispatch import call, call_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.host_kernels import host_function
from ember._core.registry import INT_TO_FLOAT, OPS, kernel_entry, register_frontend, register_op
from ember._ops import special_cephes
from ember._ops.grad_utils import where
from ember._ops.pointwise import not_implemented_for, scalar_into
from ember._ops.special_fast_erf import erf_float32

_FLOAT_UNARY = {"kind": "pointwise", "promotion": INT_TO_FLOAT, "inplace": True}
_special_modules: dict = {}


# NOTE [special functions on CUDA]: cupyx.scipy.special's functions of these names give the
# CPU's values (checked on an H200 against ember on the CPU); the others differ (float32 Bessel
# functions, i0e, i1e, k0e, k1e), lack a name (airy) or refuse ember's arguments (gammainc,
# gammaincc and polygamma with a Python int n), so they run scipy.special on host copies
# (NOTE [host kernels]).
_CUPYX_SAME_AS_CPU = ("entr", "erf", "erfc", "erfcx", "erfinv", "gammaln", "k0", "k1",
                      "log_ndtr", "ndtr", "ndtri", "psi", "zeta")


def _special(xp):
    """scipy.special for NumPy arrays (for CuPy: cupyx.scipy.special where it gives the same
    values, scipy.special on host copies elsewhere), or None without SciPy."""
    found = _special_modules.get(xp)
    if found is None:       # (NOTE [back-end helpers]; SciPy is imported on first use)
        found = _special_modules[xp] = backend_helpers(xp).special(_CUPYX_SAME_AS_CPU)
    return found


def _real_only(kernel_name, array):
    if array.dtype.kind == "c":
        not_implemented_for(kernel_name, array)


def _wide(x):
    return x.astype(np.float64) if x.dtype != np.float64 else x


def _elementwise_math(fn, x):
    """Apply a scalar `math` function to every element (the fallback path, CPU only)."""
    values = np.frompyfunc(fn, 1, 1)(_wide(x))
    return np.asarray(values, dtype=np.float64).reshape(x.shape)


# --------------------------------------------------------------------------- erf family

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_SELF = ("self",)


@register_op("erf(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_SELF,
             derivatives={"self": lambda c: c.grad * (_TWO_OVER_SQRT_PI
                                                      * (-(c.self * c.self)).exp())})
def erf(xp, self):
    """erf(input, *, out=None) -> Tensor: the error function."""
    _real_only("erf_vml_cpu", self)
    special = _special(xp)
    return special.erf(_wide(self)) if special else _elementwise_math(math.erf, self)


@kernel_entry("erf", "CPU")
def _erf_cpu(xp, self):
    """erf's CPU entry (NOTE [the kernel table]): float32 (half inputs arrive widened to it)
    through erf_float32, PyTorch's CPU values; other dtypes as the shared kernel."""
    if self.dtype == np.float32:
        return erf_float32(self)
    return erf(np, self)


@register_op("erfc(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_SELF,
             derivatives={"self": lambda c: c.grad * (-_TWO_OVER_SQRT_PI
                                                      * (-(c.self * c.self)).exp())})
def erfc(xp, self):
    """erfc(input, *, out=None) -> Tensor: 1 - erf(input), accurate where erf is near 1."""
    _real_only("erfc_vml_cpu", self)
    special = _special(xp)
    return special.erfc(_wide(self)) if special else _elementwise_math(math.erfc, self)


def _erfinv_fallback(xp, y):
    # A rational first guess (Giles's single-precision approximation), then Newton steps on
    # erf(x) - y, whose derivative is 2/sqrt(pi) * exp(-x**2).
    w = -xp.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws = w - 2.5
    p_small = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p_small = c + p_small * ws
    wl = xp.sqrt(xp.maximum(w, 5.0)) - 3.0
    p_large = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        p_large = c + p_large * wl
    x = xp.where(small, p_small, p_large) * y
    for _ in range(3):
        error = _elementwise_math(math.erf, x) - y
        x = x - error / (2.0 / math.sqrt(math.pi) * xp.exp(-x * x))
    x = xp.where(y == 1, xp.inf, xp.where(y == -1, -xp.inf, x))
    return xp.where(xp.abs(y) > 1, xp.nan, x)


# The inverse function's derivative: 1 / erf'(erfinv(y)) = sqrt(pi) / 2 * exp(erfinv(y)**2).
@register_op("erfinv(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=("result",),
             tags=("output_saved_by_ember_only",),
             derivatives={"self": lambda c: c.grad * (_SQRT_PI_OVER_TWO
                                                      * (c.result * c.result).exp())})
def erfinv(xp, self):
    """erfinv(input, *, out=None) -> Tensor: the inverse of erf on [-1, 1] (NaN outside)."""
    _real_only("erfinv_cpu", self)
    special = _special(xp)
    return special.erfinv(_wide(self)) if special else _erfinv_fallback(xp, _wide(self))


# --------------------------------------------------------------------------- gamma family

def _lgamma_scalar(value):
    # math.lgamma refuses the poles (0, -1, -2, ...), where log|Gamma| is +inf.
    if value <= 0 and float(value).is_integer():
        return math.inf
    return math.lgamma(value)


@register_op("lgamma(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_SELF,
             derivatives={"self": lambda c: c.grad * c.self.digamma()})
def lgamma(xp, self):
    """lgamma(input, *, out=None) -> Tensor: log |Gamma(input)| (+inf at 0, -1, -2, ...)."""
    _real_only("lgamma_vml_cpu", self)
    special = _special(xp)
    result = special.gammaln(_wide(self)) if special else _elementwise_math(_lgamma_scalar, self)
    # +inf at both zeros and both infinities, as in PyTorch (SciPy gives -0.0 and -inf -inf);
    # near zero log|Gamma(x)| is -log|x| (SciPy overflows to inf at float64's denormals).
    tiny = (xp.abs(self) < 1e-300) & (self != 0)
    if tiny.any():
        result = xp.where(tiny, -xp.log(xp.abs(_wide(self))), result)
    return xp.where((self == 0) | xp.isinf(self), xp.inf, result)


# Coefficients B_2k / (2k) of the asymptotic series of digamma, k = 1 .. 7.
_DIGAMMA_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _digamma_fallback(xp, x):
    # Reflection for x < 0.5: psi(x) = psi(1 - x) - pi / tan(pi x); then the recurrence
    # psi(x) = psi(x + 1) - 1/x up to x >= 10 and the asymptotic series from there.
    reflect = x < 0.5
    z = xp.where(reflect, 1.0 - x, x)
    shift = xp.zeros_like(z)
    for _ in range(10):
        low = z < 10.0
        shift = shift - xp.where(low, 1.0 / z, 0.0)
        z = xp.where(low, z + 1.0, z)
    inv2 = 1.0 / (z * z)
    series = 0.0
    for coefficient in reversed(_DIGAMMA_SERIES):
        series = (series + coefficient) * inv2
    result = xp.log(z) - 0.5 / z - series + shift
    result = xp.where(reflect, result - math.pi / xp.tan(math.pi * x), result)
    # Poles: +-inf at the two zeros (by their sign), NaN at the negative integers.
    pole = (x <= 0) & (x == xp.floor(x))
    result = xp.where(pole, xp.nan, result)
    result = xp.where(x == 0, xp.copysign(xp.inf, -x), result)
    return xp.where(x == xp.inf, xp.inf, xp.where(x == -xp.inf, xp.nan, result))


def _polygamma_of(n, x):
    """polygamma(n, x) as a derivative formula calls it (the op is declared below)."""
    return call(OPS["polygamma"], (n, x))


@register_op("digamma(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_SELF,
             derivatives={"self": lambda c: c.grad * _polygamma_of(1, c.self)})
def digamma(xp, self):
    """digamma(input, *, out=None) -> Tensor: the logarithmic derivative of Gamma.

    -inf at +0, +inf at -0, NaN at the negative integers.
    """
    _real_only("digamma", self)
    special = _special(xp)
    return special.psi(_wide(self)) if special else _digamma_fallback(xp, _wide(self))


@register_op("polygamma(int n, Tensor self) -> Tensor", kind="pointwise",
             promotion=INT_TO_FLOAT, function=False, method=False, saves=_SELF,
             compute_in_float=False,
             derivatives={"self": lambda c: c.grad * _polygamma_of(c.n + 1, c.self)})
def polygamma(xp, n, self):
    """polygamma(n, input, *, out=None) -> Tensor: the n-th derivative of digamma."""
    _check_type(isinstance(n, (int, np.integer)) and not isinstance(n, bool), lambda: (
        f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"))
    _check(n >= 0, "polygamma(n, x) does not support negative n.")
    _real_only("trigamma" if n == 1 else "polygamma", self)
    if n == 0:
        special = _special(xp)
        x = _wide(self)
        return special.psi(x) if special else _digamma_fallback(xp, x)
    # NOTE [zeta and trigamma follow PyTorch's series] (special_cephes.py): the half types
    # compute in float32, their zeta accumulating in float32 (PyTorch's accumulate type for
    # them) and rounded to the half type before the factor n! multiplies it.
    half = self.dtype.itemsize == 2
    x = self.astype(np.float32) if half else self
    if n == 1:
        return special_cephes.trigamma(xp, x)
    dtype = x.dtype.type
    factor = dtype(-1.0 if n % 2 == 0 else 1.0) * np.exp(dtype(math.lgamma(n + 1.0)))
    series = special_cephes.zeta(xp, dtype(n + 1), x, dtype, np.float32 if half else np.float64)
    series = series.astype(self.dtype).astype(dtype) if half else series.astype(dtype)
    return factor * series


_POLYGAMMA_OP = OPS["polygamma"]


def _polygamma_args(n, input):
    _check_type(isinstance(input, dispatch.Tensor), lambda: (
        f"polygamma(): argument 'input' (position 2) must be Tensor, not "
        f"{type(input).__name__}"))
    return (n, input)


def polygamma_function(n, input, *, out=None):
    """polygamma(n, input, *, out=None) -> Tensor: the n-th derivative of digamma."""
    if _state.entry and _wants(locals()):
        return _handle(polygamma_function, locals())
    args = _polygamma_args(n, input)
    return call(_POLYGAMMA_OP, args) if out is None else call_out(_POLYGAMMA_OP, args, out)


def polygamma_method(self, n):
    if _state.entry and _wants(locals()):
        return _handle(polygamma_method, locals())
    return call(_POLYGAMMA_OP, _polygamma_args(n, self))


def polygamma_inplace(self, n):
    # The tensor comes second in the schema, so call_inplace (which writes into the first
    # argument) does not fit; write the result into self here.
    if _state.entry and _wants(locals()):
        return _handle(polygamma_inplace, locals())
    args = _polygamma_args(n, self)
    if self._requires_grad and dispatch.state.grad_enabled():
        # The derivative reads self's old value, which the write replaces: compute from a copy
        # (`+ 0` saves nothing) and let copy_ make the result self's new history; copy_ also
        # refuses a leaf that requires grad.
        return self.copy_(call(_POLYGAMMA_OP, (n, self + 0)))
    result = call(_POLYGAMMA_OP, args)
    dispatch.write_inplace(_POLYGAMMA_OP, self, result)
    return self


register_frontend("polygamma", method=polygamma_method,
                  inplace=polygamma_inplace)(polygamma_function)


# --------------------------------------------------------------------------- i0, sigmoid, logit

# NOTE [i1 for i0's derivative]: d/dx I0(x) = I1(x), and ember has no i1 op, so `_bessel_i1`
# builds it from ember ops (which also makes it differentiable, for i0's second derivative).
# Up to |x| = 20 it sums the power series I1(x) = x/2 * sum_k (x**2/4)**k / (k! (k+1)!), all
# terms positive; beyond, the asymptotic expansion
# I1(x) ~ e**|x| / sqrt(2 pi |x|) * sum_k (-1)**k a_k / |x|**k with
# a_k = prod_{j<=k} (4 - (2j - 1)**2) / (k! 8**k), whose terms after the first are all
# negative. Both agree with SciPy's i1 to about 2e-15 (relative) in float64. Like PyTorch's
# i1 it is NaN at the infinities.
_I1_SWITCH = 20.0
_I1_SERIES = tuple(1.0 / (math.factorial(k) * math.factorial(k + 1)) for k in range(36))


def _asymptotic_coefficients(count):
    found, a = [1.0], 1.0
    for k in range(1, count):
        a *= (4 - (2 * k - 1) ** 2) / (8 * k)
        found.append((-1) ** k * a)
    return tuple(found)


_I1_ASYMPTOTIC = _asymptotic_coefficients(30)


def _horner(coefficients, t):
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = total * t + c
    return total


def _bessel_i1(x):
    """The modified Bessel function I1 of a real tensor, through ember ops."""
    small = x.abs() <= _I1_SWITCH
    # Each branch sees a harmless stand-in where the other one is taken, so neither makes
    # inf or NaN that would leak into a second derivative.
    xs = where(small, x, 0.0)
    near = xs * 0.5 * _horner(_I1_SERIES, xs * xs * 0.25)
    xl = where(small, _I1_SWITCH + 1.0, x)
    al = xl.abs()
    far = (xl / al) * (al.exp() / (al * (2 * math.pi)).sqrt()) \
        * _horner(_I1_ASYMPTOTIC, al.reciprocal())
    return where(small, near, far)


@register_op("i0(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_SELF,
             derivatives={"self": lambda c: c.grad * _bessel_i1(c.self)})
def i0(xp, self):
    """i0(input, *, out=None) -> Tensor: the modified Bessel function of the first kind, order 0."""
    _real_only("i0_vml_cpu", self)
    # NaN at the infinities, as in PyTorch. CuPy's float32 i0 differs from NumPy's (NOTE
    # [special functions on CUDA]): on any back-end but the CPU, NumPy's on host copies.
    return host_function(xp, np.i0)(self)


@kernel_entry("i0", "CPU")
def _i0_cpu(xp, self):
    """i0's CPU entry (NOTE [the kernel table]): NumPy's i0 in place."""
    _real_only("i0_vml_cpu", self)
    return np.i0(self)


@register_op("sigmoid(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=("result",),
             derivatives={"self": lambda c: call(OPS["sigmoid_backward"], (c.grad, c.result))})
def sigmoid(xp, self):
    """sigmoid(input, *, out=None) -> Tensor: 1 / (1 + exp(-input))."""
    one = self.dtype.type(1)
    return one / (one + xp.exp(-self))


def _logit_grad(c):
    x, eps = c.self, c.eps
    slope = c.grad / (x * (1 - x))
    if eps is None or eps < 0:
        # No eps, or a negative one (PyTorch then ignores it here): NaN outside [0, 1],
        # where logit is undefined.
        return where((x < 0) | (x > 1), math.nan, slope)
    # The clamp makes the function constant outside [eps, 1 - eps].
    return where((x < eps) | (x > 1 - eps), 0.0, slope)


# compute_in_float=False: PyTorch clamps half inputs to [eps, 1 - eps] rounded to the half
# dtype (so 1 - 1e-6 is 1.0 there) and only then computes in float32.
@register_op("logit(Tensor self, float? eps=None) -> Tensor", **_FLOAT_UNARY,
             compute_in_float=False, saves=_SELF, derivatives={"self": _logit_grad})
def logit(xp, self, eps=None):
    """logit(input, eps=None, *, out=None) -> Tensor: log(p / (1 - p)), with p clamped to
    [eps, 1 - eps] when `eps` is given."""
    _check_type(eps is None or (isinstance(eps, (int, float, np.integer, np.floating))
                                and not isinstance(eps, bool)),
                lambda: f"logit(): argument 'eps' must be float, not {type(eps).__name__}")
    _real_only("logit_cpu", self)
    p = self
    if eps is not None:
        eps = float(eps)                     # (a float argument: no Scalar's int range)
        low, high = scalar_into(eps, self.dtype), scalar_into(1 - eps, self.dtype)
        # NaN passes through the clamp, as in PyTorch.
        p = xp.where(p < low, low, xp.where(p > high, high, p))
    if p.dtype.kind != "f" or p.dtype.itemsize < 4:
        p = p.astype(np.float32)
    return xp.log(p / (p.dtype.type(1) - p))
