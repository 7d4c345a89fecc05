"""Moving a worker's batch to the main process through shared memory instead of a pickled
copy of every tensor.

NOTE [batches through shared memory]: in the worker, the CPU tensors of a batch are written
into anonymous memory files (memfd_create: no name in any directory) and replaced by small
descriptors; the descriptors travel through the result queue, and the files' descriptors
themselves through a Unix socket of that worker (SCM_RIGHTS), sent before the batch is put on
the queue. The main process takes the descriptors off the socket as soon as it takes the
batch off the queue (one message per batch, in the order that worker put its batches), maps
them, closes them, and wraps each mapping as a tensor's storage: one copy in the worker, none
in the main process. The memory lives as long as a descriptor or a mapping of it does, so
whatever happens to either process (an abandoned epoch, a worker or the main process killed)
nothing is left behind, and there is no name for another user to guess or pre-create.

Each tensor gets its own file, so keeping one tensor of a batch keeps only its memory; a batch
of more than `_FILES_PER_BATCH` tensors is packed into one file instead, since file descriptors
in flight count against the sender's open-file limit. Without memfd_create or SCM_RIGHTS
(macOS, Windows) tensors are pickled instead.
"""
from __future__ import annotations

import errno
import mmap
import os
import socket
import time

import numpy as np

AVAILABLE = hasattr(os, "memfd_create") and hasattr(socket, "send_fds") \
    and hasattr(socket, "SOCK_SEQPACKET")
_FILES_PER_BATCH = 64
_ALIGNMENT = 64


class SharedTensor:
    """The descriptor that replaces a tensor in a queued batch: which of the batch's files
    holds it (None for no bytes), where, and how to view it."""

    __slots__ = ("dtype", "file", "offset", "requires_grad", "shape")

    def __init__(self, file, offset, dtype, shape, requires_grad) -> None:
        self.file = file
        self.offset = offset
        self.dtype = dtype
        self.shape = shape
        self.requires_grad = requires_grad


class SharedBatch:
    """A batch whose tensors are SharedTensors; `sizes` are the byte sizes of the files the
    worker `worker_id` sent for it on its channel."""

    __slots__ = ("data", "sizes", "worker_id")

    def __init__(self, data, sizes, worker_id) -> None:
        self.data = data
        self.sizes = sizes
        self.worker_id = worker_id


def channel():
    """(main end, worker end) of the socket that carries one worker's file descriptors;
    SOCK_SEQPACKET keeps one batch's descriptors one message."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


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


def _write_file(fd: int, contents) -> None:
    """Write each (array, offset) of `contents` into the file `fd` (the gaps read as zeros)."""
    last_array, last_start = contents[-1]
    os.ftruncate(fd, last_start + last_array.nbytes)
    for array, start in contents:
        view = memoryview(array.reshape(-1).view(np.uint8))
        while view:
            written = os.pwrite(fd, view, start)
            view, start = view[written:], start + written


def to_shared(data, channel_end, worker_id: int, parent: int):
    """`data` with its CPU tensors moved into shared memory and their files sent on
    `channel_end` (in a worker); a SharedBatch, or `data` itself when it holds no tensor."""
    if not AVAILABLE:
        return data
    import ember
    arrays = []

    def convert(t):
        if t.device.type != "cpu" or t.is_meta or (t.requires_grad and not t.is_leaf):
            return t
        array = np.ascontiguousarray(t.detach()._data)
        descriptor = SharedTensor(None, 0, str(t.dtype).split(".")[-1], tuple(array.shape),
                                  t.requires_grad)
        arrays.append((array, descriptor))
        return descriptor
    converted = _walk(data, ember.Tensor, convert)
    if not arrays:
        return data
    # A file per tensor, or one for all when there are many (NOTE [batches through shared
    # memory]): descriptors in flight are limited.
    files = []          # per file: [(array, offset)]
    packed = len(arrays) > _FILES_PER_BATCH
    for array, descriptor in arrays:
        if array.nbytes == 0:
            continue
        if packed and files:
            last_array, last_start = files[0][-1]
            start = -(-(last_start + last_array.nbytes) // _ALIGNMENT) * _ALIGNMENT
            files[0].append((array, start))
        else:
            start = 0
            files.append([(array, 0)])
        descriptor.file, descriptor.offset = len(files) - 1, start
    fds = []
    try:
        for contents in files:
            fds.append(os.memfd_create("ember_dataloader", os.MFD_CLOEXEC))
            _write_file(fds[-1], contents)
        sizes = [start + array.nbytes for array, start in (f[-1] for f in files)]
        if fds:
            _send(channel_end, fds, parent)
    finally:
        for fd in fds:
            os.close(fd)
    return SharedBatch(converted, sizes, worker_id)


def _send(channel_end, fds, parent: int) -> None:
    while True:
        try:
            socket.send_fds(channel_end, [b"b"], fds)
            return
        except TimeoutError:
            # The socket is full: the main process is not reading. Wait while it lives.
            if os.getppid() != parent:
                raise
        except OSError as exc:
            # Too many descriptors in flight for this user: they leave as the main process
            # takes the batches already queued.
            if exc.errno != errno.ETOOMANYREFS:
                raise
            time.sleep(0.01)


def from_shared(batch: SharedBatch, channels):
    """The batch's data with its descriptors turned back into tensors (in the main process,
    as the batch comes off the queue)."""
    mappings = []
    if batch.sizes:
        _, fds, flags, _ = socket.recv_fds(channels[batch.worker_id], 16, len(batch.sizes))
        try:
            if flags & socket.MSG_CTRUNC or len(fds) != len(batch.sizes):
                raise RuntimeError(
                    f"DataLoader: received {len(fds)} of the {len(batch.sizes)} shared-memory "
                    "files of a batch; the main process is out of file descriptors (raise "
                    "`ulimit -n`)")
            for fd, size in zip(fds, batch.sizes):
                mappings.append(mmap.mmap(fd, size) if size else None)
        finally:
            for fd in fds:
                os.close(fd)
    return _walk(batch.data, SharedTensor, lambda shared: _read(shared, mappings))


def _read(shared: SharedTensor, mappings):
    import ember
    from ember._core import dispatch
    from ember._core.device import CPU
    dtype = getattr(ember, shared.dtype)
    if shared.file is None:
        array = np.empty(shared.shape, dtype._np)
    else:
        count = int(np.prod(shared.shape, dtype=np.int64))
        array = np.frombuffer(mappings[shared.file], dtype=dtype._np, count=count,
                              offset=shared.offset).reshape(shared.shape)
    t = dispatch.wrap(array, dtype, CPU)
    if shared.requires_grad:
        t.requires_grad_(True)
    return t
