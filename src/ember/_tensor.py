"""The `Tensor` class: its data layout, properties and the methods that aren't registry ops.

Methods generated from the op registry (`add`, `sum`, `view`, dunders ...) are installed on the
class by `ember._generated.bindings`; this file holds what is about the tensor object itself.
"""
from __future__ import annotations

import numbers
import warnings
import weakref as _weakref

from ember._C import (
    DisableTorchFunctionSubclass,
    _disabled_torch_dispatch_impl,
)
from ember._core import arguments, complex_half, dispatch, layout, upcalls
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type, _check_value
from ember._core.device import CPU, META, as_device, placed
from ember._core.dispatch import storage_of, wrap_data
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import handle_get as _handle_get
from ember._core.dispatch.entry import handle_set as _handle_set
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.dispatch.quantized import QuantizedData
from ember._core.registry import OPS
from ember._core.shape import Size, size_at, trusted_size, wrap_dim
from ember._core.storage import _data_ptr
from ember._ops.conversion import detached
from ember.autograd import grad_mode, graph


def _warn_non_leaf_grad():
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
        "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
        "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
        "Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf "
        "Tensor instead.", UserWarning, stacklevel=3)


class Tensor:
    """A multi-dimensional array with a dtype, a device and autograd history."""

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_base",
        "_data",
        "_device",
        "_dtype",
        "_grad",
        "_grad_fn",
        "_requires_grad",
        "_storage",
    )

    def __new__(cls, *args, **kwargs):
        # The legacy constructor: Tensor(2, 3) allocates, Tensor([1, 2]) copies data.
        from ember._ops.creation_data import legacy_tensor_new
        return legacy_tensor_new(cls, dt.get_default_dtype(), args, kwargs)

    # ------------------------------------------------------------------ subclasses
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        dispatch.classify_subclass(cls)     # NOTE [plain-acting subclasses]
        if "__torch_dispatch__" in vars(cls) and upcalls.load_decompositions is not None:
            upcalls.load_decompositions()   # NOTE [composites decompose under modes]

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """The default for subclasses: run `func` as for plain tensors, then give tensor
        results the subclass's type (a subclass overrides this to change what ops do)."""
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            result = func(*args, **(kwargs or {}))
        if getattr(func, "__self__", None) is _GRAD_PROPERTY:
            return result       # PyTorch hands back .grad as it is stored
        return _as_subclass_tree(result, cls)

    __torch_dispatch__ = classmethod(_disabled_torch_dispatch_impl)

    def as_subclass(self, cls):
        """This tensor's data and storage as an instance of `cls` (no autograd history)."""
        t = object.__new__(cls)
        for name in ("_data", "_dtype", "_device", "_storage", "_requires_grad", "_grad_fn",
                     "_grad", "_base"):
            setattr(t, name, getattr(self, name))
        storage_of(self)
        t._storage = self._storage
        t._requires_grad = False
        t._grad_fn = None
        t._grad = None
        return t

    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None,
                               memory_format=None, dtype=None, layout=None, device=None,
                               pin_memory=False, requires_grad=False, **kwargs):
        """An instance of `cls` with a shape, dtype and device but no data of its own: a
        wrapper subclass keeps its real tensors itself and answers every op in
        `__torch_dispatch__` (dispatch/stack.py)."""
        from ember._backends.meta import MetaArray
        dtype = dtype if dtype is not None else dt.get_default_dtype()
        t = object.__new__(cls)
        t._data = MetaArray(tuple(size), dtype._np)
        t._dtype = dtype
        t._device = as_device(device) if device is not None else CPU
        t._storage = None
        t._requires_grad = False
        t._grad_fn = None
        t._grad = None
        t._base = None
        if requires_grad:
            Tensor.requires_grad_(t, True)
        return t

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, *args, **kwargs):
        """`data`'s values as a leaf of class `cls` sharing its storage (nn.Parameter's way)."""
        # Tensor's own methods: construction offers nothing to __torch_function__ (NOTE
        # [subclass methods reach __torch_function__]).
        t = Tensor.as_subclass(Tensor.detach(data), cls)
        if require_grad and _state.entry:
            with DisableTorchFunctionSubclass():      # (not offered: NOTE [the public entry])
                Tensor.requires_grad_(t, True)
        elif require_grad:
            Tensor.requires_grad_(t, True)
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return trusted_size(Size, self._data.shape)

    def size(self, dim=None):
        """The shape as an `ember.Size`, or the size of `dim`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.size, locals())
        if dim is None:
            return trusted_size(Size, self._data.shape)
        shape = self._data.shape
        if shape:
            return shape[wrap_dim(dim, len(shape))]
        return size_at(shape, dim)                  # (a 0-d tensor: PyTorch's IndexError)

    @property
    def dtype(self) -> dt.dtype:
        return self._dtype

    @property
    def device(self):
        if _state.entry and _wants(locals()):       # NOTE [the public entry]
            return _handle_get(Tensor.device, self)
        return self._device

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        if _state.entry and _wants(locals()):       # NOTE [the public entry]
            return _handle(Tensor.dim, locals())
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        """The number of elements."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.numel, locals())
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        """The size of one element in bytes."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.element_size, locals())
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._data.size) * self._dtype.itemsize

    def stride(self, dim=None):
        """The strides in elements, or the stride of `dim`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.stride, locals())
        itemsize = self._dtype.itemsize
        strides = tuple(s // itemsize for s in self._data.strides)
        if dim is None:
            return strides
        return strides[wrap_dim(dim, len(strides))] if strides else size_at(strides, dim)

    def storage_offset(self) -> int:
        """Where the first element sits in the storage, in elements."""
        if self._device is META:
            return 0
        root = storage_of(self)._array
        return (_data_ptr(self._data) - _data_ptr(root)) // self._dtype.itemsize

    def data_ptr(self) -> int:
        """The address of the first element (0 on the meta device)."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.data_ptr, locals())
        if self._device is META:
            return 0
        return _data_ptr(self._data)

    def untyped_storage(self):
        """The storage behind this tensor and every view of it."""
        return storage_of(self)

    def is_contiguous(self, memory_format=None) -> bool:
        """Whether the elements lie in memory in the order of `memory_format` (row-major by
        default), with no gaps."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.is_contiguous, locals())
        shape, strides = self._data.shape, self.stride()
        if memory_format is not None:
            name = layout.format_name(memory_format, "is_contiguous", layout.CONTIGUOUS)
            if name in (layout.CHANNELS_LAST, layout.CHANNELS_LAST_3D):
                return layout.is_contiguous_as(shape, strides, name)
        if self._data.size == 0:
            return True
        expected = 1
        for size, stride in zip(reversed(shape), reversed(strides)):
            if size != 1 and stride != expected:
                return False
            expected *= size
        return True

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self._device is META

    @property
    def is_sparse(self) -> bool:
        if _state.entry and _wants(locals()):       # NOTE [the public entry]
            return _handle_get(Tensor.is_sparse, self)
        # NOTE [sparse layout] (_core/dispatch/sparse.py): the layout is the `_data`'s kind.
        return getattr(self._data, "layout_name", None) == "sparse_coo"

    @property
    def is_sparse_csr(self) -> bool:
        return getattr(self._data, "layout_name", None) == "sparse_csr"

    @property
    def is_quantized(self) -> bool:
        return type(self._data) is QuantizedData       # NOTE [quantized tensors]

    # The quantized tensor's accessors (ember/_quantized_tensor.py).
    def dequantize(self):
        """The real values of a quantized tensor as float32."""
        from ember._quantized_tensor import dequantize
        return dequantize(self)

    def int_repr(self):
        """A quantized tensor's stored integers."""
        from ember._quantized_tensor import int_repr
        return int_repr(self)

    def q_scale(self) -> float:
        from ember._quantized_tensor import q_scale
        return q_scale(self)

    def q_zero_point(self) -> int:
        from ember._quantized_tensor import q_zero_point
        return q_zero_point(self)

    def q_per_channel_scales(self):
        from ember._quantized_tensor import q_per_channel_scales
        return q_per_channel_scales(self)

    def q_per_channel_zero_points(self):
        from ember._quantized_tensor import q_per_channel_zero_points
        return q_per_channel_zero_points(self)

    def q_per_channel_axis(self) -> int:
        from ember._quantized_tensor import q_per_channel_axis
        return q_per_channel_axis(self)

    def qscheme(self):
        from ember._quantized_tensor import qscheme
        return qscheme(self)

    @property
    def layout(self):
        import ember
        return getattr(ember, getattr(self._data, "layout_name", "strided"))

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating dtype."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.is_floating_point, locals())
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        """Whether the dtype is a complex dtype."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.is_complex, locals())
        return self._dtype.is_complex

    def is_signed(self) -> bool:
        """Whether the dtype can hold negative values."""
        return self._dtype.is_signed

    def get_device(self) -> int:
        """The device index: -1 on the CPU."""
        return -1 if self._device.type == "cpu" else (self._device.index or 0)

    @property
    def _version(self) -> int:
        s = self._storage
        return 0 if s is None else s._version

    # ------------------------------------------------------------------ autograd metadata
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        _check(value is True or value is False or type(value).__name__ == "SymBool",
               "requires_grad must be a bool")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Set whether autograd records operations on this tensor (a leaf); returns self."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.requires_grad_, locals())
        if requires_grad is not True and requires_grad is not False:
            arguments.bool_(requires_grad, ("requires_grad_", "requires_grad", 1))
        if requires_grad:
            _check(self._dtype.is_floating_point or self._dtype.is_complex,
                   "only Tensors of floating point dtype can require gradients")
            if "_inference" in self.__dict__:
                grad_mode.check_requires_grad(self)
        else:
            _check(self._grad_fn is None, lambda: (
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."))
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self):
        if _state.entry and _wants(locals()):       # NOTE [the public entry]
            return _handle_get(Tensor.grad_fn, self)
        if self._base is not None:
            graph.stale_view_check(self)    # NOTE [stale views]
        return self._grad_fn

    def is_inference(self) -> bool:
        """Whether this tensor was made inside inference_mode (NOTE [inference tensors])."""
        return "_inference" in self.__dict__

    @property
    def grad(self):
        if _state.entry and _wants(locals()):       # NOTE [the public entry]
            return _handle_get(Tensor.grad, self)
        grad = self._grad
        if grad is None and self._grad_fn is not None and not self.retains_grad:
            _warn_non_leaf_grad()
        return grad

    @grad.setter
    def grad(self, value) -> None:
        if _state.entry and _wants(locals()):
            return _handle_set(Tensor.grad, self, value)
        if value is not None:
            _check_type(isinstance(value, Tensor), lambda: (
                f"assigned grad expected to be a Tensor or None but got grad of type "
                f"{type(value).__name__}"))
            if value._dtype is not self._dtype or "_grad_dtype" in self.__dict__:
                from ember._ops.tensor_attributes import check_assigned_grad_dtype
                check_assigned_grad_dtype(self, value)
            _check(value._data.shape == self._data.shape,
                   "assigned grad has data of a different size")
        self._grad = value

    @property
    def data(self):
        """This tensor's memory outside the graph, counting its writes apart (NOTE [.data has
        its own version counter])."""
        return wrap_data(self)

    @data.setter
    def data(self, value) -> None:
        self._data = value._data
        self._dtype = value._dtype
        self._device = value._device
        self._storage = value._storage

    def detach(self):
        """A tensor sharing this one's data and version counter, cut off from the graph."""
        if dispatch.state.slow:
            return dispatch.call(OPS["detach"], (self,))     # NOTE [detach is an op]
        return detached(self)

    def detach_(self):
        """Cut this tensor off from the graph in place (not allowed on a view of a tensor that
        requires grad); returns self."""
        _check(self._base is None or not self._base._requires_grad, (
            "Can't detach views in-place. Use detach() instead."))
        # Only autograd metadata changes: no op runs (a PyTorch dispatch mode sees none).
        self._grad_fn = None
        self._requires_grad = False
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradients of this tensor with respect to the graph's leaves and add them
        into their `.grad` (`gradient` is required unless the tensor has one element)."""
        state = dispatch.state
        if (state.slow or (state.overriding and type(self) is not Tensor)) and \
                dispatch.stack.torch_function_wanted((self,)):
            return dispatch.stack.handle_torch_function(
                Tensor.backward, (self,), (self,), dict(
                    gradient=gradient, retain_graph=retain_graph, create_graph=create_graph,
                    inputs=inputs))
        (_engine.backward or _load_engine())(self, gradient, retain_graph, create_graph, inputs)

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in `.grad` during backward."""
        _check(self._requires_grad, "can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self.__dict__.get("_retains_grad"):
            return
        self.__dict__["_retains_grad"] = True
        node = self._grad_fn
        nr = self.__dict__.get("_output_nr", 0)
        ref = _weakref.ref(self)

        def keep(grad):
            t = ref()
            if t is not None:
                t._grad = grad.detach().clone() if t._grad is None else t._grad + grad.detach()
        if node._retain_grad_hooks is None:
            node._retain_grad_hooks = {}
        node._retain_grad_hooks[nr] = keep

    @property
    def retains_grad(self) -> bool:
        return bool(self.__dict__.get("_retains_grad")) and self._grad_fn is not None

    def register_hook(self, hook):
        """hook(grad) -> new grad or None, called when this tensor's gradient is computed."""
        from ember.autograd.graph import RemovableHandle, _handle_ids
        _check(self._requires_grad, "cannot register a hook on a tensor that doesn't require "
                                    "gradient")
        key = next(_handle_ids)
        if self._grad_fn is None:
            hooks = self.__dict__.setdefault("_hooks", {})
        else:
            node = self._grad_fn
            if node._tensor_pre_hooks is None:
                node._tensor_pre_hooks = {}
            hooks = node._tensor_pre_hooks.setdefault(self.__dict__.get("_output_nr", 0), {})
        hooks[key] = hook
        return RemovableHandle(hooks, key)

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor), called after a leaf's .grad has been accumulated."""
        from ember.autograd.graph import RemovableHandle, _handle_ids
        _check(self._grad_fn is None, "post accumulate grad hooks cannot be registered on "
                                      "non-leaf tensors")
        key = next(_handle_ids)
        hooks = self.__dict__.setdefault("_post_accumulate_hooks", {})
        hooks[key] = hook
        return RemovableHandle(hooks, key)

    @property
    def output_nr(self) -> int:
        return self.__dict__.get("_output_nr", 0) if self._grad_fn is not None else 0

    # ------------------------------------------------------------------ conversion
    def item(self):
        """The value of a one-element tensor as a Python number."""
        if _state.entry:
            if _wants(locals()):
                return _handle(Tensor.item, locals())
            if _state.slow:   # modes see `_local_scalar_dense`: NOTE [item is an op under modes]
                return dispatch.call_aten(OPS["_local_scalar_dense"], (self,))
        data = self._data
        if data.size != 1:
            raise RuntimeError(f"a Tensor with {data.size} elements cannot be converted to "
                               "Scalar")
        if self._device is CPU and self._dtype is not dt.complex32:
            return data.item()              # (the plain host array's one element)
        _check(self._device is not META, "Tensor.item() cannot be called on meta tensors")
        return self._host_numbers().reshape(()).item()

    def tolist(self):
        """The data as nested Python lists of numbers."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.tolist, locals())
        _check_not_meta(self, "tolist")
        return self._host_numbers().tolist()

    def numpy(self, *, force=False):
        """A NumPy array sharing this CPU tensor's memory. `force=True` skips the checks: a
        tensor that requires grad gives its data, one on another device a host copy."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.numpy, locals())
        if not force:
            _check(not self._requires_grad, (
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."))
            _check_type(not hasattr(self._data, "layout_name"), (
                "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first."))
            _check_type(self._device is CPU, lambda: (
                f"can't convert {self._device.type} device type tensor to numpy. Use "
                "Tensor.cpu() to copy the tensor to host memory first."))
        _check_type(self._dtype is not dt.complex32, "Got unsupported ScalarType ComplexHalf")
        return self._host()

    def _host_numbers(self):
        """The data as a host NumPy array whose items are Python numbers (complex32 widened,
        NOTE [complex32 storage])."""
        if self._dtype is dt.complex32:
            return complex_half.widen(self._host())
        return self._host()

    def _host(self):
        """The data as a NumPy array (a copy only for non-CPU devices)."""
        if self._device is CPU:
            return self._data
        _check_not_meta(self, "numpy")
        from ember._backends import get_backend
        return get_backend(self._device.type).to_host(self._data)

    def __array__(self, dtype=None, copy=None):
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__array__, locals())
        array = self.numpy(force=False) if not self._requires_grad else self._host()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __dlpack__(self, stream=None, **kwargs):
        return self._data.__dlpack__(**({"stream": stream} if stream is not None else {}))

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def __len__(self) -> int:
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__len__, locals())
        _check_type(self._data.ndim > 0, "len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        _check_type(self.dim() > 0, "iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element) -> bool:
        """`element in t`: whether any element equals it (a tensor or a number)."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__contains__, locals())
        _check(isinstance(element, (Tensor, numbers.Number)), lambda: (
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."))
        return bool((element == self).any().item())

    def __bool__(self) -> bool:
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__bool__, locals())
        _check(self._data.size == 1, lambda: (
            "Boolean value of Tensor with more than one value is ambiguous"
            if self._data.size > 1 else
            "Boolean value of Tensor with no values is ambiguous"))
        return bool(self.item())

    def __int__(self) -> int:
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__int__, locals())
        _check_value(self._data.size == 1, _ONE_ELEMENT)
        return int(self.item())

    def __float__(self) -> float:
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__float__, locals())
        _check_value(self._data.size == 1, _ONE_ELEMENT)
        return float(self.item())

    def __complex__(self) -> complex:
        _check_value(self._data.size == 1, _ONE_ELEMENT)
        return complex(self.item())

    def __index__(self) -> int:
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__index__, locals())
        _check_type(self._data.size == 1 and not self._dtype.is_floating_point
                    and not self._dtype.is_complex,
                    "only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        # A plain 0-d tensor formats as its number (f"{t}" gives "-1.0"), as in PyTorch.
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__format__, locals())
        if self._data.ndim == 0 and (spec or (type(self) is Tensor and not self.is_meta)):
            return format(self.item(), spec)
        return object.__format__(self.__str__(), spec)

    def __repr__(self, *, tensor_contents=None) -> str:
        if _state.entry and _wants(locals()):
            return _handle(Tensor.__repr__, locals())
        from ember._tensor_str import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    __hash__ = object.__hash__

    def __reduce_ex__(self, protocol):
        from ember._tensor_pickle import reduce_tensor
        return reduce_tensor(self)

    def __deepcopy__(self, memo):
        from ember._tensor_pickle import deepcopy_tensor
        return deepcopy_tensor(self, memo)

    __array_priority__ = 1000  # NumPy defers reflected operators to ember

    # ------------------------------------------------------------------ device / dtype moves
    def to(self, *args, **kwargs):
        if _state.entry and _wants(locals()):
            return _handle(Tensor.to, locals())
        memory_format = kwargs.pop("memory_format", None)
        dtype, device, copy, non_blocking = _parse_to(self, args, kwargs)
        name = layout.format_name(memory_format, "to")
        if (dtype is None or dtype is self._dtype) and (device is None or device is self._device
                                                        or device is CPU and self.is_quantized):
            if name == layout.PRESERVE:
                return self.clone() if copy else self
            if not copy and self.is_contiguous(memory_format=memory_format):
                return self
            return self.clone(memory_format=memory_format)
        result = _to_copy(self, dtype=dtype, device=device, non_blocking=non_blocking)
        if name != layout.PRESERVE:
            result = result.contiguous(memory_format=memory_format)
        return result

    def cpu(self, memory_format=None):
        if _state.entry and _wants(locals()):
            return _handle(Tensor.cpu, locals())
        return self.to(CPU)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        target = as_device("cuda" if device is None else device)
        if isinstance(device, int):
            target = as_device(f"cuda:{device}")
        return self.to(target)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """The legacy type string ('torch.FloatTensor'), or this tensor converted to a type."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.type, locals())
        from ember._legacy_types import tensor_type
        return tensor_type(self, dtype, non_blocking)

    def type_as(self, other):
        """This tensor converted to `other`'s dtype."""
        if not isinstance(other, Tensor):
            from ember._core.arguments import refuse
            refuse(("type_as", "other", 1), "Tensor", other)
        return self.to(other._dtype)

    def double(self, memory_format=None):
        """`self.to(ember.float64)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.double, locals())
        return self.to(dt.float64) if memory_format is None else \
            self.to(dt.float64, memory_format=memory_format)

    def float(self, memory_format=None):
        """`self.to(ember.float32)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.float, locals())
        return self.to(dt.float32) if memory_format is None else \
            self.to(dt.float32, memory_format=memory_format)

    def half(self, memory_format=None):
        """`self.to(ember.float16)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.half, locals())
        return self.to(dt.float16) if memory_format is None else \
            self.to(dt.float16, memory_format=memory_format)

    def bfloat16(self, memory_format=None):
        """`self.to(ember.bfloat16)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.bfloat16, locals())
        return self.to(dt.bfloat16) if memory_format is None else \
            self.to(dt.bfloat16, memory_format=memory_format)

    def long(self, memory_format=None):
        """`self.to(ember.int64)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.long, locals())
        return self.to(dt.int64) if memory_format is None else \
            self.to(dt.int64, memory_format=memory_format)

    def int(self, memory_format=None):
        """`self.to(ember.int32)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.int, locals())
        return self.to(dt.int32) if memory_format is None else \
            self.to(dt.int32, memory_format=memory_format)

    def short(self, memory_format=None):
        """`self.to(ember.int16)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.short, locals())
        return self.to(dt.int16) if memory_format is None else \
            self.to(dt.int16, memory_format=memory_format)

    def char(self, memory_format=None):
        """`self.to(ember.int8)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.char, locals())
        return self.to(dt.int8) if memory_format is None else \
            self.to(dt.int8, memory_format=memory_format)

    def byte(self, memory_format=None):
        """`self.to(ember.uint8)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.byte, locals())
        return self.to(dt.uint8) if memory_format is None else \
            self.to(dt.uint8, memory_format=memory_format)

    def bool(self, memory_format=None):
        """`self.to(ember.bool)`."""
        if _state.entry and _wants(locals()):
            return _handle(Tensor.bool, locals())
        return self.to(dt.bool_) if memory_format is None else \
            self.to(dt.bool_, memory_format=memory_format)

    def cfloat(self, memory_format=None):
        """`self.to(ember.complex64)`."""
        return self.to(dt.complex64) if memory_format is None else \
            self.to(dt.complex64, memory_format=memory_format)

    def chalf(self, memory_format=None):
        """`self.to(ember.complex32)`."""
        return self.to(dt.complex32) if memory_format is None else \
            self.to(dt.complex32, memory_format=memory_format)

    def cdouble(self, memory_format=None):
        """`self.to(ember.complex128)`."""
        return self.to(dt.complex128) if memory_format is None else \
            self.to(dt.complex128, memory_format=memory_format)

    # ------------------------------------------------------------------ transposes
    @property
    def T(self):
        ndim = self._data.ndim
        if ndim == 0:
            _warn_zero_dim("T", "This function is the identity in these cases.")
        elif ndim != 2:
            import warnings
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse "
                          "their shape is deprecated and it will throw an error in a future "
                          "release. Consider `x.mT` to transpose batches of matrices or "
                          "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(range(ndim - 1, -1, -1)))

    @property
    def mT(self):
        ndim = self._data.ndim
        if ndim == 0:
            _warn_zero_dim("mT", "This function is the identity in these cases.")
            return self.view(())
        _check(ndim >= 2, "tensor.mT is only supported on matrices or batches of matrices. "
                          "Got 1-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        ndim = self._data.ndim
        if ndim == 0:
            _warn_zero_dim("H", "Consider using x.conj().")
            return self.conj() if self._dtype.is_complex else self.view(())
        _check(ndim == 2, lambda: "tensor.H is only supported on matrices (2-D tensors). "
                                  f"Got {ndim}-D tensor.")
        return self.T.conj() if self._dtype.is_complex else self.T

    @property
    def mH(self):
        if self._data.ndim == 0:
            _warn_zero_dim("mH", "Consider using x.conj().")
            return self.conj() if self._dtype.is_complex else self.view(())
        return self.mT.conj() if self._dtype.is_complex else self.mT

    @property
    def real(self):
        from ember import real
        return real(self)

    @property
    def imag(self):
        from ember import imag
        return imag(self)


_ONE_ELEMENT = "only one element tensors can be converted to Python scalars"


def _warn_zero_dim(attribute, advice):
    import warnings
    warnings.warn(f"Tensor.{attribute} is deprecated on 0-D tensors. {advice}", UserWarning,
                  stacklevel=3)


# Tensor.to(float) and friends: Python types stand for the dtypes PyTorch maps them to.
_PYTHON_TYPE_DTYPES = {float: dt.float64, int: dt.int64, bool: dt.bool_, complex: dt.complex128}


class _engine:
    backward = None         # ember.autograd.engine.backward, once Tensor.backward first runs


def _load_engine():
    from ember.autograd.engine import backward
    _engine.backward = backward
    return backward


def _check_not_meta(t, what):
    if t._device is META:
        raise NotImplementedError(f"Cannot copy out of meta tensor; no data! ({what})")


def _parse_to(self, args, kwargs):
    """Tensor.to's overloads: (dtype), (device, dtype=None), (other), each with flags."""
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    non_blocking = kwargs.pop("non_blocking", False)
    _check_type(not kwargs, lambda: f"to() got an unexpected keyword argument "
                                    f"'{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dtype, device = other._dtype, other._device
    elif rest and isinstance(rest[0], dt.dtype):
        dtype = rest.pop(0)
    elif rest and rest[0] in _PYTHON_TYPE_DTYPES:
        dtype = _PYTHON_TYPE_DTYPES[rest.pop(0)]
    elif rest and (isinstance(rest[0], (str, int)) or type(rest[0]).__name__ == "device"):
        device = rest.pop(0)
        if rest and isinstance(rest[0], dt.dtype):
            dtype = rest.pop(0)
    elif rest and rest[0] is None:
        rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        copy = rest.pop(0)
    _check_type(not rest and (copy is False or copy is True) and (
        non_blocking is False or non_blocking is True), lambda: (
        f"to() received an invalid combination of arguments - got "
        f"{tuple(type(a).__name__ for a in args)}, copy={type(copy).__name__}, "
        f"non_blocking={type(non_blocking).__name__}"))
    _check_type(dtype is None or isinstance(dtype, dt.dtype), lambda: (
        f"to() received an invalid combination of arguments - got (dtype="
        f"{type(dtype).__name__}, ), but expected a dtype"))
    return dtype, (None if device is None else placed(as_device(device))), copy, non_blocking


def _as_subclass_tree(result, cls):
    """Tensors in `result` (or its tuples and lists) as instances of `cls`."""
    if isinstance(result, Tensor):
        return result if isinstance(result, cls) else result.as_subclass(cls)
    if type(result) is tuple or type(result) is list:
        return type(result)(_as_subclass_tree(r, cls) for r in result)
    return result


def _to_copy(self, **kwargs):
    from ember._ops.conversion import to_copy
    return to_copy(self, kwargs.get("dtype"), kwargs.get("device"))


_GRAD_PROPERTY = Tensor.__dict__["grad"]

dispatch.set_tensor_class(Tensor)
