"""Pointwise binary math: atan2, hypot, copysign, nextafter, xlogy, logaddexp(2), heaviside,
gcd, lcm, ldexp, float_power, and frexp (one input, two outputs). Arithmetic (add, pow ...)
lives in pointwise.py, unary math in pointwise_math.py.

Most of these have no Scalar overload in PyTorch: a Python number where a tensor belongs is a
TypeError there, while ember's pointwise dispatcher would accept it as a weak operand. Their
kernels refuse numbers with `_tensors_only` (a number arrives as a NumPy scalar, not an array).
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type
from ember._core.dispatch import call, call_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import (
    INT_TO_FLOAT,
    OPS,
    kernel_entry,
    register_form,
    register_frontend,
    register_op,
)
from ember._core.return_types import return_type
from ember._ops.grad_utils import by_kind, conj, pow_name, where, zeros_grad
from ember._ops.pointwise import not_implemented_for, pow_exponent_grad, pow_self_grad

_ndarray = np.ndarray
_BINARY = {"kind": "pointwise", "inplace": True}
_FLOAT_BINARY = {"kind": "pointwise", "inplace": True, "promotion": INT_TO_FLOAT}


def _tensors_only(name, self, other, other_name="other"):
    for position, (arg_name, value) in enumerate((("input", self), (other_name, other))):
        if type(value) is not _ndarray and not hasattr(value, "__cuda_array_interface__"):
            raise TypeError(f"{name}(): argument '{arg_name}' (position {position + 1}) must be "
                            f"Tensor, not {type(value).__name__}")


def _floating_only(kernel_name, array, complex_ok=False):
    """PyTorch has no integer (or complex) kernel for these ops."""
    kind = array.dtype.kind
    if kind in "biu" or (kind == "c" and not complex_ok):
        not_implemented_for(kernel_name, array)


# --------------------------------------------------------------------------- derivatives
# Written in PyTorch's arrangement so that special values (0, inf, NaN) give the same inf/NaN.

_LN2 = math.log(2.0)


def _real_for(grad, like):
    """A complex gradient for a real input keeps its real part (as PyTorch does)."""
    if grad._dtype.is_complex and not (isinstance(like, dispatch.Tensor)
                                       and like._dtype.is_complex):
        return grad.real
    return grad


def _atan2_scale(c):
    # 1 / (x**2 + y**2), taken as 0 where the sum is 0 (or underflows to it): the gradient
    # at the origin is 0, as PyTorch gives.
    square = c.self * c.self + c.other * c.other
    zero = square == 0
    return where(zero, 0.0, where(zero, 1.0, square).reciprocal())


def _copysign_grad(c):
    # |x| with a sign chosen by `other`: d/dx is result / x, taken as 0 at x == 0.
    zero = c.self == 0
    return c.grad * where(zero, 0.0, c.result / where(zero, 1.0, c.self))


def _ldexp_self_grad(c):
    # 2 ** other in other's own dtype, as PyTorch forms it: for an integer `other` its negative
    # powers are 0 there (integer power), and so is this gradient.
    return c.grad * conj(2 ** c.other)


def _ldexp_other_grad(c):
    return _real_for(c.grad * conj(c.self * c.other.exp2() * _LN2), c.other)


@register_op("atan2(Tensor self, Tensor other) -> Tensor", **_FLOAT_BINARY,
             derivatives={"self": lambda c: c.grad * c.other * _atan2_scale(c),
                          "other": lambda c: c.grad * -c.self * _atan2_scale(c)},
             aliases=("arctan2",))
def atan2(xp, self, other):
    """atan2(input, other, *, out=None) -> Tensor: the angle of the point (other, input)."""
    _tensors_only("atan2", self, other)
    _floating_only("atan2_cpu", self)
    return xp.arctan2(self, other)


@register_op("hypot(Tensor self, Tensor other) -> Tensor", **_BINARY,
             derivatives={"self": lambda c: c.grad * c.self / c.result,
                          "other": lambda c: c.grad * c.other / c.result},
             saves=("self", "other", "result"))
def hypot(xp, self, other):
    """hypot(input, other, *, out=None) -> Tensor: sqrt(input**2 + other**2) without overflow."""
    _tensors_only("hypot", self, other)
    _floating_only("hypot_cpu", self)
    return xp.hypot(self, other)


@register_op("copysign.Tensor(Tensor self, Tensor other) -> Tensor", **_FLOAT_BINARY,
             derivatives={"self": _copysign_grad, "other": zeros_grad},
             saves=("self", "result"),
             node_name=by_kind(1, "CopysignBackward0", "CopysignBackward1"),
             tags=("wide_unsigned",))
def copysign(xp, self, other):
    """copysign(input, other, *, out=None) -> Tensor: |input| with the sign of `other`.

    `other` may be a Python number.
    """
    _floating_only("copysign_cpu", self)
    return xp.copysign(self, other)


# compute_in_float=False: the next representable number depends on the dtype itself.
# As in PyTorch, the gradient in `self` is that of the identity (the step is below rounding),
# but 0 where self == other: the result is then `other`, which gets none either.
@register_op("nextafter(Tensor self, Tensor other) -> Tensor", **_BINARY,
             compute_in_float=False,
             derivatives={"self": lambda c: where(c.self == c.other, 0.0, c.grad),
                          "other": zeros_grad})
def nextafter(xp, self, other):
    """nextafter(input, other, *, out=None) -> Tensor: the next float after input toward other."""
    _tensors_only("nextafter", self, other)
    _floating_only("nextafter_cpu", self)
    return xp.nextafter(self, other)


def _log_of(value):
    if isinstance(value, dispatch.Tensor):
        return value.log()
    return math.log(value) if value > 0 else (-math.inf if value == 0 else math.nan)


def _xlogy_self_grad(c):
    # log(other); where self is 0 and other <= 0 (log -inf or NaN, while xlogy is 0 for
    # every self == 0 there) the gradient is taken as 0, as PyTorch does.
    other = c.other
    grad = c.grad * _log_of(other)
    if isinstance(other, dispatch.Tensor):
        return where((c.self == 0) & (other <= 0), 0.0, grad)
    return where(c.self == 0, 0.0, grad) if other <= 0 else grad


def _xlogy_name(args, outputs):
    """xlogy's overloads: both tensors 0, number self 1, number other 2."""
    if not isinstance(args[0], dispatch.Tensor):
        return "XlogyBackward1"
    return "XlogyBackward0" if isinstance(args[1], dispatch.Tensor) else "XlogyBackward2"


