"""Pointwise math: the exp/log family, trigonometric and hyperbolic functions, rounding and
sign, floating-point predicates, nan_to_num, and the complex parts (conj, real, imag, angle).
Binary math (atan2, hypot, gcd, float_power, frexp ...) lives in pointwise_binary.py, special
functions (erf, lgamma, digamma, sigmoid ...) in pointwise_special.py; exp and the arithmetic
ops in pointwise.py.

Kernels follow pointwise.py's contract: the dispatcher has applied type promotion (integer input
to an INT_TO_FLOAT op arrives as the default float dtype, half types as float32) and casts the
kernel's result to the result dtype. Kernels return fresh arrays, never their input.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.dispatch import call, call_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import (
    ALWAYS_BOOL,
    COMPLEX_TO_FLOAT,
    INT_TO_FLOAT,
    OPS,
    register_frontend,
    register_op,
)
from ember._ops import grad_utils
from ember._ops.grad_utils import identity, where, zeros_grad
from ember._ops.pointwise import not_implemented_for

_FLOAT_UNARY = {"kind": "pointwise", "promotion": INT_TO_FLOAT, "inplace": True}
_PREDICATE = {"kind": "pointwise", "promotion": ALWAYS_BOOL, "differentiable": False,
              "tags": ("wide_unsigned", "no_fp_errors")}
_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)   # NumPy files it under kind "V", not "f"


def _ufunc_op(name, ufunc, doc, aliases, derivative, saves):
    """Declare `name(Tensor self) -> Tensor` computed by the array module's `ufunc`."""
    def kernel(xp, self):
        return getattr(xp, ufunc)(self)
    kernel.__name__ = name
    kernel.__doc__ = doc
    register_op(f"{name}(Tensor self) -> Tensor", **_FLOAT_UNARY, aliases=aliases,
                derivatives={"self": derivative}, saves=saves)(kernel)


# --------------------------------------------------------------------------- derivatives

# Each formula is grad * conj(f'(x)) (NOTE [complex gradients] in grad_utils), written in the
# same arrangement as PyTorch's so that the special values (0, inf, NaN) give the same inf/NaN.
_conj = grad_utils.conj
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_SELF = ("self",)
_RESULT = ("result",)


def _acosh_grad(c):
    x = c.self
    if x._dtype.is_complex:
        # 1 / sqrt(z**2 - 1) takes the wrong branch for Re(z) < 0; the product does not.
        return c.grad * _conj((x - 1).rsqrt() * (x + 1).rsqrt())
    # Real: finite below -1 too (where acosh itself is NaN), as PyTorch gives.
    return c.grad * (x * x - 1).rsqrt()


_UNARY_GRADS = {
    "exp2": (lambda c: c.grad * _conj(c.result * _LN2), _RESULT),
    "expm1": (lambda c: c.grad * _conj(c.result + 1), _RESULT),
    "log": (lambda c: c.grad / _conj(c.self), _SELF),
    "log2": (lambda c: c.grad / _conj(c.self * _LN2), _SELF),
    "log10": (lambda c: c.grad / _conj(c.self * _LN10), _SELF),
    "log1p": (lambda c: c.grad / _conj(c.self + 1), _SELF),
    "sqrt": (lambda c: c.grad / _conj(2 * c.result), _RESULT),
    "sin": (lambda c: c.grad * _conj(c.self.cos()), _SELF),
    "cos": (lambda c: c.grad * -_conj(c.self.sin()), _SELF),
    "tan": (lambda c: c.grad * _conj(1 + c.result * c.result), _RESULT),
    "asin": (lambda c: c.grad * _conj((1 - c.self * c.self).rsqrt()), _SELF),
    "acos": (lambda c: c.grad * -_conj((1 - c.self * c.self).rsqrt()), _SELF),
    "atan": (lambda c: c.grad / _conj(c.self * c.self + 1), _SELF),
    "sinh": (lambda c: c.grad * _conj(c.self.cosh()), _SELF),
    "cosh": (lambda c: c.grad * _conj(c.self.sinh()), _SELF),
    "tanh": (lambda c: call(OPS["tanh_backward"], (c.grad, c.result)), _RESULT),
    "asinh": (lambda c: c.grad * _conj((c.self * c.self + 1).rsqrt()), _SELF),
    "acosh": (_acosh_grad, _SELF),
    "atanh": (lambda c: c.grad / _conj(1 - c.self * c.self), _SELF),
}


