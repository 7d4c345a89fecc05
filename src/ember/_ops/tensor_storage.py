"""Tensor methods about the memory behind a tensor rather than its values: set_ (point a
tensor at another tensor's or a storage's memory), share_memory_ (move the storage into memory
that forked processes share), pin_memory, and the moves to devices ember has no back-end for
(xpu, ipu, mtia) with PyTorch's errors.
"""
from __future__ import annotations

import mmap
import os
import weakref

import numpy as np

from ember._backends.meta import MetaArray
from ember._core import arguments, dispatch, strided, upcalls
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type
from ember._core.device import CPU, META, as_device
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend
from ember._core.storage import UntypedStorage, memory_owner

# The C++ element type names PyTorch's set_ messages print ("long int", "c10::Half").
_CPP_ELEMENT_NAMES = {
    dt.float32: "float", dt.float64: "double", dt.float16: "c10::Half",
    dt.bfloat16: "c10::BFloat16", dt.complex64: "c10::complex<float>",
    dt.complex128: "c10::complex<double>", dt.int64: "long int", dt.int32: "int",
    dt.int16: "short int", dt.int8: "signed char", dt.uint8: "unsigned char", dt.bool_: "bool",
    dt.uint16: "unsigned short", dt.uint32: "unsigned int", dt.uint64: "unsigned long",
}


def _element_name(dtype) -> str:
    return _CPP_ELEMENT_NAMES.get(dtype, f"c10::{dtype._cpp_name}")


# --------------------------------------------------------------------------- set_

def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Tensor.set_(source=None, storage_offset=0, size=None, stride=None) -> Tensor: make self
    a view of other memory. With a tensor, self takes its storage, offset, sizes and strides;
    with a storage, self reads its elements from `storage_offset` with `size` and `stride`
    (contiguous when not given; the whole storage when no size is given); with nothing, self
    becomes an empty tensor on a fresh storage. The storage is grown when the view reaches past
    its end.

    NOTE [set_ rebinds one tensor]: self stops sharing memory with the views it had; those keep
    the old memory, and the version counter self reads from now on is its new storage's."""
    if _state.entry and _wants(locals()):
        return _handle(set_, locals())
    tensor_source = isinstance(source, dispatch.Tensor)
    storage_source = _storage_of_source(source)
    if not (source is None and storage_offset is None and size is None and stride is None) \
            and not _set_arguments_match(source, tensor_source, storage_source, storage_offset,
                                         size, stride):
        raise parser_error_for_set(source, storage_offset, size, stride)
    _check(not (self._requires_grad and self._grad_fn is None and dispatch.state.grad_enabled()),
           "a leaf Variable that requires grad is being used in an in-place operation.")
    if tensor_source:
        _check(source._dtype is self._dtype, lambda: (
            f"Could not set tensor of type {_element_name(source._dtype)} to a tensor of type "
            f"{_element_name(self._dtype)}"))
        _check_same_device(self, source._device)
        if storage_offset is None:
            self._data = source._data
            self._storage = dispatch.storage_of(source)
            self._base = None
            return self
        storage_source = dispatch.storage_of(source)
    elif source is None:
        xp_zeros = np.zeros if self._device is not META else None
        self._data = xp_zeros(0, self._data.dtype) if xp_zeros is not None else \
            type(self._data)((0,), self._data.dtype)
        self._storage = None
        self._base = None
        return self
    return _set_to_storage(self, source, storage_source, storage_offset, size, stride)


def _storage_of_source(source):
    """The UntypedStorage a set_ source names (a TypedStorage wraps one), or None."""
    if isinstance(source, UntypedStorage):
        return source
    untyped = getattr(source, "_untyped_storage", None)
    return untyped if isinstance(untyped, UntypedStorage) else None


def _set_arguments_match(source, tensor_source, storage_source, offset, size, stride) -> bool:
    """Whether the call matches one of set_'s overloads: (source), or (source, storage_offset,
    size, stride=None) with ints for the offset and sizes."""
    if not tensor_source and storage_source is None:
        return False
    if offset is None and size is None and stride is None:
        return True
    if offset is None or size is None:
        return False
    return (_is_int(offset) and _is_int_list(size)
            and (stride is None or _is_int_list(stride)))


def _is_int(value) -> bool:
    return hasattr(value, "__index__") and not isinstance(value, bool)


def _is_int_list(value) -> bool:
    return isinstance(value, (tuple, list)) and all(_is_int(v) for v in value)


def parser_error_for_set(source, offset, size, stride):
    given = [source] + [v for v in (offset, size, stride) if v is not None]
    names = ", ".join(_type_name(v) for v in given)
    return TypeError(
        f"set_() received an invalid combination of arguments - got ({names}), but expected one "
        "of:\n * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, "
        "tuple of ints size, tuple of ints stride = None)\n * (Tensor source)\n * (Tensor "
        "source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n")


