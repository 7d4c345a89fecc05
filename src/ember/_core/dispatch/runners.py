"""Runners for the non-pointwise kinds: generic (and reduction), view, factory; meta rules.

Each kind has a runner (`op.runner`, chosen on first call) whose fast path serves one or two
leading plain-acting CPU tensors with the whole stack collapsed (NOTE [the plain call],
stack.py), and a back-end step (`*_general`) for every other call: unwrap tensors to arrays,
check devices, run the device's kernel with its `xp`, wrap the results. Back-end steps never
record autograd; the autograd level above them does. Pointwise ops have theirs in pointwise.py.
"""
from __future__ import annotations

import numpy as np

from ember._backends import BACKENDS, get_backend
from ember._backends.meta import MetaArray
from ember._core import arguments
from ember._core import dtype as dt
from ember._core.checks import _check_not_implemented
from ember._core.device import CPU, META
from ember._core.device import as_device as _as_device
from ember._core.device import device as _Device
from ember._core.device import get_default_device_or_none as _default_device_or_none
from ember._core.device import placed as _placed
from ember._core.dispatch.devices import common_device
from ember._core.dispatch.pointwise import UnsupportedOperand, run_kernel
from ember._core.dispatch.process_state import state
from ember._core.dispatch.subclasses import PLAIN
from ember._core.dispatch.wrapping import (
    generic_out,
    meta_from_spec,
    meta_like_views,
    storage_of,
    view_out,
    wrap,
    wrap_result,
)
from ember._core.fp_errors import _threads as _quiet_threads
from ember._core.fp_errors import nested, quiet_runner, run_plainly

Tensor = None            # set by ember._tensor once the class exists (set_tensor_class)
_ndarray = np.ndarray
_NP_TO_DTYPE = dt.NP_TO_DTYPE
_new = object.__new__
general = None           # the layered path, stack.function_level (set by stack.py)


def unwrap_args(op, args):
    """(device or None, args with tensors replaced by arrays)."""
    call_args = list(args)
    tensors = []
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, Tensor):
            tensors.append(v)
            call_args[i] = v._data
        elif v is not None:
            arg = op.schema.arguments[i]
            raise UnsupportedOperand(
                f"{op.schema.name}(): argument '{arg.name}' (position {i + 1}) must be Tensor, "
                f"not {type(v).__name__}")
    for i in op.list_positions:
        seq = args[i]
        check_tensor_list(op, i, seq)
        arrays = []
        for v in seq:
            if v is None:
                arrays.append(None)
                continue
            tensors.append(v)
            arrays.append(v._data)
        call_args[i] = arrays
    device = None
    if tensors:
        device = tensors[0]._device if len(tensors) == 1 else common_device(op, tensors)
    return device, call_args


def check_tensor_list(op, i, seq):
    arg = op.schema.arguments[i]
    if isinstance(seq, Tensor) or not isinstance(seq, (list, tuple)):
        raise TypeError(f"{op.schema.name}(): argument '{arg.name}' (position {i + 1}) must be "
                        f"tuple of Tensors, not {type(seq).__name__}")
    for v in seq:
        if not isinstance(v, Tensor) and not (v is None and arg.base_type == "Tensor?[]"):
            raise TypeError(f"{op.schema.name}(): argument '{arg.name}' (position {i + 1}) must "
                            f"be tuple of Tensors, not {type(v).__name__}")


# --------------------------------------------------------------------------- generic

