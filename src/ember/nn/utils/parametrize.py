"""Parametrizations: module.<name> computed from other tensors each time it is read.

register_parametrization moves the tensor into `module.parametrizations[name]` (a
ParametrizationList: the parametrization modules, with the unconstrained tensor as its
`original` parameter or buffer, or `original0`, `original1` ... when right_inverse splits it),
gives the module's class a property `name` that runs the list, and a setter that runs the
right inverses. State-dict keys follow PyTorch's: `parametrizations.weight.original`.
`cached()` computes each parametrized tensor once within its block.
"""
from __future__ import annotations

import copy
import copyreg
from collections.abc import Sequence
from contextlib import contextmanager

import ember
from ember.nn.modules.container import ModuleDict, ModuleList
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "transfer_parametrizations_and_params",
           "type_before_parametrizations"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is computed on its first read only."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest, src):
    """dest takes src's values in place (dest stays the same object: optimizers hold it)."""
    dest.data = src.data if isinstance(src, ember.Tensor) else src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and the unconstrained tensor(s) they
    start from (`original`, or `original0` ... when right_inverse gives a sequence)."""

    original: ember.Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with ember.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
                # without right_inverse (or when it refuses), it counts as the identity
        if not isinstance(new, (ember.Tensor, Sequence)):
            raise ValueError(  # noqa: TRY004 -- PyTorch's class
                "'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, ember.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}")
            with ember.no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, piece in enumerate(new):
                if not isinstance(piece, ember.Tensor):
                    raise ValueError(  # noqa: TRY004 -- PyTorch's class
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                        f"tuple...). Got element {i} of the sequence with type "
                        f"{type(piece).__name__}.")
                if isinstance(original, Parameter):
                    piece = Parameter(piece, original.requires_grad)
                piece.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", piece)
        if not self.unsafe:
            result = self()
            _check_result(result, original_dtype, original_shape)

    def right_inverse(self, value) -> None:
        """Set the original tensor(s) so that the parametrization gives `value`."""
        with ember.no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, ember.Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _maybe_set(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(  # noqa: TRY004 -- PyTorch's class
                    f"'right_inverse' must return a sequence of tensors. Got "
                    f"{type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, ember.Tensor):
                    raise ValueError(  # noqa: TRY004 -- PyTorch's class
                        f"`right_inverse` must return a sequence of tensors. Got element {i} "
                        f"of type {type(tensor).__name__}")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                     f"{tensor.dtype} while `original{i}` has dtype "
                                     f"{original_i.dtype}")
                _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _check_result(result, dtype, shape, what="unparametrized"):
    if not isinstance(result, ember.Tensor):
        raise ValueError(  # noqa: TRY004 -- PyTorch's class
            f"A parametrization must return a tensor. Got {type(result).__name__}.")
    if result.dtype != dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                         "unless `unsafe` flag is enabled.\n"
                         f"{what} dtype: {dtype}\nparametrized dtype: {result.dtype}")
    if result.shape != shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                         "unless `unsafe` flag is enabled.\n"
                         f"{what} shape: {shape}\nparametrized shape: {result.shape}")


def _inject_new_class(module) -> None:
    """Give the module a class of its own ("Parametrized<Class>") to hang properties on."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        existing = memo.get(id(self))
        if existing is not None:
            return existing
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). "
            "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    namespace = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name: str) -> None:
    assert not hasattr(module, tensor_name)

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name: str, parametrization, *, unsafe: bool = False):
    """Make module.<tensor_name> the output of `parametrization` (stacked on earlier ones);
    `unsafe` allows a different shape or dtype. Returns the module."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            result = parametrization(current)
            if not isinstance(result, ember.Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(result).__name__}.")
            if result.dtype != current.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {current.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {result.dtype}")
            if result.shape != current.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {current.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {result.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name: str | None = None) -> bool:
    """Whether module has parametrizations (on tensor_name, if given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Undo the parametrizations of tensor_name: it becomes a parameter (or buffer) again,
    holding the parametrized value (`leave_parametrized`) or the original one."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with ember.no_grad():
                value = getattr(module, tensor_name)
                _maybe_set(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = (Parameter(value.detach(), value.requires_grad) if value.requires_grad
                    else value.detach())
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module) -> type:
    """The module's class before register_parametrization gave it its own."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy from_module's parametrizations (of tensor_name, or all) and their original
    tensors onto to_module; returns to_module."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        with ember.no_grad():
            source = from_module.parametrizations[name]
            target = to_module.parametrizations[name]
            if source.is_tensor:
                _maybe_set(target.original, source.original)
            else:
                for i in range(source.ntensors):
                    _maybe_set(getattr(target, f"original{i}"), getattr(source, f"original{i}"))
    return to_module
