"""Storage: the buffer behind a tensor and every view of it, with one version counter.

NOTE [views share one version counter]: a fresh op result owns its array and creates its
`UntypedStorage` lazily, the first time something needs it (a view, an in-place write, saving
for backward). Every view made from a tensor points at the same storage object, so an in-place
write through any of them bumps the one `_version` that autograd checks.

NOTE [.data has its own version counter]: as in PyTorch, `t.data` reads and writes t's memory
but counts its writes apart (from 0), so writing through it (or through views of it) never
makes autograd refuse t's saved values; `t.detach()` shares t's counter. Its storage is an
`AliasStorage`: the same memory under another counter, which names the storage it aliases so
that sharing (`is_shared`, ember.multiprocessing) and deepcopy see one storage.
"""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check


class UntypedStorage:
    """A flat buffer of bytes on one device, shared by all views of it."""

    __slots__ = ("_array", "_version", "device", "__weakref__")

    def __init__(self, array=None, device=None):
        self._array = array            # the root array the views were made from
        self._version = 0
        self.device = device

    def data_ptr(self) -> int:
        return _data_ptr(self._array)

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def __len__(self) -> int:
        return self.nbytes()

    def __repr__(self) -> str:
        return f"<ember.UntypedStorage of {self.nbytes()} bytes on {self.device}>"

    def byte_array(self):
        """The storage's bytes as a flat uint8 array sharing its memory."""
        array = self._array
        if array.dtype == np.uint8 and array.ndim == 1:
            return array
        if not array.flags.c_contiguous:
            raise RuntimeError("this storage's bytes are not contiguous")
        return array.reshape(-1).view(np.uint8)

    def untyped(self):
        """The storage itself (a typed storage's `untyped()` gives its bytes)."""
        return self

    _untyped = untyped

    def __getitem__(self, index):
        """A byte (an int), or for a slice a storage sharing those bytes."""
        if isinstance(index, slice):
            _check(index.step in (None, 1), "UntypedStorage slices must have a step of 1")
            return UntypedStorage(self.byte_array()[index], self.device)
        return int(self.byte_array()[index])

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """A CPU storage of the first `nbytes` bytes of `filename`: mapped into memory (writes
        reach the file) when `shared`, else read into memory."""
        import os
        size = os.path.getsize(filename)
        _check(size >= nbytes, lambda: (
            f"unexpected EOF, expected {nbytes} bytes, got {size}"))
        if shared:
            array = np.memmap(filename, dtype=np.uint8, mode="r+", shape=(nbytes,)) \
                if nbytes else np.zeros(0, np.uint8)
        else:
            array = np.fromfile(filename, dtype=np.uint8, count=nbytes)
        from ember._core.device import CPU
        return cls(np.asarray(array) if not shared else array, CPU)


class AliasStorage(UntypedStorage):
    """Another storage's memory with a version counter of its own (NOTE [.data has its own
    version counter]); `alias_of` makes one."""

    __slots__ = ("_owner",)


_new_storage = object.__new__


def alias_of(storage) -> AliasStorage:
    """A storage over `storage`'s memory whose version counter starts at 0. (Filled in here
    rather than through __init__: Tensor.data, called in optimizer loops, makes one a call.)"""
    alias = _new_storage(AliasStorage)
    alias._array = storage._array
    alias._version = 0
    alias.device = storage.device
    alias._owner = storage._owner if type(storage) is AliasStorage else storage
    return alias


def memory_owner(storage):
    """The storage whose memory `storage` is: itself, or what an AliasStorage aliases."""
    return storage._owner if type(storage) is AliasStorage else storage


def _data_ptr(array) -> int:
    interface = getattr(array, "__array_interface__", None)
    if interface is not None:
        return interface["data"][0]
    ptr = getattr(array, "data_ptr", None)
    if ptr is not None:
        return ptr() if callable(ptr) else ptr
    return array.data.ptr  # CuPy