# --------------------------------------------------------------------------- exp / log, trig

# name, array-module function, PyTorch's aliases, docstring. Integer and bool input gives the
# default float dtype; complex input is supported as NumPy supports it.
_UFUNC_TABLE = (
    ("exp2", "exp2", (), "exp2(input, *, out=None) -> Tensor: 2 raised to each element."),
    ("expm1", "expm1", (), "expm1(input, *, out=None) -> Tensor: exp(input) - 1, exact near 0."),
    ("log", "log", (), "log(input, *, out=None) -> Tensor: natural logarithm (NaN below 0)."),
    ("log2", "log2", (), "log2(input, *, out=None) -> Tensor: base-2 logarithm."),
    ("log10", "log10", (), "log10(input, *, out=None) -> Tensor: base-10 logarithm."),
    ("log1p", "log1p", (), "log1p(input, *, out=None) -> Tensor: log(1 + input), exact near 0."),
    ("sqrt", "sqrt", (), "sqrt(input, *, out=None) -> Tensor: square root (NaN below 0)."),
    ("sin", "sin", (), "sin(input, *, out=None) -> Tensor: sine (radians)."),
    ("cos", "cos", (), "cos(input, *, out=None) -> Tensor: cosine (radians)."),
    ("tan", "tan", (), "tan(input, *, out=None) -> Tensor: tangent (radians)."),
    ("asin", "arcsin", ("arcsin",), "asin(input, *, out=None) -> Tensor: inverse sine."),
    ("acos", "arccos", ("arccos",), "acos(input, *, out=None) -> Tensor: inverse cosine."),
    ("atan", "arctan", ("arctan",), "atan(input, *, out=None) -> Tensor: inverse tangent."),
    ("sinh", "sinh", (), "sinh(input, *, out=None) -> Tensor: hyperbolic sine."),
    ("cosh", "cosh", (), "cosh(input, *, out=None) -> Tensor: hyperbolic cosine."),
    ("tanh", "tanh", (), "tanh(input, *, out=None) -> Tensor: hyperbolic tangent."),
    ("asinh", "arcsinh", ("arcsinh",),
     "asinh(input, *, out=None) -> Tensor: inverse hyperbolic sine."),
    ("acosh", "arccosh", ("arccosh",),
     "acosh(input, *, out=None) -> Tensor: inverse hyperbolic cosine (NaN below 1)."),
    ("atanh", "arctanh", ("arctanh",),
     "atanh(input, *, out=None) -> Tensor: inverse hyperbolic tangent (NaN outside [-1, 1])."),
)

for _name, _ufunc, _aliases, _doc in _UFUNC_TABLE:
    _ufunc_op(_name, _ufunc, _doc, _aliases, *_UNARY_GRADS[_name])


def _sinc_grad(c):
    x = c.self
    # (pi x cos(pi x) - sin(pi x)) / (pi x**2), 0 at x == 0; a stand-in 1 there keeps 0/0 out
    # of the second derivative.
    zero = x == 0
    safe = where(zero, 1.0, x)
    pix = safe * math.pi
    slope = (pix * pix.cos() - pix.sin()) / (pix * safe)
    return c.grad * _conj(where(zero, 0.0, slope))


@register_op("rsqrt(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_RESULT,
             derivatives={"self": lambda c: -0.5 * c.grad * _conj(c.result ** 3)})
