"""Scalar arguments converted into a kernel's dtype with PyTorch's range checks
(`checked_scalar`, `scalar_into`), and the C++ type names PyTorch's messages print.

Shared by the dispatcher's pointwise runner and the op families (`_ops/pointwise.py`
re-exports both functions)."""
from __future__ import annotations

import math

import numpy as np

from ember._core import arguments
from ember._core.checks import _check
from ember._core.fp_errors import scalar_as

# The C++ type names PyTorch prints in "expected m1 and m2 to have the same dtype" and in
# "Expected out tensor to have dtype ...".
CXX_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half",
    "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
    "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}

_C_TYPE_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int",
                 "int64": "int64_t"}


def checked_scalar(value, np_dtype):
    """A Scalar argument (alpha, value) as a NumPy scalar of an integer compute dtype, refusing
    numbers out of its range as PyTorch does (ordinary operands wrap around instead); an int
    wider than PyTorch's Scalar (int64 or uint64) is its parser's OverflowError."""
    if type(value) is int:
        arguments.check_scalar_int(value)
    if np_dtype.kind in "iu" and isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, (bool, np.bool_)):
        info = np.iinfo(np_dtype)
        # An integer may be negative for an unsigned type (it wraps), a fraction may not.
        low = -int(info.max) if isinstance(value, (int, np.integer)) and info.min == 0 \
            else info.min
        _check(low <= value <= info.max, lambda: (
            f"value cannot be converted to type {_C_TYPE_NAMES.get(np_dtype.name, np_dtype.name)}"
            " without overflow"))
    return scalar_as(value, np_dtype)


_REAL_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                      "bfloat16": "c10::BFloat16"}


def scalar_into(value, np_dtype):
    """A Scalar argument (lambd, threshold, eps ...) in a kernel's dtype, as PyTorch's
    `to<T>()` converts it: a complex value with an imaginary part into a real type, or a finite
    value beyond a float type's range, is an overflow error; an int wider than 64 bits is its
    parser's OverflowError (scalar_as)."""
    if isinstance(value, (complex, np.complexfloating)) and np_dtype.kind != "c":
        # (A NumPy complex64 reaches a kernel only past a frontend; PyTorch's parser reads it
        # through float(), keeping its real part: arguments.scalar.)
        _check(value.imag == 0 or not isinstance(value, complex),
               lambda: _overflow_message(np_dtype))
        value = value.real
    limit = _FLOAT_LIMITS.get(np_dtype.name)
    if limit is not None and not isinstance(value, (bool, np.bool_)) and math.isfinite(value):
        _check(-limit <= value <= limit, lambda: _overflow_message(np_dtype))
    return checked_scalar(value, np_dtype)


_FLOAT_LIMITS = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
                 "float32": 3.4028234663852886e38}


def _overflow_message(np_dtype) -> str:
    name = _REAL_C_TYPE_NAMES.get(np_dtype.name, _C_TYPE_NAMES.get(np_dtype.name, np_dtype.name))
    return f"value cannot be converted to type {name} without overflow"

