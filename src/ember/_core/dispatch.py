"""The dispatcher: run an `OpDef` on its arguments.

    call(op, args)            -> result tensor(s)
    call_out(op, args, out)   -> writes into `out` (PyTorch's out= semantics)
    call_inplace(op, args)    -> writes into args[0] (add_, mul_, ...)

`args` holds every schema argument positionally; the generated bindings fill in defaults.
Each op kind has one runner: it checks devices, applies type promotion (pointwise), unwraps
tensors to raw arrays, calls the kernel with the device's array module `xp`, and wraps the
results. Meta tensors take the op's meta rule instead of the kernel.

NOTE [the slow path]: `state.slow` is one cheap flag; it is set only while something needs to
see every call (a tracer, `__torch_function__` modes, deterministic checks). The plain path never
looks at anything else.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.backend import BACKENDS, get_backend
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.device import CPU, META
from ember._core.device import as_device as _as_device
from ember._core.device import device as _Device
from ember._core.device import get_default_device_or_none as _default_device_or_none
from ember._core.promotion import result_type_from, scalar_type_of
from ember._core.storage import UntypedStorage
from ember._backends import cpu as _cpu  # noqa: F401  (registers the CPU back-end)
from ember._backends import cuda as _cuda  # noqa: F401  (registers the lazy CUDA back-end)
from ember._backends.meta import MetaArray

Tensor = None            # set by ember._tensor once the class exists
_new = object.__new__
_NP_TO_DTYPE = dt.NP_TO_DTYPE
_ndarray = np.ndarray
_np_asarray = np.asarray


class _State:
    """Global switches the per-op path reads (one attribute each)."""

    __slots__ = ("slow", "record", "record_inplace", "grad_enabled", "slow_handlers",
                 "deterministic", "on_inplace", "inplace_guard", "on_create")

    def __init__(self):
        self.slow = False
        self.record = None           # autograd: record(op, args, result) when inputs need grad
        self.record_inplace = None   # autograd: record_inplace(op, args) for in-place ops
        self.grad_enabled = lambda: False  # autograd installs its grad-mode getter
        self.slow_handlers = []      # callables (op, args, default) -> result, outermost last
        self.deterministic = None    # (op) -> None, raises or warns for nondeterministic ops
        self.on_inplace = None       # (self, result) after an in-place op, on the slow path only
        # (self) before an in-place op; set once inference tensors exist (they refuse it)
        self.inplace_guard = None
        # (tensor) for tensors made by factories outside `call` (inference mode marks them)
        self.on_create = None


state = _State()


class UnsupportedOperand(TypeError):
    """An operand of a type the op can't take; dunders turn it into NotImplemented."""


# --------------------------------------------------------------------------- wrapping

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


def _wrap_result(result, device):
    if type(result) is _ndarray and device is CPU:
        return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
    if type(result) is tuple or type(result) is list:
        return tuple(_wrap_result(r, device) for r in result)
    if result is None or isinstance(result, Tensor):
        return result
    if device is CPU:
        if type(result) is not _ndarray:
            result = _np_asarray(result)
        return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
    if device.type == "meta":
        return wrap(result, _NP_TO_DTYPE[result.dtype], device)
    return wrap(result, _NP_TO_DTYPE[np.dtype(result.dtype)], device)


# --------------------------------------------------------------------------- entry points

def call(op, args):
    if state.slow:
        return _call_slow(op, args)
    runner = op.runner or _prepare(op)
    return runner(op, args)


def refresh_slow_path() -> None:
    """Recompute `state.slow` after a switch or mode changes (see NOTE [the slow path])."""
    state.slow = bool(state.slow_handlers) or state.deterministic is not None


def _call_slow(op, args):
    handlers = state.slow_handlers
    if state.deterministic is not None and "nondeterministic" in op.tags:
        state.deterministic(op)
    if handlers:
        return _call_handlers(op, args, len(handlers) - 1)
    runner = op.runner or _prepare(op)
    return runner(op, args)


def _call_handlers(op, args, index):
    if index < 0:
        runner = op.runner or _prepare(op)
        return runner(op, args)
    handler = state.slow_handlers[index]
    return handler(op, args, lambda op2, args2: _call_handlers(op2, args2, index - 1))


