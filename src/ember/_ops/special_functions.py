"""The pointwise special functions of `torch.special` that have no `torch.*` name of their own:
entr, erfcx, i0e, i1, i1e, ndtr, ndtri, log_ndtr, xlog1py, zeta, the Bessel and Airy functions,
and the incomplete gamma functions and mvlgamma (which do have `torch.*` names). The orthogonal
polynomials are in special_polynomials.py; the functions shared with `torch.*` (erf, lgamma,
digamma, ...) are in pointwise_special.py.

The ops keep PyTorch's aten names (`special_i1e`, `special_bessel_j0`, ...) and are neither
`ember.*` functions nor Tensor methods (PyTorch has them only in `torch.special`, whose
functions, `ember/special/__init__.py`, call these entries). Kernels are `scipy.special`
(`cupyx.scipy.special` on CUDA), imported on first use; its float32 loops keep float32 in
float32. NOTE [special dtypes]: where PyTorch's CPU kernel takes float16 and bfloat16, the
entry computes them in float32 (`compute_in_float`); where it does not, the kernel refuses
them with PyTorch's NotImplementedError, as it refuses complex input.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core.checks import _check, _check_type
from ember._core.dispatch import call
from ember._core.finfo import finfo
from ember._core.registry import DEFAULT, INT_TO_FLOAT, OPS, register_form, register_op
from ember._ops import special_cephes
from ember._ops.grad_utils import where
from ember._ops.pointwise import not_implemented_for
from ember._ops.pointwise_special import _special, lgamma

_HALF_OK = {"kind": "pointwise", "promotion": INT_TO_FLOAT, "function": False,
            "method": False}
_FLOAT_ONLY = dict(_HALF_OK, compute_in_float=False)
_SELF = ("self",)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _refuse(kernel_name, x, half=True):
    """PyTorch's NotImplementedError for complex input and, unless `half`, 16-bit floats."""
    if x.dtype.kind == "c" or (not half and x.dtype.itemsize == 2):
        not_implemented_for(kernel_name, x)


def _scipy(xp):
    special = _special(xp)
    _check(special is not None, "this special function needs SciPy (pip install scipy)")
    return special


def _op(name, *args):
    return call(OPS[name], args)


# --------------------------------------------------------------------------- entr, erfcx

def _entr_grad(c):
    x = c.self
    return c.grad * -(1 + x.log())


@register_op("special_entr(Tensor self) -> Tensor", **_HALF_OK, saves=_SELF,
             derivatives={"self": _entr_grad})
def special_entr(xp, self):
    """entr(input, *, out=None) -> Tensor: -input * log(input) (0 at 0, -inf below 0)."""
    _refuse("entr_cpu", self)
    return _scipy(xp).entr(self)


@register_op("special_erfcx(Tensor self) -> Tensor", **_FLOAT_ONLY, saves=("self", "result"),
             derivatives={"self": lambda c: c.grad * (2 * c.self * c.result
                                                      - _TWO_OVER_SQRT_PI)})
def special_erfcx(xp, self):
    """erfcx(input, *, out=None) -> Tensor: the scaled complementary error function,
    exp(input**2) * erfc(input)."""
    _refuse("erfcx_cpu", self, half=False)
    return _scipy(xp).erfcx(self)


# --------------------------------------------------------------------------- Bessel i0e, i1, i1e

def _sign(x):
    return x.sign()


@register_op("special_i0e(Tensor self) -> Tensor", **_HALF_OK, saves=("self", "result"),
             node_name="SpecialI0EBackward0",
             derivatives={"self": lambda c: c.grad * (_op("special_i1e", c.self)
                                                      - _sign(c.self) * c.result)})
def special_i0e(xp, self):
    """i0e(input, *, out=None) -> Tensor: exp(-|input|) * I0(input), the exponentially scaled
    modified Bessel function of the first kind, order 0."""
    _refuse("i0e_cpu", self)
    return _scipy(xp).i0e(self)


def _not_tiny(x):
    """|x| > eps of x's dtype: PyTorch's i1 and i1e gradients take their limit 1/2 elsewhere
    (at 0, at the tiny values where 1 / x is inaccurate, and at NaN)."""
    return x.abs() > finfo(x.dtype).eps


def _i1_grad(c):
    # I1'(x) = I0(x) - I1(x) / x, which is 1/2 at 0.
    x, result = c.self, c.result
    usable = _not_tiny(x)
    safe = where(usable, x, 1.0)
    return c.grad * where(usable, safe.i0() - result / safe, 0.5)


@register_op("special_i1(Tensor self) -> Tensor", **_HALF_OK, saves=("self", "result"),
             derivatives={"self": _i1_grad})
