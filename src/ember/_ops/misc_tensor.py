"""Tensor queries and small tensor-making functions PyTorch has beside the op families:
is_pinned, is_shared, is_distributed, is_set_to, const_data_ptr, the device-kind flags
(is_xpu, is_mps ...), the top-level get_device/is_signed/is_inference/is_distributed, resize and
resize_as (the deprecated out-of-place forms), nonzero_static, empty_permuted, from_file and
set_flush_denormal.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dispatch, upcalls
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_type
from ember._core.device import CPU
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.dtype import get_default_dtype
from ember._core.registry import OPS, register_frontend

# --------------------------------------------------------------------------- queries

def is_pinned(self, device=None):
    """Tensor.is_pinned(device=None) -> bool: False (ember never allocates page-locked host
    memory)."""
    if _state.entry and _wants(locals()):
        return _handle(is_pinned, locals())
    return False


def is_shared(self):
    """Tensor.is_shared() -> bool: whether share_memory_ moved the storage into memory that
    forked processes share."""
    if _state.entry and _wants(locals()):
        return _handle(is_shared, locals())
    from ember._ops.tensor_storage import is_shared as storage_is_shared
    return storage_is_shared(self)


def is_distributed(self):
    """Tensor.is_distributed() -> bool: False, as PyTorch answers."""
    if _state.entry and _wants(locals()):
        return _handle(is_distributed, locals())
    return False


def is_set_to(self, tensor):
    """Tensor.is_set_to(tensor) -> bool: whether both tensors view the same storage with the
    same offset, sizes and strides."""
    if _state.entry and _wants(locals()):
        return _handle(is_set_to, locals())
    return (self.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr()
            and self.storage_offset() == tensor.storage_offset()
            and tuple(self.shape) == tuple(tensor.shape)
            and tuple(self.stride()) == tuple(tensor.stride()))


def const_data_ptr(self):
    """Tensor.const_data_ptr() -> int: the address of the first element (as data_ptr)."""
    if _state.entry and _wants(locals()):
        return _handle(const_data_ptr, locals())
    return self.data_ptr()


register_frontend("is_pinned", function=False)(is_pinned)
register_frontend("is_shared", function=False)(is_shared)
register_frontend("is_distributed")(is_distributed)
register_frontend("is_set_to", function=False)(is_set_to)
register_frontend("const_data_ptr", function=False)(const_data_ptr)


def _device_flag(kind):
    def flag(self):
        return self.device.type == kind
    flag.__name__ = f"is_{kind}"
    flag.__doc__ = f"Whether the tensor lives on a {kind} device (ember has none: False)."
    return property(flag)


for _kind in ("xpu", "mps", "xla", "mtia", "ipu", "maia", "vulkan"):
    register_frontend(f"is_{_kind}", function=False,
                      method=_device_flag(_kind))(lambda self: None)


def _never(name, what):
    """A flag for a layout or tensor kind ember does not have: always False."""
    def flag(self):
        return False
    flag.__name__ = name
    flag.__doc__ = f"Whether the tensor is {what} (ember has none: False)."
    return property(flag)


register_frontend("is_mkldnn", function=False,
                  method=_never("is_mkldnn", "a oneDNN (mkldnn) tensor"))(lambda self: None)
register_frontend("is_nested", function=False,
                  method=_never("is_nested", "a nested tensor"))(lambda self: None)


@register_frontend("get_device", method=False)
def get_device(input):
    """get_device(input) -> int: the index of the tensor's device, -1 on the CPU."""
    if _state.entry and _wants(locals()):
        return _handle(get_device, locals())
    return input.get_device()


@register_frontend("is_signed", method=False)
@checked("is_signed(Tensor self)")
def is_signed(input):
    """is_signed(input) -> bool: whether the tensor's dtype is signed."""
    if _state.entry and _wants(locals()):
        return _handle(is_signed, locals())
    return input.is_signed()


@register_frontend("is_inference", method=False)
@checked("is_inference(Tensor self)")
def is_inference(input):
    """is_inference(input) -> bool: whether the tensor was made in inference mode."""
    if _state.entry and _wants(locals()):
        return _handle(is_inference, locals())
    return input.is_inference()


# --------------------------------------------------------------------------- resize

def resize(self, *sizes):
    """Tensor.resize(*sizes) -> Tensor (deprecated): self reshaped to `sizes`, which must hold
    as many elements (autograd tracks it as a reshape)."""
    if _state.entry and _wants(locals()):
        return _handle(resize, locals())
    import warnings
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    count = math.prod(sizes)
    _check(count == self.numel(), lambda: (
        f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), but the "
        f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} "
        "elements). autograd's resize can only change the shape of a given tensor, while "
        "preserving the number of elements. "))
    return self.reshape(sizes)


