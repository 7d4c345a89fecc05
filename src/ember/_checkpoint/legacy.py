"""Reading the pre-1.6 checkpoint format (`torch.save(..., _use_new_zipfile_serialization=
False)`): one file holding, in turn, pickles of a magic number, the protocol version, system
information, the object, and the list of storage keys, then each storage's raw bytes preceded
by its element count. Storages are allocated while the object is unpickled (so tensors can be
built over them) and filled afterwards."""
from __future__ import annotations

import pickle
import struct

import numpy as np

from ember._checkpoint.reader import LoadedStorage, _StorageType, _Unpickler

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


class _LegacyUnpickler(_Unpickler):
    def __init__(self, file, weights_only, buffers, **kwargs) -> None:
        super().__init__(file, None, weights_only, **kwargs)
        self.buffers = buffers

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 6 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unknown persistent id {pid!r}")
        _, storage_type, key, _location, numel, view = pid
        dtype_name = storage_type.dtype_name if isinstance(storage_type, _StorageType) \
            else "uint8"
        import ember
        itemsize = np.dtype(getattr(ember, dtype_name)._np).itemsize
        if view is not None:
            raise pickle.UnpicklingError("legacy checkpoints with storage views are not "
                                         "supported")
        found = self.buffers.get(key)
        if found is None:
            found = self.buffers[key] = (LoadedStorage(bytearray(numel * itemsize),
                                                       dtype_name), itemsize)
        return found[0]


def read_legacy(source, weights_only: bool, pickle_load_args: dict):
    """Load an object saved in the legacy (non-zip) format."""
    magic = pickle.load(source)
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = pickle.load(source)
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    info = pickle.load(source)
    if not info.get("little_endian", True):
        raise RuntimeError("ember.load reads little-endian checkpoints only")
    buffers: dict = {}
    unpickler = _LegacyUnpickler(source, weights_only, buffers, **pickle_load_args)
    result = unpickler.load()
    keys = pickle.load(source)
    for key in keys:
        count = struct.unpack("<q", source.read(8))[0]
        loaded, itemsize = buffers[key]
        data = source.read(count * itemsize)
        if len(data) != len(loaded.payload):
            raise EOFError(f"storage {key} is truncated")
        loaded.payload[:] = data
    return result



__all__ = ["read_legacy"]
