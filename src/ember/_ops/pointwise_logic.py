"""Pointwise comparison, logical and bitwise ops: eq ... ge, equal, isclose, allclose,
maximum/minimum, fmax/fmin, logical_*, bitwise_*, shifts, and their dunders. Arithmetic lives in
pointwise.py; where, clamp, lerp, addcmul and addcdiv in pointwise_ternary.py.
"""
from __future__ import annotations

import numpy as np

from ember._backends import get_backend
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.device import META
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.pointwise import check_broadcastable
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import promote_types
from ember._core.dispatch.quantized import QuantizedData
from ember._core.registry import (
    ALWAYS_BOOL,
    OPS,
    register_form,
    register_frontend,
    register_op,
)
from ember._ops.grad_utils import where
from ember._ops.pointwise import not_implemented_for

_ndarray = np.ndarray
# Bitwise ops take only integers and bool, which never require grad.
_BITWISE = {"kind": "pointwise", "inplace": True, "differentiable": False}
_LOGICAL = {"kind": "pointwise", "inplace": True, "promotion": ALWAYS_BOOL,
            "differentiable": False}


def tensor_arg(value, fn, name, position):
    _check_type(isinstance(value, dispatch.Tensor), lambda: (
        f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
        f"{type(value).__name__}"))


# --------------------------------------------------------------------------- comparisons

def _no_complex_order(name, array):
    if array.dtype.kind == "c":
        not_implemented_for(f"{name}_cpu", array)


@register_op("eq.Tensor(Tensor self, Tensor other) -> Tensor", **_LOGICAL,
             dunders={"__eq__": "forward"},
             tags=("no_fp_errors", "wide_unsigned"))
def eq(xp, self, other):
    """eq(input, other, *, out=None) -> Tensor: input == other, elementwise."""
    return xp.equal(self, other)


@register_op("ne.Tensor(Tensor self, Tensor other) -> Tensor", **_LOGICAL,
             dunders={"__ne__": "forward"}, aliases=("not_equal",),
             tags=("no_fp_errors", "wide_unsigned"))
def ne(xp, self, other):
    """ne(input, other, *, out=None) -> Tensor: input != other, elementwise."""
    return xp.not_equal(self, other)


@register_op("lt.Tensor(Tensor self, Tensor other) -> Tensor", **_LOGICAL,
             dunders={"__lt__": "forward"}, aliases=("less",), tags=("no_fp_errors",))
def lt(xp, self, other):
    """lt(input, other, *, out=None) -> Tensor: input < other, elementwise."""
    _no_complex_order("lt", self)
    return xp.less(self, other)


@register_op("le.Tensor(Tensor self, Tensor other) -> Tensor", **_LOGICAL,
             dunders={"__le__": "forward"}, aliases=("less_equal",), tags=("no_fp_errors",))
def le(xp, self, other):
    """le(input, other, *, out=None) -> Tensor: input <= other, elementwise."""
    _no_complex_order("le", self)
    return xp.less_equal(self, other)


@register_op("gt.Tensor(Tensor self, Tensor other) -> Tensor", **_LOGICAL,
             dunders={"__gt__": "forward"}, aliases=("greater",), tags=("no_fp_errors",))
def gt(xp, self, other):
    """gt(input, other, *, out=None) -> Tensor: input > other, elementwise."""
    _no_complex_order("gt", self)
    return xp.greater(self, other)


@register_op("ge.Tensor(Tensor self, Tensor other) -> Tensor", **_LOGICAL,
             dunders={"__ge__": "forward"}, aliases=("greater_equal",), tags=("no_fp_errors",))
def ge(xp, self, other):
    """ge(input, other, *, out=None) -> Tensor: input >= other, elementwise."""
    _no_complex_order("ge", self)
    return xp.greater_equal(self, other)


