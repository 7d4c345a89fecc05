"""Filling a tensor with one value: `fill` (function), `Tensor.fill_` and `zero_`.

The functional ops return a filled copy that keeps the input's layout; the in-place forms go
through dispatch.call_inplace, which writes that copy into `self` and bumps its version, so
autograd sees them like any other in-place op (the filled values have zero gradient; a tensor
`value` receives the sum of the incoming gradient).
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ember._core import complex_half, dispatch
from ember._core.checks import _check, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import number_like
from ember._core.registry import OPS, register_frontend, register_op
from ember._ops.grad_utils import by_kind, zeros_grad
from ember._ops.pointwise import checked_scalar

# The C++ type names PyTorch's "cannot be converted ... without overflow" message uses.
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t", "uint16": "uint16_t", "uint32": "uint32_t",
            "uint64": "uint64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "float32": "float", "float64": "double", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}
_NUMBER = (bool, int, float, complex, np.bool_, np.number)
_FLOAT16_MAX = 65504.0          # the largest float16: a number within it fits every float dtype


def _overflow(np_dtype):
    return lambda: (f"value cannot be converted to type "
                    f"{_C_NAMES.get(np_dtype.name, np_dtype.name)} without overflow")


_HALF_NAMES = frozenset(("float16", "bfloat16"))


def fill_value(value, np_dtype, half_rounds=False):
    """A Scalar `value` as a NumPy scalar of `np_dtype`, refusing what PyTorch refuses: an
    imaginary part for a real dtype, and finite numbers outside the dtype's range.

    NOTE [fills round into half types]: with `half_rounds`, a number past float16's or
    bfloat16's range becomes inf instead of an error. PyTorch converts unchecked where it
    copies a one-element scalar tensor: `t[i] = number` always, and the fills (full,
    full_like, new_full, fill_) of exactly one element; a fill of any other size runs the
    checked fill kernel. float32, complex64 and the integers are checked everywhere, as are
    masked_fill and index_fill."""
    kind = np_dtype.kind
    # The common numbers first: these fit every dtype of their kind.
    if type(value) is float and kind == "f" and -_FLOAT16_MAX <= value <= _FLOAT16_MAX or \
            type(value) is int and (kind == "f" and -_FLOAT16_MAX <= value <= _FLOAT16_MAX or
                                    kind in "iu" and 0 <= value <= 127):
        return np_dtype.type(value)
    if not isinstance(value, _NUMBER) and not number_like(value):
        # A string never reaches a scalar constructor (ml_dtypes' bfloat16 crashes on one).
        raise TypeError(f"expected a number, not {type(value).__name__}")
    if isinstance(value, int) and not -(1 << 63) <= value < (1 << 64):
        raise OverflowError("Python int too large to convert to a 64-bit integer")
    if kind == "b":
        return np.bool_(bool(value))
    if np_dtype.names is not None:    # complex32 (NOTE [complex32 storage]): PyTorch rounds past-range to inf
        return complex_half.scalar(value)
    if isinstance(value, (complex, np.complexfloating)) and kind != "c":
        _check(value.imag == 0, _overflow(np_dtype))
        value = value.real
    if half_rounds and np_dtype.name in _HALF_NAMES:
        return dispatch.scalar_as(float(value), np_dtype)
    if kind in "iu":
        _check(not isinstance(value, (float, np.floating)) or math.isfinite(value),
               _overflow(np_dtype))
        return checked_scalar(value, np_dtype)
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        value = float(value)
    largest = float(ml_dtypes.finfo(np_dtype).max)   # ml_dtypes' finfo knows every float
    parts = (value.real, value.imag) if isinstance(value, (complex, np.complexfloating)) \
        else (value,)
    for part in parts:
        part = float(part)
        _check(not math.isfinite(part) or abs(part) <= largest, _overflow(np_dtype))
    return dispatch.scalar_as(value, np_dtype)


def _same_meta(self, value):
    return tuple(self.shape), self.dtype


def _filled(xp, self, value):
    # full_like keeps the input's strides (PyTorch's fill preserves the memory format).
    return xp.full_like(self, value)


def _value_grad(ctx):
    return ctx.grad.sum()


_FILL = {"function": False, "method": False, "meta": _same_meta,
         "node_name": by_kind(1, "FillBackward1", "FillBackward0"),
         "tags": ("keeps_layout", "fp_errors", "writes_through_repeats")}


@register_op("fill.Scalar(Tensor self, Scalar value) -> Tensor", **_FILL, saves=(),
             derivatives={"self": zeros_grad})
def _fill_scalar(xp, self, value):
    """A copy of input with every element set to the number `value`."""
    _check_type(isinstance(value, _NUMBER), lambda: (
        f"fill_() received an invalid combination of arguments - got "
        f"({type(value).__name__}), but expected one of:\n * (Tensor value)\n"
        " * (Number value)"))
    return _filled(xp, self, fill_value(value, self.dtype, half_rounds=self.size == 1))


@register_op("fill.Tensor(Tensor self, Tensor value) -> Tensor", **_FILL, saves=(),
             derivatives={"self": zeros_grad, "value": _value_grad})
def _fill_tensor(xp, self, value):
    """A copy of input with every element set to the 0-d tensor `value`."""
    _check(value.ndim == 0, lambda: (
        "fill_ only supports 0-dimension value tensor but got tensor with "
        f"{value.ndim} dimensions."))
    if value.dtype.kind == "c" and self.dtype.kind != "c":
        value = value.real
    with np.errstate(invalid="ignore", over="ignore"):
        scalar = xp.asarray(value).astype(self.dtype)
    return _filled(xp, self, scalar)


def _fill_op(value):
    return OPS["fill.Tensor" if isinstance(value, dispatch.Tensor) else "fill.Scalar"]


def fill_(self, value):
    """Tensor.fill_(value) -> Tensor: set every element of self to `value` (a number or a 0-d
    tensor), in place."""
    if _state.entry and _wants(locals()):
        return _handle(fill_, locals())
    return dispatch.call_inplace(_fill_op(value), (self, value))


@register_frontend("fill", method=False, inplace=fill_)
def fill(input, value):
    """fill(input, value) -> Tensor: a tensor like input with every element set to `value`."""
    if _state.entry and _wants(locals()):
        return _handle(fill, locals())
    return dispatch.call(_fill_op(value), (input, value))


@register_op("zero(Tensor self) -> Tensor", function=False, method=False,
             meta=lambda self: (tuple(self.shape), self.dtype), saves=(),
             derivatives={"self": zeros_grad}, node_name="ZeroBackward0",
             tags=("keeps_layout", "writes_through_repeats"))
def _zero(xp, self):
    """A copy of input filled with zeros."""
    return xp.zeros_like(self)


@register_frontend("zero_")
def zero_(input):
    """zero_(input) -> Tensor: set every element of input to zero, in place."""
    if _state.entry and _wants(locals()):
        return _handle(zero_, locals())
    return dispatch.call_inplace(OPS["zero"], (input,))
