"""Memory formats: the strides `contiguous_format`, `channels_last` and `channels_last_3d` stand
for, the checks behind `is_contiguous(memory_format=...)`, and the layout a new tensor made
"like" another one gets (`preserve_format`).

Also the tag objects themselves (`ember.strided`, `ember.sparse_coo` ..., `ember.contiguous_format`
...), public through ember/__init__.py. A memory format is recognised by its `name`.
Strides here count elements, as `Tensor.stride()` does; arrays count bytes.
"""
from __future__ import annotations

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core.checks import _check, _check_type

CONTIGUOUS = "contiguous_format"
PRESERVE = "preserve_format"
CHANNELS_LAST = "channels_last"
CHANNELS_LAST_3D = "channels_last_3d"
_RANK = {CHANNELS_LAST: 4, CHANNELS_LAST_3D: 5}


class layout:
    """Memory layout of a tensor: strided (dense), sparse_coo or sparse_csr."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "ember." + self.name


layout.__module__ = "ember"      # public as ember.layout (reprs and pickles name it so)


class memory_format:
    """A memory-format tag (accepted for compatibility; ember tensors are row-major)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "ember." + self.name


memory_format.__module__ = "ember"

strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def format_name(memory_format, where="memory_format", default=PRESERVE) -> str:
    """The name of a memory-format tag (None: `default`); anything else is a TypeError."""
    if memory_format is None:
        return default
    name = getattr(memory_format, "name", None)
    _check_type(type(memory_format).__name__ == "memory_format" and isinstance(name, str),
                lambda: (f"{where}(): argument 'memory_format' must be torch.memory_format, "
                         f"not {type(memory_format).__name__}"))
    return name


def format_strides(shape, name) -> tuple:
    """The element strides a tensor of `shape` has in memory format `name` (not preserve)."""
    shape = tuple(shape)
    if name in _RANK:
        rank = _RANK[name]
        _check(len(shape) == rank, lambda: f"required rank {rank} tensor to use {name} format")
        # Channels fastest, then the spatial dims from last to first, then the batch.
        order = (1,) + tuple(range(rank - 1, 1, -1)) + (0,)
    else:
        _check(name == CONTIGUOUS, lambda: f"unsupported memory format {_title(name)}")
        order = tuple(range(len(shape) - 1, -1, -1))
    strides = [0] * len(shape)
    step = 1
    for d in order:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def _title(name):
    return {PRESERVE: "Preserve", CONTIGUOUS: "Contiguous", CHANNELS_LAST: "ChannelsLast",
            CHANNELS_LAST_3D: "ChannelsLast3d"}.get(name, name)


def is_contiguous_as(shape, strides, name) -> bool:
    """Whether `strides` lay out `shape` in memory format `name` (size-1 dims are free)."""
    if name in _RANK and len(shape) != _RANK[name]:
        return False
    if 0 in shape:
        return True
    expected = format_strides(shape, name)
    return all(size == 1 or s == e for size, s, e in zip(shape, strides, expected))


def is_dense(shape, strides) -> bool:
    """Non-overlapping and dense: the elements fill one block of memory without gaps."""
    if 0 in shape:
        return True
    step = 1
    for d in sorted(range(len(shape)), key=lambda d: (strides[d], shape[d])):
        if shape[d] == 1:
            continue
        if strides[d] != step:
            return False
        step *= shape[d]
    return True


def dense_like_strides(shape, strides) -> tuple:
    """Dense strides that order the dims as `strides` does (smallest stride fastest)."""
    order = sorted(range(len(shape)), key=lambda d: (strides[d], -d))
    out = [0] * len(shape)
    step = 1
    for d in order:
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def like_strides(shape, strides, name) -> tuple:
    """The element strides of a new tensor made like one of `shape` and `strides` in memory
    format `name`: preserve keeps a dense layout as it is, else orders the dims the same way."""
    if name != PRESERVE:
        return format_strides(shape, name)
    if is_dense(shape, strides):
        return tuple(strides)
    return dense_like_strides(shape, strides)


def empty_strided_array(xp, shape, strides, np_dtype):
    """An uninitialised array of `shape` with element `strides` (dense, non-negative)."""
    shape = tuple(shape)
    if strides == format_strides(shape, CONTIGUOUS) or 0 in shape:
        return xp.empty(shape, np_dtype)
    itemsize = np.dtype(np_dtype).itemsize
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    buffer = xp.empty(extent, np_dtype)
    return xp.lib.stride_tricks.as_strided(buffer, shape, tuple(s * itemsize for s in strides))


def strided_window(xp, array, shape, strides):
    """A view of `array` with byte `strides` whose elements overlap (sliding windows): read-only
    on the CPU, so that no write can reach several elements at once.

    NOTE [strided windows on every back-end]: NumPy's as_strided takes `writeable`, CuPy's does
    not (CuPy arrays have no write flag). Every overlapping window is made here, so that the
    kernels stay the same over `xp`; on CuPy the caller must only read the window.
    """
    return backend_helpers(xp).strided_window(array, shape, strides)     # NOTE [back-end helpers]


def relayout(xp, array, strides):
    """A copy of `array` with element `strides` (or `array` itself if it already has them)."""
    itemsize = array.dtype.itemsize
    if tuple(s // itemsize for s in array.strides) == tuple(strides):
        return array
    out = empty_strided_array(xp, array.shape, strides, array.dtype)
    out[...] = array
    return out
