"""ember's dtypes: one object per PyTorch dtype, each tied to a NumPy (or ml_dtypes) dtype."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ember._core.checks import _check_type
from ember._core.complex_half import CHALF_NP

# Categories, ordered: a dtype of a higher category wins in type promotion.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type (``ember.float32``, ``ember.int64`` ...)."""

    __slots__ = (
        "_abbr",
        "_aliases",
        "_category",
        "_cpp_name",
        "_name",
        "_np",
        "is_complex",
        "is_floating_point",
        "is_signed",
        "itemsize",
    )

    def __init__(self, name, np_dtype, category, signed, abbr, cpp_name, aliases=()):
        self._name = name
        self._np = np.dtype(np_dtype)
        self.itemsize = self._np.itemsize
        self._category = category
        self.is_floating_point = category == FLOAT
        self.is_complex = category == COMPLEX
        self.is_signed = signed
        self._abbr = abbr
        self._cpp_name = cpp_name
        self._aliases = aliases

    @property
    def abbr(self) -> str:
        return self._abbr

    def to_complex(self) -> dtype:
        found = _TO_COMPLEX.get(self)
        if found is None:
            if self.is_complex:
                return self
            raise RuntimeError(f"Unknown Complex ScalarType for {self._cpp_name}")
        return found

    def to_real(self) -> dtype:
        return _TO_REAL.get(self, self)

    def __repr__(self) -> str:
        return "ember." + self._name

    __str__ = __repr__

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _make(name, np_dtype, category, signed, abbr, cpp_name, aliases=()):
    return dtype(name, np_dtype, category, signed, abbr, cpp_name, aliases)


bool_ = _make("bool", np.bool_, BOOL, False, "b1", "Bool")
uint8 = _make("uint8", np.uint8, INT, False, "u8", "Byte")
uint16 = _make("uint16", np.uint16, INT, False, "u16", "UInt16")
uint32 = _make("uint32", np.uint32, INT, False, "u32", "UInt32")
uint64 = _make("uint64", np.uint64, INT, False, "u64", "UInt64")
int8 = _make("int8", np.int8, INT, True, "i8", "Char")
int16 = _make("int16", np.int16, INT, True, "i16", "Short", ("short",))
int32 = _make("int32", np.int32, INT, True, "i32", "Int", ("int",))
int64 = _make("int64", np.int64, INT, True, "i64", "Long", ("long",))
float16 = _make("float16", np.float16, FLOAT, True, "f16", "Half", ("half",))
bfloat16 = _make("bfloat16", ml_dtypes.bfloat16, FLOAT, True, "bf16", "BFloat16")
float32 = _make("float32", np.float32, FLOAT, True, "f32", "Float", ("float",))
float64 = _make("float64", np.float64, FLOAT, True, "f64", "Double", ("double",))
complex64 = _make("complex64", np.complex64, COMPLEX, True, "c64", "ComplexFloat", ("cfloat",))
complex128 = _make("complex128", np.complex128, COMPLEX, True, "c128", "ComplexDouble",
                   ("cdouble",))
# NOTE [complex32 storage] (complex_half.py): NumPy has no complex half type.
complex32 = _make("complex32", CHALF_NP, COMPLEX, True, "c32", "ComplexHalf", ("chalf",))
float8_e4m3fn = _make("float8_e4m3fn", ml_dtypes.float8_e4m3fn, FLOAT, True, "f8e4m3fn",
                      "Float8_e4m3fn")
float8_e5m2 = _make("float8_e5m2", ml_dtypes.float8_e5m2, FLOAT, True, "f8e5m2", "Float8_e5m2")

ALL_DTYPES = (
    bool_, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
    float16, bfloat16, float32, float64, complex32, complex64, complex128, float8_e4m3fn,
    float8_e5m2,
)

_TO_COMPLEX = {float16: complex32, bfloat16: complex64, float32: complex64,
               float64: complex128}
_TO_REAL = {complex32: float16, complex64: float32, complex128: float64}

# NumPy dtype -> ember dtype; keyed by np.dtype (hash of np.dtype is cheap).
NP_TO_DTYPE = {d._np: d for d in ALL_DTYPES}
_BY_NAME = {d._name: d for d in ALL_DTYPES}
for _d in ALL_DTYPES:
    for _alias in _d._aliases:
        _BY_NAME[_alias] = _d


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """The ember dtype for a NumPy dtype; TypeError for one ember has no counterpart for."""
    found = NP_TO_DTYPE.get(np.dtype(np_dtype))
    if found is None:
        np_dtype = np.dtype(np_dtype)
        _check_type(False, lambda: f"can't convert np.ndarray of type {np_dtype}. The only "
                    "supported types are: float64, float32, float16, complex64, complex128, "
                    "int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")
    return found


# Exported names that PyTorch offers besides the canonical ones.
ALIASES = {alias: d for d in ALL_DTYPES for alias in d._aliases}

_default_float = [float32]


def get_default_dtype() -> dtype:
    """The floating dtype that factories and Python floats give (float32 unless set)."""
    return _default_float[0]


def set_default_dtype(d: dtype) -> None:
    """Make `d` (a floating dtype) the default floating dtype."""
    _check_type(isinstance(d, dtype) and d in (float16, bfloat16, float32, float64),
                lambda: f"only floating-point types are supported as the default type, got {d}")
    _default_float[0] = d
    for listener in DEFAULT_DTYPE_LISTENERS:
        listener()


DEFAULT_DTYPE_LISTENERS: list = []  # caches that depend on the default dtype register here


def default_complex_dtype() -> dtype:
    return _TO_COMPLEX[_default_float[0]]
