"""Pointwise arithmetic: add, sub, mul, div, floor_divide, remainder, fmod, pow, neg, abs, ...
and their dunders. Comparison, logical and bitwise ops live in pointwise_logic.py; where, clamp,
lerp and addc* in pointwise_ternary.py; the unary math family in pointwise_math.py.

Each entry is a kernel `f(xp, *args)` over raw arrays. For kind="pointwise" the dispatcher has
already applied type promotion: tensor arguments arrive as arrays of the compute dtype and
Python scalars as NumPy scalars of it; the kernel's result is cast to the result dtype.

A few ops must see their operands' dtypes *before* promotion (sub rejects any bool operand,
even one promoted away); those get a hand-written frontend that checks and then dispatches.
"""
from __future__ import annotations

import cmath
import math

import numpy as np

from ember._core import arguments, dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type, _warn_once
from ember._core.dispatch import UnsupportedOperand, call, call_inplace, call_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.pointwise import one_ufunc
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import (
    BOOL_TO_LONG,
    COMPLEX_TO_FLOAT,
    INT_TO_FLOAT,
    OPS,
    register_form,
    register_frontend,
    register_op,
)
from ember._core.scalars import checked_scalar, scalar_into  # noqa: F401  (re-exported)
from ember._ops.grad_utils import by_kind, conj, identity, negated, pow_name, where, zeros_grad

_BINARY = {"kind": "pointwise", "inplace": True}
_BOOL = dt.bool_


def not_implemented_for(kernel_name: str, array) -> None:
    """Raise PyTorch's error for a dtype a kernel has no implementation for."""
    name = dt.NP_TO_DTYPE[np.dtype(array.dtype)]._cpp_name
    raise NotImplementedError(f'"{kernel_name}" not implemented for \'{name}\'')


def check_divisor(divisor) -> None:
    """Integer division by zero is an error in PyTorch (floats give inf/nan instead)."""
    if divisor.dtype.kind in "iu":
        _check(not (divisor == 0).any(), "ZeroDivisionError")


# --------------------------------------------------------------------------- add / sub / mul

def _scaled(other, alpha, like):
    """alpha * other with PyTorch's checks on alpha against the result dtype `like`.

    NOTE [complex alpha multiplies]: PyTorch computes add and sub as self + alpha * other with
    a complex product even when alpha is 1, so a NaN or infinity in one part of `other` reaches
    both parts of the result ((1+0j) * (nan+1j) is nan+nanj). Complex operands always take it.
    """
    kind = like.dtype.kind
    if isinstance(alpha, (bool, np.bool_)):
        _check(kind == "b", "Boolean alpha only supported for Boolean results.")
    elif kind in "biu":
        _check(not isinstance(alpha, (float, complex, np.inexact)), (
            "For integral input tensors, argument alpha must not be a floating point number."))
    if kind != "c":
        _check(not isinstance(alpha, (complex, np.complexfloating)), (
            "For non-complex input tensors, argument alpha must not be a complex number."))
    return other * checked_scalar(alpha, like.dtype)


_COMPLEX = frozenset(np.dtype(name) for name in ("complex64", "complex128"))


def _scales(alpha, like) -> bool:
    """Whether alpha * other is formed: not for an alpha of 1 (a float 1.0 beside floating
    operands too, as half operands' rounded alpha is, so the operand keeps its layout), except
    for complex operands (NOTE [complex alpha multiplies])."""
    kind = like.dtype.kind
    if type(alpha) is int and alpha == 1 or type(alpha) is float and alpha == 1.0 and \
            kind == "f":
        return kind == "c"
    return True


def _times_alpha(grad, c):
    """grad * conj(alpha), with no product for alpha 1 (a mode sees none, as in PyTorch)."""
    return grad if c.alpha == 1 else grad * conj(c.alpha)


@register_op("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", **_BINARY,
             derivatives={"self": identity, "other": lambda c: _times_alpha(c.grad, c)}, saves=(),
             dunders={"__add__": "forward", "__radd__": "reflect", "__iadd__": "inplace"},
             deprecated_forms=("self, alpha, other",),    # NOTE [deprecated argument orders]
             tags=("rounded_alpha",))
def add(xp, self, other, alpha=1):
    """add(input, other, *, alpha=1, out=None) -> Tensor: input + alpha * other."""
    if type(alpha) is not int or alpha != 1:
        if _scales(alpha, self):
            other = _scaled(other, alpha, self)
    elif self.dtype in _COMPLEX:     # NOTE [complex alpha multiplies]
        other = _scaled(other, alpha, self)
    return xp.add(self, other)