def special_i1(xp, self):
    """i1(input, *, out=None) -> Tensor: the modified Bessel function of the first kind,
    order 1 (NaN at the infinities, as PyTorch's)."""
    _refuse("i1_cpu", self)
    result = _scipy(xp).i1(self)
    return xp.where(xp.isinf(self), xp.nan, result)


def _i1e_grad(c):
    # (exp(-|x|) I1(x))' = i0e(x) - i1e(x) (sign(x) + 1 / x), which is 1/2 at 0.
    x, result = c.self, c.result
    usable = _not_tiny(x)
    safe = where(usable, x, 1.0)
    return c.grad * where(usable, _op("special_i0e", safe) - result * (_sign(safe) + 1 / safe),
                          0.5)


@register_op("special_i1e(Tensor self) -> Tensor", **_HALF_OK, saves=("self", "result"),
             node_name="SpecialI1EBackward0",
             derivatives={"self": _i1e_grad})
def special_i1e(xp, self):
    """i1e(input, *, out=None) -> Tensor: exp(-|input|) * I1(input)."""
    _refuse("i1e_cpu", self)
    return _scipy(xp).i1e(self)


# --------------------------------------------------------------------------- normal distribution

def _density(x):
    return (-0.5 * x * x).exp() * (1 / _SQRT_2PI)


# PyTorch composes ndtr as (1 + erf(x / sqrt 2)) * 0.5: its node is that scalar multiply's.
@register_op("special_ndtr(Tensor self) -> Tensor", **_HALF_OK, saves=_SELF,
             node_name="MulBackward1", tags=("out_without_autograd",),
             derivatives={"self": lambda c: c.grad * _density(c.self)})
def special_ndtr(xp, self):
    """ndtr(input, *, out=None) -> Tensor: the standard normal distribution function."""
    _refuse("erf_vml_cpu", self)
    return _scipy(xp).ndtr(self)


@register_op("special_ndtri(Tensor self) -> Tensor", **_FLOAT_ONLY, saves=("result",),
             derivatives={"self": lambda c: c.grad * _SQRT_2PI
                          * (0.5 * c.result * c.result).exp()})
def special_ndtri(xp, self):
    """ndtri(input, *, out=None) -> Tensor: the inverse of ndtr (NaN outside [0, 1])."""
    _refuse("ndtri_cpu", self, half=False)
    return _scipy(xp).ndtri(self)


@register_op("special_log_ndtr(Tensor self) -> Tensor", **_FLOAT_ONLY, saves=("self", "result"),
             derivatives={"self": lambda c: c.grad * (-0.5 * c.self * c.self - c.result
                                                      - _LOG_SQRT_2PI).exp()})
def special_log_ndtr(xp, self):
    """log_ndtr(input, *, out=None) -> Tensor: log of the standard normal distribution
    function, accurate far in the left tail."""
    _refuse("log_ndtr_cpu", self, half=False)
    return _scipy(xp).log_ndtr(self)


# --------------------------------------------------------------------------- xlog1py, zeta

def _xlog1py_self_grad(c):
    other = c.other
    if not hasattr(other, "log1p"):
        return c.grad * math.log1p(other) if other > -1 else c.grad * math.nan
    return where((c.self == 0) & (other <= -1), 0.0, c.grad * other.log1p())


def _binary_name(base):
    def name(args, outputs):
        if not hasattr(args[0], "_dtype"):
            return f"{base}1"
        return f"{base}0" if hasattr(args[1], "_dtype") else f"{base}2"
    return name


@register_op("special_xlog1py(Tensor self, Tensor other) -> Tensor", **_HALF_OK,
             derivatives={"self": _xlog1py_self_grad,
                          "other": lambda c: c.grad * c.self / (1 + c.other)},
             node_name=_binary_name("SpecialXlog1PyBackward"))
def special_xlog1py(xp, self, other):
    """xlog1py(input, other, *, out=None) -> Tensor: input * log1p(other), 0 where input is 0
    (unless other is NaN)."""
    _refuse("xlog1py_cpu", self)
    product = self * xp.log1p(other)
    zero = xp.where(xp.isnan(other), other, product.dtype.type(0))
    return xp.where(self == 0, zero, product)


def _not_implemented(name):
    def formula(c):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return formula


@register_op("special_zeta(Tensor self, Tensor other) -> Tensor", **_FLOAT_ONLY,
             derivatives={"self": _not_implemented("zeta"),
                          "other": lambda c: c.grad * -c.self * _op("special_zeta",
                                                                    c.self + 1, c.other)},
             node_name=_binary_name("SpecialZetaBackward"))
