"""Flat layouts for the `_foreach_*` kernels: which lists of arrays are views laid out, in
order, over one flat buffer, and flat copies of lists that are not.

NOTE [flat foreach layouts]: a `_foreach_*` kernel on the plain CPU path runs ONE NumPy call on a
flat buffer when each list operand is either
- laid out flat: its arrays are the views `flat_views` made (or the results a flat kernel
  returned), in order, covering the whole buffer (`flat_of`, one identity test per array); or
- gathered: a copy of its arrays concatenated into one buffer (`gathered`), kept while none of
  its tensors is written (their versions are checked), so a list read by several ops in a row
  (an optimizer's gradients) is copied once.
A list laid out flat also tells the kernel its dtype, shapes and strides (`layout_of`: the
views one buffer registered), so the array path reads nothing else from its arrays.
Lists that are neither (too short to gather, mixed layouts) run per tensor. The layouts are
known by identity only: nothing here changes what a kernel computes, so a flat call and the
per-tensor loop give the same numbers. The optimizers keep their state in such buffers
(optim/_lists.py), which is where the speed of their steps comes from.
"""
from __future__ import annotations

import math
import operator
import weakref

import numpy as np

_deref = weakref.ref.__call__
# id(flat buffer) -> (weak reference to it, weak references to its views in order, their shapes)
_LAYOUTS: dict = {}
# Lists shorter than this run per tensor rather than being gathered.
GATHER_MIN = 4


def _forget(key) -> None:
    _LAYOUTS.pop(key, None)


def register(flat, views) -> None:
    """Record that `views` (in order) cover the 1-D buffer `flat`."""
    key = id(flat)
    _LAYOUTS[key] = (weakref.ref(flat), tuple(map(weakref.ref, views)),
                     tuple(map(_SHAPE_OF, views)))
    weakref.finalize(flat, _forget, key)


def flat_views(flat, shapes) -> list:
    """Views of `flat` with `shapes`, one after the other, registered as its layout."""
    views = cut(flat, shapes)
    register(flat, views)
    return views


def cut(flat, shapes) -> list:
    """Views of the start of the 1-D `flat` with `shapes`, one after the other. (A run of equal
    shapes, not 0-d, is cut at once: the rows of one reshape, each a view of `flat`'s base.)"""
    views, start, count = [], 0, len(shapes)
    i = 0
    while i < count:
        shape = tuple(shapes[i])
        stop = i + 1
        while shape and stop < count and shapes[stop] == shape:
            stop += 1
        size = math.prod(shape)
        if stop - i > 1:     # (not 0-d shapes: rows of a 1-D array would be scalars)
            views.extend(flat[start:start + size * (stop - i)].reshape((stop - i,) + shape))
        else:
            views.append(flat[start:start + size].reshape(shape))
        start += size * (stop - i)
        i = stop
    return views


_SHAPE_OF = operator.attrgetter("shape")


def flat_of(arrays):
    """The flat buffer `arrays` are laid out over (NOTE [flat foreach layouts]), or None."""
    layout = layout_of(arrays)
    return None if layout is None else layout[0]


def layout_of(arrays):
    """(flat buffer, the arrays' shapes) when `arrays` are laid out flat, else None: the views
    of one buffer share its dtype, do not overlap and have no zero strides, so a caller
    that knows this needs no pass of its own over those."""
    base = arrays[0].base
    if base is None:
        return None
    entry = _LAYOUTS.get(id(base))
    if entry is None or entry[0]() is not base:
        return None
    refs = entry[1]
    if len(refs) != len(arrays) or not all(map(operator.is_, arrays, map(_deref, refs))):
        return None
    return base, entry[2]


# id(first array) -> (weak references to the arrays, their versions, the flat copy)
_GATHERED: dict = {}


_DATA_OF = operator.attrgetter("_data")
_STORAGE_OF = operator.attrgetter("_storage")


def gathered(tensors):
    """A flat copy of the tensors' arrays (they share one dtype), reused while the same arrays
    hold the same versions."""
    arrays = list(map(_DATA_OF, tensors))
    key = id(arrays[0])
    found = _GATHERED.get(key)
    versions = [0 if storage is None else storage._version
                for storage in map(_STORAGE_OF, tensors)]
    if found is not None:
        refs, kept_versions, flat = found
        if len(refs) == len(arrays) and kept_versions == versions and \
                all(map(operator.is_, arrays, map(_deref, refs))):
            return flat
    if len(_GATHERED) > 8:
        _GATHERED.clear()
    flat = np.concatenate([a.ravel() for a in arrays])
    _GATHERED[key] = ([weakref.ref(a) for a in arrays], versions, flat)
    return flat