def run_generic(op, args):
    positions = op.tensor_positions
    if not op.list_positions and len(positions) <= 3 and positions and positions[0] == 0:
        # NOTE [generic fast path]: one, two or three leading CPU tensors (sum, matmul, gather,
        # linear with its optional bias ...), the op's CPU entry (NOTE [the kernel table]:
        # `raw_kernel` is its cached entry). As on the pointwise fast path (NOTE [pointwise
        # fast path]), the kernel is called with its arguments spelled out (up to four) and a
        # single array result is wrapped inline.
        a = args[0]
        ta = type(a)
        if (ta is Tensor or ta in PLAIN) and a._device is CPU:
            x = a._data
            nargs = len(args)
            third = args[2] if nargs > 2 else None      # the kernel's third argument
            if len(positions) == 1:
                y = args[1] if nargs > 1 else None
                needs_grad = a._requires_grad
            else:
                b = args[1]
                tb = type(b)
                if (tb is not Tensor and tb not in PLAIN) or b._device is not CPU \
                        or positions[1] != 1:
                    return general(op, args)
                y = b._data
                needs_grad = a._requires_grad or b._requires_grad
                if len(positions) == 3:
                    # A third tensor at position 2, or None where it is optional (a bias).
                    c = args[2]
                    if c is not None:
                        tc = type(c)
                        if (tc is not Tensor and tc not in PLAIN) or c._device is not CPU \
                                or positions[2] != 2:
                            return general(op, args)
                        needs_grad = needs_grad or c._requires_grad
                        third = c._data
            kernel = op.raw_kernel
            # NOTE [floating-point warnings]: the quiet runner inline.
            run = (_quiet_threads.__dict__.get("run") or quiet_runner()) if op.quiet \
                else run_plainly
            try:
                if nargs == 4:
                    result = run(kernel, np, x, y, third, args[3])
                elif nargs == 1:
                    result = run(kernel, np, x)
                elif nargs == 2:
                    result = run(kernel, np, x, y)
                elif nargs == 3:
                    result = run(kernel, np, x, y, third)
                else:
                    result = run(kernel, np, x, y, third, *args[3:])
            except RuntimeError as error:
                if not nested(error):
                    raise
                result = kernel(np, x) if nargs == 1 else kernel(np, x, y) if nargs == 2 else \
                    kernel(np, x, y, third, *args[3:])
            if type(result) is _ndarray:        # generic_out, inline for one array
                if result.ndim and "keeps_layout" not in op.tags \
                        and not result.flags.c_contiguous:
                    result = np.ascontiguousarray(result)
                out = _new(Tensor)
                out._data = result
                out._dtype = _NP_TO_DTYPE[result.dtype]
                out._device = CPU
                out._storage = None
                out._requires_grad = False
                out._grad_fn = None
                out._grad = None
                out._base = None
            else:
                out = generic_out(op, result, np, CPU)
            if needs_grad and state.record is not None:
                state.record(op, args, out)
            return out
    elif not positions and op.list_positions == _FIRST:
        return _run_tensor_list(op, args)
    return general(op, args)


_FIRST = (0,)


# NOTE [tensor-list fast path]: an op whose one tensor argument is a leading list (cat, stack,
# hstack ...) of plain-acting CPU tensors: the arrays go to the op's CPU entry and the result
# is wrapped as on the generic fast path, recorded when an element requires grad. Anything
# else in the list (another device, an overriding subclass, None) takes the layered path.
def _run_tensor_list(op, args):
    """NOTE [tensor-list fast path]."""
    seq = args[0]
    kind = type(seq)
    if kind is not list and kind is not tuple:
        return general(op, args)
    arrays = []
    needs_grad = False
    for v in seq:
        tv = type(v)
        if (tv is not Tensor and tv not in PLAIN) or v._device is not CPU:
            return general(op, args)
        arrays.append(v._data)
        if v._requires_grad:
            needs_grad = True
    kernel = op.raw_kernel
    run = (_quiet_threads.__dict__.get("run") or quiet_runner()) if op.quiet else run_plainly
    try:
        result = run(kernel, np, arrays, *args[1:])
    except RuntimeError as error:
        if not nested(error):
            raise
        result = kernel(np, arrays, *args[1:])
    if type(result) is _ndarray and result.flags.c_contiguous:   # generic_out, inline
        out = _new(Tensor)
        out._data = result
        out._dtype = _NP_TO_DTYPE[result.dtype]
        out._device = CPU
        out._storage = None
        out._requires_grad = False
        out._grad_fn = None
        out._grad = None
        out._base = None
    else:
        out = generic_out(op, result, np, CPU)
    if needs_grad and state.record is not None:
        state.record(op, args, out)
    return out