def special_zeta(xp, self, other):
    """zeta(input, other, *, out=None) -> Tensor: the Hurwitz zeta function,
    sum over k >= 0 of (other + k) ** -input."""
    _refuse("zeta_cpu", self, half=False)
    # NOTE [zeta and trigamma follow PyTorch's series]
    return special_cephes.zeta(xp, self, other, self.dtype).astype(self.dtype, copy=False)


# --------------------------------------------------------------------------- incomplete gamma

def _igamma_other_grad(c, sign):
    a, x = c.self, c.other
    return c.grad * sign * ((a - 1) * x.log() - x - a.lgamma()).exp()


def _incomplete_gamma_edges(xp, a, x, computed, lower):
    """PyTorch's order of special cases (the first that applies wins, so NaN in one argument
    can still give a number): negative -> NaN; a = 0; x = 0; a infinite; x infinite."""
    one, zero, nan = (a.dtype.type(v) for v in (1, 0, math.nan))
    full, empty = (one, zero) if lower else (zero, one)
    cases = [((x < 0) | (a < 0), nan), (a == 0, xp.where(x > 0, full, nan)), (x == 0, empty),
             (xp.isinf(a), xp.where(xp.isinf(x), nan, empty)), (xp.isinf(x), full)]
    # Applied last to first, so the first case that holds wins (CuPy's select takes no array
    # default, so this is the one spelling for both back-ends).
    result = computed
    for condition, value in reversed(cases):
        result = xp.where(condition, value, result)
    return result


# NOTE [incomplete gamma underflows as PyTorch's]
# PyTorch's igamma/igammac (Cephes' algorithm, in the input's dtype) form the prefactor
# x**a e**-x / Gamma(a) as exp(a log x - x - lgamma(a)) where |x - a| > 0.4 a, and take it as
# 0 once that exponent is below -MAXLOG (the log of the dtype's smallest normal: 88.72 in
# float32, 709.78 in float64); nearer the diagonal it divides by a Lanczos sum that overflows
# (to a prefactor of 0) for a below about 1.4256 / the dtype's largest value. With the
# prefactor 0 the power series (P for small x, 1 - P for x below a) is 0 and the continued
# fraction (Q for x > 1.1 at or above a) is 0, although the series divides the prefactor by a:
# for an `a` that is itself denormal the exact P is near 1 where PyTorch's is 0. Where
# a log x overflows beside lgamma(a) (a near float32's largest value) the exponent is NaN and
# so is the result. ember's values come from SciPy in float64, so these cuts are replayed.
_MAXLOG = {np.dtype(np.float32): 88.72283905206835, np.dtype(np.float64): 709.782712893384}


def _prefactor_cuts(xp, a, x, lower, result):
    maxlog = _MAXLOG.get(np.dtype(result.dtype))
    if maxlog is None:
        return result
    with np.errstate(all="ignore"):
        exponent = a * xp.log(x) - x - _scipy(xp).gammaln(a)
        inside = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
        far = xp.abs(x - a) > a * result.dtype.type(0.4)
        lanczos_overflow = a < 1.4256 / float(np.finfo(result.dtype).max)
        gone = inside & (far & (exponent < -maxlog) | ~far & lanczos_overflow)
        # (which of PyTorch's branches P or Q takes at (a, x); the other is 1 minus it)
        fraction = (x > 1.1) & (x >= a)
        if lower:
            series = ~((x > 1) & (x > a))
        else:
            series = (x > 1.1) & (x < a) | (x <= 0.5) & (-0.4 / xp.log(x) < a) | \
                (x > 0.5) & (x <= 1.1) & (x * 1.1 < a)
        undefined = inside & far & xp.isnan(exponent) & (series | fraction)
    one, zero = result.dtype.type(1), result.dtype.type(0)
    at_series, at_fraction = (zero, one) if lower else (one, zero)
    result = xp.where(gone & series, at_series, result)
    result = xp.where(gone & fraction & ~series, at_fraction, result)
    return xp.where(undefined, result.dtype.type(math.nan), result)


def _integer_refused(name, x):
    if x.dtype.kind in "biu":
        not_implemented_for(name, x)


@register_op("igamma(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             promotion=DEFAULT, inplace=True,
             derivatives={"self": _not_implemented("igamma: input"),
                          "other": lambda c: _igamma_other_grad(c, 1)})