@register_op("xlogy.Tensor(Tensor self, Tensor other) -> Tensor", **_FLOAT_BINARY,
             derivatives={"self": _xlogy_self_grad,
                          "other": lambda c: c.grad * c.self / c.other},
             node_name=_xlogy_name)
def xlogy(xp, self, other):
    """xlogy(input, other, *, out=None) -> Tensor: input * log(other), 0 where input is 0
    (unless other is NaN). Either argument may be a Python number."""
    _floating_only("xlogy_cpu", self)
    product = self * xp.log(other)
    zero = xp.where(xp.isnan(other), other, product.dtype.type(0))
    return xp.where(self == 0, zero, product)


@register_op("logaddexp(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             derivatives={"self": lambda c: c.grad / conj(1 + (c.other - c.self).exp()),
                          "other": lambda c: c.grad / conj(1 + (c.self - c.other).exp())})
def logaddexp(xp, self, other):
    """logaddexp(input, other, *, out=None) -> Tensor: log(exp(input) + exp(other)), stably."""
    _tensors_only("logaddexp", self, other)
    _floating_only("logaddexp_cpu", self, complex_ok=True)
    if self.dtype.kind != "c":
        return xp.logaddexp(self, other)
    with np.errstate(all="ignore"):
        return complex_log_add_exp(xp, self, other)


