"""The meta back-end: arrays with a shape, dtype and strides but no data."""
from __future__ import annotations

import math

import numpy as np

from ember._backends.registry import Backend, register_backend


def contiguous_strides(shape, itemsize: int) -> tuple:
    strides, step = [], itemsize
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


class StandIn(np.ndarray):
    """The NumPy array view kernels run on for a meta tensor (see MetaArray.stand_in). Its
    memory is one element: kernels may take views of it but never read it; one that would copy
    (reshape of an unviewable layout) checks for this type and returns a contiguous stand-in
    instead."""


class MetaArray:
    """Stands in for an ndarray on the meta device: metadata only, strides in bytes."""

    __slots__ = ("dtype", "shape", "strides")

    def __init__(self, shape, dtype, strides=None):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.strides = (contiguous_strides(self.shape, self.dtype.itemsize)
                        if strides is None else tuple(strides))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def stand_in(self, strided=False):
        """A NumPy array of this shape that view kernels run on to find the result's shape.

        Zero strides (the default) make every element alias one: safe for kernels that may
        copy. `strided=True` keeps this array's strides over a one-element buffer, so a pure
        view kernel (which never reads data) finds the result's true strides too; it must not
        be read."""
        strides = self.strides if strided else (0,) * len(self.shape)
        return np.lib.stride_tricks.as_strided(np.zeros(1, self.dtype), self.shape, strides,
                                               writeable=False).view(StandIn)

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"


register_backend(Backend("meta", None))
