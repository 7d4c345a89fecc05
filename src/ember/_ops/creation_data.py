"""Tensors made from data: `tensor`, `as_tensor`, `asarray`, `from_numpy`, `Tensor.new_tensor`
and the legacy `Tensor(...)`/`Tensor.new(...)` constructors.

The data becomes an array here (PyTorch's dtype inference and checks), then a tensor outside
the dispatcher, which enters through the `lift_fresh` op (NOTE [data enters through
lift_fresh]); a tensor given as data is copied through `detach` and `_to_copy`.
"""
from __future__ import annotations

import array as array_module

import numpy as np

from ember._backends import get_backend
from ember._backends.meta import MetaArray
from ember._core import arguments, dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type, _check_value
from ember._core.device import META, as_device, get_default_device, placed
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import cast
from ember._core.promotion import promote_types, scalar_type_of
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.storage import UntypedStorage
from ember._core.shape import normalize_shape
from ember._ops.creation import _EMPTY

_call = dispatch.call


# NOTE [data enters through lift_fresh]: `tensor(data)`, `as_tensor`, `from_numpy` build their
# tensor outside the dispatcher (the data is a constant, not the result of an op) and hand it
# to `lift_fresh`, which returns it unchanged: so a TorchDispatchMode sees every tensor a program
# makes from data, as PyTorch's do. The op runs as its own runner (no wrapping, no copy).
@register_op("lift_fresh(Tensor(a) self) -> Tensor(a)", kind="view", function=False,
             method=False, out=False, differentiable=False,
             meta=lambda self: (self._data.shape, self._dtype))
def _lift_fresh(xp, self):
    """lift_fresh(data) -> Tensor: a tensor made from data outside the dispatcher, as it is."""
    return self


def _run_lift_fresh(op, args):
    return args[0]


_LIFT_FRESH = OPS["lift_fresh"]
_LIFT_FRESH.runner = _run_lift_fresh


# make_fx records data made inside a traced function as a constant and this copy of it, as
# PyTorch's does (NOTE [make_fx records below autograd] in fx/experimental/proxy_tensor.py).
@register_op("lift_fresh_copy(Tensor self) -> Tensor", kind="generic", function=False,
             method=False, out=False, differentiable=False,
             meta=lambda self: (self._data.shape, self._dtype))
def _lift_fresh_copy(xp, self):
    """lift_fresh_copy(data) -> Tensor: a copy of a tensor made from data."""
    return xp.array(self, copy=True)


def _infer_dtype(array) -> dt.dtype:
    kind = array.dtype.kind
    if kind == "b":
        return dt.bool_
    if kind in "iu":
        return dt.int64
    if kind == "f":
        return dt.get_default_dtype()
    if kind == "c":
        return dt.default_complex_dtype()
    raise TypeError(f"Could not infer dtype of {array.dtype}")


def _wide_ints(data, target):
    """Data holding a Python int past 64 bits: PyTorch's parser reads it as a double for a
    floating, complex or bool dtype; for the others (and with no dtype) it overflows."""
    if isinstance(target, dt.dtype) and (target.is_floating_point or target.is_complex or
                                         target is dt.bool_):
        return np.array(data, dtype=np.complex128 if target.is_complex else np.float64)
    raise ValueError("Overflow when unpacking long long")


def _nested_to_array(data, target=None):
    """A Python (nested) sequence of numbers or tensors as a NumPy array, PyTorch's checks;
    `target`: the dtype it becomes (`_wide_ints`)."""
    try:
        array = np.array(data)
    except ValueError:
        _check_ragged(data, 0)
        raise
    if array.dtype == object:
        _check_ragged(data, 0)
        bad = _first_non_number(data)
        if bad is None:         # every leaf a number: an int beyond 64 bits made it object
            return _wide_ints(data, target)
        raise TypeError(f"new(): invalid data type '{type(bad).__name__}'")
    if array.dtype == np.uint64:    # Python ints above int64's range
        return _wide_ints(data, target)
    return array


