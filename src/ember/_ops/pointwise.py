"""Pointwise ops: arithmetic and comparison (the unary math family lives in pointwise_math.py).

Each entry is a kernel `f(xp, *args)` over raw arrays. For kind="pointwise" the dispatcher has
already applied type promotion: tensor arguments arrive as arrays of the compute dtype and
Python scalars as NumPy scalars of it; the kernel's result is cast to the result dtype.
"""
from __future__ import annotations

from ember._core.checks import _check, _check_value
from ember._core.registry import ALWAYS_BOOL, INT_TO_FLOAT, register_op

_BINARY = {"kind": "pointwise", "inplace": True}


def _is_int(a) -> bool:
    return a.dtype.kind in "iub"


@register_op("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", **_BINARY,
             dunders={"__add__": "forward", "__radd__": "reflect", "__iadd__": "inplace"})
def add(xp, self, other, alpha=1):
    """add(input, other, *, alpha=1, out=None) -> Tensor: input + alpha * other."""
    if alpha != 1:
        _check_alpha(self, alpha)
        other = other * alpha
    return xp.add(self, other)


@register_op("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", **_BINARY,
             dunders={"__sub__": "forward", "__rsub__": "reflect", "__isub__": "inplace"},
             aliases=("subtract",))
def sub(xp, self, other, alpha=1):
    """sub(input, other, *, alpha=1, out=None) -> Tensor: input - alpha * other."""
    _check(self.dtype.kind != "b",
           "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
           "`^` or `logical_xor()` operator instead.")
    if alpha != 1:
        _check_alpha(self, alpha)
        other = other * alpha
    return xp.subtract(self, other)


def _check_alpha(array, alpha):
    if _is_int(array):
        _check(float(alpha).is_integer() and not isinstance(alpha, float), lambda: (
            f"For integral input tensors, argument alpha must not be a floating point number."))


@register_op("mul.Tensor(Tensor self, Tensor other) -> Tensor", **_BINARY,
             dunders={"__mul__": "forward", "__rmul__": "reflect", "__imul__": "inplace"},
             aliases=("multiply",))
def mul(xp, self, other):
    """mul(input, other, *, out=None) -> Tensor: elementwise product."""
    if self.dtype.kind == "b":
        return xp.logical_and(self, other)
    return xp.multiply(self, other)


@register_op("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
             kind="pointwise", inplace=True, promotion=INT_TO_FLOAT,
             dunders={"__truediv__": "forward", "__rtruediv__": "reflect",
                      "__itruediv__": "inplace"},
             aliases=("divide", "true_divide"))
def div(xp, self, other, rounding_mode=None):
    """div(input, other, *, rounding_mode=None, out=None) -> Tensor."""
    _check_value(rounding_mode in (None, "trunc", "floor"), lambda: (
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"'{rounding_mode}'"))
    quotient = xp.true_divide(self, other)
    if rounding_mode == "trunc":
        return xp.trunc(quotient)
    if rounding_mode == "floor":
        return xp.floor(quotient)
    return quotient


@register_op("neg(Tensor self) -> Tensor", kind="pointwise", inplace=True,
             dunders={"__neg__": "unary"}, aliases=("negative",))
def neg(xp, self):
    """neg(input, *, out=None) -> Tensor: -input."""
    _check(self.dtype.kind != "b",
           "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return xp.negative(self)


def _comparison(schema, ufunc_name, dunder, reflected):
    def kernel(xp, self, other):
        return getattr(xp, ufunc_name)(self, other)
    kernel.__name__ = schema.split(".")[0]
    kernel.__doc__ = f"{kernel.__name__}(input, other, *, out=None) -> Tensor (elementwise, bool)."
    dunders = {dunder: "forward"}
    if reflected:
        dunders[reflected] = "reflect"
    return register_op(schema, kind="pointwise", promotion=ALWAYS_BOOL, inplace=True,
                       dunders=dunders)(kernel)


eq = _comparison("eq.Tensor(Tensor self, Tensor other) -> Tensor", "equal", "__eq__", None)
ne = _comparison("ne.Tensor(Tensor self, Tensor other) -> Tensor", "not_equal", "__ne__", None)
lt = _comparison("lt.Tensor(Tensor self, Tensor other) -> Tensor", "less", "__lt__", None)
le = _comparison("le.Tensor(Tensor self, Tensor other) -> Tensor", "less_equal", "__le__", None)
gt = _comparison("gt.Tensor(Tensor self, Tensor other) -> Tensor", "greater", "__gt__", None)
ge = _comparison("ge.Tensor(Tensor self, Tensor other) -> Tensor", "greater_equal", "__ge__",
                 None)


@register_op("exp(Tensor self) -> Tensor", kind="pointwise", promotion=INT_TO_FLOAT, inplace=True)
def exp(xp, self):
    """exp(input, *, out=None) -> Tensor: e raised to each element."""
    return xp.exp(self)