def rsqrt(xp, self):
    """rsqrt(input, *, out=None) -> Tensor: 1 / sqrt(input)."""
    return xp.reciprocal(xp.sqrt(self))


@register_op("sinc(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=_SELF,
             derivatives={"self": _sinc_grad})
def sinc(xp, self):
    """sinc(input, *, out=None) -> Tensor: sin(pi * x) / (pi * x), and 1 at 0."""
    scaled = self * self.dtype.type(math.pi)
    # Where x is 0 divide 0/1 instead of 0/0, then put the limit in.
    safe = xp.where(self == 0, self.dtype.type(1), scaled)
    return xp.where(self == 0, self.dtype.type(1), xp.sin(safe) / safe)


def _no_complex(name, array, message):
    _check(array.dtype.kind != "c", lambda: f"{name} {message}")


@register_op("deg2rad(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=(),
             derivatives={"self": lambda c: c.grad * (math.pi / 180)})
def deg2rad(xp, self):
    """deg2rad(input, *, out=None) -> Tensor: degrees to radians."""
    _no_complex("deg2rad", self, "is not supported for complex tensors.")
    return self * self.dtype.type(math.pi / 180)


@register_op("rad2deg(Tensor self) -> Tensor", **_FLOAT_UNARY, saves=(),
             derivatives={"self": lambda c: c.grad * (180 / math.pi)})
def rad2deg(xp, self):
    """rad2deg(input, *, out=None) -> Tensor: radians to degrees."""
    _no_complex("rad2deg", self, "is not supported for complex tensors.")
    return self * self.dtype.type(180 / math.pi)


# --------------------------------------------------------------------------- rounding and sign

def _rounding(name, kernel_name, self):
    """Integers are already whole: a copy. Bool and complex have no rounding kernel."""
    kind = self.dtype.kind
    if kind == "b":
        not_implemented_for(kernel_name, self)
    _check_not_implemented(kind != "c", lambda: f"{name} is not supported for complex inputs")
    return kind in "iu"


@register_op("floor(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": zeros_grad}, saves=(),
             tags=("no_fp_errors", "wide_unsigned"))
def floor(xp, self):
    """floor(input, *, out=None) -> Tensor: round toward -inf (integers unchanged)."""
    return self.copy() if _rounding("floor", "floor_vml_cpu", self) else xp.floor(self)


@register_op("ceil(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": zeros_grad}, saves=(),
             tags=("no_fp_errors", "wide_unsigned"))
def ceil(xp, self):
    """ceil(input, *, out=None) -> Tensor: round toward +inf (integers unchanged)."""
    return self.copy() if _rounding("ceil", "ceil_vml_cpu", self) else xp.ceil(self)


@register_op("trunc(Tensor self) -> Tensor", kind="pointwise", inplace=True, aliases=("fix",),
             derivatives={"self": zeros_grad}, saves=(),
             tags=("no_fp_errors", "wide_unsigned"))
def trunc(xp, self):
    """trunc(input, *, out=None) -> Tensor: round toward zero (integers unchanged)."""
    return self.copy() if _rounding("trunc", "trunc_vml_cpu", self) else xp.trunc(self)


@register_op("frac(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": identity}, saves=())
def frac(xp, self):
    """frac(input, *, out=None) -> Tensor: input - trunc(input), with input's sign."""
    if self.dtype.kind in "biuc":
        not_implemented_for("frac_cpu", self)
    return self - xp.trunc(self)


@register_op("round(Tensor self) -> Tensor", kind="pointwise", function=False, method=False,
             derivatives={"self": zeros_grad}, saves=(),
             tags=("wide_unsigned",))
def round(xp, self):
    """round(input, *, decimals=0, out=None) -> Tensor: round half to even."""
    return self.copy() if _rounding("round", "round_vml_cpu", self) else xp.round(self)


@register_op("round.decimals(Tensor self, *, int decimals) -> Tensor", kind="pointwise",
             function=False, method=False, derivatives={"self": zeros_grad}, saves=(),
             node_name="RoundBackward1",
             tags=("wide_unsigned",))