# Ops whose back-end step is their own (op -> step(op, args)): `_to_copy`, which moves between
# devices (NOTE [_to_copy crosses devices], conversion.py).
OWN_STEPS: dict = {}


def run_generic_general(op, args):
    if OWN_STEPS and op in OWN_STEPS:
        return OWN_STEPS[op](op, args)
    device, call_args = unwrap_args(op, args)
    if device is None:
        device = CPU
    if device is META:
        return run_meta(op, args)
    xp = (BACKENDS.get(device.type) or get_backend(device.type)).xp
    if op.quiet:
        return generic_out(op, run_kernel(op, device, xp, call_args), xp, device)
    kernel = op.kernels.get(device.type) or op.kernel_for(device.type)
    return generic_out(op, kernel(xp, *call_args), xp, device)


# --------------------------------------------------------------------------- view

def run_view(op, args):
    base = args[0]
    tb = type(base)
    if (tb is Tensor or tb in PLAIN) and base._device is CPU and len(op.tensor_positions) == 1 \
            and not op.list_positions:
        # NOTE [view fast path]: one CPU tensor and plain arguments (view, select, permute ...),
        # the op's cached CPU entry (NOTE [the kernel table]).
        # As on the other fast paths, the kernel is called with its arguments spelled out (up
        # to three) and a single array viewing the base is wrapped inline (`wrap_view`).
        kernel = op.kernel
        x = base._data
        nargs = len(args)
        if nargs == 2:
            result = kernel(np, x, args[1])
        elif nargs == 3:
            result = kernel(np, x, args[1], args[2])
        elif nargs == 1:
            result = kernel(np, x)
        else:
            result = kernel(np, x, *args[1:])
        if type(result) is _ndarray and "maybe_view" not in op.tags:
            out = _new(Tensor)
            out._data = result
            out._dtype = _NP_TO_DTYPE[result.dtype]
            out._device = CPU
            storage = base._storage
            out._storage = storage if storage is not None else storage_of(base)
            out._requires_grad = False
            out._grad_fn = None
            out._grad = None
            out._base = base if base._base is None else base._base
        else:
            out = view_out(op, result, base, CPU)
        if base._requires_grad and state.record is not None:
            state.record(op, args, out)
        return out
    return general(op, args)


def run_view_general(op, args):
    base = args[0]
    device, call_args = unwrap_args(op, args)
    if device is META:
        # NOTE [meta view strides]: views run on a stand-in with the base's strides (never
        # read) and so report the strides PyTorch gives; reshape, where it would copy, returns
        # a contiguous stand-in instead (view.py, StandIn).
        call_args[0] = base._data.stand_in(strided=True)
        return meta_like_views(op.kernel(np, *call_args), base)
    kernel = op.kernels.get(device.type) or op.kernel_for(device.type)
    xp = (BACKENDS.get(device.type) or get_backend(device.type)).xp
    return view_out(op, kernel(xp, *call_args), base, device)


# --------------------------------------------------------------------------- meta, factory

def run_meta(op, args):
    _check_not_implemented(op.meta is not None, lambda: (
        f"{op.schema.name}: no meta rule (its output shape depends on the data)"))
    return meta_from_spec(op.meta(*args))


# NOTE [factory device]: a factory (zeros, arange, rand, zeros_like, new_zeros ...) runs on
# its `device` argument; when that is None, on the device of its tensor argument (zeros_like's
# `self`), else on the default device. The kernel gets every argument as given, its tensors as
# arrays, and, off the CPU, the resolved device in place of the `device` argument (to place
# host-drawn numbers). Where `device` sits is read off the schema once per op.
_factory_device_positions: dict = {}


def _factory_device_position(op):
    names = [arg.name for arg in op.schema.arguments]
    position = _factory_device_positions[op] = names.index("device")
    _factory_pin_positions[op] = names.index("pin_memory") if "pin_memory" in names else None
    _factory_layout_positions[op] = names.index("layout") if "layout" in names else None
    return position


