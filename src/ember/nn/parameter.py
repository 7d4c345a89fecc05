"""`Parameter` (a tensor a Module trains), `Buffer` (a tensor a Module keeps in its state but
does not train), and their uninitialised forms used by the `Lazy*` modules.

NOTE [parameters act plain]: `Parameter` keeps the disabled `__torch_function__` and defines no
`__torch_dispatch__`, so the dispatcher treats it as a plain tensor (fast paths included, see
NOTE [plain-acting subclasses] in `_core/dispatch/subclasses.py`) and ops on it give plain
`Tensor` results, as in PyTorch.
"""
from __future__ import annotations

from collections import OrderedDict

from ember._core.dispatch.subclasses import DISPATCH, _disabled_torch_function_impl
from ember._tensor import Tensor

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter",
           "UninitializedTensorMixin", "is_lazy"]


def _empty():
    from ember import empty
    return empty(0)


def _rebuild_parameter(data, requires_grad, state):
    param = Parameter(data, requires_grad)
    param.__dict__.update(state)
    return param


class _ParameterMeta(type(Tensor)):
    # `isinstance(t, Parameter)` is also true of a tensor of a dispatching subclass marked as
    # a parameter (a FakeTensor made a Parameter keeps its class), as in PyTorch.
    # Only instances of such subclasses pay more than the C check.
    def __instancecheck__(cls, instance):
        if type(instance) in DISPATCH and cls is Parameter:
            return getattr(instance, "_is_param", False) or type.__instancecheck__(cls, instance)
        return type.__instancecheck__(cls, instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A tensor that a `Module` registers as trainable when assigned as its attribute.

    `Parameter(data=None, requires_grad=True)` shares `data`'s storage; it is a leaf. `data`
    of a subclass that defines `__torch_dispatch__` (a FakeTensor) keeps its class: the result
    is a detached leaf of it marked `_is_param`, which `isinstance(t, Parameter)` accepts.
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            # PyTorch's class for it (its Parameter calls data.detach()).
            raise AttributeError(  # noqa: TRY004
                f"'{type(data).__name__}' object has no attribute 'detach'")
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        if type(data) in DISPATCH:
            t = data.detach().requires_grad_(requires_grad)
            t._is_param = True
            return t
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, *args, **kwargs):
        # Everything happened in __new__ (subclasses take other arguments there).
        pass

    def __deepcopy__(self, memo):
        found = memo.get(id(self))
        if found is not None:
            return found
        # Python attributes are not copied (pickling keeps them), as in PyTorch.
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self, *, tensor_contents=None) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return (_rebuild_parameter, (self.detach(), self.requires_grad, OrderedDict(state)))


class _BufferMeta(type(Tensor)):
    # `isinstance(t, Buffer)` is true of a tensor marked as a buffer, as in PyTorch.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """`Buffer(data, *, persistent=True)`: assigned to a Module attribute, registers `data` as a
    buffer (persistent ones are part of the state_dict). The result is a plain Tensor sharing
    `data`'s storage, marked as a buffer (so `isinstance(result, Buffer)` holds)."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor, not {type(data).__name__}")
        t = data.detach().requires_grad_(data.requires_grad)
        t._is_buffer = True
        t.persistent = persistent
        return t


_ALLOWED_ON_UNINITIALIZED = ("__hash__", "size", "copy_", "is_complex", "is_floating_point",
                             "half", "float", "double", "char", "short", "int", "long", "cuda",
                             "cpu", "to", "get_device")


class UninitializedTensorMixin:
    """Shape-less placeholder used by the Lazy modules until the first input arrives.
    Only `materialize(shape)`, casts, moves and a few queries work; any other op raises
    ValueError (from `__torch_function__`), `.shape` RuntimeError."""

    # Its __torch_function__ only refuses: ops refuse it at the dispatcher, and hand-written
    # public functions need not look for it at their entry (NOTE [the public entry]).
    _entry_exempt = True

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", None) in _ALLOWED_ON_UNINITIALIZED or \
                func.__class__.__name__ == "method-wrapper":
            # The next class's handling: plain results for parameters (Parameter's disabled
            # one), results re-wrapped as the subclass for buffers (Tensor's default).
            return super().__torch_function__(func, types, args, kwargs or {})
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when "
            "you are using a `LazyModule` or explicitly manipulating "
            f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling torch "
            "functions")

    def materialize(self, shape, device=None, dtype=None):
        from ember import empty
        if device is None:
            device = self.device
        if dtype is None:
            dtype = self.dtype
        if isinstance(shape, int):
            shape = (shape,)
        self.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, protocol):
        return (self.__class__, (self.requires_grad,))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter with no shape yet (`LazyLinear`'s weight before the first call)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ember import empty
        data = empty(0, device=device, dtype=dtype)
        if type(data) in DISPATCH:
            t = data.detach().requires_grad_(requires_grad)
            t._is_param = True
            return t
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        found = memo.get(id(self))
        if found is None:
            found = memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return found


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer with no shape yet (a Lazy BatchNorm's running statistics)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from ember import empty
        data = empty(0, device=device, dtype=dtype)
        t = Tensor._make_subclass(cls, data, requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param) -> bool:
    """Whether `param` is still an uninitialised (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