def _prepare(op):
    op.runner = _RUNNERS[op.kind]
    return op.runner


# --------------------------------------------------------------------------- device checks

def _common_device(op, tensors):
    device = None
    for t in tensors:
        d = t._device
        if device is None or d is device:
            device = d
            continue
        # A zero-dim CPU tensor may meet a tensor on any device (it acts as a scalar).
        if d is CPU and t._data.ndim == 0:
            continue
        if device is CPU and _zero_dim_cpu_only(tensors, device):
            device = d
            continue
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{device} and {d}! (when checking arguments for {op.schema.name})")
    return CPU if device is None else device


def _zero_dim_cpu_only(tensors, device):
    return all(t._device is not device or t._data.ndim == 0 for t in tensors)


# --------------------------------------------------------------------------- pointwise

_pointwise_cache: dict = {}


def _promotion_key_part(v):
    if isinstance(v, Tensor):
        return (v._dtype, v._data.ndim == 0)
    return type(v)


_WIDE_UNSIGNED = (dt.uint16, dt.uint32, dt.uint64)


def _check_wide_unsigned(op, compute) -> None:
    """NOTE [wide unsigned dtypes] (registry.py)."""
    if compute in _WIDE_UNSIGNED and "wide_unsigned" not in op.tags:
        _check_not_implemented(False, lambda: (
            f'"{op.schema.name}_cpu" not implemented for \'{compute._cpp_name}\''))


def _pointwise_dtypes(op, operands):
    """(result dtype, compute dtype) for the operands (tensors and Python scalars)."""
    key = (op.promotion, op.compute_in_float,
           tuple(_promotion_key_part(v) for v in operands), dt._default_float[0])
    found = _pointwise_cache.get(key)
    if found is not None:
        return found
    dim_types, zero_types, scalar_types = [], [], []
    for v in operands:
        if isinstance(v, Tensor):
            (zero_types if v._data.ndim == 0 else dim_types).append(v._dtype)
        else:
            scalar_types.append(scalar_type_of(v))
    kind = op.promotion
    if kind == "no_promotion":
        common = (dim_types or zero_types or scalar_types)[0]
    else:
        common = result_type_from(dim_types, zero_types, scalar_types)
    compute = result = common
    if kind == "int_to_float" and common._category < dt.FLOAT:
        compute = result = dt.get_default_dtype()
    elif kind == "always_bool":
        result = dt.bool_
    elif kind == "complex_to_float" and common.is_complex:
        result = common.to_real()
    elif kind == "bool_to_long" and common is dt.bool_:
        compute = result = dt.int64
    if op.compute_in_float and compute in (dt.float16, dt.bfloat16):
        compute = dt.float32
    if op.compute_in_float and compute in (dt.float8_e4m3fn, dt.float8_e5m2):
        compute = dt.float32
    found = _pointwise_cache[key] = (result, compute)
    return found


def scalar_as(value, np_dtype):
    """A Python scalar as a NumPy scalar of `np_dtype` (wrapping around like a C cast)."""
    try:
        return np_dtype.type(value)
    except (OverflowError, ValueError):
        return np.array(value).astype(np_dtype)[()]


# NOTE [pointwise fast path]: the common call -- plain CPU tensors of one dtype (or one tensor
# and a Python int/float) -- skips the general promotion walk; autograd records after it. The
# (result dtype, compute dtype) pair is cached per op and operand dtypes; the cache is cleared
# when the default dtype changes.
_fast_cache: dict = {}


def clear_promotion_caches() -> None:
    _fast_cache.clear()
    _pointwise_cache.clear()


def _fast_entry(op, key, operands):
    result_dtype, compute_dtype = _pointwise_dtypes(op, operands)
    _check_wide_unsigned(op, compute_dtype)
    entry = _fast_cache[(op, key)] = (result_dtype._np, compute_dtype._np, result_dtype)
    return entry