def round_decimals(xp, self, decimals):
    """round to `decimals` places (negative: to tens, hundreds ...), half to even."""
    _check_type(isinstance(decimals, (int, np.integer)) and not isinstance(decimals, bool),
                lambda: f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if self.dtype.kind in "biuc":
        not_implemented_for("round_cpu", self)
    if decimals >= 0:
        scale = self.dtype.type(10.0 ** decimals)
        return xp.rint(self * scale) / scale
    scale = self.dtype.type(10.0 ** -decimals)
    return xp.rint(self / scale) * scale


_ROUND_OP = OPS["round"]
_ROUND_DECIMALS_OP = OPS["round.decimals"]


def _round_call(input, decimals):
    # An explicit `decimals` (even 0) selects the decimals overload, which refuses integers.
    if decimals is None:
        return _ROUND_OP, (input,)
    return _ROUND_DECIMALS_OP, (input, decimals)


def round_function(input, *, decimals=None, out=None):
    """round(input, *, decimals=0, out=None) -> Tensor: round half to even, to `decimals`
    decimal places (integers are returned unchanged when no `decimals` is given)."""
    if _state.entry and _wants(locals()):
        return _handle(round_function, locals())
    op, args = _round_call(input, decimals)
    return call(op, args) if out is None else call_out(op, args, out)


def round_inplace(self, *, decimals=None):
    if _state.entry and _wants(locals()):
        return _handle(round_inplace, locals())
    op, args = _round_call(self, decimals)
    return dispatch.call_inplace(op, args)


register_frontend("round", inplace=round_inplace)(round_function)


def _sign_of(xp, x):
    # 0 for NaN and for both zeros, as PyTorch gives (NumPy's sign keeps NaN).
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


@register_op("sign(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": zeros_grad}, saves=(), tags=("no_fp_errors",))
def sign(xp, self):
    """sign(input, *, out=None) -> Tensor: -1, 0 or 1 by the sign of each element."""
    _check_not_implemented(self.dtype.kind != "c", (
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
        "torch.sgn instead."))
    return self.copy() if self.dtype.kind == "b" else _sign_of(xp, self)


def _sgn_grad(c):
    x = c.self
    if not x._dtype.is_complex:
        return zeros_grad(c)
    # sgn(z) = z / |z| has modulus 1: its gradient is grad less its projection on sgn(z),
    # divided by |z|; 0 at z == 0 (a stand-in 1 there keeps 0/0 out).
    s = c.result
    modulus = x.abs()
    zero = modulus == 0
    across = c.grad - s * (c.grad * s.conj()).real
    return where(zero, 0.0, across / where(zero, 1.0, modulus))


@register_op("sgn(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": _sgn_grad}, saves=("self", "result"))
def sgn(xp, self):
    """sgn(input, *, out=None) -> Tensor: sign(); for complex input z / |z| (0 at 0)."""
    kind = self.dtype.kind
    if kind == "c":
        modulus = xp.abs(self)
        zero = modulus == 0
        safe = xp.where(zero, modulus.dtype.type(1), modulus)
        # Each part divided by the real modulus (NumPy would divide by a complex one, ~10x
        # slower and rounded twice).
        out = xp.empty_like(self)
        xp.divide(self.real, safe, out=out.real)
        xp.divide(self.imag, safe, out=out.imag)
        return xp.where(zero, self.dtype.type(0), out)
    return self.copy() if kind == "b" else _sign_of(xp, self)


@register_op("signbit(Tensor self) -> Tensor", **_PREDICATE)
def signbit(xp, self):
    """signbit(input, *, out=None) -> Tensor: whether the sign bit is set (True for -0.0)."""
    _check_not_implemented(self.dtype.kind != "c",
                           "signbit is not implemented for complex tensors.")
    return xp.signbit(self) if self.dtype.kind == "f" else self < 0