one_ufunc(add, np.add)          # NOTE [kernels that are one ufunc] (dispatch/pointwise.py)


_SUB_TWO_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use "
                  "the `^` or `logical_xor()` operator instead.")
_SUB_ONE_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                 "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


@register_op("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
             kind="pointwise", function=False, method=False, saves=(),
             derivatives={"self": identity, "other": lambda c: _times_alpha(-c.grad, c)},
             tags=("rounded_alpha",))
def sub(xp, self, other, alpha=1):
    """sub(input, other, *, alpha=1, out=None) -> Tensor: input - alpha * other."""
    # The frontend has rejected bool operands; this catches direct calls of the overload.
    _check(self.dtype.kind != "b", _SUB_TWO_BOOLS)
    if type(alpha) is not int or alpha != 1:
        if _scales(alpha, self):
            other = _scaled(other, alpha, self)
    elif self.dtype in _COMPLEX:     # NOTE [complex alpha multiplies]
        other = _scaled(other, alpha, self)
    return xp.subtract(self, other)


one_ufunc(sub, np.subtract)


@register_op("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
             kind="pointwise", function=False, method=False, out=False, saves=(),
             derivatives={"self": lambda c: _times_alpha(-c.grad, c), "other": identity},
             node_name=by_kind(1, "RsubBackward0", "RsubBackward1"),
             tags=("rounded_alpha",))
def rsub(xp, self, other, alpha=1):
    """rsub(input, other, *, alpha=1) -> Tensor: other - alpha * input."""
    _check(self.dtype.kind != "b", _SUB_TWO_BOOLS)
    if type(alpha) is not int or alpha != 1:
        if _scales(alpha, self):
            self = _scaled(self, alpha, self)
    elif self.dtype in _COMPLEX:     # NOTE [complex alpha multiplies]
        self = _scaled(self, alpha, self)
    return xp.subtract(other, self)


_BOOL_NUMBERS = frozenset((bool, np.bool_))


def _check_sub(a, b):
    """PyTorch refuses subtraction with any bool operand, even one a promotion would widen."""
    if (getattr(a, "_dtype", None) is _BOOL or getattr(b, "_dtype", None) is _BOOL
            or type(a) in _BOOL_NUMBERS or type(b) in _BOOL_NUMBERS):
        _refuse_bool_sub(a, b)


def _refuse_bool_sub(a, b):
    a_bool = getattr(a, "_dtype", None) is _BOOL or type(a) in _BOOL_NUMBERS
    b_bool = getattr(b, "_dtype", None) is _BOOL or type(b) in _BOOL_NUMBERS
    _check(not (a_bool and b_bool), _SUB_TWO_BOOLS)
    other = b if a_bool else a
    # An operand of the wrong kind altogether is a TypeError, raised by the dispatcher.
    if isinstance(other, (dispatch.Tensor, int, float, complex, np.generic)):
        _check(False, _SUB_ONE_BOOL)


_SUB_OP = OPS["sub.Tensor"]
_RSUB_OP = OPS["rsub.Tensor"]


def _old_sub_order(name, other, more, alpha, method):
    """(alpha, other) of a call in the old order sub(input, Number alpha, other), which
    PyTorch's parser still accepts (with a warning), `other` a tensor or a number
    (NOTE [deprecated argument orders])."""
    _check_type(len(more) == 1 and type(alpha) is int and alpha == 1 and (
        isinstance(other, (int, float, complex, np.number)) or
        isinstance(other, dispatch.Tensor) and other.ndim == 0 and not other.requires_grad)
        and isinstance(more[0], (dispatch.Tensor, int, float, complex, np.number)), lambda: (
        f"{name}() received an invalid combination of arguments - got "
        f"{len(more) + 2 - method} positional arguments, but expected (Tensor other, *, "
        "Number alpha = 1) or (Number alpha, Tensor other)"))
    shown = "" if method else "Tensor input, "
    _warn_once(f"deprecated form {name} alpha, other", lambda: (
        f"This overload of {name} is deprecated:\n\t{name}({shown}Number alpha, Tensor other)\n"
        f"Consider using one of the following signatures instead:\n\t{name}({shown}"
        "Tensor other, *, Number alpha = 1)"))
    return other, more[0]