def _run_pointwise(op, args):
    positions = op.tensor_positions
    npos = len(positions)
    if npos <= 2 and positions[0] == 0:
        a = args[0]
        if type(a) is Tensor and a._device is CPU:
            if npos == 1:
                entry = _fast_cache.get((op, a._dtype)) or _fast_entry(op, a._dtype, (a,))
                x = a._data
                if x.dtype is not entry[1]:
                    x = x.astype(entry[1])
                out = _fast_wrap(op.kernel(np, x, *args[1:]), entry)
                if a._requires_grad and state.record is not None:
                    state.record(op, args, out)
                return out
            if positions[1] == 1:
                b = args[1]
                tb = type(b)
                if tb is Tensor:
                    if b._device is CPU and b._dtype is a._dtype:
                        entry = _fast_cache.get((op, a._dtype)) or \
                            _fast_entry(op, a._dtype, (a, b))
                        x, y = a._data, b._data
                        compute = entry[1]
                        if x.dtype is not compute:
                            x = x.astype(compute)
                            y = y.astype(compute)
                        try:
                            result = op.kernel(np, x, y, *args[2:])
                        except ValueError:
                            check_broadcastable(op, [x.shape, y.shape])
                            raise
                        out = _fast_wrap(result, entry)
                        if (a._requires_grad or b._requires_grad) and state.record is not None:
                            state.record(op, args, out)
                        return out
                elif tb is int or tb is float:
                    key = (a._dtype, tb)
                    entry = _fast_cache.get((op, key)) or _fast_entry(op, key, (a, b))
                    x = a._data
                    compute = entry[1]
                    if x.dtype is not compute:
                        x = x.astype(compute)
                    out = _fast_wrap(op.kernel(np, x, scalar_as(b, compute), *args[2:]), entry)
                    if a._requires_grad and state.record is not None:
                        state.record(op, args, out)
                    return out
    return _run_pointwise_general(op, args)


dt.DEFAULT_DTYPE_LISTENERS.append(clear_promotion_caches)


def _fast_wrap(result, entry):
    if type(result) is not _ndarray:
        result = _np_asarray(result)
    if result.dtype is not entry[0]:
        result = result.astype(entry[0])
    t = _new(Tensor)
    t._data = result
    t._dtype = entry[2]
    t._device = CPU
    t._storage = None
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._base = None
    return t


def _run_pointwise_general(op, args):
    positions = op.tensor_positions
    operands = []
    tensors = []
    needs_grad = False
    for i in positions:
        v = args[i]
        if isinstance(v, Tensor):
            tensors.append(v)
            operands.append(v)
            if v._requires_grad:
                needs_grad = True
        elif v is None and op.schema.arguments[i].optional:
            continue
        elif isinstance(v, (int, float, complex, np.generic)):
            operands.append(v)
        else:
            raise UnsupportedOperand(
                f"{op.schema.name}(): argument '{op.schema.arguments[i].name}' must be Tensor, "
                f"not {type(v).__name__}")
    _check(tensors, lambda: f"{op.schema.name}(): expected at least one Tensor argument")
    result_dtype, compute_dtype = _pointwise_dtypes(op, operands)
    if compute_dtype in _WIDE_UNSIGNED:
        _check_wide_unsigned(op, compute_dtype)
    device = tensors[0]._device
    if len(tensors) > 1:
        device = _common_device(op, tensors)
    if device is META:
        shape = np.broadcast_shapes(*[t._data.shape for t in tensors])
        out = wrap(MetaArray(shape, result_dtype._np), result_dtype, META)
    else:
        np_compute = compute_dtype._np
        call_args = list(args)
        for i in positions:
            v = args[i]
            if isinstance(v, Tensor):
                a = v._data
                if a.dtype != np_compute:
                    a = a.astype(np_compute)
                call_args[i] = a
            elif v is not None:
                call_args[i] = scalar_as(v, np_compute)
        kernel = op.kernels.get(device.type, op.kernel) if op.kernels else op.kernel
        backend = BACKENDS.get(device.type) or get_backend(device.type)
        try:
            result = kernel(backend.xp, *call_args)
        except ValueError:
            check_broadcastable(op, [t._data.shape for t in tensors])
            raise
        if type(result) is not _ndarray and device is CPU:
            result = _np_asarray(result)
        if result.dtype != result_dtype._np:
            result = result.astype(result_dtype._np)
        out = wrap(result, result_dtype, device)
    if needs_grad and state.record is not None:
        state.record(op, args, out)
    return out