def _check_ragged(data, dim):
    if not isinstance(data, (list, tuple)) or not data:
        return
    first = data[0]
    for item in data[1:]:
        # A number where a sequence is expected (or the other way round) is a TypeError.
        _check_type(isinstance(item, (list, tuple)) == isinstance(first, (list, tuple)),
                    lambda: "not a sequence" if isinstance(first, (list, tuple)) else
                    f"'{type(item).__name__}' object cannot be interpreted as an integer")
    if isinstance(first, (list, tuple)):
        for item in data:
            _check_value(isinstance(item, (list, tuple)) and len(item) == len(first), lambda: (
                f"expected sequence of length {len(first)} at dim {dim + 1} (got "
                f"{len(item) if isinstance(item, (list, tuple)) else type(item).__name__})"))
            _check_ragged(item, dim + 1)


def _first_non_number(data):
    if isinstance(data, (list, tuple)):
        for item in data:
            found = _first_non_number(item)
            if found is not None:
                return found
        return None
    if isinstance(data, (bool, int, float, complex, np.generic, dispatch.Tensor)):
        return None
    return data


def _data_dtype(data, array):
    """The dtype PyTorch infers: NumPy arrays and tensors keep theirs, Python data is inferred."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return dt.from_numpy_dtype(array.dtype)
    if isinstance(data, (list, tuple)) and _all_tensors(data):
        return data[0]._dtype if data else dt.get_default_dtype()
    if isinstance(data, (list, tuple)) and not data:
        return dt.get_default_dtype()
    return _infer_dtype(array)


def _all_tensors(data):
    return all(isinstance(x, dispatch.Tensor) or
               (isinstance(x, (list, tuple)) and x and _all_tensors(x)) for x in data)


def _parsed_options(name, dtype, device, flags, optional=()):
    """(dtype, device) as PyTorch's parser converts them, after its checks of the keyword
    arguments in its order: first every type (TypeError; `flags` are (name, value) of the
    bool ones, those in `optional` may be None), then the device's value (RuntimeError)."""
    if dtype is not None and not isinstance(dtype, dt.dtype):
        dtype = arguments.dtype_(dtype, (name, "dtype", None))
    if device is not None and type(device) is not str:
        device = arguments.device_(device, (name, "device", None))
    for arg, value in flags:
        if value is not True and value is not False and not (value is None and arg in optional):
            arguments.bool_(value, (name, arg, None))
    if device is not None:
        as_device(device)
    return dtype, device


