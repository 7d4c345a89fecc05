"""Tensor creation: `zeros/ones/full/empty/empty_strided/scalar_tensor` and the `_like` and
`new_*` forms; tensors made from data (`tensor`, `as_tensor` ...) live in creation_data.py.

Each factory is a registry op (`zeros(SymInt[] size, *, ...)`, `empty.memory_format`,
`zeros_like`, `new_zeros` ...) run by the dispatcher's factory runner (NOTE [factory device]),
so a TorchDispatchMode sees it like any other op. The hand-written frontends below only parse
PyTorch's calling conventions (sizes as varargs, `out=`, `requires_grad=`) and call the op.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends import get_backend
from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import MetaArray
from ember._core import arguments, complex_half, dispatch, strided
from ember._core import dtype as dt
from ember._core import layout as memory_layout
from ember._core.checks import _check, _check_type
from ember._core.device import CPU, META, _global_default
from ember._core.device import _local as _device_local
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.dispatch.subclasses import PLAIN as _PLAIN
from ember._core.fp_errors import run_quietly
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import normalize_shape, sizes_or_keyword
from ember._ops import filling

_call = dispatch.call
_wrap = dispatch.wrap
_np_zeros = np.zeros
_np_empty = np.empty
_DTYPE = dt.dtype
_COMPLEX32 = dt.complex32
_NP_TO_DTYPE = dt.NP_TO_DTYPE
_default_float = dt._default_float
_OPTIONS = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_FACTORY = {"kind": "factory", "function": False, "method": False, "out": False,
            "differentiable": False}


def check_sizes(shape) -> None:
    """PyTorch's error for a negative size (checked where a factory makes its array)."""
    if shape and min(shape) < 0:
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{list(shape)}")


def option_dtype(dtype, default):
    """A factory's `dtype` argument (None: `default`), refusing what isn't a dtype."""
    if dtype is None:
        return default
    if type(dtype) is not _DTYPE:
        return _bad_dtype(dtype)
    return dtype


def _bad_dtype(dtype):
    """Python's own number types name a dtype (dtype=float is float64), as in PyTorch's
    parser; anything else is refused."""
    found = arguments.PYTHON_TYPE_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if found is None:
        raise TypeError(f"argument 'dtype' must be ember.dtype, not {type(dtype).__name__}")
    return found


def run_factory_op(op, args, requires_grad, out):
    """A frontend's last step: run the factory op, then write its result to `out` or set
    requires_grad (PyTorch's Python-level options, not schema arguments)."""
    made = _call(op, args)
    if out is not None:
        dispatch.copy_into_out(out, made)
        return out
    return made.requires_grad_(True) if requires_grad else made


def filled_array(xp, shape, fill, dtype):
    """An array of `shape` filled with `fill` (None: uninitialised) on `xp`."""
    check_sizes(shape)
    if fill is None:
        fill = uninitialized_fill(dtype)
        if fill is None:
            return xp.empty(shape, dtype._np)
    if dtype is _COMPLEX32:     # NOTE [complex32 storage]: NumPy would fill both parts
        return xp.full(shape, complex_half.scalar(fill), dtype._np)
    if fill == 0 and (isinstance(fill, (complex, np.complexfloating)) or not np.signbit(fill)):
        return xp.zeros(shape, dtype._np)       # (-0.0 fills with -0.0, as in PyTorch)
    return run_quietly(xp.full, shape, fill, dtype._np)   # 1e10 in float16 is inf, quietly


def full_array(shape, fill, dtype, device):
    """An array of `shape` filled with `fill` on `device` (a MetaArray on meta), for the callers
    that wrap it themselves (autograd's materialised zero gradients)."""
    check_sizes(shape)
    if device is META:
        return MetaArray(shape, dtype._np)
    return filled_array(get_backend(device.type).xp, shape, fill, dtype)