def check_broadcastable(op, shapes) -> None:
    """Raise PyTorch's message when `shapes` don't broadcast."""
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    names = "abcdefgh"
    for axis in range(ndim):
        sizes = [(p[axis], k) for k, p in enumerate(padded) if p[axis] != 1]
        for size, k in sizes[1:]:
            first, j = sizes[0]
            _check(size == first, lambda: (
                f"The size of tensor {names[j]} ({first}) must match the size of tensor "
                f"{names[k]} ({size}) at non-singleton dimension {axis}"))


# --------------------------------------------------------------------------- generic kinds

def _unwrap_args(op, args):
    """(device, needs_grad, args with tensors replaced by arrays)."""
    call_args = list(args)
    device = None
    needs_grad = False
    tensors = []
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, Tensor):
            tensors.append(v)
            call_args[i] = v._data
            if v._requires_grad:
                needs_grad = True
        elif v is not None:
            arg = op.schema.arguments[i]
            raise UnsupportedOperand(
                f"{op.schema.name}(): argument '{arg.name}' (position {i + 1}) must be Tensor, "
                f"not {type(v).__name__}")
    for i in op.list_positions:
        seq = args[i]
        _check_tensor_list(op, i, seq)
        arrays = []
        for v in seq:
            if v is None:
                arrays.append(None)
                continue
            tensors.append(v)
            arrays.append(v._data)
            if v._requires_grad:
                needs_grad = True
        call_args[i] = arrays
    if tensors:
        device = tensors[0]._device if len(tensors) == 1 else _common_device(op, tensors)
    return device, needs_grad, call_args


def _check_tensor_list(op, i, seq):
    arg = op.schema.arguments[i]
    if isinstance(seq, Tensor) or not isinstance(seq, (list, tuple)):
        raise TypeError(f"{op.schema.name}(): argument '{arg.name}' (position {i + 1}) must be "
                        f"tuple of Tensors, not {type(seq).__name__}")
    for v in seq:
        if not isinstance(v, Tensor) and not (v is None and arg.base_type == "Tensor?[]"):
            raise TypeError(f"{op.schema.name}(): argument '{arg.name}' (position {i + 1}) must "
                            f"be tuple of Tensors, not {type(v).__name__}")


def _run_generic(op, args):
    positions = op.tensor_positions
    if not op.list_positions and "cpu" not in op.kernels and len(positions) <= 2 and positions \
            and positions[0] == 0:
        # NOTE [generic fast path]: one or two leading CPU tensors (sum, matmul, gather ...).
        a = args[0]
        if type(a) is Tensor and a._device is CPU:
            if len(positions) == 1:
                result = op.kernel(np, a._data, *args[1:])
                needs_grad = a._requires_grad
            else:
                b = args[1]
                if type(b) is not Tensor or b._device is not CPU or positions[1] != 1:
                    return _run_generic_general(op, args)
                result = op.kernel(np, a._data, b._data, *args[2:])
                needs_grad = a._requires_grad or b._requires_grad
            out = _generic_out(op, result, np, CPU)
            if needs_grad and state.record is not None:
                state.record(op, args, out)
            return out
    return _run_generic_general(op, args)


def _run_generic_general(op, args):
    device, needs_grad, call_args = _unwrap_args(op, args)
    if device is None:
        device = CPU
    if device is META:
        out = _run_meta(op, args)
    else:
        kernel = op.kernels.get(device.type, op.kernel) if op.kernels else op.kernel
        backend = BACKENDS.get(device.type) or get_backend(device.type)
        out = _generic_out(op, kernel(backend.xp, *call_args), backend.xp, device)
    if needs_grad and state.record is not None:
        state.record(op, args, out)
    return out


def _generic_out(op, result, xp, device):
    if "keeps_layout" not in op.tags:
        result = _row_major(result, xp)
    return _wrap_result(result, device)