@register_frontend(method=False)
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (nested sequences of numbers, a NumPy array or
    a tensor); the dtype is inferred from the data unless given."""
    if _state.entry and _wants(locals()):
        return _handle(tensor, locals())
    if dtype is not None or device is not None or requires_grad is not False or \
            pin_memory is not False:
        dtype, device = _parsed_options("tensor", dtype, device, (
            ("pin_memory", pin_memory), ("requires_grad", requires_grad)))
    if isinstance(data, dispatch.Tensor):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "ember.tensor(sourceTensor).", UserWarning, stacklevel=2)
        return _copy_of(data, dtype, device, requires_grad)
    return _from_data(data, dtype, device, requires_grad, copy=True)


def _requiring_grad(made):
    _check(made._dtype.is_floating_point or made._dtype.is_complex,
           "Only Tensors of floating point and complex dtype can require gradients")
    return made.requires_grad_(True)


def _copy_of(data, dtype, device, requires_grad):
    """A tensor given as data: detached, then copied (`detach` and `_to_copy`, as PyTorch)."""
    from ember._ops.conversion import to_copy
    made = to_copy(data.detach(), dtype, as_device(device))
    return _requiring_grad(made) if requires_grad else made


def _from_data(data, dtype, device, requires_grad, copy):
    array, target, device = data_array(data, dtype, device, copy)
    made = _call(_LIFT_FRESH, (dispatch.wrap(array, target, device),))
    return _requiring_grad(made) if requires_grad else made


def data_array(data, dtype, device, copy):
    """(array, dtype, device) of Python or NumPy data as `tensor(data)` reads it (its
    checks and errors), before it becomes a tensor."""
    if isinstance(data, np.ndarray):
        array = data
        if dtype is not None:
            dt.from_numpy_dtype(array.dtype)        # (its TypeError for strings, objects ...)
    elif isinstance(data, (bool, int, float, complex, np.generic)):
        array = np.array(data)
        if array.dtype == object or array.dtype == np.uint64 and type(data) is int:
            array = _wide_ints(data, dtype)
    elif isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    elif hasattr(data, "__array__") and not isinstance(data, (list, tuple)):
        array = np.asarray(data)
    else:
        if type(data) is not list and type(data) is not tuple and isinstance(
                data, (list, tuple, range, bytearray, memoryview, array_module.array)):
            data = list(data)           # (other sequences: their items, as PyTorch reads them)
        inferred = _sequence_dtype(data) if dtype is None else _check_leaves(data, dtype)
        if _has_tensors(data):
            data = _tensors_to_items(data)
        array = _nested_to_array(data, inferred if dtype is None else dtype)
    if dtype is not None:
        target = dtype
    elif isinstance(data, (list, tuple)):
        target = inferred
    else:
        target = _data_dtype(data, array)
    _check_type(isinstance(target, dt.dtype), lambda: f"argument 'dtype' must be ember.dtype, "
                                                      f"not {type(target).__name__}")
    device = placed(get_default_device() if device is None else as_device(device))
    if not isinstance(data, np.ndarray) and not hasattr(data, "__array__"):
        _check_python_values(array, target)
    array = _cast_data(array, target, copy)
    if device is META:
        array = MetaArray(array.shape, target._np)
    elif device.type != "cpu":
        array = get_backend(device.type).from_host(array, device)
    return array, target, device


def _sequence_dtype(data):
    """PyTorch's inference for nested sequences: every leaf brings a dtype (Python numbers the
    default ones, NumPy scalars and arrays and tensors their own) and they promote together."""
    found, stack = None, [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is list or kind is tuple:
            stack.extend(reversed(item))        # (the leaves in order, as PyTorch reads them)
            continue
        if (kind is str or kind is bytes) and item is not _first_leaf(data):
            # PyTorch reads the shape along the first elements: a string there is one more
            # dimension (ValueError below), a string elsewhere a bad element.
            raise TypeError(f"new(): invalid data type '{kind.__name__}'")
        leaf = _leaf_dtype(item)
        found = leaf if found is None or found is leaf else promote_types(found, leaf)
    return dt.get_default_dtype() if found is None else found


def _check_leaves(data, dtype):
    """The leaves of `data` (nested sequences, or one object) as PyTorch converts each into
    a given `dtype`, in order: an integral dtype takes what Python can read as an integer, a
    floating or complex one (or bool) what it can read as a number; anything else is a
    TypeError.
    (Shape errors, strings first, are _nested_to_array's and _leaf_dtype's.)"""
    integral = not (dtype.is_floating_point or dtype.is_complex)
    first, stack = _first_leaf(data), [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is list or kind is tuple:
            stack.extend(reversed(item))
            continue
        if item is first and isinstance(item, (str, bytes)):
            raise ValueError(f"too many dimensions '{kind.__name__}'")
        if isinstance(item, dispatch.Tensor):
            _check_type(not integral or not (item._dtype.is_floating_point or
                                             item._dtype.is_complex),
                        "only integer tensors of a single element can be converted to an index")
            _leaf_dtype(item)                   # (one element)
        elif integral and not isinstance(item, (int, float, np.integer, np.bool_)) and not (
                dtype is dt.bool_ and isinstance(item, (complex, np.number))):
            raise TypeError(f"'{arguments.type_name(item)}' object cannot be interpreted as an "
                            f"integer")
        elif not integral and not isinstance(item, (int, float, complex, np.number, np.bool_)):
            raise TypeError(f"must be real number, not {arguments.type_name(item)}")
    return dtype


def _first_leaf(data):
    while type(data) in (list, tuple) and data:
        data = data[0]
    return data


def _leaf_dtype(item):
    kind = type(item)
    if kind is float or kind is int or kind is bool or kind is complex:
        return scalar_type_of(item)
    if isinstance(item, dispatch.Tensor):
        if item._data.size != 1:
            if item._dtype.is_floating_point or item._dtype.is_complex:
                raise ValueError("only one element tensors can be converted to Python scalars")
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return item._dtype
    if isinstance(item, (np.ndarray, np.generic)):
        _check_value(item.dtype.kind not in "USO", lambda: (
            f"too many dimensions '{type(item.item() if item.ndim == 0 else item).__name__}'"))
        return dt.from_numpy_dtype(item.dtype)
    if isinstance(item, (str, bytes)):
        raise ValueError(f"too many dimensions '{kind.__name__}'")
    if isinstance(item, (bool, int, float, complex)):
        return _leaf_dtype(kind.__mro__[1](item))
    raise RuntimeError(f"Could not infer dtype of {kind.__name__}")


def _tensors_to_items(data):
    if isinstance(data, dispatch.Tensor):
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_tensors_to_items(x) for x in data]
    return data


def _has_tensors(data):
    return _first_tensor(data) is not None


def _first_tensor(data):
    for x in data:
        if isinstance(x, dispatch.Tensor):
            return x
        if isinstance(x, (list, tuple)):
            found = _first_tensor(x)
            if found is not None:
                return found
    return None


def _check_python_values(array, target):
    """Python numbers going into `target` as PyTorch checks them (NumPy data wraps instead):
    an integer type refuses NaN, infinities and values it can't hold (a negative int may
    wrap into an unsigned type, a fraction may not); a real type refuses complex numbers."""
    kind = array.dtype.kind
    if kind == "c" and not target.is_complex:
        _check_type(target is dt.bool_ or not array.size, "must be real number, not complex")
    if target._category >= dt.FLOAT or target is dt.bool_ or kind not in "iuf" or \
            not array.size:
        return
    info = np.iinfo(target._np)
    if kind == "f":
        finite = np.isfinite(array).all()
        low, high = float(info.min) - 1, float(info.max) + 1
        fits = finite and bool(((array > low) & (array < high)).all())
    else:
        low = -int(info.max) if info.min == 0 else int(info.min)
        fits = bool(((array >= low) & (array <= int(info.max))).all())
    _check(fits, lambda: f"value cannot be converted to type {np.dtype(target._np).name} "
                         f"without overflow")


def _cast_data(array, target, copy):
    if array.dtype == target._np:
        return array.copy() if copy else array
    if target is dt.bool_ or array.dtype.kind not in "fc" or target._category >= dt.FLOAT:
        return cast(array, target._np)
    # float -> int truncates toward zero, as in C.
    return cast(np.trunc(array.real if array.dtype.kind == "c" else array), target._np)


@register_frontend(method=False)
def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, sharing memory where it can: a tensor of matching dtype and device
    comes back as it is, a CPU NumPy array of matching dtype is wrapped without a copy."""
    if _state.entry and _wants(locals()):
        return _handle(as_tensor, locals())
    if isinstance(data, dispatch.Tensor):
        return data.to(dtype=dtype, device=device) if (dtype or device) else data
    if isinstance(data, np.ndarray) and (device is None or as_device(device).type == "cpu"):
        target = dt.from_numpy_dtype(data.dtype) if dtype is None else dtype
        if target._np == data.dtype:
            return from_numpy(data)
    return _from_data(data, dtype, device, False, copy=False)


