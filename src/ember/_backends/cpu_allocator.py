"""The CPU caching allocator: large kernel buffers kept in size classes and reused.

NOTE [CPU caching allocator]: a training step allocates the same large temporaries every step
(matmul outputs, reshape copies, attention masks). Through malloc those come back from the
kernel as fresh pages each time (glibc trims the top of its heap and maps large blocks apart),
so a step paid a minor page fault per 4 KiB of them, several MB of zeroed pages a step. The
kernels that make the biggest buffers take them from here instead (`empty`, then the NumPy call
with `out=`): a buffer is a flat uint8 array of its size class (sizes rounded up to 1/8 of their
power of two, at least MIN_BYTES), the array handed out a view of it, and the pool holds the
buffer. A buffer is free again when nothing but the pool refers to it: every view of it, the
tensor's own array and whatever was made from that, holds a reference to the buffer (NumPy's
`base`), so the buffer's reference count says when the last one died; no finalizer runs and
nothing is returned early. The pool is bounded (`limit`, EMBER_CPU_CACHE_LIMIT_MB, default
1024 MB of buffers in use and cached together; past it, free buffers of other classes are
released, and a request that still does not fit is served by plain `np.empty`), and
`ember.cpu.empty_cache()` releases every free buffer. No process-wide malloc setting changes.
Set EMBER_CPU_CACHING_ALLOCATOR=0 to serve everything with `np.empty` (for comparisons).
"""
from __future__ import annotations

import math
import os
import sys
import threading

import numpy as np

MIN_BYTES = 64 * 1024                  # below this malloc's own free lists serve well
ENABLED = os.environ.get("EMBER_CPU_CACHING_ALLOCATOR", "1") != "0"
limit = int(os.environ.get("EMBER_CPU_CACHE_LIMIT_MB", "1024")) * 1024 * 1024

_buckets: dict = {}                    # class size -> [buffers]
_lock = threading.Lock()
_getrefcount = sys.getrefcount
_prod = math.prod
_ndarray = np.ndarray
_uint8 = np.uint8
_stats = {"reserved_bytes": 0, "reserved_bytes_peak": 0, "hits": 0, "misses": 0,
          "oversize": 0, "releases": 0}


def _free_index(bucket) -> int:
    """The index of a buffer in `bucket` that nothing outside the pool refers to, or -1."""
    i = 0
    for buffer in bucket:
        if _getrefcount(buffer) == _FREE_REFS:
            return i
        i += 1
    return -1


def _calibrate() -> int:
    # The count a free buffer shows inside `_free_index`: the bucket's slot, the loop
    # variable and getrefcount's argument (measured, not assumed, so that an interpreter
    # that counts otherwise still reads "free" correctly).
    global _FREE_REFS
    probe = [np.empty(1, _uint8)]
    for buffer in probe:
        free = _getrefcount(buffer)
    del buffer
    _FREE_REFS = free
    assert _free_index(probe) == 0
    view = probe[0][:]
    assert _free_index(probe) == -1
    del view
    return free


_FREE_REFS = 0
_calibrate()


