"""Copies and conversions: `_to_copy` (dtype and device moves), `clone`, `contiguous`, `copy_`."""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.backend import get_backend
from ember._core.checks import _check_not_implemented
from ember._core.device import CPU, META
from ember._core.registry import register_frontend, register_op
from ember._backends.meta import MetaArray


def cast_array(array, target: dt.dtype):
    """`array` as `target`'s dtype, with PyTorch's conversions (float -> int truncates)."""
    if array.dtype == target._np:
        return array
    if array.dtype.kind == "c" and target._category < dt.COMPLEX:
        array = array.real
    return array.astype(target._np)


def _to_copy_meta(self, dtype=None, layout=None, device=None, pin_memory=None,
                  non_blocking=False, memory_format=None):
    return (self._data.shape, dtype or self._dtype)


@register_op("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
             "Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
             "MemoryFormat? memory_format=None) -> Tensor", kind="generic", method=False,
             function=False, meta=_to_copy_meta)
def _to_copy(xp, self, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    target = dt.NP_TO_DTYPE[np.dtype(self.dtype)] if dtype is None else dtype
    return xp.array(cast_array(self, target), copy=True)


def to_copy(self, dtype, device):
    """Copy `self` to `dtype` and/or `device` (the engine behind Tensor.to)."""
    from ember._core.registry import OPS
    src_device = self._device
    target_device = src_device if device is None else device
    if target_device is src_device:
        return dispatch.call(OPS["_to_copy"], (self, dtype, None, None, None, False, None))
    target_dtype = self._dtype if dtype is None else dtype
    if target_device is META:
        out = dispatch.wrap(MetaArray(self._data.shape, target_dtype._np), target_dtype, META)
    else:
        _check_not_implemented(src_device is not META, "Cannot copy out of meta tensor; no data!")
        host = self._host()
        host = cast_array(host, target_dtype)
        array = get_backend(target_device.type).from_host(np.array(host, copy=True),
                                                          target_device)
        out = dispatch.wrap(array, target_dtype, target_device)
    if self._requires_grad and dispatch.state.record is not None:
        dispatch.state.record(OPS["_to_copy"], (self, dtype, None, device, None, False, None),
                              out)
    return out


def _same_meta(self, memory_format=None):
    return (self._data.shape, self._dtype)


@register_op("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
             kind="generic", meta=_same_meta)
def clone(xp, self, memory_format=None):
    """clone(input, *, memory_format=ember.preserve_format) -> Tensor: a copy with new storage."""
    # preserve_format (the default) keeps a dense tensor's layout, as NumPy's order "K" does.
    order = "C" if getattr(memory_format, "name", None) == "contiguous_format" else "K"
    return xp.array(self, copy=True, order=order)


@register_frontend(function=False)
def contiguous(self, memory_format=None):
    """The tensor itself if it is contiguous, else a contiguous copy."""
    if self.is_contiguous():
        return self
    import ember
    return self.clone(memory_format=ember.contiguous_format)


@register_frontend(function=False)
def copy_(self, src, non_blocking=False):
    """Copy `src` (broadcast to self's shape, cast to self's dtype) into self, in place."""
    from ember._core.checks import _check
    if not isinstance(src, dispatch.Tensor):
        from ember._ops.creation import tensor
        src = tensor(src)
    dispatch.check_broadcastable(None, (self._data.shape, src._data.shape))
    _check(np.broadcast_shapes(self._data.shape, src._data.shape) == self._data.shape, lambda: (
        f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
        f"{list(np.broadcast_shapes(self._data.shape, src._data.shape))}"))
    if src._device is not self._device and self._device is not META:
        src = src.to(self._device)
    if self._device is CPU:
        np.copyto(self._data, cast_array(src._data, self._dtype), casting="unsafe")
    elif self._device is not META:
        self._data[...] = cast_array(src._data, self._dtype)
    dispatch.bump_version(self)
    return self