@register_frontend(method=False)
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """`obj` as a tensor, copying only when `copy` is true or a conversion needs it; with
    `copy=None` a NumPy array or a tensor is shared where dtype and device allow.
    `requires_grad=None` (not given): a tensor's own flag, as PyTorch 2.13 reads it."""
    if _state.entry and _wants(locals()):
        return _handle(asarray, locals())
    dtype, device = _parsed_options("asarray", dtype, device, (
        ("copy", copy), ("requires_grad", requires_grad)), optional=("copy", "requires_grad"))
    if isinstance(obj, np.generic):
        # NumPy scalars: never aliased, and (PyTorch's own rule) copied only into their dtype
        _check(copy is not False, "can't alias NumPy scalars. Either remove copy=False or "
                                  "transform it in a ndarray. ")
        if copy and dtype is not None:
            _check_no_alias_cast(np.asarray(obj), dtype)
    if copy is False and not isinstance(obj, (dispatch.Tensor, np.ndarray, bytes, bytearray,
                                              memoryview, array_module.array)):
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    if copy is False and dtype is not None:
        _check_no_alias_cast(obj, dtype)
    if isinstance(obj, dispatch.Tensor):
        made = obj.to(dtype=dtype, device=device, copy=bool(copy)) if (dtype or device or copy) \
            else obj
    elif isinstance(obj, UntypedStorage):
        # A storage's bytes, shared, read as `dtype` (uint8 by default).
        made = dispatch.wrap(obj.byte_array(), dt.uint8, obj.device)
        if dtype is not None and dtype is not dt.uint8:
            made = made.view(dtype)
        made = made.clone() if copy else made
    elif isinstance(obj, (bytes, bytearray, memoryview, array_module.array)):
        # Objects with the buffer protocol are read as frombuffer reads them.
        made = frombuffer(obj, dtype=dt.get_default_dtype() if dtype is None else dtype)
        made = made.clone() if copy else made
        if device is not None:
            made = made.to(device)
    elif isinstance(obj, np.ndarray) and not copy:
        made = as_tensor(obj, dtype=dtype, device=device)
    else:
        made = _from_data(obj, dtype, device, False, copy=True)
    if requires_grad is None and isinstance(obj, dispatch.Tensor) and obj._requires_grad:
        _check(made._dtype.is_floating_point or made._dtype.is_complex,
               "Only Tensors of floating point and complex dtype can require gradients")
    return _requiring_grad(made) if requires_grad else made