def _row_major(result, xp):
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
        return tuple(_row_major(r, xp) for r in result)
    flags = getattr(result, "flags", None)     # another back-end's array (CuPy)
    if flags is not None and result.ndim and not flags.c_contiguous:
        return xp.ascontiguousarray(result)
    return result


def _run_view(op, args):
    base = args[0]
    if type(base) is Tensor and base._device is CPU and len(op.tensor_positions) == 1 \
            and not op.list_positions and "cpu" not in op.kernels:
        # NOTE [view fast path]: one CPU tensor and plain arguments (view, select, permute ...).
        out = _view_out(op, op.kernel(np, base._data, *args[1:]), base, CPU)
        if base._requires_grad and state.record is not None:
            state.record(op, args, out)
        return out
    device, needs_grad, call_args = _unwrap_args(op, args)
    if device is META:
        # NOTE [meta view strides]: views run on a stand-in with the base's strides (never
        # read) and so report the strides PyTorch gives; reshape, where it would copy, returns
        # a contiguous stand-in instead (view.py, StandIn).
        call_args[0] = base._data.stand_in(strided=True)
        result = op.kernel(np, *call_args)
        out = _meta_like_views(result, base)
    else:
        kernel = op.kernels.get(device.type, op.kernel) if op.kernels else op.kernel
        result = kernel((BACKENDS.get(device.type) or get_backend(device.type)).xp, *call_args)
        out = _view_out(op, result, base, device)
    if needs_grad and state.record is not None:
        state.record(op, args, out)
    return out


def _view_out(op, result, base, device):
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


def _meta_like_views(result, base):
    if type(result) is tuple or type(result) is list:
        return tuple(_meta_like_views(r, base) for r in result)
    strides = result.strides if any(result.strides) else None
    return wrap_view(MetaArray(result.shape, result.dtype, strides), base)


def _run_meta(op, args):
    _check_not_implemented(op.meta is not None, lambda: (
        f"{op.schema.name}: no meta rule (its output shape depends on the data)"))
    spec = op.meta(*args)
    return _meta_from_spec(spec)


def _meta_from_spec(spec):
    if isinstance(spec, list):
        return tuple(_meta_from_spec(s) for s in spec)
    shape, dtype = spec
    return wrap(MetaArray(shape, dtype._np), dtype, META)


# NOTE [factory device]: a factory (zeros, arange, rand, zeros_like, new_zeros ...) runs on
# its `device` argument; when that is None, on the device of its tensor argument (zeros_like's
# `self`), else on the default device. The kernel gets every argument as given, its tensors as
# arrays, and, off the CPU, the resolved device in place of the `device` argument (to place
# host-drawn numbers). Where `device` sits is read off the schema once per op.
_factory_device_positions: dict = {}


def _factory_device_position(op):
    names = [arg.name for arg in op.schema.arguments]
    position = _factory_device_positions[op] = names.index("device")
    return position


def _not_a_tensor(op, position, value):
    name = op.schema.arguments[position].name
    raise TypeError(f"{op.schema.name}(): argument '{'input' if name == 'self' else name}' "
                    f"(position {position + 1}) must be Tensor, not {type(value).__name__}")


def _run_factory(op, args):
    """Factories: see NOTE [factory device]."""
    where = _factory_device_positions.get(op)
    if where is None:
        where = _factory_device_position(op)
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
    if device is CPU and not tensor_positions and not op.kernels:
        result = op.kernel(np, *args)
        if type(result) is _ndarray:
            return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
        return _wrap_result(result, CPU)
    if device is CPU and tensor_positions == (0,) and not op.kernels:
        source = args[0]
        if source._device is CPU:      # zeros_like(x), rand_like(x), x.new_zeros(...)
            result = op.kernel(np, source._data, *args[1:])
            if type(result) is _ndarray:
                return wrap(result, _NP_TO_DTYPE[result.dtype], CPU)
            return _wrap_result(result, CPU)
    if device is META:
        spec = op.meta(*args)
        if type(spec) is MetaArray:
            return wrap(spec, _NP_TO_DTYPE[spec.dtype], META)
        return _meta_from_spec(spec)
    call_args = list(args)
    for i in tensor_positions:
        call_args[i] = args[i]._data
    call_args[where] = device
    kernel = op.kernels.get(device.type, op.kernel) if op.kernels else op.kernel
    backend = BACKENDS.get(device.type) or get_backend(device.type)
    return _wrap_result(kernel(backend.xp, *call_args), device)