@register_frontend()
def equal(input, other) -> bool:
    """equal(input, other) -> bool: same shape and same values (NaN is not equal to NaN)."""
    if _state.entry and _wants(locals()):
        return _handle(equal, locals())
    tensor_arg(input, "equal", "input", 1)
    tensor_arg(other, "equal", "other", 2)
    _check(input._device is other._device, lambda: (
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{input._device} and {other._device}!"))
    if input._device is META and hasattr(input, "fake_mode"):
        input.item()        # a fake tensor refuses the read: DataDependentOutputException
    _check_not_implemented(input._device is not META,
                           "aten::equal: no meta implementation (the result is a Python bool)")
    if input._data.shape != other._data.shape:
        return False
    xp = get_backend(input._device.type).xp
    a, b = input._data, other._data
    if type(a) is QuantizedData:                 # NOTE [quantized tensors]
        from ember._ops.quantize import equal as quantized_equal
        return quantized_equal(input, other)
    _check_not_implemented(dt.complex32 not in (input._dtype, other._dtype),
                           "\"equal_cpu\" not implemented for 'ComplexHalf'")
    if input._dtype is not other._dtype:
        common = promote_types(input._dtype, other._dtype)._np
        a, b = a.astype(common), b.astype(common)
    return bool(xp.all(a == b))


def _isclose_meta(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    import numpy as np
    return np.broadcast_shapes(self._data.shape, other._data.shape), dt.bool_


@register_op("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, "
             "bool equal_nan=False) -> Tensor", kind="generic", meta=_isclose_meta,
             differentiable=False, out=False, tags=("fp_errors",))
def isclose(xp, self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor.

    |input - other| <= atol + rtol * |other|, elementwise; equal infinities are close.
    """
    _check(self.dtype == other.dtype, lambda: (
        f"{dt.NP_TO_DTYPE[self.dtype]._cpp_name} did not match "
        f"{dt.NP_TO_DTYPE[other.dtype]._cpp_name}"))
    check_broadcastable(None, [self.shape, other.shape])      # (PyTorch's message)
    _check(rtol >= 0, lambda: f"rtol must be greater than or equal to zero, but got {rtol}")
    _check(atol >= 0, lambda: f"atol must be greater than or equal to zero, but got {atol}")
    close = self == other
    inexact = dt.NP_TO_DTYPE[self.dtype]._category >= dt.FLOAT
    if equal_nan and inexact:
        close |= xp.isnan(self) & xp.isnan(other)
    if rtol == 0 and atol == 0:
        return close
    if not inexact:
        # The float tolerances make the comparison a floating one (in the default dtype).
        default = dt.get_default_dtype()._np
        self, other = self.astype(default), other.astype(default)
    error = xp.abs(self - other)
    allowed = atol + xp.abs(rtol * other)
    return close | (xp.isfinite(error) & (error <= allowed))


@register_frontend()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool."""
    if _state.entry and _wants(locals()):
        return _handle(allclose, locals())
    tensor_arg(input, "allclose", "input", 1)
    tensor_arg(other, "allclose", "other", 2)
    close = call(OPS["isclose"], (input, other, rtol, atol, equal_nan))
    if close._device is META and hasattr(close, "fake_mode"):
        close.item()        # a fake tensor refuses the read: DataDependentOutputException
    _check_not_implemented(close._device is not META,
                           "allclose: no meta implementation (the result is a Python bool)")
    return bool(close._data.all())


# --------------------------------------------------------------------------- max / min

def _tensors_only(name, *operands):
    """For ops without a Scalar overload: a Python number arrives as a NumPy scalar."""
    for position, value in enumerate(operands):
        if type(value) is not _ndarray and not hasattr(value, "__cuda_array_interface__"):
            raise TypeError(f"{name}(): argument '{('input', 'other')[position]}' "
                            f"(position {position + 1}) must be Tensor, not a number")


def _no_complex(name, array):
    _check(array.dtype.kind != "c", lambda: f"{name} not implemented for complex tensors.")


# Gradients of the elementwise max/min: the chosen operand gets the gradient; where the two
# are equal maximum/minimum split it in halves, and where either is NaN (the NaN propagates)
# both get all of it, as in PyTorch. fmax/fmin give a tie (and a NaN `other`) to `self`.

def _split_ties(c, loses):
    """grad for one operand of maximum/minimum: halved at ties, zero where `loses`."""
    half = where(c.self == c.other, c.grad / 2, c.grad)
    return where(loses, 0.0, half)


def _unless_self_below(c):
    # maximum's `self` and minimum's `other`: nothing where self < other.
    return _split_ties(c, c.self < c.other)


def _unless_self_above(c):
    # maximum's `other` and minimum's `self`: nothing where self > other.
    return _split_ties(c, c.self > c.other)


def _fmax_self_wins(c):
    return (c.self >= c.other) | c.other.isnan()


def _fmin_self_wins(c):
    return (c.self <= c.other) | c.other.isnan()


@register_op("maximum(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             derivatives={"self": _unless_self_below, "other": _unless_self_above},
             tags=("no_fp_errors",))
def maximum(xp, self, other):
    """maximum(input, other, *, out=None) -> Tensor: elementwise max; NaN propagates."""
    _tensors_only("maximum", self, other)
    _no_complex("maximum", self)
    return xp.maximum(self, other)


@register_op("minimum(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             derivatives={"self": _unless_self_above, "other": _unless_self_below},
             tags=("no_fp_errors",))
def minimum(xp, self, other):
    """minimum(input, other, *, out=None) -> Tensor: elementwise min; NaN propagates."""
    _tensors_only("minimum", self, other)
    _no_complex("minimum", self)
    return xp.minimum(self, other)


def keep_self_at_ties(xp, self, result, bound):
    """`result` (self clamped at `bound`) with `self` wherever the two compare equal.

    NOTE [ties keep self]: PyTorch's clamp, clamp_min and clamp_max return the input itself
    where it equals a bound, so a -0.0 input beside a +0.0 bound stays -0.0; NumPy's maximum /
    minimum pick either zero by dtype. (maximum, minimum, fmax and fmin are left alone:
    PyTorch's own pick of a zero there differs between its vectorised and scalar loops, its
    CPU capabilities and float16 / bfloat16.)"""
    if result.dtype.kind in "biu" or isinstance(bound, np.generic) and bound != 0:
        return result       # (bfloat16's NumPy kind is "V"; a nonzero bound makes no zero)
    # Equal values other than zeros have equal bits: only a zero result may need self's sign.
    zero = result == 0
    if not zero.any():
        return result
    return xp.where(zero & (self == 0), self, result)


@register_op("fmax(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             derivatives={"self": lambda c: where(_fmax_self_wins(c), c.grad, 0.0),
                          "other": lambda c: where(_fmax_self_wins(c), 0.0, c.grad)},
                          tags=("no_fp_errors",))
def fmax(xp, self, other):
    """fmax(input, other, *, out=None) -> Tensor: elementwise max ignoring NaN."""
    _tensors_only("fmax", self, other)
    _no_complex("fmax", self)
    return xp.fmax(self, other)


@register_op("fmin(Tensor self, Tensor other) -> Tensor", kind="pointwise",
             derivatives={"self": lambda c: where(_fmin_self_wins(c), c.grad, 0.0),
                          "other": lambda c: where(_fmin_self_wins(c), 0.0, c.grad)},
                          tags=("no_fp_errors",))
def fmin(xp, self, other):
    """fmin(input, other, *, out=None) -> Tensor: elementwise min ignoring NaN."""
    _tensors_only("fmin", self, other)
    _no_complex("fmin", self)
    return xp.fmin(self, other)


# --------------------------------------------------------------------------- logical

@register_op("logical_and(Tensor self, Tensor other) -> Tensor", **_LOGICAL, tags=("no_fp_errors",))
def logical_and(xp, self, other):
    """logical_and(input, other, *, out=None) -> Tensor: both nonzero."""
    _tensors_only("logical_and", self, other)
    return xp.logical_and(self, other)


@register_op("logical_or(Tensor self, Tensor other) -> Tensor", **_LOGICAL, tags=("no_fp_errors",))
def logical_or(xp, self, other):
    """logical_or(input, other, *, out=None) -> Tensor: either nonzero."""
    _tensors_only("logical_or", self, other)
    return xp.logical_or(self, other)


@register_op("logical_xor(Tensor self, Tensor other) -> Tensor", **_LOGICAL, tags=("no_fp_errors",))
def logical_xor(xp, self, other):
    """logical_xor(input, other, *, out=None) -> Tensor: exactly one nonzero."""
    _tensors_only("logical_xor", self, other)
    return xp.logical_xor(self, other)


@register_op("logical_not(Tensor self) -> Tensor", **_LOGICAL, tags=("no_fp_errors",))
def logical_not(xp, self):
    """logical_not(input, *, out=None) -> Tensor: input == 0."""
    return xp.logical_not(self)


# --------------------------------------------------------------------------- bitwise

def _integral(name, array):
    if array.dtype.kind not in "biu":
        not_implemented_for(name, array)


@register_op("bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", **_BITWISE,
             dunders={"__and__": "forward", "__rand__": "reflect", "__iand__": "inplace"},
             tags=("no_fp_errors", "wide_unsigned"))
def bitwise_and(xp, self, other):
    """bitwise_and(input, other, *, out=None) -> Tensor: input & other (integers and bool)."""
    _integral("bitwise_and_cpu", self)
    return xp.bitwise_and(self, other)


@register_op("bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", **_BITWISE,
             dunders={"__or__": "forward", "__ror__": "reflect", "__ior__": "inplace"},
             tags=("no_fp_errors", "wide_unsigned"))
def bitwise_or(xp, self, other):
    """bitwise_or(input, other, *, out=None) -> Tensor: input | other (integers and bool)."""
    _integral("bitwise_or_cpu", self)
    return xp.bitwise_or(self, other)


@register_op("bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", **_BITWISE,
             dunders={"__xor__": "forward", "__rxor__": "reflect", "__ixor__": "inplace"},
             tags=("no_fp_errors", "wide_unsigned"))
def bitwise_xor(xp, self, other):
    """bitwise_xor(input, other, *, out=None) -> Tensor: input ^ other (integers and bool)."""
    _integral("bitwise_xor_cpu", self)
    return xp.bitwise_xor(self, other)


@register_op("bitwise_not(Tensor self) -> Tensor", **_BITWISE, tags=("no_fp_errors",))
def bitwise_not(xp, self):
    """bitwise_not(input, *, out=None) -> Tensor: ~input (logical not for bool)."""
    _integral("bitwise_not_cpu", self)
    return xp.invert(self)


_BITWISE_NOT_OP = OPS["bitwise_not"]


def _invert(self):
    """`~self`: bitwise NOT of an integer tensor, logical NOT of a bool tensor (float is a
    TypeError)."""
    if _state.entry and _wants(locals()):
        return _handle(_invert, locals())
    # `~` on a float tensor is a TypeError (bitwise_not() itself raises NotImplementedError).
    _check_type(self._dtype._category <= dt.INT, (
        "~ (operator.invert) is only implemented on integer and Boolean-type tensors"))
    return call(_BITWISE_NOT_OP, (self,))


register_frontend("_tensor_invert", method=False, function=False,
                  dunders={"__invert__": _invert})(_invert)


# NumPy's shifts already give PyTorch's answers for counts outside [0, bits): 0 for a left
# shift, the sign for a right shift.
@register_op("bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor", **_BITWISE,
             dunders={"__rlshift__": "reflect"}, tags=("no_fp_errors",))
def bitwise_left_shift(xp, self, other):
    """bitwise_left_shift(input, other, *, out=None) -> Tensor: input << other (integers)."""
    if self.dtype.kind not in "iu":
        not_implemented_for("lshift_cpu", self)
    return xp.left_shift(self, other)


@register_op("bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor", **_BITWISE,
             dunders={"__rrshift__": "reflect"}, tags=("no_fp_errors",))
def bitwise_right_shift(xp, self, other):
    """bitwise_right_shift(input, other, *, out=None) -> Tensor: input >> other (integers)."""
    if self.dtype.kind not in "iu":
        not_implemented_for("rshift_cpu", self)
    return xp.right_shift(self, other)


# NOTE [shift operators are their own ops]: PyTorch's `x << y` is `aten::__lshift__`, not
# bitwise_left_shift (`x <<= y` is `__ilshift__`, `1 << x` bitwise_left_shift.Scalar_Tensor),
# so the operators are entries of their own, with the shifts' kernels, for modes to see.
_OPERATOR = {**_BITWISE, "inplace": False}
@register_op("__lshift__.Tensor(Tensor self, Tensor other) -> Tensor", **_OPERATOR,
             function=False, method=False, out=False, tags=("no_fp_errors",),
             dunders={"__lshift__": "forward", "__ilshift__": "inplace"})
def lshift_operator(xp, self, other):
    """self << other: bitwise_left_shift."""
    return bitwise_left_shift(xp, self, other)


@register_op("__rshift__.Tensor(Tensor self, Tensor other) -> Tensor", **_OPERATOR,
             function=False, method=False, out=False, tags=("no_fp_errors",),
             dunders={"__rshift__": "forward", "__irshift__": "inplace"})
def rshift_operator(xp, self, other):
    """self >> other: bitwise_right_shift."""
    return bitwise_right_shift(xp, self, other)


for _name in ("__lshift__", "__rshift__"):
    register_form(f"{_name}.Tensor", f"{_name}.Scalar(Tensor self, Scalar other) -> Tensor",
                  numbers=(1,))
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    register_form(f"{_name}.Tensor",
                  f"{_name}.Tensor_Scalar(Tensor self, Scalar other) -> Tensor", numbers=(1,))
    register_form(f"{_name}.Tensor",
                  f"{_name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", numbers=(0,))


# PyTorch's Scalar overloads, offered to modes for a number operand (NOTE [overload forms]).
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor"):
    register_form(f"{_name}.Tensor", f"{_name}.Scalar(Tensor self, Scalar other) -> Tensor",
                  numbers=(1,))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    register_form(f"{_name}.Tensor",
                  f"{_name}.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", numbers=(0,))
