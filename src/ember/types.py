"""`ember.types`: the type aliases annotations use (`Number`, `Device`, `_size`, `_dtype` ...),
as `torch.types` names them."""
from __future__ import annotations

import abc
import os
from collections.abc import Sequence
from typing import IO, Any, TypeAlias, Union  # noqa: F401

import ember
from ember._core.device import device as _device
from ember._core.dtype import dtype as _dtype  # noqa: F401
from ember._core.shape import Size
from ember._sym import SymBool, SymFloat, SymInt
from ember._tensor import Tensor

_bool = bool
_bytes = bytes
_complex = complex
_float = float
_int = int
_str = str
_layout = type(ember.strided)

_Number = (int, float, bool)
Number: TypeAlias = int | float | bool
py_sym_types = (SymInt, SymFloat, SymBool)
PySymType: TypeAlias = SymInt | SymFloat | SymBool
IntLikeType: TypeAlias = int | SymInt
FloatLikeType: TypeAlias = float | SymFloat
BoolLikeType: TypeAlias = bool | SymBool

Device: TypeAlias = _device | str | int | None
FileLike: TypeAlias = str | os.PathLike | IO[bytes]
_size: TypeAlias = Size | list | tuple
_symsize: TypeAlias = Size | Sequence
_TensorOrTensors: TypeAlias = Tensor | Sequence
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence


class Storage(abc.ABC):
    """What every storage class is: ember's TypedStorage and UntypedStorage both count as one
    (isinstance works, as it does for PyTorch's storages)."""

    @classmethod
    def __subclasshook__(cls, other):
        names = {klass.__name__ for klass in other.__mro__}
        return True if names & {"TypedStorage", "UntypedStorage"} else NotImplemented


__all__ = ["BoolLikeType", "Device", "FileLike", "FloatLikeType", "IntLikeType", "Number",
           "PySymType", "Size", "Storage", "SymBool", "SymFloat", "SymInt", "Tensor",
           "py_sym_types"]