def size_class(nbytes: int) -> int:
    """`nbytes` rounded up to a multiple of 1/8 of its power of two."""
    step = 1 << max(nbytes.bit_length() - 4, 0)
    return -(-nbytes // step) * step


def empty(shape, dtype):
    """An uninitialised C-contiguous array of `shape` (a tuple or list) and NumPy `dtype`, from
    the pool when it is large enough to be worth keeping."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    nbytes = _prod(shape) * dtype.itemsize
    if nbytes < MIN_BYTES or not ENABLED:
        return np.empty(shape, dtype)
    return _ndarray(shape, dtype, buffer=_buffer(size_class(nbytes)))


def _buffer(size: int):
    with _lock:
        bucket = _buckets.get(size)
        if bucket is None:
            bucket = _buckets[size] = []
        i = _free_index(bucket)
        if i >= 0:
            _stats["hits"] += 1
            return bucket[i]
        _stats["misses"] += 1
        if _stats["reserved_bytes"] + size > limit:
            _release_free(_stats["reserved_bytes"] + size - limit)
            if _stats["reserved_bytes"] + size > limit:
                _stats["oversize"] += 1
                return np.empty(size, _uint8)
        buffer = np.empty(size, _uint8)
        bucket.append(buffer)
        reserved = _stats["reserved_bytes"] = _stats["reserved_bytes"] + size
        if reserved > _stats["reserved_bytes_peak"]:
            _stats["reserved_bytes_peak"] = reserved
        return buffer


def _release_free(wanted: float) -> int:
    """Drop free buffers (largest classes first) until `wanted` bytes are released; the
    bytes released. Called with the lock held."""
    released = 0
    for size in sorted(_buckets, reverse=True):
        bucket = _buckets[size]
        i = len(bucket) - 1
        while i >= 0 and released < wanted:
            if _getrefcount(bucket[i]) == _FREE_REFS - 1:    # (no loop variable here)
                del bucket[i]
                released += size
                _stats["releases"] += 1
            i -= 1
        if not bucket:
            del _buckets[size]
        if released >= wanted:
            break
    _stats["reserved_bytes"] -= released
    return released


def empty_cache() -> None:
    """Release every cached buffer that no tensor uses (in-use buffers stay)."""
    with _lock:
        _release_free(float("inf"))


def memory_stats() -> dict:
    """The pool's counters: bytes reserved (in use and cached) and their peak, bytes in use,
    bytes cached free, buffers, hits, misses, requests past the limit, buffers released."""
    with _lock:
        active = buffers = 0
        for size, bucket in _buckets.items():
            for buffer in bucket:
                buffers += 1
                if _getrefcount(buffer) != _FREE_REFS:
                    active += size
        stats = dict(_stats)
    stats["active_bytes"] = active
    stats["cached_bytes"] = stats["reserved_bytes"] - active
    stats["buffers"] = buffers
    stats["limit_bytes"] = limit
    return stats


def reset_peak_stats() -> None:
    """Start the peak over from the bytes reserved now."""
    with _lock:
        _stats["reserved_bytes_peak"] = _stats["reserved_bytes"]


def matmul(a, b):
    """`np.matmul(a, b)`, into a pooled buffer when the result is large (NumPy operands of at
    least two dimensions; anything else as np.matmul gives it). Operands smaller than
    MIN_BYTES together skip the pool after one test (a small product's per-call cost): their
    product is pooled only when it is an outer-product-like blow-up, which is left to malloc."""
    if type(a) is _ndarray and type(b) is _ndarray and a.nbytes + b.nbytes >= MIN_BYTES \
            and a.ndim >= 2 and b.ndim >= 2 and ENABLED:
        a_shape, b_shape = a.shape, b.shape
        batch = a_shape[:-2] if a_shape[:-2] == b_shape[:-2] else \
            np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
        dtype = a.dtype if a.dtype == b.dtype else np.result_type(a, b)
        return np.matmul(a, b, out=empty(batch + (a_shape[-2], b_shape[-1]), dtype))
    return np.matmul(a, b)


def copy(a):
    """A C-contiguous copy of the NumPy array `a`, in a pooled buffer when it is large."""
    if a.nbytes < MIN_BYTES or not ENABLED:
        return a.copy()
    out = empty(a.shape, a.dtype)
    np.copyto(out, a)
    return out


def concatenate(arrays, axis: int):
    """`np.concatenate(arrays, axis=axis)` (NumPy arrays of one dtype and rank), into a
    pooled buffer when the result is large."""
    nbytes = 0
    for a in arrays:
        nbytes += a.nbytes
    if nbytes < MIN_BYTES or not ENABLED:
        return np.concatenate(arrays, axis=axis)
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    return np.concatenate(arrays, axis=axis, out=empty(shape, arrays[0].dtype))


def set_limit(nbytes: int) -> None:
    """Bound the pool at `nbytes`, releasing free buffers past it now."""
    global limit
    with _lock:
        limit = nbytes
        if _stats["reserved_bytes"] > limit:
            _release_free(_stats["reserved_bytes"] - limit)