def zero_gradient(shape, dtype, device):
    """A materialised zero gradient (autograd's, for an output that got none): through the
    `zeros` op while a mode is open, so a TorchDispatchMode or FakeTensorMode sees and makes it
    (as PyTorch's engine calls at::zeros), else made directly."""
    if dispatch.state.slow:
        return dispatch.call(_ZEROS, (shape, dtype, None, device, None))
    return dispatch.wrap(full_array(shape, 0, dtype, device), dtype, device)


def on_device(xp, values, device):
    """Host-computed `values` on the kernel's device (the factory runner resolved `device`
    wherever `xp` is not NumPy, see NOTE [factory device])."""
    if backend_helpers(xp).host:     # NOTE [back-end helpers]
        return values
    return get_backend(device.type).from_host(values, device)


def uninitialized_fill(dtype):
    """What "uninitialised" memory holds: nothing in particular, except under
    use_deterministic_algorithms, where PyTorch fills it with NaN (floating and complex), the
    largest integer, or True, so results can't depend on leftovers."""
    if dispatch.state.deterministic is None:
        return None
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    if dtype is dt.bool_:
        return True
    return int(np.iinfo(dtype._np).max)


def strided_array(xp, shape, strides, fill, dtype):
    """filled_array with the given element strides (dense)."""
    check_sizes(shape)
    array = memory_layout.empty_strided_array(xp, shape, strides, dtype._np)
    if fill is None:
        fill = uninitialized_fill(dtype)
    if fill is not None:
        array[...] = complex_half.scalar(fill) if dtype is _COMPLEX32 else fill
    return array


def _meta_strided(shape, strides, dtype):
    return MetaArray(shape, dtype._np, tuple(s * dtype.itemsize for s in strides))


# --------------------------------------------------------------------------- sized factories

def _check_zeros_sizes(shape) -> None:
    _check(not shape or min(shape) >= 0, "zeros: Dimension size must be non-negative.")


def _sized_op(name, fill):
    check_size = _check_zeros_sizes if name == "zeros" else check_sizes   # (PyTorch's texts)

    def meta(size, dtype=None, layout=None, device=None, pin_memory=None):
        check_size(size)
        return (size, option_dtype(dtype, _default_float[0]))

    # (The hot path of ember.zeros(8): written out rather than through filled_array.)
    def kernel(xp, size, dtype=None, layout=None, device=None, pin_memory=None):
        if dtype is None:
            dtype = _default_float[0]
        elif type(dtype) is not _DTYPE:
            dtype = _bad_dtype(dtype)
        if size and min(size) < 0:
            check_size(size)
        if fill == 0:
            return xp.zeros(size, dtype._np)
        return xp.ones(size, dtype._np) if dtype is not _COMPLEX32 else \
            filled_array(xp, size, 1, dtype)
    kernel.__doc__ = f"{name}(*size, *, dtype=None, device=None, requires_grad=False) -> " \
                     f"Tensor: a tensor of `size` filled with {fill}."
    register_op(f"{name}(SymInt[] size, *, {_OPTIONS}) -> Tensor", meta=meta,
                **_FACTORY)(kernel)
    return OPS[name]


_ZEROS = _sized_op("zeros", 0)
_ONES = _sized_op("ones", 1)


def size_argument(name, sizes, size):
    """The shape of zeros(2, 3), zeros((2, 3)) or zeros(size=(2, 3)); PyTorch's TypeError for
    none, or for both forms at once."""
    _check_type(size is not None or len(sizes) > 0, lambda: (
        f'{name}() missing 1 required positional arguments: "size"'))
    return sizes_or_keyword(sizes, size, name, "size")


