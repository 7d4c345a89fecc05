"""Copies and conversions: `_to_copy` (dtype and device moves), `clone`, `contiguous`, `copy_`,
and `detach` (an alias cut off from autograd).

Gradients go straight through a copy; the engine casts them back to the input's dtype, and
`_to_copy` moves them back to the input's device.
"""
from __future__ import annotations

import numpy as np

from ember._backends import get_backend
from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import MetaArray
from ember._core import arguments, complex_half, dispatch, layout
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type, _warn_once
from ember._core.device import CPU, META, as_device, placed
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import cast
from ember._core.registry import OPS, on_built, register_frontend, register_op
from ember._ops.grad_utils import identity, zeros_grad


def cast_array(array, target: dt.dtype):
    """`array` as `target`'s dtype, with PyTorch's conversions (float -> int truncates)."""
    if array.dtype == target._np:
        return array
    if array.dtype.names is not None and target is not dt.complex32:
        # complex32 (NOTE [complex32 storage]) converts as its complex64 values do
        return cast_array(complex_half.widen(array), target)
    if array.dtype.kind == "c" and target is dt.bool_:
        return array != 0                   # either part nonzero, as PyTorch
    if array.dtype.kind == "c" and target._category < dt.COMPLEX:
        _warn_once("complex to real", "Casting complex values to real discards the imaginary "
                                      "part")
        array = array.real
    return cast(array, target._np)   # overflow and NaN to integers: quietly, as PyTorch


def _to_copy_meta(self, dtype=None, layout=None, device=None, pin_memory=None,
                  non_blocking=False, memory_format=None):
    return (self._data.shape, dtype or self._dtype)


def _to_copy_grad(c):
    # (The engine casts the gradient back to self's dtype; a complex one loses its imaginary
    # part on the way to a real input, as in PyTorch.)
    grad, device = c.grad, c.self._device
    return grad if grad._device is device else grad.to(device)


@register_op("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
             "Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
             "MemoryFormat? memory_format=None) -> Tensor", kind="generic", method=False,
             function=False, meta=_to_copy_meta, saves=(), derivatives={"self": _to_copy_grad},
             tags=("fp_errors", "keeps_layout"))