def igamma(xp, self, other):
    """igamma(input, other, *, out=None) -> Tensor: the regularised lower incomplete gamma
    function P(input, other)."""
    _integer_refused("igamma_cpu", self)
    _refuse("igamma_cpu", self)
    a, x = xp.broadcast_arrays(self, other)
    computed = _prefactor_cuts(xp, a, x, True, _scipy(xp).gammainc(self, other))
    return _incomplete_gamma_edges(xp, a, x, computed, lower=True)


@register_op("igammac(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             promotion=DEFAULT, inplace=True,
             derivatives={"self": _not_implemented("igammac: input"),
                          "other": lambda c: _igamma_other_grad(c, -1)})
def igammac(xp, self, other):
    """igammac(input, other, *, out=None) -> Tensor: the regularised upper incomplete gamma
    function Q(input, other) = 1 - P(input, other)."""
    _integer_refused("igammac_cpu", self)
    _refuse("igammac_cpu", self)
    a, x = xp.broadcast_arrays(self, other)
    computed = _prefactor_cuts(xp, a, x, False, _scipy(xp).gammaincc(self, other))
    return _incomplete_gamma_edges(xp, a, x, computed, lower=False)


# --------------------------------------------------------------------------- mvlgamma

def _mvlgamma_grad(c):
    x, total = c.self, None
    for j in range(c.p):
        term = (x - j / 2).digamma()
        total = term if total is None else total + term
    return c.grad * total


@register_op("mvlgamma(Tensor self, int p) -> Tensor", kind="pointwise", promotion=INT_TO_FLOAT,
             inplace=True, saves=_SELF, derivatives={"self": _mvlgamma_grad},
             compute_in_float=False)
