"""Pickling and deep-copying tensors (`Tensor.__reduce_ex__`, `Tensor.__deepcopy__`).

A tensor travels as the bytes of its whole storage plus its layout in it (shape, byte strides,
byte offset), so a view comes back as a view with the same `stride()` and `storage_offset()`.

NOTE [pickle vs deepcopy sharing]: as in PyTorch, plain `pickle` gives every tensor its own
copy of its storage, even views pickled in one container; `copy.deepcopy` of a container keeps
views of one storage sharing one new storage (the memo is keyed by the storage). `.grad` is
deep-copied but not pickled; `requires_grad` and user attributes (`t.__dict__`) survive both.
Meta tensors keep their shape, dtype and strides. Tensors on other devices are pickled through
the host as contiguous copies (layout inside the storage is not kept there).
"""
from __future__ import annotations

import numpy as np

from ember._backends import get_backend
from ember._backends.meta import MetaArray
from ember._core import dispatch
from ember._core.checks import _check
from ember._core.device import CPU, META, as_device, placed
from ember._core.storage import UntypedStorage, _data_ptr, memory_owner

# Entries of `Tensor.__dict__` that belong to autograd (hooks, graph links): never copied.
_AUTOGRAD_STATE = frozenset({"_retains_grad", "_hooks", "_post_accumulate_hooks", "_output_nr"})


def _user_state(t) -> dict:
    return {k: v for k, v in t.__dict__.items() if k not in _AUTOGRAD_STATE}


def _storage_bytes(t):
    """(bytes of t's whole storage as a fresh uint8 array, t's byte offset in it)."""
    root = dispatch.storage_of(t)._array
    itemsize = root.dtype.itemsize
    if root.size == 0:
        return np.zeros(0, np.uint8), 0
    # Strides are never negative (see from_numpy), so the first element starts the buffer.
    span = sum((n - 1) * s for n, s in zip(root.shape, root.strides)) + itemsize
    flat = np.lib.stride_tricks.as_strided(root, shape=(span // itemsize,), strides=(itemsize,))
    payload = np.array(flat, copy=True).view(np.uint8)
    return payload, _data_ptr(t._data) - _data_ptr(root)


def _layout(t):
    """(payload, byte offset, byte strides) describing t; payload None on meta."""
    if t._device is META:
        return None, 0, t._data.strides
    if t._device is CPU:
        payload, offset = _storage_bytes(t)
        return payload, offset, t._data.strides
    host = np.ascontiguousarray(t._host())
    return host.reshape(-1).view(np.uint8).copy(), 0, host.strides


def _array_on(payload, np_dtype, shape, offset, strides):
    """A view of the uint8 buffer `payload` as `np_dtype` with a byte offset and strides."""
    return np.ndarray(tuple(shape), np_dtype, buffer=payload, offset=offset,
                      strides=tuple(strides))


def _make_tensor(cls, array, dtype, device, storage, requires_grad, state):
    t = dispatch.wrap(array, dtype, device)
    if cls is not type(t):
        base = t
        t = object.__new__(cls)
        for slot in ("_data", "_dtype", "_device", "_grad_fn", "_grad", "_base"):
            setattr(t, slot, getattr(base, slot))
    t._storage = storage
    t._requires_grad = requires_grad
    if state:
        t.__dict__.update(state)
    return t


def _rebuild(cls, payload, dtype, shape, offset, strides, device, requires_grad, state):
    device = placed(as_device(device))
    np_dtype = dtype._np
    if payload is None:
        return _make_tensor(cls, MetaArray(shape, np_dtype, strides), dtype, device, None,
                            requires_grad, state)
    array = _array_on(payload, np_dtype, shape, offset, strides)
    storage = UntypedStorage(payload.view(np_dtype) if payload.size % np_dtype.itemsize == 0
                             else payload, CPU)
    if device is not CPU:
        array = get_backend(device.type).from_host(np.ascontiguousarray(array), device)
        storage = None
    return _make_tensor(cls, array, dtype, device, storage, requires_grad, state)


def reduce_tensor(t):
    """`t.__reduce_ex__`: rebuild from the storage bytes and the layout (see module notes)."""
    if t.is_quantized:                       # NOTE [quantized tensors]
        from ember._quantized_tensor import quantized_parts, rebuild_quantized
        return (rebuild_quantized, quantized_parts(t))
    if hasattr(t._data, "layout_name"):      # NOTE [sparse layout]: pickled as components
        from ember._ops.sparse import rebuild_sparse, sparse_parts
        return (rebuild_sparse, (*sparse_parts(t), t._requires_grad))
    payload, offset, strides = _layout(t)
    return (_rebuild, (type(t), payload, t._dtype, tuple(t._data.shape), offset, tuple(strides),
                       str(t._device), t._requires_grad, _user_state(t)))


def deepcopy_tensor(t, memo):
    """`t.__deepcopy__`: a new leaf; views of one storage keep sharing within one deepcopy."""
    import copy
    found = memo.get(id(t))
    if found is not None:
        return found
    _check(t._grad_fn is None, (
        "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
        "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
        "because of a torch.nn.utils.weight_norm usage, see "
        "https://github.com/pytorch/pytorch/pull/103001"))
    if hasattr(t._data, "layout_name") or t.is_quantized:  # NOTE [sparse layout]
        function, args = reduce_tensor(t)
        new = memo[id(t)] = function(*copy.deepcopy(args, memo))
        return new
    state = copy.deepcopy(_user_state(t), memo)
    if t._device is not CPU:
        payload, offset, strides = _layout(t)
        new = _rebuild(type(t), payload, t._dtype, tuple(t._data.shape), offset, strides,
                       str(t._device), t._requires_grad, state)
    else:
        storage = memory_owner(dispatch.storage_of(t))      # (t.data's storage is t's)
        key = ("ember.UntypedStorage", id(storage))
        found = memo.get(key)
        if found is None:
            payload, _ = _storage_bytes(t)
            found = memo[key] = UntypedStorage(payload.view(storage._array.dtype), CPU)
            # deepcopy's memo keeps what it keys by id alive; do the same for the storage.
            memo.setdefault(id(memo), []).append(storage)
        offset = _data_ptr(t._data) - _data_ptr(storage._array)
        array = _array_on(found._array.view(np.uint8), t._dtype._np, t._data.shape, offset,
                          t._data.strides)
        new = _make_tensor(type(t), array, t._dtype, CPU, found, t._requires_grad, state)
    if t._grad is not None:
        new._grad = copy.deepcopy(t._grad, memo)
    memo[id(t)] = new
    return new