# --------------------------------------------------------------------------- predicates

def _all(xp, self, value):
    return xp.full(self.shape, value, dtype=bool)


@register_op("isnan(Tensor self) -> Tensor", **_PREDICATE, out=False)
def isnan(xp, self):
    """isnan(input) -> Tensor: whether each element is NaN."""
    return xp.isnan(self) if self.dtype.kind in "fc" else _all(xp, self, False)


@register_op("isinf(Tensor self) -> Tensor", **_PREDICATE, out=False)
def isinf(xp, self):
    """isinf(input) -> Tensor: whether each element is +inf or -inf (either part if complex)."""
    return xp.isinf(self) if self.dtype.kind in "fc" else _all(xp, self, False)


@register_op("isposinf(Tensor self) -> Tensor", **_PREDICATE)
def isposinf(xp, self):
    """isposinf(input, *, out=None) -> Tensor: whether each element is +inf."""
    _no_complex("isposinf", self, "does not support complex inputs.")
    return self == xp.inf if self.dtype.kind == "f" else _all(xp, self, False)


@register_op("isneginf(Tensor self) -> Tensor", **_PREDICATE)
def isneginf(xp, self):
    """isneginf(input, *, out=None) -> Tensor: whether each element is -inf."""
    _no_complex("isneginf", self, "does not support complex inputs.")
    return self == -xp.inf if self.dtype.kind == "f" else _all(xp, self, False)


@register_op("isfinite(Tensor self) -> Tensor", **_PREDICATE, out=False)
def isfinite(xp, self):
    """isfinite(input) -> Tensor: neither NaN nor infinite (both parts, if complex)."""
    return xp.isfinite(self) if self.dtype.kind in "fc" else _all(xp, self, True)


@register_op("isreal(Tensor self) -> Tensor", **_PREDICATE, out=False)
def isreal(xp, self):
    """isreal(input) -> Tensor: whether each element has a zero imaginary part."""
    return self.imag == 0 if self.dtype.kind == "c" else _all(xp, self, True)


def _finfo(np_dtype):
    # ml_dtypes' finfo knows bfloat16 as well as NumPy's own types.
    return ml_dtypes.finfo(np_dtype)


def _float_arg(name, value):
    _check_type(value is None or (isinstance(value, (int, float, np.integer, np.floating))
                                  and not isinstance(value, bool)),
                lambda: f"nan_to_num(): argument '{name}' must be float, not "
                        f"{type(value).__name__}")


def _replace_non_finite(xp, x, nan, posinf, neginf):
    info = _finfo(x.dtype)
    kind = x.dtype.type
    nan_value = kind(0.0 if nan is None else nan)
    pos_value = info.max if posinf is None else kind(posinf)
    neg_value = info.min if neginf is None else kind(neginf)
    x = xp.where(xp.isnan(x), nan_value, x)
    x = xp.where(x == xp.inf, pos_value, x)
    return xp.where(x == -xp.inf, neg_value, x)


# compute_in_float=False: the default replacements are the largest values of the tensor's own
# dtype, which a float32 round trip would turn into inf for half types.
# The replaced elements are constants: no gradient flows to them.
@register_op("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None)"
             " -> Tensor", kind="pointwise", inplace=True, compute_in_float=False, saves=_SELF,
             derivatives={"self": lambda c: where(c.self.isfinite(), c.grad, 0.0)},
             tags=("wide_unsigned",))
def nan_to_num(xp, self, nan=None, posinf=None, neginf=None):
    """nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None) -> Tensor.

    NaN becomes `nan`, +inf `posinf` and -inf `neginf`; the infinities default to the largest
    and smallest finite values of the dtype. Integer tensors are returned unchanged.
    """
    _float_arg("nan", nan)
    _float_arg("posinf", posinf)
    _float_arg("neginf", neginf)
    kind = self.dtype.kind
    if kind == "c":
        real = _replace_non_finite(xp, self.real, nan, posinf, neginf)
        imag = _replace_non_finite(xp, self.imag, nan, posinf, neginf)
        return real + imag * self.dtype.type(1j)
    if kind == "f" or self.dtype == _BFLOAT16:
        return _replace_non_finite(xp, self, nan, posinf, neginf)
    return self.copy()


