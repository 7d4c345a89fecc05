"""Reading the pre-1.6 checkpoint format (`torch.save(..., _use_new_zipfile_serialization=
False)`): one file holding, in turn, pickles of a magic number, the protocol version, system
information, the object, and the list of storage keys, then each storage's raw bytes preceded
by its element count. Storages are allocated while the object is unpickled (so tensors can be
built over them) and filled afterwards."""
from __future__ import annotations

import os
import pickle
import struct

from ember._checkpoint.reader import (
    LoadedStorage,
    _ascii,
    _check_storage_id,
    make_unpickler,
)
from ember._core.checks import _check

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


def _no_storages(pid):
    raise pickle.UnpicklingError(f"Unknown persistent id {pid!r} in a checkpoint header")


class _LegacyStorages:
    """The storages of a legacy checkpoint, allocated as the object's pickle names them.
    NOTE [checked tensor extents]: their bytes follow the pickles in the file, so together they
    may not declare more than the file holds; no count in the file is allocated unchecked."""

    def __init__(self, file_size: int) -> None:
        self.budget = file_size
        self.buffers: dict = {}          # key -> (LoadedStorage, itemsize, numel)

    def __call__(self, pid):
        if not (isinstance(pid, tuple) and pid and _ascii(pid[0]) == "storage"):
            raise pickle.UnpicklingError(f"Unknown persistent id {pid!r}")
        storage_type, key, _location, numel = _check_storage_id(pid, 6)
        if pid[5] is not None:
            raise pickle.UnpicklingError("legacy checkpoints with storage views are not "
                                         "supported")
        found = self.buffers.get(key)
        if found is None:
            itemsize = storage_type.itemsize()
            nbytes = numel * itemsize
            _check(nbytes <= self.budget,
                   lambda: f"storage {key} declares {nbytes} bytes but the file holds at most "
                           f"{self.budget} more")
            self.budget -= nbytes
            found = self.buffers[key] = (
                LoadedStorage(bytearray(nbytes), storage_type.dtype_name), itemsize, numel)
        return found[0]

    def fill(self, key, source) -> None:
        """Read storage `key`'s element count and bytes from `source` into its buffer."""
        key = _ascii(key)
        _check(isinstance(key, str) and key in self.buffers,
               lambda: f"storage key {key!r} not found in the checkpoint's object")
        loaded, itemsize, numel = self.buffers[key]
        header = source.read(8)
        _check(len(header) == 8, lambda: f"unexpected EOF, expected {8 - len(header)} more "
                                         "bytes. The file might be corrupted.")
        count = struct.unpack("<q", header)[0]
        _check(count == numel, lambda: f"storage has wrong byte size: expected "
                                       f"{numel * itemsize} got {count * itemsize}")
        data = source.read(numel * itemsize)
        _check(len(data) == len(loaded.payload),
               lambda: f"unexpected EOF, expected {len(loaded.payload) - len(data)} more bytes. "
                       "The file might be corrupted.")
        loaded.payload[:] = data


def _file_size(source) -> int:
    here = source.tell()
    end = source.seek(0, os.SEEK_END)
    source.seek(here)
    return end - here


def read_legacy(source, weights_only: bool, pickle_load_args: dict):
    """Load an object saved in the legacy (non-zip) format. Every one of its pickles goes
    through the weights-only unpickler when `weights_only` (NOTE [weights-only unpickling])."""
    storages = _LegacyStorages(_file_size(source))

    def header():
        return make_unpickler(source, _no_storages, weights_only, pickle_load_args).load()

    magic = header()
    if magic != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = header()
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    info = header()
    _check(isinstance(info, dict), "Invalid system information; corrupt file?")
    if not info.get("little_endian", True):
        raise RuntimeError("ember.load reads little-endian checkpoints only")
    result = make_unpickler(source, storages, weights_only, pickle_load_args).load()
    keys = header()
    _check(type(keys) is list, "Invalid storage key list; corrupt file?")
    for key in keys:
        storages.fill(key, source)
    return result


__all__ = ["read_legacy"]