def sub_function(input, other, *more, alpha=1, out=None):
    """sub(input, other, *, alpha=1, out=None) -> Tensor: input - alpha * other."""
    if _state.entry and _wants(locals()):
        return _handle(sub_function, locals())
    if more:
        alpha, other = _old_sub_order("sub", other, more, alpha, False)
    _check_sub(input, other)
    if out is None:
        return call(_SUB_OP, (input, other, alpha))
    return call_out(_SUB_OP, (input, other, alpha), out)


def sub_inplace(self, other, *more, alpha=1):
    if _state.entry and _wants(locals()):
        return _handle(sub_inplace, locals())
    if more:
        alpha, other = _old_sub_order("sub_", other, more, alpha, True)
    _check_sub(self, other)
    return call_inplace(_SUB_OP, (self, other, alpha))


def _sub_dunder(self, other):
    if _state.entry and _wants(locals()):
        return _handle(_sub_dunder, locals())
    if self._dtype is _BOOL or type(other) in _BOOL_NUMBERS or \
            getattr(other, "_dtype", None) is _BOOL:
        _refuse_bool_sub(self, other)
    try:
        return call(_SUB_OP, (self, other, 1))
    except UnsupportedOperand:
        return NotImplemented


def _rsub_dunder(self, other):
    if _state.entry and _wants(locals()):
        return _handle(_rsub_dunder, locals())
    if self._dtype is _BOOL or type(other) in _BOOL_NUMBERS:
        _refuse_bool_sub(other, self)
    try:
        return call(_RSUB_OP, (self, other, 1))
    except UnsupportedOperand:
        return NotImplemented


def _isub_dunder(self, other):
    if _state.entry and _wants(locals()):
        return _handle(_isub_dunder, locals())
    _check_sub(self, other)
    try:
        return call_inplace(_SUB_OP, (self, other, 1))
    except UnsupportedOperand:
        return NotImplemented


_SUB_DUNDERS = {"__sub__": _sub_dunder, "__rsub__": _rsub_dunder, "__isub__": _isub_dunder}
register_frontend("sub", inplace=sub_inplace, dunders=_SUB_DUNDERS)(sub_function)
register_frontend("subtract", inplace=sub_inplace)(sub_function)


@register_frontend("rsub", method=False)
def rsub_function(input, other, *more, alpha=1):
    """rsub(input, other, *, alpha=1) -> Tensor: other - alpha * input."""
    if _state.entry and _wants(locals()):
        return _handle(rsub_function, locals())
    if more:
        # PyTorch's Scalar overload rsub(input, Number other, Number alpha) takes alpha by
        # position; a 0-d tensor that needs no grad is a Number there.
        _check_type(len(more) == 1 and alpha == 1 and (
            isinstance(other, _NUMBER_TYPES) or isinstance(other, dispatch.Tensor) and
            other.ndim == 0 and not other.requires_grad), lambda: (
            "rsub() received an invalid combination of arguments - got "
            f"{len(more) + 2} positional arguments, but expected (Tensor input, Tensor other, *, "
            "Number alpha = 1) or (Tensor input, Number other, Number alpha = 1)"))
        alpha = more[0]
    if not isinstance(input, dispatch.Tensor):         # (its parser's error comes first)
        arguments.parser_error(_RSUB_OP, (input, other, alpha), "rsub")
    _check_sub(input, other)
    return call(_RSUB_OP, (input, other, alpha))


@register_op("mul.Tensor(Tensor self, Tensor other) -> Tensor", **_BINARY,
             derivatives={"self": lambda c: c.grad * conj(c.other),
                          "other": lambda c: c.grad * conj(c.self)},
             dunders={"__mul__": "forward", "__rmul__": "reflect", "__imul__": "inplace"},
             aliases=("multiply",),
             tags=("wide_unsigned", "unrounded_scalar_other", "unrounded_numbers"))
def mul(xp, self, other):
    """mul(input, other, *, out=None) -> Tensor: elementwise product (logical and for bool)."""
    return xp.multiply(self, other)


one_ufunc(mul, np.multiply)     # NOTE [kernels that are one ufunc] (dispatch/pointwise.py)


# --------------------------------------------------------------------------- division