_RUNNERS = {
    "pointwise": _run_pointwise,
    "reduction": _run_generic,
    "view": _run_view,
    "generic": _run_generic,
    "factory": _run_factory,
}


# --------------------------------------------------------------------------- out= and in-place

def _dtype_name(d):
    return d._cpp_name


def call_out(op, args, out):
    result = call(op, args)
    if isinstance(out, (tuple, list)):
        _check(isinstance(result, tuple) and len(out) == len(result),
               lambda: f"{op.schema.name}(): expected out= to hold {op.num_outputs} tensors")
        for o, r in zip(out, result):
            copy_into_out(o, r)
        return tuple(out)
    _check_type(isinstance(out, Tensor), lambda: (
        f"{op.schema.name}(): argument 'out' must be Tensor, not {type(out).__name__}"))
    copy_into_out(out, result)
    return out


def copy_into_out(out, result):
    """PyTorch's out= rules: dtype must be castable, shape resized when it differs."""
    from ember._core.promotion import can_cast
    _check(can_cast(result._dtype, out._dtype) or result._dtype is out._dtype,
           lambda: f"result type {_dtype_name(result._dtype)} can't be cast to the desired "
                   f"output type {_dtype_name(out._dtype)}")
    _check(out._device is result._device, lambda: (
        f"Expected out tensor to have device {result._device}, but got {out._device} instead"))
    if out._data.shape != result._data.shape:
        resize_out(out, result._data.shape)
    write_array(out, result)


def resize_out(out, shape):
    if out._data.size != 0:
        import warnings
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out._data.shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release outputs "
            "will not be resized unless they have zero elements. You can explicitly reuse an "
            "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning, stacklevel=4)
    if out._device is META:
        out._data = MetaArray(shape, out._data.dtype)
    else:
        xp = get_backend(out._device.type).xp
        out._data = xp.empty(shape, out._data.dtype)
    out._storage = None


def call_inplace(op, args):
    self = args[0]
    _check_type(isinstance(self, Tensor), lambda: (
        f"{op.schema.name}_(): self must be a Tensor, not {type(self).__name__}"))
    if state.inplace_guard is not None:
        state.inplace_guard(self)
    if state.record is not None and state.grad_enabled() and _any_requires_grad(op, args):
        return state.record_inplace(op, args)
    result = call(op, args)
    write_inplace(op, self, result)
    if state.slow and state.on_inplace is not None:
        state.on_inplace(self, result)
    return self


def _any_requires_grad(op, args):
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, Tensor) and v._requires_grad:
            return True
    return False


def write_inplace(op, self, result):
    """Copy an op's result into `self` with PyTorch's in-place checks; bump the version."""
    from ember._core.promotion import can_cast
    if 0 in self._data.strides and self._data.size:
        _check_not_overlapping(self._data)
    rdt, sdt = result._dtype, self._dtype
    if rdt is not sdt:
        _check(can_cast(rdt, sdt), lambda: (
            f"result type {_dtype_name(rdt)} can't be cast to the desired output type "
            f"{_dtype_name(sdt)}"))
    if result._data.shape != self._data.shape:
        _check(False, lambda: (
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(self._data.shape, result._data.shape))}"))
    write_array(self, result)


def _check_not_overlapping(array):
    for size, stride in zip(array.shape, array.strides):
        _check(stride != 0 or size <= 1, (
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the "
            "operation."))


def write_array(dst, src):
    """Copy `src`'s values into `dst`'s memory (casting, broadcasting) and bump its version."""
    if dst._device is not META:
        if dst._device is CPU:
            np.copyto(dst._data, src._data, casting="unsafe")
        else:
            dst._data[...] = src._data.astype(dst._data.dtype)
    bump_version(dst)
