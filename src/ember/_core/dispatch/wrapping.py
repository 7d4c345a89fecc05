"""Turning kernel results (raw `xp` arrays) into Tensors: fresh ones, views on a base's
storage, meta stand-ins; storages made on demand and version bumps.

Every result is a plain `Tensor`, whatever subclass the inputs were (a subclass that wants its
type kept says so in `__torch_function__`, see stack.py).
"""
from __future__ import annotations

import numpy as np

from ember._backends.meta import MetaArray
from ember._core import dtype as dt
from ember._core.device import CPU, META
from ember._core.storage import UntypedStorage, alias_of

Tensor = None            # set by ember._tensor once the class exists (set_tensor_class)
_new = object.__new__
_NP_TO_DTYPE = dt.NP_TO_DTYPE
_ndarray = np.ndarray
_np_asarray = np.asarray


def wrap(array, dtype, device):
    """A fresh Tensor owning `array` (its storage is made lazily, see storage.py)."""
    t = _new(Tensor)
    t._data = array
    t._dtype = dtype
    t._device = device
    t._storage = None
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._base = None
    return t


def wrap_array(array, device=CPU):
    """Wrap a raw kernel result, reading the dtype off the array."""
    if type(array) is not _ndarray and device is CPU:
        array = _np_asarray(array)
    return wrap(array, _NP_TO_DTYPE[array.dtype], device)


def wrap_view(array, base, dtype=None):
    """A Tensor viewing `base`'s storage."""
    t = _new(Tensor)
    t._data = array
    t._dtype = _NP_TO_DTYPE[array.dtype] if dtype is None else dtype
    t._device = base._device
    storage = base._storage
    t._storage = storage if storage is not None else storage_of(base)
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._base = base if base._base is None else base._base
    return t


def wrap_data(base):
    """`base.data`: a Tensor on base's memory with its own version counter, outside the graph
    (NOTE [.data has its own version counter]). The base's storage object is made first where
    it has none yet, so both name one memory (a checkpoint writes it once)."""
    t = _new(Tensor)
    t._data = base._data
    t._dtype = base._dtype
    t._device = base._device
    storage = base._storage
    if storage is None:
        storage = base._storage = UntypedStorage(base._data, base._device)
    t._storage = alias_of(storage)
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._base = None
    return t


def storage_of(t):
    s = t._storage
    if s is None:
        s = t._storage = UntypedStorage(t._data, t._device)
    return s


def bump_version(t) -> None:
    s = t._storage
    if s is None:
        s = t._storage = UntypedStorage(t._data, t._device)
    s._version += 1


def wrap_result(result, device):
    """A kernel's result (an array, a tuple of them, or None) as tensors on `device`."""
    if type(result) is _ndarray and device is CPU:
        return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
    if type(result) is tuple or type(result) is list:
        return tuple(wrap_result(r, device) for r in result)
    if result is None or isinstance(result, Tensor):
        return result
    if device is CPU:
        if type(result) is not _ndarray:
            result = _np_asarray(result)
        return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
    if device.type == "meta":
        return wrap(result, _NP_TO_DTYPE[result.dtype], device)
    return wrap(result, _NP_TO_DTYPE[np.dtype(result.dtype)], device)


def row_major(result, xp):
    """NOTE [row-major results]: PyTorch's non-pointwise kernels (cat, cumsum, gather, sum
    over a dim ...) return contiguous tensors whatever their inputs' layout; NumPy often keeps
    the input's order. Ops that keep a layout on purpose (clone, _to_copy) are tagged
    "keeps_layout"."""
    kind = type(result)
    if kind is _ndarray:
        if result.ndim and not result.flags.c_contiguous:
            return np.ascontiguousarray(result)
        return result
    if kind is tuple or kind is list:
        return tuple(row_major(r, xp) for r in result)
    flags = getattr(result, "flags", None)     # another back-end's array (CuPy)
    if flags is not None and result.ndim and not flags.c_contiguous:
        return xp.ascontiguousarray(result)
    return result


def generic_out(op, result, xp, device):
    """A non-view, non-pointwise kernel's result as fresh row-major tensors."""
    if "keeps_layout" not in op.tags:
        result = row_major(result, xp)
    return wrap_result(result, device)


def view_out(op, result, base, device):
    """A view kernel's result(s) as tensors on base's storage (a "maybe_view" op may have
    copied: then a fresh tensor)."""
    if type(result) is tuple or type(result) is list:
        return tuple(wrap_view(r, base) for r in result)
    if "maybe_view" in op.tags and not _shares_memory(result, base._data):
        return wrap(result, base._dtype, device)
    return wrap_view(result, base)


def _shares_memory(a, b):
    return a.size == 0 or np.may_share_memory(a, b) if type(a) is _ndarray else \
        a.data.ptr == b.data.ptr or a.base is not None


def meta_like_views(result, base):
    """Meta views: stand-ins carrying the strides PyTorch reports (NOTE [meta view strides])."""
    if type(result) is tuple or type(result) is list:
        return tuple(meta_like_views(r, base) for r in result)
    strides = result.strides if any(result.strides) else None
    return wrap_view(MetaArray(result.shape, result.dtype, strides), base)


def meta_from_spec(spec):
    """Meta tensors from a meta rule's (shape, dtype) pair or list of pairs; a pair may carry
    byte strides as a third item (None: row-major); None for an op that returns nothing."""
    if spec is None:
        return None
    if isinstance(spec, list):
        return tuple(meta_from_spec(s) for s in spec)
    if len(spec) == 3:
        shape, dtype, strides = spec
        return wrap(MetaArray(shape, dtype._np, strides), dtype, META)
    shape, dtype = spec
    return wrap(MetaArray(shape, dtype._np), dtype, META)
