"""`ember.finfo` and `ember.iinfo`: the numeric limits of floating and integer dtypes.

The numbers come from NumPy (`ml_dtypes.finfo` for bfloat16 and float8), as Python floats/ints.
A complex dtype reports the limits of its real counterpart, as PyTorch does.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check_type


def _check_dtype_argument(name: str, value) -> None:
    _check_type(isinstance(value, dt.dtype), lambda: (
        f"{name}(): argument 'type' (position 1) must be ember.dtype, not "
        f"{type(value).__name__}"))


class finfo:
    """Limits of a floating (or complex) dtype: bits, eps, max, min, tiny, resolution."""

    __slots__ = ("bits", "dtype", "eps", "max", "min", "resolution", "smallest_normal", "tiny")

    def __init__(self, type: dt.dtype | None = None):
        if type is None:
            type = dt.get_default_dtype()
        _check_dtype_argument("finfo", type)
        _check_type(type.is_floating_point or type.is_complex,
                    "ember.finfo() requires a floating point input type. Use ember.iinfo to "
                    "handle 'ember.finfo'")
        real = type.to_real()
        info = ml_dtypes.finfo(real._np)
        self.bits = real.itemsize * 8
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.tiny = self.smallest_normal
        # The largest power of ten not smaller than eps, as a decimal "resolution".
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
        self.dtype = real._name

    def __eq__(self, other) -> bool:
        if not isinstance(other, finfo):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """Limits of an integer dtype: bits, max, min."""

    __slots__ = ("bits", "dtype", "max", "min")

    def __init__(self, type: dt.dtype):
        _check_dtype_argument("iinfo", type)
        _check_type(type is not dt.bool_, lambda: f"{type} is not supported by ember.iinfo")
        _check_type(type._category == dt.INT,
                    "ember.iinfo() requires an integer input type. Use ember.finfo to handle "
                    "'ember.iinfo'")
        info = np.iinfo(type._np)
        self.bits = type.itemsize * 8
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type._name

    def __eq__(self, other) -> bool:
        if not isinstance(other, iinfo):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

    __str__ = __repr__