def complex_log_add_exp(xp, a, b):
    """log(exp(a) + exp(b)) as PyTorch's complex logaddexp and logcumsumexp take it (one
    helper there): NaN in either part of either operand makes both parts NaN; two infinite
    real parts alike give the low operand (-inf) or log(exp(a) + exp(b)) (+inf); otherwise
    around the operand with the larger real part, whose imaginary part is kept as it is (not
    wrapped into (-pi, pi])."""
    a_larger = a.real >= b.real
    high, low = xp.where(a_larger, a, b), xp.where(a_larger, b, a)
    out = xp.log1p(xp.exp(low - high)) + high
    both_infinite = ~xp.isfinite(low.real) & (low.real == high.real)
    out = xp.where(both_infinite & (low.real < 0), low, out)
    out = xp.where(both_infinite & (low.real > 0), xp.log(xp.exp(low) + xp.exp(high)), out)
    nan = xp.isnan(a) | xp.isnan(b)
    return xp.where(nan, xp.asarray(complex(np.nan, np.nan), dtype=out.dtype), out)


@register_op("logaddexp2(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             derivatives={"self": lambda c: c.grad / (1 + (c.other - c.self).exp2()),
                          "other": lambda c: c.grad / (1 + (c.self - c.other).exp2())})
def logaddexp2(xp, self, other):
    """logaddexp2(input, other, *, out=None) -> Tensor: log2(2**input + 2**other), stably."""
    _tensors_only("logaddexp2", self, other)
    _floating_only("logaddexp2_cpu", self)
    return xp.logaddexp2(self, other)


# NOTE [gcd at the most negative integer]: PyTorch runs Euclid's loop in the dtype on the
# magnitudes, and the magnitude of a signed dtype's most negative value wraps to itself; the
# loop's C remainder keeps the dividend's sign, so gcd(-128, -6) in int8 is -2 there (NumPy's
# gcd says 2). Other inputs give the true gcd in both, so NumPy's gcd stands for them and only
# the elements that meet the most negative value run the loop. lcm is a / gcd * b and then its
# magnitude, in C's int for types narrower than int (so int8's products do not wrap before the
# magnitude is taken), else in the dtype, wrapping.


def _gcd_wrapping(xp, self, other):
    result = xp.gcd(self, other)
    if self.dtype.kind != "i":
        return result
    lowest = np.iinfo(self.dtype).min
    meets = (self == lowest) | (other == lowest)
    if not meets.any():
        return result
    result = xp.broadcast_to(result, meets.shape).copy()
    a = xp.abs(xp.broadcast_to(self, meets.shape)[meets])
    b = xp.abs(xp.broadcast_to(other, meets.shape)[meets])
    with np.errstate(all="ignore"):
        while (a != 0).any():
            nonzero = a != 0
            divisor = xp.where(nonzero, a, 1).astype(a.dtype)
            a, b = xp.where(nonzero, xp.fmod(b, divisor), 0).astype(a.dtype), \
                xp.where(nonzero, a, b)
    result[meets] = b
    return result


@register_op("gcd(Tensor self, Tensor other) -> Tensor", **_BINARY, differentiable=False)
def gcd(xp, self, other):
    """gcd(input, other, *, out=None) -> Tensor: greatest common divisor (non-negative)."""
    _tensors_only("gcd", self, other)
    if self.dtype.kind not in "iu":
        not_implemented_for("gcd_cpu", self)
    return _gcd_wrapping(xp, self, other)


