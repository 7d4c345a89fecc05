"""The dtypes PyTorch names that ember cannot hold in a tensor: sub-byte integers (`int1` ...
`uint7`), bit containers (`bits8` ...), packed and unsigned-zero float8/float4 formats, and the
quantized types (`qint8` ...).

NOTE [dtypes without tensors]: each is an `ember.dtype` with PyTorch's properties (`itemsize`,
`is_floating_point`, `is_signed`, printing, pickling by name), so code that names, compares or
inspects them works; asking the properties PyTorch refuses (`bits8.is_signed`, `qint8.is_signed`)
raises its RuntimeError. A plain factory given one raises TypeError ("ember has no tensors of
dtype ...") where PyTorch makes an almost unusable tensor; quint8, qint8 and qint32 tensors are
made by quantizing (NOTE [quantized tensors]), whose integers live in NumPy's own dtypes.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt


class UnsupportedDtype(dt.dtype):
    """A dtype object with no NumPy storage behind it (NOTE [dtypes without tensors])."""

    __slots__ = ("_signed_error",)

    def __init__(self, name, category, signed, itemsize, cpp_name, signed_error=None):
        fields = {"_name": name, "_np": np.dtype(np.uint8), "itemsize": itemsize,
                  "_category": category, "is_floating_point": category == dt.FLOAT,
                  "is_complex": False, "is_signed": signed, "_abbr": name,
                  "_cpp_name": cpp_name, "_aliases": (), "_signed_error": signed_error}
        for field, value in fields.items():
            object.__setattr__(self, field, value)

    def __getattribute__(self, name):
        if name == "is_signed":
            error = object.__getattribute__(self, "_signed_error")
            if error is not None:
                raise RuntimeError(error)
        elif name == "_np":
            raise TypeError(f"ember has no tensors of dtype {self} (NOTE [dtypes without "
                            "tensors])")
        return object.__getattribute__(self, name)


_BITS = "Bits types are undefined"
_QUANT = "isSignedType not supported for quantized types"
_SPECS = (
    # name, category, signed, itemsize, C++ name, is_signed error
    *((f"int{n}", dt.INT, True, 1, f"Int{n}", None) for n in range(1, 8)),
    *((f"uint{n}", dt.INT, False, 1, f"UInt{n}", None) for n in range(1, 8)),
    ("bits1x8", dt.INT, False, 1, "Bits1x8", _BITS), ("bits2x4", dt.INT, False, 1, "Bits2x4",
                                                       _BITS),
    ("bits4x2", dt.INT, False, 1, "Bits4x2", _BITS), ("bits8", dt.INT, False, 1, "Bits8", _BITS),
    ("bits16", dt.INT, False, 2, "Bits16", _BITS),
    ("float4_e2m1fn_x2", dt.FLOAT, True, 1, "Float4_e2m1fn_x2", None),
    ("float8_e4m3fnuz", dt.FLOAT, True, 1, "Float8_e4m3fnuz", None),
    ("float8_e5m2fnuz", dt.FLOAT, True, 1, "Float8_e5m2fnuz", None),
    ("float8_e8m0fnu", dt.FLOAT, False, 1, "Float8_e8m0fnu", None),
    ("qint8", dt.INT, True, 1, "QInt8", _QUANT), ("quint8", dt.INT, False, 1, "QUInt8", _QUANT),
    ("qint32", dt.INT, True, 4, "QInt32", _QUANT),
    ("quint4x2", dt.INT, False, 1, "QUInt4x2", _QUANT),
    ("quint2x4", dt.INT, False, 1, "QUInt2x4", _QUANT),
)
DTYPES = {spec[0]: UnsupportedDtype(*spec) for spec in _SPECS}
DTYPES["bit"] = DTYPES["uint1"]              # PyTorch's alias (it prints as torch.uint1)
dt._BY_NAME.update(DTYPES)                   # pickles by name (dtype.__reduce__)
globals().update(DTYPES)


class qscheme:
    """How a quantized tensor maps integers to reals (`ember.per_tensor_affine` ...)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return (_qscheme_by_name, (self.name,))


QSCHEMES = {name: qscheme(name) for name in (
    "per_tensor_affine", "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric",
    "per_channel_affine_float_qparams")}


globals().update(QSCHEMES)


def _qscheme_by_name(name: str) -> qscheme:
    return QSCHEMES[name]
