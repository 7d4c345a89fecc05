"""The few private hooks PyTorch programs reach for under `torch._C`: the disabled
`__torch_function__`/`__torch_dispatch__` (what `nn.Parameter` uses) and the guards that switch
the `__torch_function__` level off in this thread."""
from __future__ import annotations

from ember._core.dispatch import modes
from ember._core.dispatch.subclasses import _disabled_torch_function_impl  # noqa: F401


def _disabled_torch_dispatch_impl(cls, func, types, args=(), kwargs=None):
    """Tensor's own `__torch_dispatch__`: a subclass that does not override it has none."""
    return NotImplemented


class DisableTorchFunctionSubclass:
    """Inside: Tensor subclasses' `__torch_function__` is not called (modes still are)."""

    def __enter__(self):
        modes.subclass_off += 1
        return self

    def __exit__(self, *exc):
        modes.subclass_off -= 1
        return False


class DisableTorchFunction:
    """Inside: neither TorchFunctionModes nor subclasses' `__torch_function__` are called."""

    def __enter__(self):
        modes.function_off += 1
        return self

    def __exit__(self, *exc):
        modes.function_off -= 1
        return False


def _is_torch_function_mode_enabled() -> bool:
    return bool(modes.function_modes) and not modes.function_off