def _to_copy(xp, self, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    """A copy of self, converted to `dtype` and moved to `device` where given (the op under
    Tensor.to and Tensor.type when they must copy)."""
    target = dt.NP_TO_DTYPE[np.dtype(self.dtype)] if dtype is None else dtype
    return xp.array(cast_array(self, target), copy=True)


def to_copy(self, dtype, device):
    """Copy `self` to `dtype` and/or `device` (the engine behind Tensor.to)."""
    return dispatch.call(OPS["_to_copy"], (self, dtype, None, device, None, False, None))


# NOTE [_to_copy crosses devices]: the generic runner computes on its input's device; a move to
# another device copies through the host, so `_to_copy` has its own runner, and every copy
# (same device or not) is one op that a TorchDispatchMode sees.
def _run_to_copy(op, args):
    self = args[0]
    _check_type(isinstance(self, dispatch.Tensor), lambda: (
        f"_to_copy(): argument 'self' (position 1) must be Tensor, not {type(self).__name__}"))
    source = self._device
    if source is not CPU and source == CPU or type(self._data) is MetaArray and source is not META:
        # NOTE [sparse layout]: a sparse tensor's copy is its layout's kernel's; a wrapper
        # subclass (a MetaArray on a real device) answers it in __torch_dispatch__.
        return dispatch.stack.function_level(op, args)
    out = _copy_step(op, args)
    if self._requires_grad and dispatch.state.record is not None:
        dispatch.state.record(op, args, out)
    return out


def _copy_step(op, args):
    """`_to_copy`'s back-end step (no autograd), also on the layered path (modes, autocast):
    the generic step would compute on the input's device and ignore `device`."""
    self, dtype, device = args[0], args[1], args[3]
    _check_type(isinstance(self, dispatch.Tensor), lambda: (
        f"_to_copy(): argument 'self' (position 1) must be Tensor, not {type(self).__name__}"))
    source = self._device
    target = source if device is None else placed(as_device(device))
    target_dtype = self._dtype if dtype is None else dtype
    if target is META:
        shape, _, strides = _copy_spec(self, target_dtype, args[6], "to")
        out = dispatch.wrap(MetaArray(shape, target_dtype._np, strides), target_dtype, META)
    elif target is source:
        kernel = op.kernels.get(source.type) or op.kernel_for(source.type)
        out = dispatch.wrap(kernel(get_backend(source.type).xp, self._data, *args[1:]),
                            target_dtype, target)
    else:
        _check_not_implemented(source is not META, "Cannot copy out of meta tensor; no data!")
        host = cast_array(self._host(), target_dtype)
        array = get_backend(target.type).from_host(np.array(host, copy=True), target)
        out = dispatch.wrap(array, target_dtype, target)
    return out


dispatch.runners.OWN_STEPS[OPS["_to_copy"]] = _copy_step


def _same_meta(self, memory_format=None):
    # A copy is laid out as the kernel lays it: preserve keeps a dense layout (NOTE
    # [preserve_format in *_like], creation.py).
    return _copy_spec(self, self._dtype, memory_format, "clone")


def _copy_spec(self, dtype, memory_format, where):
    """(shape, dtype, byte strides) of a copy of `self` in `dtype` and `memory_format`."""
    from ember._ops.creation import like_strides
    strides = like_strides(self._data, memory_format, where)
    if strides is not None:
        strides = tuple(s * dtype.itemsize for s in strides)
    return (self._data.shape, dtype, strides)


@register_op("clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
             kind="generic", meta=_same_meta, saves=(), derivatives={"self": identity},
             tags=("keeps_layout",), out=False)
def clone(xp, self, memory_format=None):
    """clone(input, *, memory_format=ember.preserve_format) -> Tensor: a copy with new storage."""
    name = layout.format_name(memory_format, "clone")
    if name == layout.PRESERVE:
        if self.flags.c_contiguous:
            return backend_helpers(xp).copy(self)        # NOTE [back-end helpers]
        # A dense layout is kept as it is; any other keeps its order of dims, made dense.
        itemsize = self.dtype.itemsize
        strides = tuple(s // itemsize for s in self.strides)
        if layout.is_dense(self.shape, strides) and min(strides, default=0) >= 0:
            return layout.relayout(xp, xp.array(self, copy=True, order="K"), strides)
        return xp.array(self, copy=True, order="K")
    if name == layout.CONTIGUOUS:
        return backend_helpers(xp).copy(self)
    copy = layout.empty_strided_array(xp, self.shape, layout.format_strides(self.shape, name),
                                      self.dtype)
    copy[...] = self
    return copy


@register_frontend(function=False)
def contiguous(self, memory_format=None):
    """contiguous(memory_format=ember.contiguous_format) -> Tensor: the tensor itself if its
    layout already is `memory_format`, else a copy in that layout."""
    if _state.entry and _wants(locals()):
        return _handle(contiguous, locals())
    name = layout.format_name(memory_format, "contiguous", layout.CONTIGUOUS)
    if name in (layout.CHANNELS_LAST, layout.CHANNELS_LAST_3D):
        layout.format_strides(self.shape, name)        # the rank check
    if self.is_contiguous(memory_format=memory_format):
        return self
    _check(name != layout.PRESERVE,
           "preserve memory format is unsupported by the contiguous operator")
    return self.clone(memory_format=memory_format or layout.contiguous_format)


def _copy_meta(self, src, non_blocking=False):
    return (self._data.shape, self._dtype)


# NOTE [copy_ under autograd]: `dst.copy_(src)` replaces dst's values, so dst's history becomes
# the copy: src gets the gradient (summed over broadcast dims and cast by the engine) and dst's
# old history gets zeros. The frontend below goes through this op (in place) whenever autograd
# or a mode has to see the write, and writes the arrays directly otherwise.
@register_op("copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
             kind="generic", function=False, method=False, out=False, meta=_copy_meta,
             saves=(), derivatives={"self": zeros_grad, "src": identity},
             tags=("fp_errors", "keeps_layout"))
def _copy(xp, self, src, non_blocking=False):
    """`src` broadcast to self's shape and cast to self's dtype, in new memory."""
    target = dt.NP_TO_DTYPE[np.dtype(self.dtype)]
    return xp.array(xp.broadcast_to(cast_array(src, target), self.shape), copy=True)


@register_frontend(function=False)
def copy_(self, src, non_blocking=False):
    """Copy `src` (broadcast to self's shape, cast to self's dtype) into self, in place."""
    if _state.entry and _wants(locals()):
        return _handle(copy_, locals())
    from ember._core.checks import _check
    if non_blocking is not False and non_blocking is not True:
        arguments.refuse(("copy_", "non_blocking", 2), "bool", non_blocking)
    if not isinstance(src, dispatch.Tensor):
        # A number is taken (as PyTorch does); a list or NumPy array is not.
        _check_type(isinstance(src, (bool, int, float, complex)), lambda: (
            f"copy_(): argument 'other' (position 1) must be Tensor, not "
            f"{type(src).__module__ + '.' if type(src).__module__ != 'builtins' else ''}"
            f"{type(src).__name__}"))
        from ember._ops.creation_data import tensor
        src = tensor(src)
    dispatch.check_broadcastable(None, (self._data.shape, src._data.shape))
    if 0 in self._data.strides and self._data.size:
        dispatch.check_not_overlapping(self._data)      # an expanded self: one cell, many writes
    _check(np.broadcast_shapes(self._data.shape, src._data.shape) == self._data.shape, lambda: (
        f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
        f"{list(np.broadcast_shapes(self._data.shape, src._data.shape))}"))
    if src._device is not self._device and self._device is not META:
        src = src.to(self._device)
    if dispatch.state.slow or ((self._requires_grad or src._requires_grad) and
                               dispatch.state.grad_enabled()):
        # Through the op when autograd or a mode must see the write (NOTE [the slow path]).
        return dispatch.call_inplace(OPS["copy"], (self, src, non_blocking))
    if self._device is CPU:
        np.copyto(self._data, cast_array(src._data, self._dtype), casting="unsafe")
    elif self._device is not META:
        self._data[...] = cast_array(src._data, self._dtype)
    dispatch.bump_version(self)
    return self


# NOTE [detach is an op]: `detach` returns a new tensor on self's storage (same data, same
# version counter, no `_base`: it is not a view to autograd) with no history. It is a registry
# op so that a TorchDispatchMode sees it (a mode recording ops must not take the result for
# self); it
# runs as its own runner (`detached` below), and `Tensor.detach` calls that directly
# when no mode is watching (see NOTE [the slow path]).
@register_op("detach(Tensor(a) self) -> Tensor(a)", kind="view", out=False, method=False,
             differentiable=False, meta=lambda self: (self._data.shape, self._dtype))
def _detach(xp, self):
    """detach(input) -> Tensor: a tensor sharing input's data and version counter, cut off
    from the autograd graph."""
    return self


def detached(t):
    """`t` cut off from the graph: a new tensor on its storage (the kernel of `detach`)."""
    out = dispatch.wrap(t._data, t._dtype, t._device)
    out._storage = dispatch.storage_of(t)
    return out


def _run_detach(op, args):
    self = args[0]
    _check_type(isinstance(self, dispatch.Tensor), lambda: (
        f"detach(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}"))
    if type(self._data) is MetaArray and self._device is not META:
        return dispatch.stack.function_level(op, args)     # a wrapper subclass answers it
    return detached(self)



# NOTE [item is an op under modes]: `Tensor.item` (and `float(t)`, `bool(t)` ... through it)
# reads the one element as a Python number. PyTorch does that in the op `_local_scalar_dense`,
# which a TorchDispatchMode sees (an optimizer's step count, a loss printed in the loop); so
# while a mode is open (`state.slow`) `item` calls this op, whose back-end step reads the host
# value (a number, not a tensor: the op has its own runner and step). The plain `item` reads the
# array itself and never looks here.
@register_op("_local_scalar_dense(Tensor self) -> Scalar", kind="generic", function=False,
             method=False, out=False, differentiable=False)
def _local_scalar_dense(xp, self):
    """The one element of `self` as a Python number (the op under Tensor.item)."""
    return self.reshape(()).item()


def _scalar_step(op, args):
    self = args[0]
    _check_type(isinstance(self, dispatch.Tensor), lambda: (
        f"_local_scalar_dense(): argument 'self' (position 1) must be Tensor, not "
        f"{type(self).__name__}"))
    _check(self._data.size == 1, lambda: (
        f"a Tensor with {self._data.size} elements cannot be converted to Scalar"))
    _check(self._device is not META, "Tensor.item() cannot be called on meta tensors")
    return self._host_numbers().reshape(()).item()


dispatch.runners.OWN_STEPS[OPS["_local_scalar_dense"]] = _scalar_step

# The runners of these entries, given as each is built (`import ember` builds none, NOTE [op
# entries are built on first use]); before the bindings' own hook, which then leaves them.
_RUNNERS = {"_to_copy": _run_to_copy, "detach": _run_detach,
            "_local_scalar_dense": _scalar_step}


def _own_runner(op) -> None:
    runner = _RUNNERS.get(op.name)
    if runner is not None:
        op.runner = runner


on_built(_own_runner)