def _check_no_alias_cast(obj, dtype):
    """asarray(copy=False) shares memory or fails: a dtype change would need a copy."""
    if isinstance(obj, dispatch.Tensor):
        have = obj._dtype
    elif isinstance(obj, np.ndarray):
        have = dt.from_numpy_dtype(obj.dtype)
    else:
        return
    _check_value(have is dtype, lambda: (
        f"can't alias tensor with dtype '{have._cpp_name}' into dtype '{dtype._cpp_name}'."))


@register_frontend(method=False)
def from_numpy(ndarray):
    """A CPU tensor sharing memory with `ndarray` (writes show through both ways); arrays
    with negative strides are refused."""
    if _state.entry and _wants(locals()):
        return _handle(from_numpy, locals())
    _check_type(isinstance(ndarray, np.ndarray), lambda: (
        f"expected np.ndarray (got {type(ndarray).__name__})"))
    dtype = dt.from_numpy_dtype(ndarray.dtype)
    _check_value(all(s >= 0 for s in ndarray.strides), (
        "At least one stride in the given numpy array is negative, and tensors with negative "
        "strides are not currently supported. (You can probably work around this by making a "
        "copy of your array  with array.copy().) "))
    if not ndarray.flags.writeable:
        from ember._core.checks import _warn_once
        _warn_once("from_numpy read-only", (
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program."))
    return _call(_LIFT_FRESH, (dispatch.wrap(ndarray, dtype, as_device("cpu")),))


def _frombuffer_arguments(dtype, count, offset, requires_grad):
    """(dtype, count, offset) as PyTorch's parser converts them, or its TypeError (and its
    ValueError for an int past 64 bits)."""
    if not isinstance(dtype, dt.dtype):
        dtype = arguments.dtype_(dtype, ("frombuffer", "dtype", None))
    if type(count) is not int:
        count = arguments.int_(count, ("frombuffer", "count", None))
    if type(offset) is not int:
        offset = arguments.int_(offset, ("frombuffer", "offset", None))
    if requires_grad is not True and requires_grad is not False:
        arguments.bool_(requires_grad, ("frombuffer", "requires_grad", None))
    _check_value(-2 ** 63 <= count < 2 ** 63 and -2 ** 63 <= offset < 2 ** 63,
                 "Overflow when unpacking long long")
    return dtype, count, offset


def _bytes_of(buffer):
    """The bytes of an object with the buffer protocol, as one flat memoryview."""
    try:
        view = memoryview(buffer)       # (the one test for the buffer protocol Python has)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    _check(view.c_contiguous, "could not retrieve buffer from object")
    return view.cast("B")


@register_frontend(method=False)
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor: a 1-D
    CPU tensor over the bytes of an object with the buffer protocol (shared when writable)."""
    if _state.entry and _wants(locals()):
        return _handle(frombuffer, locals())
    dtype, count, offset = _frombuffer_arguments(dtype, count, offset, requires_grad)
    view = _bytes_of(buffer)
    size = np.dtype(dtype._np).itemsize
    length = len(view)
    _check_value(length > 0 and count != 0, lambda: (
        f"both buffer length ({length}) and count ({count}) must not be 0"))
    _check_value(0 <= offset < length, lambda: (
        f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
        f"({length} bytes) minus 1"))
    if count < 0:
        _check_value((length - offset) % size == 0, lambda: (
            f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
            f"multiple of element size ({size})"))
        count = (length - offset) // size
    _check_value(offset + count * size <= length, lambda: (
        f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must "
        f"not be greater than actual buffer length ({length} bytes)"))
    array = np.frombuffer(view, dtype=dtype._np, count=count, offset=offset)
    if not array.flags.writeable:
        from ember._core.checks import _warn_once
        _warn_once("frombuffer read-only", "The given buffer is not writable, and PyTorch does not support non-writable "
                  "tensors. This means you can write to the underlying (supposedly "
                  "non-writable) buffer using the tensor. You may want to copy the buffer to "
                  "protect its data or make it writable before converting it to a tensor. This "
                  "type of warning will be suppressed for the rest of this program.")
        array = array.copy()
    made = _call(_LIFT_FRESH, (dispatch.wrap(array, dtype, as_device("cpu")),))
    return _requiring_grad(made) if requires_grad else made


def legacy_tensor_new(cls, dtype, args, kwargs, form="Tensor", default_device=None):
    """`ember.Tensor(...)` (`form` 'Tensor'), `FloatTensor(...)` ('typed') and `x.new(...)`
    ('new') as PyTorch's legacy constructor reads its arguments: a tensor comes back as it is
    (of this dtype, for the typed forms), a torch.Size or ints are sizes (uninitialised
    data), any other single argument must be a sequence of data."""
    device = kwargs.pop("device", None)
    _check_type(not kwargs, lambda: f"new() got an unexpected keyword argument "
                                    f"'{next(iter(kwargs))}'")
    # (the device is converted once the positional arguments chose an overload, as PyTorch's
    # parser matches the overload first: `DoubleTensor(2.0, 2.0, device=-1)` is its TypeError)
    if len(args) == 1 and isinstance(args[0], dispatch.Tensor):
        device = _legacy_device(device)
        _check(device is None, "Legacy tensor new of the form tensor.new(tensor, device=device) "
               "is not supported.  Use torch.as_tensor(...) instead." if form == "new" else
               "Legacy tensor constructor of the form torch.Tensor(tensor, device=device) is "
               "not supported.  Use torch.tensor(...) or torch.as_tensor(...) instead.")
        made = args[0]
        _check_type(form == "Tensor" or made._dtype is dtype, lambda: (
            f"expected TensorOptions(dtype={dtype._cpp_name.lower()}, device=cpu, "
            f"layout=Strided) (got TensorOptions(dtype={made._dtype._cpp_name.lower()}, "
            f"device={made.device}, layout=Strided))"))
    elif len(args) == 1 and type(args[0]).__name__ != "Size" and not (
            hasattr(type(args[0]), "__index__") and
            not isinstance(args[0], (bool, np.bool_, np.ndarray))):
        data = args[0]
        device = _legacy_device(device)     # (any one object fits `new(PyObject data)`)
        _check_type(hasattr(type(data), "__getitem__") and not isinstance(data, dict), lambda: (
            f"new(): data must be a sequence (got {arguments.type_name(data)})"))
        device = default_device if device is None else device
        made = _from_data(data, dtype, device, False, copy=True)
    else:
        shape = normalize_shape(args) if args else (0,)
        device = _legacy_device(device)
        device = default_device if device is None else device
        device = get_default_device() if device is None else as_device(device)
        made = _call(_EMPTY, (shape, dtype, None, device, False, None))
    if cls is not dispatch.Tensor:
        made = _as_subclass(made, cls)
    return made


def _legacy_device(device):
    return None if device is None else as_device(arguments.device_(device, ("new", "device",
                                                                            None)))


@register_frontend(function=False)
def new(self, *args, **kwargs):
    """Tensor.new(*sizes or data, device=None) -> Tensor (legacy): an uninitialised tensor of
    `sizes`, or a copy of `data`, with self's dtype and (by default) device."""
    if _state.entry and _wants(locals()):
        return _handle(new, locals())
    return legacy_tensor_new(dispatch.Tensor, self._dtype, args, kwargs, "new", self._device)


def _as_subclass(t, cls):
    new = object.__new__(cls)
    for slot in ("_data", "_dtype", "_device", "_storage", "_requires_grad", "_grad_fn", "_grad",
                 "_base"):
        setattr(new, slot, getattr(t, slot))
    return new



@register_frontend(function=False)
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A copy of `data` with this tensor's dtype and device unless others are given."""
    if _state.entry and _wants(locals()):
        return _handle(new_tensor, locals())
    if isinstance(data, dispatch.Tensor):
        return _copy_of(data, dtype or self._dtype, device or self._device, requires_grad)
    return _from_data(data, dtype or self._dtype, device or self._device, requires_grad,
                      copy=True)