def _sized_frontend(op, name, fill):
    def factory(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
        # ember.zeros(8): one int needs no normalising.
        if _state.entry and _wants(locals()):
            return _handle(factory, locals())
        if size is not None:
            shape = sizes_or_keyword(sizes, size, name, "size")
        elif len(sizes) == 1 and type(sizes[0]) is int:
            shape = sizes
        else:
            shape = size_argument(name, sizes, None)
        if device is None and layout is None and out is None and pin_memory is False \
                and not _state.slow and (dtype is None or (type(dtype) is _DTYPE and
                                                           dtype is not _COMPLEX32)) \
                and _global_default[0] is None and "device" not in _device_local.__dict__ \
                and (not shape or min(shape) >= 0):
            # NOTE [sized factory fast path]: nothing can see the call (no mode: `state.slow`
            # is False; no tensor argument a subclass could own) and it runs on the CPU with
            # no default device set, so the array is made here, as the op's kernel would make
            # it, without the dispatcher's factory step (zeros(8) costs about half as much).
            if dtype is None:
                dtype = _default_float[0]
            try:
                if fill == 0:
                    array = _np_zeros(shape, dtype._np)
                else:
                    array = _np_empty(shape, dtype._np)
                    array.fill(1)
            except Exception as exc:    # NumPy's MemoryError as the op's call reports it
                arguments.explain(exc, op.python_name, False, op,
                                  (shape, dtype, layout, device, pin_memory))
                raise
            made = _wrap(array, dtype, CPU)
            if requires_grad:
                made.requires_grad_(True)
            return made
        if layout is not None:
            arguments.layout_(layout, (name, "layout", None))
        if out is not None:
            dispatch.copy_into_out(out, _call(op, (shape, out._dtype, None, out._device,
                                                   pin_memory)))
            return out
        made = _call(op, (shape, dtype, layout, device, pin_memory))
        if requires_grad:
            made.requires_grad_(True)
        return made
    factory.__name__ = factory.__qualname__ = name
    return register_frontend(name, method=False)(factory)


zeros = _sized_frontend(_ZEROS, "zeros", 0)
ones = _sized_frontend(_ONES, "ones", 1)


def _empty_meta(size, dtype=None, layout=None, device=None, pin_memory=None,
                memory_format=None):
    check_sizes(size)
    dtype = option_dtype(dtype, _default_float[0])
    name = _empty_format(memory_format)
    if name == memory_layout.CONTIGUOUS:
        return (size, dtype)
    return _meta_strided(size, memory_layout.format_strides(size, name), dtype)


def _empty_format(memory_format):
    name = memory_layout.format_name(memory_format, "empty", memory_layout.CONTIGUOUS)
    _check(name != memory_layout.PRESERVE, "unsupported memory format Preserve")
    return name


@register_op(f"empty.memory_format(SymInt[] size, *, {_OPTIONS}, "
             "MemoryFormat? memory_format=None) -> Tensor", meta=_empty_meta, **_FACTORY)
def _empty(xp, size, dtype=None, layout=None, device=None, pin_memory=None,
           memory_format=None):
    """empty(*size, *, dtype=None, device=None, requires_grad=False,
    memory_format=ember.contiguous_format) -> Tensor: an uninitialised tensor."""
    dtype = option_dtype(dtype, _default_float[0])
    if memory_format is None:
        return filled_array(xp, size, None, dtype)
    name = _empty_format(memory_format)
    if name == memory_layout.CONTIGUOUS:
        return filled_array(xp, size, None, dtype)
    return strided_array(xp, size, memory_layout.format_strides(size, name), None, dtype)


_EMPTY = OPS["empty.memory_format"]


@register_frontend(method=False)
def empty(*sizes, size=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
          requires_grad=False, memory_format=None):
    """empty(*size, *, out=None, dtype=None, device=None, requires_grad=False,
    memory_format=ember.contiguous_format) -> Tensor: an uninitialised tensor."""
    if _state.entry and _wants(locals()):
        return _handle(empty, locals())
    shape = sizes_or_keyword(sizes, size, "empty", "size")
    if layout is not None:
        arguments.layout_(layout, ("empty", "layout", None))
    if out is not None:
        _empty_format(memory_format)
        dispatch.copy_into_out(out, _call(_EMPTY, (shape, out._dtype, None, out._device,
                                                   pin_memory, None)))
        return out
    made = _call(_EMPTY, (shape, dtype, layout, device, pin_memory, memory_format))
    if requires_grad:
        made.requires_grad_(True)
    return made


def scalar_dtype(value):
    """The dtype PyTorch gives a tensor filled with the number `value`."""
    if isinstance(value, bool):
        return dt.bool_
    if isinstance(value, int):
        return dt.int64
    if isinstance(value, complex):
        return dt.default_complex_dtype()
    if isinstance(value, dispatch.Tensor):
        return value._dtype
    return dt.get_default_dtype()


def _full_meta(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    check_sizes(size)
    return (size, option_dtype(dtype, scalar_dtype(fill_value)))


@register_op(f"full(SymInt[] size, Scalar fill_value, *, {_OPTIONS}) -> Tensor",
             meta=_full_meta, **_FACTORY)
def _full(xp, size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    """full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor."""
    dtype = option_dtype(dtype, scalar_dtype(fill_value))
    value = filling.fill_value(fill_value, dtype._np, half_rounds=math.prod(size) == 1)
    return filled_array(xp, size, value, dtype)


@register_frontend(method=False)
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
         requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(full, locals())
    shape = normalize_shape((size,))
    if type(fill_value) is not float and type(fill_value) is not int:
        fill_value = arguments.scalar(fill_value, ("full", "fill_value", 2))
    if layout is not None:
        arguments.layout_(layout, ("full", "layout", None))
    made = _call(OPS["full"], (shape, fill_value, dtype, layout, device, pin_memory))
    if requires_grad:
        made.requires_grad_(True)
    if out is not None:
        dispatch.copy_into_out(out, made)
        return out
    return made


@register_op(f"empty_strided(SymInt[] size, SymInt[] stride, *, {_OPTIONS}) -> Tensor",
             meta=lambda size, stride, dtype=None, layout=None, device=None, pin_memory=None:
             _meta_strided(size, strided.replace_negative_strides(size, stride),
                           option_dtype(dtype, _default_float[0])), **_FACTORY)
def _empty_strided(xp, size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    """empty_strided(size, stride, *, dtype=None, device=None) -> Tensor: uninitialised, with
    the given element strides (which may overlap or leave gaps)."""
    dtype = option_dtype(dtype, _default_float[0])
    # NOTE [strided views are checked against their storage]
    nbytes = strided.storage_nbytes(size, stride, 0, dtype.itemsize)
    stride = strided.replace_negative_strides(size, stride)
    buffer = xp.empty(max(nbytes // dtype.itemsize, 1), dtype._np)
    fill = uninitialized_fill(dtype)
    if fill is not None:
        buffer[...] = fill
    return xp.lib.stride_tricks.as_strided(buffer, size,
                                           strided.byte_strides(stride, dtype.itemsize))


@register_op(f"scalar_tensor(Scalar s, *, {_OPTIONS}) -> Tensor", kind="factory", out=False,
             method=False, differentiable=False,
             meta=lambda s, dtype=None, layout=None, device=None, pin_memory=None: (
                 (), option_dtype(dtype, _default_float[0])))
def scalar_tensor(xp, s, dtype=None, layout=None, device=None, pin_memory=None):
    """scalar_tensor(s, *, dtype=None, device=None) -> Tensor: the number s as a 0-d tensor of
    the default float dtype (or `dtype`)."""
    dtype = option_dtype(dtype, _default_float[0])
    if isinstance(s, complex) and not dtype.is_complex:
        _check(not s.imag, lambda: (
            f"value cannot be converted to type {dtype._cpp_name.lower()} without overflow"))
        s = s.real
    return on_device(xp, np.array(s).astype(dtype._np), device)


# --------------------------------------------------------------------------- *_like, new_*

def element_strides(array):
    itemsize = array.dtype.itemsize
    return tuple(s // itemsize for s in array.strides)


def like_strides(self, memory_format, where):
    """The element strides of a tensor made like the array `self` (None: row-major)."""
    if memory_format is None and type(self) is np.ndarray and self.flags.c_contiguous:
        return None      # (the common case, decided by NumPy's flag)
    name = memory_layout.format_name(memory_format, where)
    if name == memory_layout.CONTIGUOUS:
        return None
    shape, strides = self.shape, element_strides(self)
    # NOTE [preserve_format in *_like]: as PyTorch, a dense input's strides are kept (so
    # code must not assume a *_like result is row-major).
    if name == memory_layout.PRESERVE and _row_major(shape, strides):
        return None
    return memory_layout.like_strides(shape, strides, name)


def _row_major(shape, strides):
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return 0 in shape
        expected *= size
    return True


def like_array(xp, self, fill, dtype, memory_format, where):
    """The array of a tensor made like the array `self` in `memory_format`."""
    strides = like_strides(self, memory_format, where)
    if strides is None:
        return filled_array(xp, self.shape, fill, dtype)
    return strided_array(xp, self.shape, strides, fill, dtype)


def _like_op(name, fill):
    def meta(self, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        dtype = option_dtype(dtype, self._dtype)
        strides = like_strides(self._data, memory_format, name)
        if strides is None:
            return (self._data.shape, dtype)
        return _meta_strided(self._data.shape, strides, dtype)

    def kernel(xp, self, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
        dtype = _NP_TO_DTYPE[self.dtype] if dtype is None else option_dtype(dtype, None)
        if fill is not None and memory_format is None and type(self) is np.ndarray and \
                self.flags.c_contiguous:          # (the common zeros_like(x), ones_like(x))
            if fill == 0 or dtype is _COMPLEX32:
                return filled_array(xp, self.shape, fill, dtype)
            return xp.ones(self.shape, dtype._np)
        return like_array(xp, self, fill, dtype, memory_format, name)
    kernel.__doc__ = f"{name}(input, *, dtype=None, device=None, requires_grad=False, " \
                     "memory_format=ember.preserve_format) -> Tensor: a tensor with input's " \
                     f"shape (and, by default, dtype, device and layout) filled with {fill}."
    register_op(f"{name}(Tensor self, *, {_OPTIONS}, MemoryFormat? memory_format=None) -> "
                "Tensor", meta=meta, **_FACTORY)(kernel)
    return OPS[name]


def _full_like_meta(self, fill_value, dtype=None, layout=None, device=None, pin_memory=None,
                    memory_format=None):
    return OPS["zeros_like"].meta(self, dtype, layout, device, pin_memory, memory_format)


@register_op(f"full_like(Tensor self, Scalar fill_value, *, {_OPTIONS}, MemoryFormat? "
             "memory_format=None) -> Tensor", meta=_full_like_meta, **_FACTORY)
def _full_like(xp, self, fill_value, dtype=None, layout=None, device=None, pin_memory=None,
               memory_format=None):
    """full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
    memory_format=ember.preserve_format) -> Tensor: a tensor like input filled with
    fill_value."""
    dtype = _NP_TO_DTYPE[self.dtype] if dtype is None else option_dtype(dtype, None)
    value = filling.fill_value(fill_value, dtype._np, half_rounds=self.size == 1)
    return like_array(xp, self, value, dtype, memory_format, "full_like")


def _like_frontend(op, name, with_value):
    if with_value:
        def factory(input, fill_value, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False, memory_format=None):
            if _state.entry and _wants(locals()):
                return _handle(factory, locals())
            if type(fill_value) is not float and type(fill_value) is not int:
                fill_value = arguments.scalar(fill_value, (name, "fill_value", 2))
            made = _call(op, (input, fill_value, dtype, layout, device, pin_memory,
                              memory_format))
            return made.requires_grad_(True) if requires_grad else made
    else:
        fill = 0 if name == "zeros_like" else 1 if name == "ones_like" else None

        def factory(input, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False, memory_format=None):
            if _state.entry and _wants(locals()):
                return _handle(factory, locals())
            if fill is not None and dtype is None and device is None and layout is None \
                    and memory_format is None and pin_memory is False and not _state.slow \
                    and (type(input) is dispatch.Tensor or type(input) in _PLAIN) \
                    and input._device is CPU and input._dtype is not _COMPLEX32 and type(input._data) is np.ndarray \
                    and input._data.flags.c_contiguous:
                # NOTE [sized factory fast path], for zeros_like / ones_like of a plain
                # row-major CPU tensor (the op records nothing: it is not differentiable).
                data = input._data
                try:
                    if fill == 0:
                        array = _np_zeros(data.shape, data.dtype)
                    else:
                        array = _np_empty(data.shape, data.dtype)
                        array.fill(1)
                except Exception as exc:    # NumPy's MemoryError as the op's call reports it
                    arguments.explain(exc, op.python_name, False, op,
                                      (input, dtype, layout, device, pin_memory, memory_format))
                    raise
                made = _wrap(array, input._dtype, CPU)
                return made.requires_grad_(True) if requires_grad else made
            made = _call(op, (input, dtype, layout, device, pin_memory, memory_format))
            return made.requires_grad_(True) if requires_grad else made
    factory.__name__ = factory.__qualname__ = name
    return register_frontend(name, method=False)(factory)


zeros_like = _like_frontend(_like_op("zeros_like", 0), "zeros_like", False)
ones_like = _like_frontend(_like_op("ones_like", 1), "ones_like", False)
empty_like = _like_frontend(_like_op("empty_like", None), "empty_like", False)
full_like = _like_frontend(OPS["full_like"], "full_like", True)


def _new_op(name, fill):
    def meta(self, size, dtype=None, layout=None, device=None, pin_memory=None):
        check_sizes(size)
        return (size, option_dtype(dtype, self._dtype))

    def kernel(xp, self, size, dtype=None, layout=None, device=None, pin_memory=None):
        dtype = _NP_TO_DTYPE[self.dtype] if dtype is None else option_dtype(dtype, None)
        return filled_array(xp, size, fill, dtype)
    kernel.__doc__ = f"Tensor.{name}(*size, *, dtype=None, device=None, requires_grad=False) " \
                     f"-> Tensor: a tensor of `size` filled with {fill}, with this tensor's " \
                     "dtype and device unless others are given."
    register_op(f"{name}(Tensor self, SymInt[] size, *, {_OPTIONS}) -> Tensor", meta=meta,
                **_FACTORY)(kernel)
    return OPS[name]


@register_op(f"new_full(Tensor self, SymInt[] size, Scalar fill_value, *, {_OPTIONS}) -> "
             "Tensor", **_FACTORY,
             meta=lambda self, size, fill_value, dtype=None, layout=None, device=None,
             pin_memory=None: (check_sizes(size), (size, option_dtype(dtype, self._dtype)))[1])
def _new_full(xp, self, size, fill_value, dtype=None, layout=None, device=None,
              pin_memory=None):
    """Tensor.new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False) ->
    Tensor: a tensor of `size` filled with fill_value, with this tensor's dtype and device
    unless others are given."""
    dtype = _NP_TO_DTYPE[self.dtype] if dtype is None else option_dtype(dtype, None)
    value = filling.fill_value(fill_value, dtype._np, half_rounds=math.prod(size) == 1)
    return filled_array(xp, size, value, dtype)


def _new_frontend(op, name, with_value):
    if with_value:
        def factory(self, size, fill_value, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
            if _state.entry and _wants(locals()):
                return _handle(factory, locals())
            made = _call(op, (self, normalize_shape((size,)), fill_value, dtype, layout, device,
                              pin_memory))
            return made.requires_grad_(True) if requires_grad else made
    else:
        def factory(self, *sizes, size=None, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
            if _state.entry and _wants(locals()):
                return _handle(factory, locals())
            if not sizes and size is None:       # (as PyTorch's parser: `new_ones(())` is 0-d)
                raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
            shape = sizes_or_keyword(sizes, size, name, "size")
            made = _call(op, (self, shape, dtype, layout, device, pin_memory))
            return made.requires_grad_(True) if requires_grad else made
    factory.__name__ = factory.__qualname__ = name
    return register_frontend(name, function=False)(factory)


new_zeros = _new_frontend(_new_op("new_zeros", 0), "new_zeros", False)
new_ones = _new_frontend(_new_op("new_ones", 1), "new_ones", False)
new_empty = _new_frontend(_new_op("new_empty", None), "new_empty", False)
new_full = _new_frontend(OPS["new_full"], "new_full", True)