# --------------------------------------------------------------------------- complex parts

def _tensor_arg(fn, value):
    _check_type(isinstance(value, dispatch.Tensor), lambda: (
        f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(value).__name__}"))


def _conj_grad(c):
    return _conj(c.grad)


@register_op("conj_physical(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": _conj_grad}, saves=(),
             tags=("no_fp_errors", "wide_unsigned", "out_without_autograd"))
def conj_physical(xp, self):
    """conj_physical(input, *, out=None) -> Tensor: the complex conjugate, computed now."""
    return xp.conj(self) if self.dtype.kind == "c" else self.copy()


# What conj_physical of a complex tensor is under modes (PyTorch's composite calls it there).
@register_op("_conj_physical(Tensor self) -> Tensor", kind="pointwise", method=False,
             out=False, derivatives={"self": _conj_grad}, saves=(),
             tags=("no_fp_errors", "wide_unsigned"))
def _conj_physical(xp, self):
    """_conj_physical(input) -> Tensor: the complex conjugate, computed now."""
    return xp.conj(self) if self.dtype.kind == "c" else self.copy()


def _conj_meta(self):
    return self.shape, self.dtype


# NOTE [no conjugate bit]: PyTorch's conj() of a complex tensor is a lazy view that flips a bit;
# ember has no such bit, so conj() of a complex tensor is a new conjugated tensor (writes to it
# do not reach the input) and is_conj() is always False. Real tensors come back as they are.
@register_op("conj(Tensor(a) self) -> Tensor(a)", kind="generic", meta=_conj_meta,
             function=False, method=False, derivatives={"self": _conj_grad}, saves=())
def conj(xp, self):
    """conj(input) -> Tensor: the complex conjugate (input itself when it is real)."""
    if self.dtype.kind == "c":
        return xp.conj(self)
    if self.dtype.names is not None:     # complex32: NOTE [complex32 storage]
        out = self.copy()
        out["imag"] = -out["imag"]
        return out
    return self.copy()


_CONJ_OP = OPS["conj"]


# PyTorch's conj() of a complex tensor is `_conj` (conj is a composite): what a mode sees
# (ember._decomp's conj decomposition calls it).
@register_op("_conj(Tensor(a) self) -> Tensor(a)", kind="generic", meta=_conj_meta,
             function=False, method=False, derivatives={"self": _conj_grad}, saves=())
def conj_view(xp, self):
    """_conj(input) -> Tensor: the complex conjugate of a complex tensor (conj's kernel)."""
    return conj(xp, self)


@register_frontend("conj")
def conj_function(input):
    """conj(input) -> Tensor: the complex conjugate (input itself when it is real)."""
    if _state.entry and _wants(locals()):
        return _handle(conj_function, locals())
    _tensor_arg("conj", input)
    return call(_CONJ_OP, (input,)) if input._dtype.is_complex else input


@register_frontend()
def is_conj(input) -> bool:
    """is_conj(input) -> bool: always False (see NOTE [no conjugate bit])."""
    if _state.entry and _wants(locals()):
        return _handle(is_conj, locals())
    _tensor_arg("is_conj", input)
    return False


@register_frontend()
def is_neg(input) -> bool:
    """is_neg(input) -> bool: always False (ember has no lazy negation either)."""
    if _state.entry and _wants(locals()):
        return _handle(is_neg, locals())
    _tensor_arg("is_neg", input)
    return False


@register_frontend()
def resolve_conj(input):
    """resolve_conj(input) -> Tensor: input itself (see NOTE [no conjugate bit])."""
    if _state.entry and _wants(locals()):
        return _handle(resolve_conj, locals())
    _tensor_arg("resolve_conj", input)
    return input