def _type_name(value) -> str:
    if isinstance(value, dispatch.Tensor):
        return "Tensor"
    if isinstance(value, UntypedStorage):
        return "torch.storage.UntypedStorage"
    return type(value).__name__


def _check_same_device(self, device) -> None:
    _check(device == self._device, lambda: (
        f'Attempted to set the storage of a tensor on device "{self._device}" to a storage on '
        f'different device "{device}".  This is no longer allowed; the devices must match.'))


def _set_to_storage(self, source, storage, offset, size, stride):
    typed_dtype = getattr(source, "dtype", None) if storage is not source and \
        not isinstance(source, dispatch.Tensor) else None
    _check(typed_dtype is None or typed_dtype is self._dtype, lambda: (
        f"Expected a Storage of type {_element_name(self._dtype)} or an UntypedStorage, but got "
        f"type {typed_dtype._cpp_name} for argument 1 'storage'"))
    _check_same_device(self, storage.device if storage.device is not None else CPU)
    itemsize = self._dtype.itemsize
    if size is None:
        offset, shape = 0, (storage.nbytes() // itemsize,)
        strides = (1,)
    else:
        offset, shape = int(offset), tuple(int(s) for s in size)
        strided.check_offset(offset)
        strided.check_numel(shape)
        strides = _contiguous_strides(shape) if stride is None else tuple(int(s) for s in stride)
        _check(len(strides) == len(shape), lambda: (
            f"unequal size length ({len(shape)}) and stride length ({len(strides)})"))
    if self._device is META:
        # (PyTorch checks no storage bounds on meta: nothing is allocated.)
        strides = strided.replace_negative_strides(shape, strides)
        self._data = MetaArray(shape, self._data.dtype, strided.byte_strides(strides, itemsize))
        self._storage = storage
        self._base = None
        return self
    _check_type(self._device is CPU, "set_: a storage source is supported on CPU tensors only")
    # NOTE [strided views are checked against their storage]
    needed = strided.storage_nbytes(shape, strides, offset, itemsize) // itemsize
    strides = strided.replace_negative_strides(shape, strides)
    byte_strides = strided.byte_strides(strides, itemsize)
    elements = _storage_elements(storage, self._dtype)
    if needed > elements.size:
        # PyTorch grows the storage itself; ember gives self a grown copy (NOTE [resize_
        # allocates apart from other views]).
        grown = _allocate_zeros(needed, elements.dtype)
        grown[:elements.size] = elements
        elements, storage = grown, UntypedStorage(grown, CPU)
    self._data = np.lib.stride_tricks.as_strided(
        elements[offset:] if elements.size else elements, shape, byte_strides)
    self._storage = storage
    self._base = None
    return self


def _allocate_zeros(count, np_dtype) -> np.ndarray:
    """`count` zeros, or PyTorch's allocator error where the memory is not there (set_ is
    not called through a binding, which would turn NumPy's MemoryError into it)."""
    try:
        return np.zeros(count, np_dtype)
    except MemoryError as exc:
        raise RuntimeError(arguments.allocation_message(exc)) from None


def _contiguous_strides(shape) -> tuple:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _storage_elements(storage, dtype) -> np.ndarray:
    """The storage's bytes read as elements of `dtype` (a view of the same memory)."""
    from ember._typed_storage import _bytes_of
    raw = _bytes_of(storage._array)
    usable = raw.size - raw.size % dtype.itemsize
    return raw[:usable].view(np.dtype(dtype._np))


register_frontend("set_", function=False)(set_)


# --------------------------------------------------------------------------- share_memory_

# Storages moved into shared memory by share_memory_ (Tensor.is_shared reads this), each with
# the file descriptor of its memory where it has one (NOTE [shared tensors]).
_SHARED_STORAGES: weakref.WeakSet = weakref.WeakSet()
_SHARED_FDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def shared_buffer(nbytes: int):
    """(mmap, file descriptor) of `nbytes` of fresh shared memory.

    NOTE [shared tensors]: share_memory_ puts a storage in a memfd (a file in memory) mapped
    MAP_SHARED: processes forked afterwards share it as they inherit the mapping, and the
    descriptor lets ember.multiprocessing hand the same memory to any other process (a Queue,
    a spawned child: multiprocessing duplicates the descriptor into the receiver, which maps
    it). The descriptor is closed when the storage goes. Without memfd (not Linux), anonymous
    shared memory: shared with forked children only."""
    size = max(nbytes, 1)
    create = getattr(os, "memfd_create", None)
    if create is None:
        return mmap.mmap(-1, size), None
    fd = create("ember-shared", getattr(os, "MFD_CLOEXEC", 0))
    os.ftruncate(fd, size)
    return mmap.mmap(fd, size), fd


def register_shared(storage, fd) -> None:
    """Mark `storage` as living in shared memory (with its descriptor, closed with it)."""
    _SHARED_STORAGES.add(storage)
    if fd is not None:
        _SHARED_FDS[storage] = fd
        weakref.finalize(storage, os.close, fd)


def shared_fd(storage):
    """The descriptor of a shared storage's memory, or None."""
    return _SHARED_FDS.get(memory_owner(storage))


def share_memory_(self):
    """Tensor.share_memory_() -> Tensor: move self's storage into shared memory (NOTE [shared
    tensors]), so processes forked afterwards (multiprocessing, DataLoader workers), and those
    it is sent to through ember.multiprocessing, read and write the same elements. A no-op
    when it is shared already, and on devices other than the CPU.

    As with set_ (NOTE [set_ rebinds one tensor]), views made of self before the call keep the
    old memory; views made after it share."""
    if _state.entry and _wants(locals()):
        return _handle(share_memory_, locals())
    if self._device is not CPU or is_shared(self):
        return self
    storage = dispatch.storage_of(self)
    root = storage._array
    from ember._typed_storage import _bytes_of
    old_bytes = _bytes_of(root)
    buffer, fd = shared_buffer(old_bytes.size)      # NOTE [shared tensors]
    np.frombuffer(buffer, np.uint8, count=old_bytes.size)[...] = old_bytes
    new_root = np.ndarray(root.shape, root.dtype, buffer=buffer, strides=root.strides)
    data = self._data
    start = data.__array_interface__["data"][0] - old_bytes.__array_interface__["data"][0] \
        if data.size else 0
    self._data = np.ndarray(data.shape, data.dtype, buffer=buffer, offset=start,
                            strides=data.strides)
    shared = UntypedStorage(new_root, CPU)
    shared._version = storage._version
    self._storage = shared
    register_shared(shared, fd)
    return self


def is_shared(self) -> bool:
    """Whether share_memory_ moved the tensor's storage into shared memory (Tensor.is_shared,
    misc_tensor.py, asks this)."""
    storage = self._storage
    return storage is not None and memory_owner(storage) in _SHARED_STORAGES


register_frontend("share_memory_", function=False)(share_memory_)


# --------------------------------------------------------------------------- pin_memory

def pin_memory(self, device=None):
    """Tensor.pin_memory(device=None) -> Tensor: a copy in page-locked host memory, for fast
    copies to an accelerator. Without one, PyTorch's RuntimeError."""
    if _state.entry and _wants(locals()):
        return _handle(pin_memory, locals())
    import warnings

    if device is not None:
        warnings.warn("The argument 'device' of Tensor.pin_memory() is deprecated. Please do "
                      "not pass this argument.", DeprecationWarning, stacklevel=2)
        _check(as_device(device).type != "cpu", "CPU device type not an accelerator.")
    _check(upcalls.accelerator_available(),
           "Cannot access accelerator device when none is available.")
    _check(self._device is CPU, lambda: (
        f"cannot pin '{self.type()}' only dense CPU tensors can be pinned"))
    return self.clone()


register_frontend("pin_memory", function=False)(pin_memory)


# --------------------------------------------------------------------------- absent devices

def xpu(self, device=None, non_blocking=False, memory_format=None):
    """Tensor.xpu(): ember has no XPU back-end (PyTorch's AssertionError)."""
    if _state.entry and _wants(locals()):
        return _handle(xpu, locals())
    raise AssertionError("Torch not compiled with XPU enabled")


def ipu(self, device=None, non_blocking=False, memory_format=None):
    """Tensor.ipu(): ember has no IPU back-end (PyTorch's RuntimeError)."""
    if _state.entry and _wants(locals()):
        return _handle(ipu, locals())
    raise RuntimeError("PyTorch is not linked with support for ipu devices")


def mtia(self, device=None, non_blocking=False, memory_format=None):
    """Tensor.mtia(): ember has no MTIA back-end (PyTorch's AssertionError)."""
    if _state.entry and _wants(locals()):
        return _handle(mtia, locals())
    raise AssertionError(
        "Torch not compiled with MTIA enabled. Ensure you have `import "
        "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
        "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


def record_stream(self, stream):
    """Tensor.record_stream(stream): mark the memory as used by a CUDA stream. A CPU tensor has
    no streams: PyTorch's errors."""
    if _state.entry and _wants(locals()):
        return _handle(record_stream, locals())
    # (a Stream, ember's or a device module's, or a subclass: known by name, since the class
    # lives in the facade above the op families)
    _check(any(c.__name__ == "Stream" for c in type(stream).__mro__), "unknown parameter type")
    if self._device.type == "cuda":
        return
    raise NotImplementedError(
        f"Could not run 'aten::record_stream' with arguments from the '{_backend_name(self)}' "
        "backend. This could be because the operator doesn't exist for this backend, or was "
        "omitted during the selective/custom build process (if using custom build).")


def _backend_name(t) -> str:
    return "Meta" if t._device is META else t._device.type.upper()


for _fn in (xpu, ipu, mtia, record_stream):
    register_frontend(_fn.__name__, function=False)(_fn)


