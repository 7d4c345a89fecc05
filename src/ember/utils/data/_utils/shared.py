"""Moving a worker's batch to the main process through shared memory instead of a pickled
copy of every tensor.

NOTE [batches through shared memory]: in the worker, each CPU tensor of the batch is written
into a fresh file under /dev/shm named `<prefix><counter>` and replaced by a small descriptor;
only the descriptors travel through the result queue. The main process maps each file, unlinks
it at once (the mapping keeps the memory alive until the tensor is freed), and wraps the mapping
as the tensor's storage: one copy in the worker, none in the main process. Files a worker wrote
but the main process never read (an abandoned epoch, a killed worker) are removed by prefix at
shutdown. Without /dev/shm (macOS, Windows) tensors are pickled instead.
"""
from __future__ import annotations

import itertools
import mmap
import os

import numpy as np

SHM_DIR = "/dev/shm"
AVAILABLE = os.path.isdir(SHM_DIR) and os.access(SHM_DIR, os.W_OK)
_counter = itertools.count()


class SharedTensor:
    """The descriptor that replaces a tensor in a queued batch."""

    __slots__ = ("dtype", "name", "requires_grad", "shape")

    def __init__(self, name, dtype, shape, requires_grad) -> None:
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.requires_grad = requires_grad


def _write(t, prefix: str) -> SharedTensor:
    array = np.ascontiguousarray(t.detach()._data)
    name = f"{prefix}{os.getpid()}_{next(_counter)}"
    path = os.path.join(SHM_DIR, name)
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    try:
        size = max(array.nbytes, 1)
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size) as mapped:
            mapped[:array.nbytes] = array.tobytes() if array.nbytes else b""
    finally:
        os.close(fd)
    return SharedTensor(name, str(t.dtype).split(".")[-1], tuple(array.shape), t.requires_grad)


def _read(shared: SharedTensor):
    import ember
    from ember._core import dispatch
    from ember._core.device import CPU
    dtype = getattr(ember, shared.dtype)
    path = os.path.join(SHM_DIR, shared.name)
    fd = os.open(path, os.O_RDWR)
    try:
        size = os.fstat(fd).st_size
        mapped = mmap.mmap(fd, size)
    finally:
        os.close(fd)
        os.unlink(path)
    count = int(np.prod(shared.shape, dtype=np.int64))
    array = np.frombuffer(mapped, dtype=dtype._np, count=count).reshape(shared.shape)
    t = dispatch.wrap(array, dtype, CPU)
    if shared.requires_grad:
        t.requires_grad_(True)
    return t


def _walk(data, leaf_type, convert):
    if isinstance(data, leaf_type):
        return convert(data)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_walk(d, leaf_type, convert) for d in data))
    if type(data) in (list, tuple):
        return type(data)(_walk(d, leaf_type, convert) for d in data)
    if type(data) is dict:
        return {k: _walk(v, leaf_type, convert) for k, v in data.items()}
    return data


def to_shared(data, prefix: str):
    """`data` with its CPU tensors moved into shared memory (in a worker)."""
    if not AVAILABLE:
        return data
    import ember

    def convert(t):
        if t.device.type != "cpu" or t.is_meta or (t.requires_grad and not t.is_leaf):
            return t
        return _write(t, prefix)
    return _walk(data, ember.Tensor, convert)


def from_shared(data):
    """`data` with its shared-memory descriptors turned back into tensors (in the main
    process)."""
    return _walk(data, SharedTensor, _read)


def remove_leftovers(prefix: str) -> None:
    """Delete shared-memory files of this loader that were never read."""
    if not AVAILABLE:
        return
    for name in os.listdir(SHM_DIR):
        if name.startswith(prefix):
            try:
                os.unlink(os.path.join(SHM_DIR, name))
            except FileNotFoundError:
                pass