@register_frontend()
def resolve_neg(input):
    """resolve_neg(input) -> Tensor: input itself (ember has no lazy negation)."""
    if _state.entry and _wants(locals()):
        return _handle(resolve_neg, locals())
    _tensor_arg("resolve_neg", input)
    return input


# A real gradient for the real part is the complex gradient grad + 0j (the engine casts it to
# the input's complex dtype); for the imaginary part it is grad * 1j.
@register_op("real(Tensor(a) self) -> Tensor(a)", kind="view", function=False, method=False,
             derivatives={"self": identity}, saves=())
def real(xp, self):
    """The real part of a complex tensor, as a view."""
    if self.dtype.names is not None:     # complex32: NOTE [complex32 storage]
        return self["real"]
    return xp.real(self)


@register_op("imag(Tensor(a) self) -> Tensor(a)", kind="view", function=False, method=False,
             derivatives={"self": lambda c: c.grad * 1j}, saves=())
def imag(xp, self):
    """The imaginary part of a complex tensor, as a view."""
    _check(self.dtype.kind == "c" or self.dtype.names is not None,
           "imag is not implemented for tensors with non-complex dtypes.")
    if self.dtype.names is not None:     # complex32: NOTE [complex32 storage]
        return self["imag"]
    return xp.imag(self)


_REAL_OP = OPS["real"]
_IMAG_OP = OPS["imag"]


# Tensor.real and Tensor.imag are properties (in _tensor.py) that call these functions.
@register_frontend("real", method=False)
def real_function(input):
    """real(input) -> Tensor: the real part as a view; a real tensor is returned itself."""
    if _state.entry and _wants(locals()):
        return _handle(real_function, locals())
    _tensor_arg("real", input)
    return call(_REAL_OP, (input,)) if input._dtype.is_complex else input


@register_frontend("imag", method=False)
def imag_function(input):
    """imag(input) -> Tensor: the imaginary part as a view (complex tensors only)."""
    if _state.entry and _wants(locals()):
        return _handle(imag_function, locals())
    _tensor_arg("imag", input)
    return call(_IMAG_OP, (input,))


def _angle_grad(c):
    z = c.self
    if not z._dtype.is_complex:
        return zeros_grad(c)
    # angle = Im(log z): its gradient is grad * 1j * z / |z|**2, 0 at z == 0.
    zero = z == 0
    square = where(zero, 1.0, z.abs() ** 2)
    return where(zero, 0.0, c.grad * z / square * 1j)


@register_op("angle(Tensor self) -> Tensor", kind="pointwise", promotion=COMPLEX_TO_FLOAT,
             function=False, method=False, derivatives={"self": _angle_grad}, saves=_SELF,
             tags=("wide_unsigned",))
def angle(xp, self):
    """angle(input, *, out=None) -> Tensor: the argument of each element, in radians."""
    if self.dtype.kind == "c":
        return xp.angle(self)
    # pi for negative numbers, 0 for the rest (-0.0 included), NaN stays NaN.
    result = xp.where(self < 0, self.dtype.type(math.pi), self.dtype.type(0))
    return xp.where(xp.isnan(self), self, result)


_ANGLE_OP = OPS["angle"]


@register_frontend("angle")
def angle_function(input, *, out=None):
    """angle(input, *, out=None) -> Tensor: the argument of each element, in radians.

    Integer and bool input gives the default float dtype, complex input its real dtype.
    """
    if _state.entry and _wants(locals()):
        return _handle(angle_function, locals())
    _tensor_arg("angle", input)
    if input._dtype._category < dt.FLOAT:
        # No one promotion kind maps both integers to float and complex to real.
        input = input.to(dt.get_default_dtype())
    return call(_ANGLE_OP, (input,)) if out is None else call_out(_ANGLE_OP, (input,), out)