def resize_as(self, tensor):
    """Tensor.resize_as(tensor) -> Tensor (deprecated): self.resize(tensor.size())."""
    if _state.entry and _wants(locals()):
        return _handle(resize_as, locals())
    return resize(self, tuple(tensor.shape))


register_frontend("resize", function=False)(resize)
register_frontend("resize_as", function=False)(resize_as)


# --------------------------------------------------------------------------- making tensors

@register_frontend("nonzero_static")
@checked("nonzero_static(Tensor self, *, SymInt size, int fill_value=-1)")
def nonzero_static(input, *, size, fill_value=-1):
    """nonzero_static(input, *, size, fill_value=-1) -> Tensor: nonzero's (n, ndim) indices cut
    or padded with `fill_value` to exactly `size` rows."""
    if _state.entry and _wants(locals()):
        return _handle(nonzero_static, locals())
    _check(size >= 0, lambda: f"nonzero_static: 'size' must be an non-negative integer, but got "
                              f"size: {size}")
    found = input.nonzero()
    rows = found.shape[0]
    if rows >= size:
        return found[:size].clone()
    padding = found.new_full((size - rows, found.shape[1]), fill_value)
    return dispatch.call(OPS["cat"], ([found, padding], 0))


@register_frontend("empty_permuted", method=False)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad=False) ->
    Tensor: an uninitialized tensor of `size` whose dims lie in memory in the order
    `physical_layout` (outermost first)."""
    if _state.entry and _wants(locals()):
        return _handle(empty_permuted, locals())
    from ember._ops.creation import empty
    size, order = tuple(size), tuple(physical_layout)
    _check(sorted(order) == list(range(len(size))), lambda: (
        f"Dimension mismatch: physical_layout {list(order)} is not a permutation of the "
        f"{len(size)} dims"))
    physical = empty([size[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in range(len(size))]
    return physical.permute(inverse).requires_grad_(requires_grad)


@register_frontend("from_file", method=False)
def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None,
              pin_memory=False):
    """from_file(filename, shared=None, size=0, *, dtype=None, device=None) -> Tensor: `size`
    elements read from the file as raw bytes of `dtype`; with shared=True the tensor maps the
    file, so writes to it reach the file."""
    if _state.entry and _wants(locals()):
        return _handle(from_file, locals())
    dtype = dtype if dtype is not None else get_default_dtype()
    _check_type(isinstance(size, int), lambda: (
        f"from_file(): argument 'size' must be int, not {type(size).__name__}"))
    item = np.dtype(dtype._np)
    available = 0
    import os
    if os.path.exists(filename):
        available = os.path.getsize(filename) // item.itemsize
    _check(available >= size, lambda: (
        f"unable to read {size * item.itemsize} bytes from {filename}: the file holds "
        f"{available * item.itemsize}"))
    if shared:
        array = np.memmap(filename, dtype=item, mode="r+", shape=(size,))
    else:
        array = np.fromfile(filename, dtype=item, count=size)
    result = dispatch.wrap(np.asarray(array) if not shared else array, dtype, CPU)
    return result if device is None else result.to(device)


@register_frontend("set_flush_denormal", method=False)
def set_flush_denormal(mode):
    """set_flush_denormal(mode) -> bool: whether flushing denormal numbers to zero could be
    set; False, since NumPy's kernels have no such switch."""
    if _state.entry and _wants(locals()):
        return _handle(set_flush_denormal, locals())
    return False


# --------------------------------------------------------------------------- typed storage

def storage(self):
    """Tensor.storage() -> TypedStorage (deprecated, as in PyTorch): the tensor's storage read
    as elements of its dtype; use untyped_storage() instead."""
    if _state.entry and _wants(locals()):
        return _handle(storage, locals())
    from ember._typed_storage import TypedStorage, warn_typed_storage_removal
    warn_typed_storage_removal()
    return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype, _internal=True)


def storage_type(self):
    """Tensor.storage_type() -> type: the legacy storage class of the tensor's dtype
    (ember.FloatStorage for float32)."""
    if _state.entry and _wants(locals()):
        return _handle(storage_type, locals())
    from ember._typed_storage import legacy_class
    return legacy_class(self.dtype)


register_frontend("storage", function=False)(storage)
register_frontend("storage_type", function=False)(storage_type)


@register_frontend("set_anomaly_enabled", method=False)
def set_anomaly_enabled(enabled, check_nan=True):
    """set_anomaly_enabled(enabled, check_nan=True) -> None: switch anomaly detection on or off
    for the process (what autograd.set_detect_anomaly does on entry)."""
    if _state.entry and _wants(locals()):
        return _handle(set_anomaly_enabled, locals())
    upcalls.set_anomaly_enabled(bool(enabled), bool(check_nan))