# A CPU-only build has no pinned memory: PyTorch's RuntimeError for pin_memory=True, its
# TypeError for a value that is not a bool (set with the device position, read per call).
_factory_pin_positions: dict = {}


# A factory's `layout`, checked as its parser does (a str or an int is no layout); set with
# the device position, read per call only where a layout is given.
_factory_layout_positions: dict = {}


def _check_layout(op, value):
    if type(value).__name__ != "layout":
        arguments.layout_(value, (op.python_name, "layout", None))


def _check_pin_memory(op, value):
    if value is True:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                           "pinned memory allocator is available on this system.")
    arguments.bool_(value, (op.python_name, "pin_memory", None))


def _not_a_tensor(op, position, value):
    name = op.schema.arguments[position].name
    raise TypeError(f"{op.schema.name}(): argument '{'input' if name == 'self' else name}' "
                    f"(position {position + 1}) must be Tensor, not {type(value).__name__}")


def _wrap_host(result):
    if type(result) is _ndarray:
        return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
    return wrap_result(result, CPU)


def run_factory(op, args):
    """Factories on the plain path: CPU results straight from the kernel (NOTE [factory
    device]); a tensor argument of a subclass or on another device takes the layered path."""
    tensor_positions = op.tensor_positions
    where = _factory_device_positions.get(op)
    if where is None:
        where = _factory_device_position(op)
    pin = _factory_pin_positions[op]
    if pin is not None and args[pin] is not None and args[pin] is not False:
        _check_pin_memory(op, args[pin])
    layout = _factory_layout_positions[op]
    if layout is not None and args[layout] is not None:
        _check_layout(op, args[layout])
    device = args[where]
    if device is not None and type(device) is not _Device:
        device = _as_device(device)
    # The CPU results come from the op's cached CPU entry (NOTE [the kernel table]).
    if not tensor_positions:
        if device is None:
            device = _default_device_or_none() or CPU
        if device is CPU:
            return _wrap_host(op.kernel(np, *args))
    elif tensor_positions == (0,) and (device is None or device is CPU):
        source = args[0]
        ts = type(source)
        if (ts is Tensor or ts in PLAIN) and source._device is CPU:
            # zeros_like(x), rand_like(x), x.new_zeros(...), bernoulli(p) ...
            out = _wrap_host(op.kernel(np, source._data, *args[1:]))
            if source._requires_grad and state.record is not None:
                state.record(op, args, out)
            return out
    if tensor_positions:
        return general(op, args)
    return run_factory_general(op, args)


def run_factory_general(op, args):
    """Factories on any device (NOTE [factory device])."""
    where = _factory_device_positions.get(op)
    if where is None:
        where = _factory_device_position(op)
    pin = _factory_pin_positions[op]
    if pin is not None and args[pin] is not None and args[pin] is not False:
        _check_pin_memory(op, args[pin])
    layout = _factory_layout_positions[op]
    if layout is not None and args[layout] is not None:
        _check_layout(op, args[layout])
    device = args[where]
    tensor_positions = op.tensor_positions
    if device is None:
        if tensor_positions:
            source = args[tensor_positions[0]]
            if not isinstance(source, Tensor):
                _not_a_tensor(op, tensor_positions[0], source)
            device = source._device
        else:
            device = _default_device_or_none() or CPU
    elif type(device) is not _Device:
        device = _as_device(device)
    device = _placed(device)
    if device is META:
        spec = op.meta(*args)
        if type(spec) is MetaArray:
            return wrap(spec, _NP_TO_DTYPE[spec.dtype], META)
        return meta_from_spec(spec)
    call_args = list(args)
    for i in tensor_positions:
        call_args[i] = args[i]._data
    call_args[where] = device
    kernel = op.kernels.get(device.type) or op.kernel_for(device.type)
    backend = BACKENDS.get(device.type) or get_backend(device.type)
    return wrap_result(kernel(backend.xp, *call_args), device)
