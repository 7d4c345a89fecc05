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


def elementwise_strides(shape, operands, itemsize: int):
    """NOTE [elementwise meta strides]: the byte strides PyTorch's TensorIterator gives the
    result of an element-wise op of `shape` over `operands` (arrays, inputs in order): the
    dims are ordered by the operands' strides, the first operand deciding and later ones only
    breaking its ties (a broadcast dim, stride 0, decides nothing); the result is dense in
    that order. Contiguous inputs give a contiguous result, a transposed or channels-last
    input a result laid out like it."""
    ndim = len(shape)
    if ndim <= 1:
        return contiguous_strides(shape, itemsize)
    if all(a.shape == shape for a in operands):
        # TensorIterator's fast set-up: inputs of one shape and one layout give it exactly.
        elements = [tuple(s // a.itemsize for s in a.strides) for a in operands]
        if all(_dense_in(shape, e, range(ndim - 1, -1, -1)) for e in elements):
            return contiguous_strides(shape, itemsize)
        last = _CHANNELS_LAST.get(ndim)
        if last is not None and all(_dense_in(shape, e, last) for e in elements):
            return _dense_strides(shape, last, itemsize)
        first = elements[0]
        if all(e == first for e in elements) and _non_overlapping_and_dense(shape, first):
            return tuple(s * itemsize for s in first)
    expanded = []
    for a in operands:
        offset = ndim - a.ndim
        expanded.append(tuple(
            0 if d < offset or (a.shape[d - offset] == 1 and shape[d] != 1)
            else a.strides[d - offset] for d in range(ndim)))

    def should_swap(dim0, dim1):
        for strides in expanded:
            stride0, stride1 = strides[dim0], strides[dim1]
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 != stride1:
                return -1 if stride0 < stride1 else 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    return _dense_strides(shape, iterator_order(ndim, should_swap), itemsize)


def iterator_order(ndim, should_swap):
    """TensorIterator's order of `ndim` dimensions, innermost first: from the reversed logical
    order, an insertion sort by `should_swap(outer, inner)` (> 0 swap them, < 0 stop, 0 no
    preference: go on comparing further out). Shared by the meta strides here, put_'s walk
    (NOTE [put_'s order]) and `dim_order`."""
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


_CHANNELS_LAST = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}     # dims, fastest first


def _dense_strides(shape, order, itemsize):
    """Byte strides of a dense layout whose dims move fastest to slowest in `order`."""
    strides = [0] * len(shape)
    step = itemsize
    for dim in order:
        strides[dim] = step
        step *= max(shape[dim], 1)
    return tuple(strides)


def _dense_in(shape, strides, order):
    """Whether element `strides` are dense in `order` (size-1 dims' strides don't count)."""
    if 0 in shape:
        return True
    expected = 1
    for dim in order:
        if shape[dim] != 1 and strides[dim] != expected:
            return False
        expected *= shape[dim]
    return True


def _non_overlapping_and_dense(shape, strides):
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    return _dense_in(shape, strides, dims)


def suggested_strides(shape, like, itemsize: int):
    """NOTE [meta memory format]: the byte strides PyTorch gives a result of `shape` that it
    allocates in `like`'s suggested memory format (batch norm, pooling, and convolution off the
    meta device): channels-last when `like` (4-D or 5-D) has channels-last-like strides, else
    None (row-major)."""
    order = _CHANNELS_LAST.get(like.ndim)
    if order is None or len(shape) != like.ndim:
        return None
    strides = [s // like.itemsize for s in like.strides]
    if not _strides_like_channels_last(like.shape, strides, order):
        return None
    return _dense_strides(shape, order, itemsize)


def _strides_like_channels_last(shape, strides, order):
    if strides[1] == 0:
        return False
    smallest = 0
    for dim in order:
        if shape[dim] == 0 or strides[dim] < smallest:
            return False
        if dim == 0 and smallest == strides[1]:
            return False
        smallest = strides[dim]
        if shape[dim] > 1:
            smallest *= shape[dim]
    return True


def device_hint(t):
    """The device a meta computation stands for: a fake tensor's `fake_device` (NOTE [a fake
    tensor is a meta tensor inside], _subclasses/fake_tensor.py), else the tensor's own."""
    return getattr(t, "fake_device", t._device)
