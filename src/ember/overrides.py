"""`ember.overrides`: the `__torch_function__` level as PyTorch exposes it.

`TorchFunctionMode` sees every public call made inside it (`ember.add`, `Tensor.add`,
`Tensor.__add__` ...); `has_torch_function` / `handle_torch_function` let a function of one's
own take part, as the dispatcher does for the generated bindings (dispatch/stack.py).
"""
from __future__ import annotations

from ember._C import (  # noqa: F401  # noqa: F401
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _is_torch_function_mode_enabled,
)
from ember._core.dispatch import stack


class TorchFunctionMode(stack.ModeOnStack):
    """Subclass and define `__torch_function__(self, func, types, args=(), kwargs=None)`;
    inside `with mode:` it receives every public ember call made in this thread."""

    _stack_name = "function_modes"

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError


def _get_current_function_mode_stack() -> list:
    return list(stack.modes.function_modes)


def _get_overloaded_args(relevant_args, get_type_fn=None) -> list:
    return list(stack.overloaded_args(None, relevant_args))


def has_torch_function(relevant_args) -> bool:
    """Whether a call with these arguments should go to `handle_torch_function`."""
    return stack.torch_function_wanted(relevant_args)


def has_torch_function_unary(arg) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Offer `public_api(*args, **kwargs)` to the active mode and to the overloaded arguments'
    `__torch_function__`, in PyTorch's order; the first answer that is not NotImplemented."""
    return stack.handle_torch_function(public_api, relevant_args, args, kwargs)


def get_default_nowrap_functions() -> set:
    """Public functions whose results the default `__torch_function__` leaves as they are."""
    from ember._tensor import Tensor
    return {Tensor._base.__get__, Tensor.grad.__get__, Tensor._grad.__get__}


def is_tensor_like(inp) -> bool:
    from ember._tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")