@register_op("lcm(Tensor self, Tensor other) -> Tensor", **_BINARY, differentiable=False)
def lcm(xp, self, other):
    """lcm(input, other, *, out=None) -> Tensor: least common multiple (non-negative)."""
    _tensors_only("lcm", self, other)
    if self.dtype.kind not in "iu":
        not_implemented_for("lcm_cpu", self)
    divisor = _gcd_wrapping(xp, self, other)
    dtype = self.dtype
    work = np.dtype(np.int32) if dtype.itemsize < 4 else dtype   # (NOTE [gcd at the most ...])
    none = divisor == 0
    with np.errstate(all="ignore"):
        quotient = self.astype(work) // xp.where(none, 1, divisor).astype(work)
        product = xp.abs(quotient * other.astype(work))
    return xp.where(none, 0, product).astype(dtype, copy=False)


@kernel_entry("lcm", "CUDA")
def _lcm_cuda(xp, self, other):
    """lcm's CUDA entry (NOTE [the kernel table]): CuPy's lcm wraps an overflowing int8 product
    otherwise than NumPy's, so NumPy's formula |a| / gcd(a, b) * |b| in the dtype (wrapping),
    elementwise on the device."""
    _tensors_only("lcm", self, other)
    if self.dtype.kind not in "iu":
        not_implemented_for("lcm_cpu", self)
    divisor = xp.gcd(self, other)
    none = divisor == 0
    product = (xp.abs(self) // xp.where(none, 1, divisor).astype(divisor.dtype)) * xp.abs(other)
    return xp.where(none, 0, product).astype(product.dtype, copy=False)


# NOTE [ldexp's power]: PyTorch multiplies input by the power 2 ** other formed in other's
# own dtype where other is floating: a float16 / bfloat16 power rounds, and overflows, in that
# half type (ldexp of a float32 7.0 by a bfloat16 7.3 is 7 * 158.0, not 7 * 157.6; by a
# float16 20.0, 7 * inf); an integral exponent scales exactly (ldexp(1e-30, 200) is 1.6e30 in
# float32). The product is taken in the wider of input's and the power's dtypes (half types
# in float32) and rounded into the result dtype once. So the kernel sees the operands in their
# own dtypes (tag "own_operand_dtypes": the runner does not cast them to the result dtype).
@register_op("ldexp.Tensor(Tensor self, Tensor other) -> Tensor", **_FLOAT_BINARY,
             compute_in_float=False,
             derivatives={"self": _ldexp_self_grad, "other": _ldexp_other_grad},
             tags=("wide_unsigned", "own_operand_dtypes"))
def ldexp(xp, self, other):
    """ldexp(input, other, *, out=None) -> Tensor: input * 2 ** other."""
    _tensors_only("ldexp", self, other)
    integral = other.dtype.kind in "iub"
    if self.dtype.kind == "c" or other.dtype.kind == "c":
        common = _product_dtype(self.dtype, other.dtype)
        # PyTorch raises 2 to `other` in the complex dtype (2 ** inf is inf + nan j there, so
        # a complex input times it is NaN), then multiplies; NumPy's complex power agrees.
        return self.astype(common, copy=False) * xp.power(
            common.type(2), other.astype(common, copy=False))
    with np.errstate(over="ignore"):
        if integral:
            power = xp.exp2(other.astype(np.float64))
        else:
            power = xp.exp2(other.astype(_wide(other.dtype), copy=False)).astype(other.dtype)
    common = _product_dtype(self.dtype, power.dtype)
    return self.astype(common, copy=False) * power.astype(common, copy=False)


def _wide(dtype):
    """float32 for the half types (their arithmetic's dtype), else the dtype itself."""
    return np.dtype(np.float32) if dtype.itemsize == 2 and dtype.kind not in "iub" else dtype


def _product_dtype(first, second):
    """The dtype a product of a `first` and a `second` is computed in: the floating one's where
    the other is integral, else the wider (half types as float32)."""
    if first.kind in "iub":
        return _wide(second) if second.kind not in "iub" else _default_float[0]._np
    if second.kind in "iub":
        return _wide(first)
    return np.promote_types(_wide(first), _wide(second))


# --------------------------------------------------------------------------- heaviside

@register_op("heaviside(Tensor self, Tensor values) -> Tensor", kind="pointwise",
             function=False, method=False, tags=("out_without_autograd",))
def heaviside(xp, self, values):
    """heaviside(input, values, *, out=None) -> Tensor: 0 below zero, 1 above, `values` at 0."""
    _tensors_only("heaviside", self, values, "values")
    step = (self > 0).astype(self.dtype)
    return xp.where(self == 0, values, step)


_HEAVISIDE_OP = OPS["heaviside"]


def _check_heaviside(input, values):
    for position, (name, value) in enumerate((("input", input), ("values", values))):
        if not isinstance(value, dispatch.Tensor):
            raise TypeError(f"heaviside(): argument '{name}' (position {position + 1}) must be "
                            f"Tensor, not {type(value).__name__}")
    _check(not (input._dtype.is_complex or values._dtype.is_complex),
           "heaviside is not yet implemented for complex tensors.")
    _check(input._dtype is values._dtype,
           "heaviside is not yet implemented for tensors with different dtypes.")


def heaviside_function(input, values, *, out=None):
    """heaviside(input, values, *, out=None) -> Tensor: 0 where input < 0, 1 where input > 0
    and `values` where input == 0. Both tensors must have the same (real) dtype."""
    if _state.entry and _wants(locals()):
        return _handle(heaviside_function, locals())
    _check_heaviside(input, values)
    args = (input, values)
    return call(_HEAVISIDE_OP, args) if out is None else call_out(_HEAVISIDE_OP, args, out)


def heaviside_inplace(self, values):
    if _state.entry and _wants(locals()):
        return _handle(heaviside_inplace, locals())
    _check_heaviside(self, values)
    return dispatch.call_inplace(_HEAVISIDE_OP, (self, values))


register_frontend("heaviside", inplace=heaviside_inplace)(heaviside_function)


# --------------------------------------------------------------------------- float_power

@register_op("float_power.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
             kind="pointwise", function=False, method=False,
             # float_power is pow computed in double precision: pow's derivatives.
             derivatives={"self": pow_self_grad, "exponent": pow_exponent_grad},
             saves=("self", "exponent", "result"),
             node_name=pow_name)
def float_power(xp, self, exponent):
    """float_power in float64 (complex128): the frontend has widened the operands."""
    return xp.power(self, exponent)


_FLOAT_POWER_OP = OPS["float_power.Tensor_Tensor"]


def _is_complex_operand(value):
    if isinstance(value, dispatch.Tensor):
        return value._dtype.is_complex
    return isinstance(value, (complex, np.complexfloating))


def _float_power_args(input, exponent):
    _check_type(isinstance(input, dispatch.Tensor) or isinstance(exponent, dispatch.Tensor),
                lambda: f"float_power(): expected a Tensor argument, got "
                        f"{type(input).__name__} and {type(exponent).__name__}")
    for name, value in (("input", input), ("exponent", exponent)):
        if not isinstance(value, (dispatch.Tensor, int, float, complex, np.number)):
            raise TypeError(f"float_power(): argument '{name}' must be Tensor or Number, not "
                            f"{type(value).__name__}")
    wide = dt.complex128 if _is_complex_operand(input) or _is_complex_operand(exponent) \
        else dt.float64
    args = tuple(v.to(wide) if isinstance(v, dispatch.Tensor) else v
                 for v in (input, exponent))
    return wide, args


def float_power_function(input, exponent, *, out=None):
    """float_power(input, exponent, *, out=None) -> Tensor: input ** exponent computed in
    float64 (complex128 when either operand is complex). Either may be a Python number."""
    if _state.entry and _wants(locals()):
        return _handle(float_power_function, locals())
    _, args = _float_power_args(input, exponent)
    return call(_FLOAT_POWER_OP, args) if out is None else call_out(_FLOAT_POWER_OP, args, out)


def float_power_inplace(self, exponent):
    if _state.entry and _wants(locals()):
        return _handle(float_power_inplace, locals())
    wide, args = _float_power_args(self, exponent)
    _check(self._dtype is wide, lambda: (
        f"the base given to float_power_ has dtype {self._dtype._cpp_name} but the operation's "
        f"result requires dtype {wide._cpp_name}"))
    return dispatch.call_inplace(_FLOAT_POWER_OP, (self, args[1]))


register_frontend("float_power", inplace=float_power_inplace)(float_power_function)


# --------------------------------------------------------------------------- frexp

frexp_result = return_type("frexp", ["mantissa", "exponent"])


def _frexp_meta(self):
    _check_frexp_dtype(self._dtype)
    return [(self.shape, self._dtype), (self.shape, dt.int32)]


def _check_frexp_dtype(dtype):
    _check(dtype.is_floating_point, "torch.frexp() only supports floating-point dtypes")


def _frexp_grad(c):
    # mantissa = x * 2 ** -exponent, with the exponent piecewise constant.
    grad = c.grad
    return grad / c.results[1].to(grad.dtype).exp2()


@register_op("frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)",
             kind="generic", meta=_frexp_meta, function=False, method=False,
             derivatives={"self": _frexp_grad}, saves=("result",),
             tags=("fp_errors", "output_saved_by_ember_only"))
def frexp(xp, self):
    """frexp as (mantissa, exponent): the frontend wraps the pair in a named tuple."""
    _check_frexp_dtype(dt.NP_TO_DTYPE[np.dtype(self.dtype)])
    if self.dtype.kind != "f":
        # bfloat16 has no frexp loop; its mantissas are exact in float32.
        mantissa, exponent = xp.frexp(self.astype(np.float32))
        return mantissa.astype(self.dtype), exponent.astype(np.int32)
    mantissa, exponent = xp.frexp(self)
    return mantissa, exponent.astype(np.int32)


@kernel_entry("frexp.Tensor", "CUDA")
def _frexp_cuda(xp, self):
    """frexp's CUDA entry (NOTE [the kernel table]): in float64, where float32's subnormals are
    normal numbers (a device's float32 frexp may flush them), and the mantissas exact in float32
    again; CUDA leaves the exponent of inf and NaN unspecified, NumPy's is 0."""
    if self.dtype.kind != "f":
        return frexp(xp, self)
    mantissa, exponent = xp.frexp(self.astype(np.float64))
    exponent = xp.where(xp.isfinite(self), exponent, 0)
    return mantissa.astype(self.dtype), exponent.astype(np.int32)


_FREXP_OP = OPS["frexp.Tensor"]


@register_frontend("frexp")
def frexp_function(input, *, out=None):
    """frexp(input, *, out=None) -> (Tensor mantissa, Tensor exponent): input = mantissa *
    2 ** exponent with 0.5 <= |mantissa| < 1 (both 0 at 0); exponent is int32."""
    if _state.entry and _wants(locals()):
        return _handle(frexp_function, locals())
    _check_type(isinstance(input, dispatch.Tensor), lambda: (
        f"frexp(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"))
    if out is None:
        return frexp_result(*call(_FREXP_OP, (input,)))
    _check_type(isinstance(out, (tuple, list)) and len(out) == 2, lambda: (
        "frexp(): argument 'out' must be tuple of Tensors (mantissa, exponent)"))
    return frexp_result(*call_out(_FREXP_OP, (input,), out))


# PyTorch's Scalar overloads, offered to modes for a number operand (NOTE [overload forms]).
register_form("xlogy.Tensor", "xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor",
              numbers=(1,))
register_form("xlogy.Tensor", "xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor",
              numbers=(0,))
register_form("copysign.Tensor", "copysign.Scalar(Tensor self, Scalar other) -> Tensor",
              numbers=(1,), saves=("self", "result"))