@register_op("div.Tensor(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             promotion=INT_TO_FLOAT, function=False, method=False,
             derivatives={"self": lambda c: c.grad / conj(c.other),
                          "other": lambda c: -c.grad * conj(c.result / c.other)},
             saves=("other", "result"),
             dunders={"__truediv__": "forward", "__itruediv__": "inplace"},
             tags=("unrounded_scalar_other", "unrounded_numbers", "output_saved_by_ember_only"))
def div(xp, self, other):
    """div(input, other, *, rounding_mode=None, out=None) -> Tensor: true division."""
    return xp.true_divide(self, other)


one_ufunc(div, np.true_divide)


@register_op("div.Scalar(Tensor self, Scalar other) -> Tensor", kind="pointwise",
             promotion=INT_TO_FLOAT, function=False, method=False,
             derivatives={"self": lambda c: div_by_number(c.grad, conj(c.other))}, saves=(),
             tags=("unrounded_scalar_other", "unrounded_numbers"))
def div_scalar(xp, self, other):
    """A tensor divided by a number: the overload derivative formulas call (`x / 2.0` from
    Python is div.Tensor, as in PyTorch)."""
    return xp.true_divide(self, other)


@register_op("mul.Scalar(Tensor self, Scalar other) -> Tensor", kind="pointwise",
             function=False, method=False,
             derivatives={"self": lambda c: mul_by_number(c.grad, conj(c.other))}, saves=(),
             tags=("wide_unsigned", "unrounded_scalar_other", "unrounded_numbers"))
def mul_scalar(xp, self, other):
    """A tensor times a number: the overload derivative formulas call (`x * 2` from Python is
    mul.Tensor, as in PyTorch)."""
    return xp.multiply(self, other)


def mul_by_number(t, number):
    """t * number through mul.Scalar (what PyTorch's formulas' `n * grad` is)."""
    return dispatch.call(OPS["mul.Scalar"], (t, number))


# The number operand of mul.Scalar and div.Scalar takes part in type promotion as a wrapped
# number, as it does in the Tensor overloads: the runners read operands at these positions.
for _name in ("mul.Scalar", "div.Scalar"):
    OPS[_name].tensor_positions = (0, 1)


def div_by_number(t, number):
    """t / number through div.Scalar (what PyTorch's formulas' `grad / n` is)."""
    return dispatch.call(OPS["div.Scalar"], (t, number))


def floor_div(xp, a, b):
    """Division rounded toward -inf (Python's `//`)."""
    if a.dtype.kind in "bc":
        not_implemented_for("div_floor_cpu", a)
    check_divisor(b)
    return xp.floor_divide(a, b)


def trunc_div(xp, a, b):
    """Division rounded toward zero (C's `/` on integers)."""
    kind = a.dtype.kind
    if kind in "bc":
        not_implemented_for("div_trunc_cpu", a)
    if kind in "iu":
        check_divisor(b)
        quotient = xp.floor_divide(a, b)
        # Floor and trunc differ by one where the division is inexact and the signs differ.
        return quotient + ((quotient * b != a) & ((a < 0) != (b < 0)))
    return xp.trunc(xp.true_divide(a, b))