def mvlgamma(xp, self, p):
    """mvlgamma(input, p, *, out=None) -> Tensor: the multivariate log-gamma function of
    dimension p, p (p - 1) / 4 * log(pi) + sum over j < p of lgamma(input - j / 2)."""
    _check_type(isinstance(p, int) and not isinstance(p, bool), lambda: (
        f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}"))
    _check(p >= 1, "p has to be greater than or equal to 1")
    if p >= 1 << 63:
        raise ValueError("Overflow when unpacking long long")
    # As PyTorch: the p shifted copies of the input side by side, so a p too large to count
    # is its storage-size error (not a loop that never ends).
    _check(p * 8 < 1 << 63, lambda: f"Storage size calculation overflowed with sizes=[{p}]")
    _refuse("mvlgamma", self)
    # As PyTorch's composite: the shifts -(p - 1) / 2 ... -1/2, 0 added in the input's dtype
    # (a float16 input rounds x - 1 to -1 near 0, a pole), lgamma of each (the lgamma op's
    # kernel: +inf at both infinities), summed in that order (half types in float32), then
    # the constant added.
    dtype = self.dtype
    half = dtype.itemsize == 2
    shifts = (xp.arange(p, dtype=np.float64)[::-1] / -2.0).astype(dtype)
    with np.errstate(all="ignore"):
        shifted = self[..., None] + shifts
        wide = shifted.astype(np.float32) if half else shifted
        terms = lgamma(xp, wide).astype(dtype).astype(wide.dtype)
        total = terms.sum(axis=-1, dtype=wide.dtype)
        if half:
            total = total.astype(dtype).astype(np.float32)
        return total + wide.dtype.type(p * (p - 1) / 4 * math.log(math.pi))


# --------------------------------------------------------------------------- Bessel, Airy

# PyTorch records no gradient for these (their outputs do not require grad).
_NO_GRAD = dict(_FLOAT_ONLY, differentiable=False)


def _bessel(name, doc, compute):
    kernel_name = name.removeprefix("special_") + "_cpu"

    def kernel(xp, self):
        _refuse(kernel_name, self, half=False)
        return compute(xp, _scipy(xp), self)
    kernel.__name__ = name
    kernel.__doc__ = doc
    register_op(f"{name}(Tensor self) -> Tensor", **_NO_GRAD)(kernel)


# NOTE [airy_ai at the edges]: PyTorch's Ai is Cephes' airy in the input's own precision: 0
# past x = 103.892 (where Ai underflows), NaN at both infinities, and for x < -2.09 an
# asymptotic form k * (sin(theta) * f - cos(theta) * g) with zeta = -2 x sqrt(-x) / 3,
# theta = zeta + pi / 4, k = 1 / (sqrt(pi) * (-x) ** 0.25), f and g series in 1 / zeta. SciPy's
# airy is the exact value, NaN past |x| ~ 1e8 (float64) and accurate where float32's zeta is
# not: there ember takes the same form in the input's precision (four terms of f and g, within
# the dtype's tolerance for x < -20; float32's zeta overflows to inf, and Ai to NaN, near -1e26).
_AIRY_ZERO_PAST = 103.892
_AIRY_FAR = -20.0
_AIRY_U = (0.06944444444444445, 0.037133487654320986, 0.03799305912780064,
           0.05764919041266972, 0.11609906402551541, 0.2915913992307505)


def _airy_ai(xp, special, x):
    # (an array, not SciPy's scalar, for a 0-d input: the far branch assigns into it)
    ai = np.array(special.airy(x)[0], dtype=x.dtype, ndmin=x.ndim)
    far = x < _AIRY_FAR
    if far.any():
        t = x.dtype.type
        z = x[far]
        with np.errstate(all="ignore"):
            root = np.sqrt(-z)
            zeta = t(-2) * z * root / t(3)
            theta = zeta + t(math.pi / 4)
            k = t(1 / math.sqrt(math.pi)) / np.sqrt(root)
            inverse = t(1) / zeta
            square = inverse * inverse
            u = [t(v) for v in _AIRY_U]
            f = t(1) - square * (u[1] - square * (u[3] - square * u[5]))
            g = inverse * (u[0] - square * (u[2] - square * u[4]))
            ai[far] = k * (np.sin(theta) * f - np.cos(theta) * g)
    return np.where(np.isinf(x), x.dtype.type(np.nan),
                    np.where(x > _AIRY_ZERO_PAST, x.dtype.type(0), ai))


def _spherical_j0(xp, special, x):
    # sin(x) / x, 1 at 0; 0 at the infinities.
    safe = xp.where(x == 0, x.dtype.type(1), x)
    return xp.where(x == 0, x.dtype.type(1),
                    xp.where(xp.isinf(x), x.dtype.type(0), xp.sin(safe) / safe))


for _name, _doc, _compute in (
    ("special_bessel_j0", ("bessel_j0(input, *, out=None) -> Tensor: the Bessel function of the "
     "first kind, order 0."), lambda xp, s, x: s.j0(x)),
    ("special_bessel_j1", ("bessel_j1(input, *, out=None) -> Tensor: the Bessel function of the "
     "first kind, order 1."), lambda xp, s, x: s.j1(x)),
    ("special_bessel_y0", ("bessel_y0(input, *, out=None) -> Tensor: the Bessel function of the "
     "second kind, order 0."), lambda xp, s, x: s.y0(x)),
    ("special_bessel_y1", ("bessel_y1(input, *, out=None) -> Tensor: the Bessel function of the "
     "second kind, order 1."), lambda xp, s, x: s.y1(x)),
    ("special_modified_bessel_i0", ("modified_bessel_i0(input, *, out=None) -> Tensor: the "
     "modified Bessel function of the first kind, order 0."), lambda xp, s, x: s.i0(x)),
    ("special_modified_bessel_i1", ("modified_bessel_i1(input, *, out=None) -> Tensor: the "
     "modified Bessel function of the first kind, order 1."), lambda xp, s, x: s.i1(x)),
    ("special_modified_bessel_k0", ("modified_bessel_k0(input, *, out=None) -> Tensor: the "
     "modified Bessel function of the second kind, order 0."), lambda xp, s, x: s.k0(x)),
    ("special_modified_bessel_k1", ("modified_bessel_k1(input, *, out=None) -> Tensor: the "
     "modified Bessel function of the second kind, order 1."), lambda xp, s, x: s.k1(x)),
    ("special_scaled_modified_bessel_k0", ("scaled_modified_bessel_k0(input, *, out=None) -> "
     "Tensor: exp(input) * K0(input)."), lambda xp, s, x: s.k0e(x)),
    ("special_scaled_modified_bessel_k1", ("scaled_modified_bessel_k1(input, *, out=None) -> "
     "Tensor: exp(input) * K1(input)."), lambda xp, s, x: s.k1e(x)),
    ("special_spherical_bessel_j0", ("spherical_bessel_j0(input, *, out=None) -> Tensor: the "
     "spherical Bessel function of the first kind, order 0: sin(input) / input."),
     _spherical_j0),
    ("special_airy_ai", "airy_ai(input, *, out=None) -> Tensor: the Airy function Ai.",
     _airy_ai),
):
    _bessel(_name, _doc, _compute)


# PyTorch's Scalar overloads, offered to modes for a number operand (NOTE [overload forms]).
for _name in ("special_xlog1py", "special_zeta"):
    register_form(_name, f"{_name}.self_scalar(Scalar self, Tensor other) -> Tensor",
                  numbers=(0,))
    register_form(_name, f"{_name}.other_scalar(Tensor self, Scalar other) -> Tensor",
                  numbers=(1,))
