"""TypedStorage and the legacy typed storage classes (`ember.FloatStorage` ...).

A `TypedStorage` is an `UntypedStorage` (the bytes behind a tensor and its views) read as
elements of one dtype: `t.storage()[i]` is the i-th element in memory, and writing it writes the
tensor. As in PyTorch it is the deprecated view of storage (`untyped_storage()` is the current
one), so `Tensor.storage()` warns once. `ember.FloatStorage(3)` or `ember.IntStorage([1, 2])`
make new storages of that dtype (a TypedStorage, as PyTorch gives), and `isinstance(s,
ember.FloatStorage)` asks for a float32 TypedStorage.
"""
from __future__ import annotations

import warnings

import numpy as np

from ember._core import complex_half
from ember._core import dtype as dt
from ember._core.checks import _check_index, _check_type, _check_with
from ember._core.device import CPU
from ember._core.storage import UntypedStorage

_DEPRECATION = ("TypedStorage is deprecated. It will be removed in the future and "
                "UntypedStorage will be the only storage class. This should only matter to you "
                "if you are using storages directly.  To access UntypedStorage directly, use "
                "tensor.untyped_storage() instead of tensor.storage()")
_warned = False


def warn_typed_storage_removal() -> None:
    """PyTorch's once-per-process deprecation warning of TypedStorage."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(_DEPRECATION, UserWarning, stacklevel=3)


def _bytes_of(array) -> np.ndarray:
    """The memory of a dense array as bytes, in memory order (a view, never a copy)."""
    flat = array.reshape(-1) if array.flags.c_contiguous else array.ravel(order="K")
    _check_with(NotImplementedError, np.shares_memory(flat, array) or array.size == 0,
                "storage(): the tensor's memory is not one dense block")
    return flat.view(np.uint8)


class TypedStorage:
    """The elements of one dtype in an UntypedStorage."""

    is_sparse = False

    def __init__(self, *args, device=None, dtype=None, wrap_storage=None, _internal=False):
        if not _internal:
            warn_typed_storage_removal()
        self.dtype = dtype if dtype is not None else dt.get_default_dtype()
        if wrap_storage is not None:
            _check_type(not args, "TypedStorage(): wrap_storage= takes no other arguments")
            self._untyped_storage = wrap_storage
            return
        _check_type(len(args) <= 1, lambda: (
            f"TypedStorage(): expected a size or a sequence, got {len(args)} arguments"))
        item = self.dtype._np
        if not args:
            elements = np.zeros(0, item)
        elif isinstance(args[0], (int, np.integer)):
            elements = np.zeros(int(args[0]), item)
        else:
            elements = self._as_elements(list(args[0]))
        _check_type(device is None or str(device) == "cpu",
                    "TypedStorage(): ember makes new storages on the CPU only")
        self._untyped_storage = UntypedStorage(elements, CPU)

    # ------------------------------------------------------------------ the elements

    def _elements(self) -> np.ndarray:
        return _bytes_of(self._untyped_storage._array).view(self.dtype._np)

    def _values(self) -> np.ndarray:
        """The elements with Python numbers for items (complex32 widened)."""
        elements = self._elements()
        return complex_half.widen(elements) if self.dtype is dt.complex32 else elements

    def _as_elements(self, values) -> np.ndarray:
        """Numbers as an array of this storage's dtype (complex32: NOTE [complex32 storage])."""
        if self.dtype is dt.complex32:
            return complex_half.narrow(np.asarray(values, np.complex64))
        return np.asarray(values, dtype=self.dtype._np)

    def _item(self, value):
        return self._as_elements(value) if self.dtype is dt.complex32 else value

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    @property
    def device(self):
        return self._untyped_storage.device

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def _check_position(self, index):
        _check_with(RuntimeError, isinstance(index, (int, np.integer)),
                    "slices are only supported in UntypedStorage.__getitem__")
        size = self.size()
        _check_index(-size <= index < size, lambda: (
            f"index {index} out of range for storage of size {size}"))
        return int(index) % size

    def __getitem__(self, index):
        return self._values()[self._check_position(index)].item()

    def __setitem__(self, index, value):
        elements = self._elements()
        elements[self._check_position(index)] = self._item(value)
        self._untyped_storage._version += 1

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._values().tolist()

    def fill_(self, value):
        self._elements()[...] = self._item(value)
        self._untyped_storage._version += 1
        return self

    def copy_(self, source, non_blocking=None):
        self._elements()[...] = self._as_elements(source.tolist())
        self._untyped_storage._version += 1
        return self

    def clone(self):
        return TypedStorage(self.tolist(), dtype=self.dtype, _internal=True)

    def cpu(self):
        return self

    def is_shared(self) -> bool:
        return False

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return f"torch.{self.dtype._cpp_name}Storage"
        raise NotImplementedError("TypedStorage.type(dtype): convert the tensor instead")

    def __repr__(self) -> str:
        body = "\n".join(f" {value}" for value in self.tolist())
        tail = (f"[ember.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                f"{self.size()}]")
        return f"{body}\n{tail}" if body else tail


class _LegacyStorageMeta(type):
    """isinstance(s, ember.FloatStorage): s is a TypedStorage of float32."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, TypedStorage) and instance.dtype == cls.dtype


class _LegacyStorage(metaclass=_LegacyStorageMeta):
    dtype = None

    def __new__(cls, *args, **kwargs):
        return TypedStorage(*args, dtype=cls.dtype, **kwargs)


_LEGACY = {
    "DoubleStorage": dt.float64, "FloatStorage": dt.float32, "HalfStorage": dt.float16,
    "BFloat16Storage": dt.bfloat16, "LongStorage": dt.int64, "IntStorage": dt.int32,
    "ShortStorage": dt.int16, "CharStorage": dt.int8, "ByteStorage": dt.uint8,
    "BoolStorage": dt.bool_, "ComplexFloatStorage": dt.complex64,
    "ComplexDoubleStorage": dt.complex128,
}
LEGACY_NAMES = tuple(_LEGACY)
for _name, _dtype in _LEGACY.items():
    globals()[_name] = _LegacyStorageMeta(_name, (_LegacyStorage,), {
        "dtype": _dtype, "__module__": "ember", "__doc__": f"A {_dtype} TypedStorage."})


def legacy_class(dtype):
    """The legacy storage class of `dtype` (ember.FloatStorage for float32)."""
    for name, candidate in _LEGACY.items():
        if candidate == dtype:
            return globals()[name]
    raise TypeError(f"no legacy storage class for {dtype}")