def _check_rounding_mode(rounding_mode):
    if rounding_mode is not None and type(rounding_mode) is not str:
        arguments.refuse(("div", "rounding_mode", None), "str", rounding_mode)
    _check(rounding_mode in (None, "trunc", "floor"), lambda: (
        "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"'{rounding_mode}'"))


@register_op("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
             kind="pointwise", function=False, method=False, saves=(),
             derivatives={"self": zeros_grad, "other": zeros_grad},
             node_name="DivBackward2",
             tags=("wide_unsigned", "unrounded_scalar_other", "unrounded_numbers"))
def div_mode(xp, self, other, rounding_mode):
    """div with rounding_mode 'trunc' or 'floor': integer inputs keep their dtype."""
    if rounding_mode == "floor":
        return floor_div(xp, self, other)
    if rounding_mode == "trunc":
        return trunc_div(xp, self, other)
    _check_rounding_mode(rounding_mode)
    # None reaches here only through a direct call of the overload (the frontend routes it to
    # div.Tensor, which promotes integers to float).
    return xp.true_divide(self, other)


_DIV_OP = OPS["div.Tensor"]
_DIV_MODE_OP = OPS["div.Tensor_mode"]


_NUMBER_TYPES = (int, float, complex, np.generic)


def _div_call(input, other, rounding_mode):
    if rounding_mode is None:
        return _DIV_OP, (input, other)
    if not (isinstance(input, (dispatch.Tensor, *_NUMBER_TYPES)) and
            isinstance(other, (dispatch.Tensor, *_NUMBER_TYPES))):
        # (the parser's error comes before the mode's)
        arguments.parser_error(_DIV_MODE_OP, (input, other, rounding_mode), "div")
    if type(rounding_mode) is bytes:       # (PyTorch's parser reads bytes as a str)
        rounding_mode = rounding_mode.decode("utf-8", "replace")
    _check_rounding_mode(rounding_mode)
    return _DIV_MODE_OP, (input, other, rounding_mode)


def div_function(input, other, *, rounding_mode=None, out=None):
    """div(input, other, *, rounding_mode=None, out=None) -> Tensor.

    rounding_mode None: true division (integers give the default float dtype); 'trunc' rounds
    toward zero and 'floor' toward -inf, both keeping integer dtypes.
    """
    if _state.entry and _wants(locals()):
        return _handle(div_function, locals())
    op, args = _div_call(input, other, rounding_mode)
    return call(op, args) if out is None else call_out(op, args, out)


def div_inplace(self, other, *, rounding_mode=None):
    if _state.entry and _wants(locals()):
        return _handle(div_inplace, locals())
    op, args = _div_call(self, other, rounding_mode)
    return call_inplace(op, args)


# NOTE [number / tensor is reciprocal times number]: PyTorch's `number / x` is
# `x.reciprocal() * number`, not a division: the reciprocal is rounded to x's dtype (to half for
# a half x) before the product is, so its last bit can differ from `div(number, x)`'s, and its
# graph is MulBackward0 over ReciprocalBackward0. `div(number, x)` itself divides.
def _reflected_div(self, other):
    """`other / self` for an `other` that is not a tensor."""
    if _state.entry and _wants(locals()):
        return _handle(_reflected_div, locals())
    return dispatch.Tensor.__mul__(self.reciprocal(), other)


# (__rdiv__ first: the first name is the one __torch_function__ is shown, as in PyTorch)
register_frontend("div", inplace=div_inplace,
                  dunders={"__rdiv__": _reflected_div,
                           "__rtruediv__": _reflected_div})(div_function)
register_frontend("divide", inplace=div_inplace)(div_function)


def true_divide(input, other, *, out=None):
    """true_divide(input, other, *, out=None) -> Tensor: div without rounding."""
    if _state.entry and _wants(locals()):
        return _handle(true_divide, locals())
    args = (input, other)
    return call(_DIV_OP, args) if out is None else call_out(_DIV_OP, args, out)


def true_divide_inplace(self, other):
    """In-place form of `Tensor.true_divide`: divides `self` by `other` (true division) and
    returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(true_divide_inplace, locals())
    return call_inplace(_DIV_OP, (self, other))


register_frontend("true_divide", inplace=true_divide_inplace)(true_divide)


def _no_derivative(name):
    """A formula for a gradient PyTorch has no formula for: backward through it raises."""
    def formula(ctx):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return formula


# PyTorch records floor_divide but has no derivative for it (div(rounding_mode='floor') has
# zeros): a backward through it fails there too.
@register_op("floor_divide(Tensor self, Tensor other) -> Tensor", **_BINARY,
             derivatives={"self": _no_derivative("floor_divide"),
                          "other": _no_derivative("floor_divide")}, saves=(),
             dunders={"__floordiv__": "forward", "__rfloordiv__": "reflect",
                      "__ifloordiv__": "inplace"},
             tags=("unrounded_scalar_other", "unrounded_numbers", "out_without_autograd"))
def floor_divide(xp, self, other):
    """floor_divide(input, other, *, out=None) -> Tensor: division rounded toward -inf."""
    return floor_div(xp, self, other)


def _remainder_other_grad(c):
    # PyTorch's remainder(number, tensor) overload has no derivative.
    if not isinstance(c.self, dispatch.Tensor):
        return _no_derivative("remainder")(c)
    return -c.grad * c.self.div(c.other, rounding_mode="floor")


@register_op("remainder.Tensor(Tensor self, Tensor other) -> Tensor", **_BINARY,
             derivatives={"self": identity, "other": _remainder_other_grad},
             dunders={"__mod__": "forward", "__rmod__": "reflect", "__imod__": "inplace"})
def remainder(xp, self, other):
    """remainder(input, other, *, out=None) -> Tensor: modulus with the sign of the divisor."""
    if self.dtype.kind in "bc":
        not_implemented_for("remainder_cpu", self)
    check_divisor(other)
    result = xp.remainder(self, other)
    if result.dtype.kind == "f":
        # NOTE [remainder's zero takes the dividend's sign]: PyTorch's remainder is fmod
        # adjusted toward the divisor's sign, and a zero fmod is left as is (-4 % 2 is -0.0);
        # NumPy gives a zero the divisor's sign.
        zero = result == 0
        if zero.any():
            result = xp.where(zero, xp.copysign(result, self), result)
    return result


@register_op("fmod.Tensor(Tensor self, Tensor other) -> Tensor", **_BINARY,
             derivatives={"self": identity,
                          "other": lambda c: -c.grad * c.self.div(c.other, rounding_mode="trunc")})
def fmod(xp, self, other):
    """fmod(input, other, *, out=None) -> Tensor: C's fmod, with the sign of the dividend."""
    if self.dtype.kind in "bc":
        not_implemented_for("fmod_cpu", self)
    check_divisor(other)
    return xp.fmod(self, other)


# --------------------------------------------------------------------------- pow

def pow_self_grad(c):
    exponent = c.exponent
    if not isinstance(exponent, dispatch.Tensor) and exponent == 0:
        return zeros_grad(c)
    # NOTE: where exponent is 0 the derivative is 0 even at self == 0 (no 0 * inf).
    if isinstance(exponent, dispatch.Tensor):
        grad = c.grad * conj(exponent * c.self ** (exponent - 1))
        return where(exponent == 0, 0.0, grad)
    return c.grad * conj(mul_by_number(c.self ** (exponent - 1), exponent))


def _nonnegative(exponent):
    """exponent >= 0; for a complex exponent, real and >= 0."""
    if exponent._dtype.is_complex:
        return (exponent.imag == 0) & (exponent.real >= 0)
    return exponent >= 0


def pow_exponent_grad(c):
    # d/dy x**y = x**y * log(x), taken as 0 where x == 0 and y >= 0 (PyTorch's convention;
    # for y < 0 it is inf * log(0) = -inf). Only reached when the exponent is a tensor.
    self, result = c.self, c.result
    if isinstance(self, dispatch.Tensor):
        # A real base of a complex power takes the complex logarithm (log(-2) is not NaN).
        if result._dtype.is_complex and not self._dtype.is_complex:
            self = self.to(result._dtype)
        grad = c.grad * conj(result * self.log())
        return where((self == 0) & _nonnegative(c.exponent), 0.0, grad)
    if self == 0:
        grad = c.grad * conj(result * -math.inf)
        return where(_nonnegative(c.exponent), 0.0, grad)
    if isinstance(self, complex) or result._dtype.is_complex:
        log_self = cmath.log(self)
    else:
        log_self = math.log(self) if self > 0 else math.nan
    return c.grad * conj(result * log_self)


@register_op("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", **_BINARY,
             derivatives={"self": pow_self_grad, "exponent": pow_exponent_grad},
             saves=("self", "exponent", "result"),
             dunders={"__pow__": "forward", "__rpow__": "reflect", "__ipow__": "inplace"},
             node_name=pow_name, tags=("range_checked_half_other",))
def pow(xp, self, exponent):
    """pow(input, exponent, *, out=None) -> Tensor: input ** exponent.

    Either argument may be a Python number (a weak operand in type promotion).
    """
    kind = self.dtype.kind
    if kind in "iu":
        return _integer_pow(xp, self, exponent)
    if kind == "b":
        if not isinstance(exponent, xp.ndarray) and isinstance(self, xp.ndarray):
            # A number exponent of 1 copies, of 0 gives ones: bool ** True is the input and
            # bool ** False is all True. Any other bool pow has no kernel.
            return xp.logical_or(self, not exponent)
        not_implemented_for("pow", self)
    return xp.power(self, exponent)


def _integer_pow(xp, base, exponent):
    if not isinstance(exponent, xp.ndarray):
        # A number exponent: PyTorch refuses negative ones outright.
        _check(exponent >= 0, "Integers to negative integer powers are not allowed.")
        return xp.power(base, exponent)
    if exponent.dtype.kind == "u" or not (exponent < 0).any():
        return xp.power(base, exponent)
    # A tensor exponent with negative entries: 1 ** -n is 1, (-1) ** -n is +-1 by parity, and
    # every other base gives 0 (the integer part of 1 / base ** n).
    negative = exponent < 0
    result = xp.power(base, xp.where(negative, 0, exponent))
    special = xp.where(base == 1, 1, xp.where(base == -1, 1 - 2 * (exponent & 1), 0))
    return xp.where(negative, special, result).astype(result.dtype)


# --------------------------------------------------------------------------- unary

@register_op("neg(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             derivatives={"self": negated}, saves=(),
             dunders={"__neg__": "unary"}, aliases=("negative",), tags=("no_fp_errors",))
def neg(xp, self):
    """neg(input, *, out=None) -> Tensor: -input."""
    _check(self.dtype.kind != "b",
           "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return xp.negative(self)


def positive(input):
    """positive(input) -> Tensor: `input` itself (bool tensors are refused)."""
    if _state.entry and _wants(locals()):
        return _handle(positive, locals())
    _check_type(isinstance(input, dispatch.Tensor), lambda: (
        f"positive(): argument 'input' (position 1) must be Tensor, not "
        f"{type(input).__name__}"))
    _check(input._dtype is not _BOOL, "The `+` operator, on a bool tensor is not supported.")
    return input


register_frontend("positive", dunders={"__pos__": positive})(positive)


@register_op("abs(Tensor self) -> Tensor", kind="pointwise", promotion=COMPLEX_TO_FLOAT,
             derivatives={"self": lambda c: c.grad * c.self.sgn()},
             dunders={"__abs__": "unary"}, aliases=("absolute",), tags=("no_fp_errors",))
def abs(xp, self):
    """abs(input, *, out=None) -> Tensor: |input| (the modulus for complex input)."""
    if self.dtype.kind == "b":
        not_implemented_for("abs_cpu", self)
    return xp.abs(self)


def abs_inplace(self):
    # The real modulus would fit in a complex tensor, but PyTorch refuses it.
    if _state.entry and _wants(locals()):
        return _handle(abs_inplace, locals())
    if type(self) is not dispatch.Tensor:       # (`torch.abs_(1)`: the parser's TypeError)
        arguments.tensor_(self, ("abs_", "input", 1))
    _check(not self._dtype.is_complex, "In-place abs is not supported for complex tensors.")
    return call_inplace(_ABS_OP, (self,))


_ABS_OP = OPS["abs"]
register_frontend("abs", function=False, method=False, inplace=abs_inplace)(abs_inplace)
register_frontend("absolute", function=False, method=False, inplace=abs_inplace)(abs_inplace)


@register_op("reciprocal(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             promotion=INT_TO_FLOAT, saves=("result",),
             derivatives={"self": lambda c: -c.grad * conj(c.result * c.result)})
def reciprocal(xp, self):
    """reciprocal(input, *, out=None) -> Tensor: 1 / input."""
    return xp.reciprocal(self)


@register_op("square(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             promotion=BOOL_TO_LONG, derivatives={"self": lambda c: c.grad * conj(2 * c.self)},
             node_name="PowBackward0")
def square(xp, self):
    """square(input, *, out=None) -> Tensor: input ** 2 (bool input gives int64)."""
    return xp.square(self)


@register_op("exp(Tensor self) -> Tensor", kind="pointwise", promotion=INT_TO_FLOAT, inplace=True,
             derivatives={"self": lambda c: c.grad * conj(c.result)}, saves=("result",))
def exp(xp, self):
    """exp(input, *, out=None) -> Tensor: e raised to each element."""
    return xp.exp(self)


# PyTorch's Scalar overloads, offered to modes for a number operand (NOTE [overload forms]).
register_form("rsub.Tensor", "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
              numbers=(1,))
register_form("pow.Tensor_Tensor", "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
              numbers=(1,))
register_form("pow.Tensor_Tensor", "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
              numbers=(0,), saves=("result",))
# add.Scalar / sub.Scalar: what C++ `t.add(1)` calls (PyTorch's formulas); Python's `t + 1`
# wraps the number and reaches add.Tensor, so these are never offered, only called by name.
for _name in ("add", "sub"):
    register_form(f"{_name}.Tensor",
                  f"{_name}.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
                  when=lambda args: False)
for _name in ("remainder", "fmod"):
    register_form(f"{_name}.Tensor", f"{_name}.Scalar(Tensor self, Scalar other) -> Tensor",
                  numbers=(1,))
register_form("remainder.Tensor",
              "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", numbers=(0,))
