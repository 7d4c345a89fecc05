"""The private hooks PyTorch programs and libraries reach for under `torch._C`: the disabled
`__torch_function__`/`__torch_dispatch__` (what `nn.Parameter` uses), the guards that switch
the `__torch_function__` level off in this thread, and the switches and queries libraries call
(usage logging, tracing state, grad mode, backend and JIT flags)."""
from __future__ import annotations

import importlib
import sys

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


# ---------------------------------------------------------------- hooks libraries call
# The private switches and queries of PyTorch's extension that libraries built on it call
# (metrics constructors log their use, tracers ask whether a trace is running, JIT users tune
# fusers). ember has no usage logger, tracer state or TorchScript fuser: each answers what
# PyTorch answers when those are idle, and the switches keep what they are set to.

def _log_api_usage_once(event: str) -> None:
    """PyTorch's usage logging (off unless a logger is installed): ember installs none."""
    if not isinstance(event, str):
        raise TypeError(f"_log_api_usage_once(): argument 'event' must be str, not "
                        f"{type(event).__name__}")


def _log_api_usage_metadata(event: str, metadata_map: dict) -> None:
    _log_api_usage_once(event)


def _get_tracing_state():
    """The running `torch.jit.trace`'s state: None (ember has no TorchScript tracer)."""
    return None


def _is_tracing() -> bool:
    return False


def _set_grad_enabled(enabled: bool) -> None:
    from ember.autograd import grad_mode
    grad_mode._set_grad_enabled(enabled)


def is_grad_enabled() -> bool:
    from ember.autograd import grad_mode
    return grad_mode.is_grad_enabled()


_is_grad_enabled = is_grad_enabled


def _backend_flag(module: str, name: str, value=None):
    backend = importlib.import_module(f"ember.backends.{module}")
    if value is None:
        return getattr(backend, name)
    setattr(backend, name, bool(value))
    return None


def _get_cudnn_enabled() -> bool:
    return _backend_flag("cudnn", "enabled")


def _set_cudnn_enabled(enabled: bool) -> None:
    _backend_flag("cudnn", "enabled", enabled)


def _get_cudnn_benchmark() -> bool:
    return _backend_flag("cudnn", "benchmark")


def _set_cudnn_benchmark(enabled: bool) -> None:
    _backend_flag("cudnn", "benchmark", enabled)


def _get_cudnn_deterministic() -> bool:
    return _backend_flag("cudnn", "deterministic")


def _set_cudnn_deterministic(enabled: bool) -> None:
    _backend_flag("cudnn", "deterministic", enabled)


def _get_mkldnn_enabled() -> bool:
    return _backend_flag("mkldnn", "enabled")


def _set_mkldnn_enabled(enabled: bool) -> None:
    _backend_flag("mkldnn", "enabled", enabled)


def _get_privateuse1_backend_name() -> str:
    from ember._core.device import privateuse1_name
    return privateuse1_name()


def _are_functorch_transforms_active() -> bool:
    """Whether a torch.func transform (grad, vjp, jvp, jacobians) is running in this thread
    (vmap in ember maps sample by sample, under no level of its own)."""
    transforms = sys.modules.get("ember.func._transforms")    # never loaded: none running
    return transforms is not None and transforms._state.depth > 0


def _get_warnAlways() -> bool:  # noqa: N802
    from ember._switches import is_warn_always_enabled
    return is_warn_always_enabled()


def _set_warnAlways(enabled: bool) -> None:  # noqa: N802
    from ember._switches import set_warn_always
    set_warn_always(enabled)


def _get_deterministic_algorithms() -> bool:
    from ember._switches import are_deterministic_algorithms_enabled
    return are_deterministic_algorithms_enabled()


# TorchScript's executor and fuser switches: each setter returns the previous value.
_jit_switches = {"profiling_mode": True, "profiling_executor": True, "texpr_fuser": True,
                 "can_fuse_on_cpu": False, "can_fuse_on_gpu": False}


def _jit_switch(name: str, value: bool) -> bool:
    previous = _jit_switches[name]
    _jit_switches[name] = bool(value)
    return previous


def _jit_set_profiling_mode(enabled: bool) -> bool:
    return _jit_switch("profiling_mode", enabled)


def _jit_set_profiling_executor(enabled: bool) -> bool:
    return _jit_switch("profiling_executor", enabled)


def _jit_set_texpr_fuser_enabled(enabled: bool) -> None:
    _jit_switch("texpr_fuser", enabled)


def _jit_texpr_fuser_enabled() -> bool:
    return _jit_switches["texpr_fuser"]


def _jit_set_nvfuser_enabled(enabled: bool) -> None:
    """nvFuser is gone from PyTorch: the switch does nothing there either."""


def _jit_set_nvfuser_guard_mode(enabled: bool) -> None:
    """nvFuser is gone from PyTorch: the switch does nothing there either."""


def _jit_override_can_fuse_on_cpu(enabled: bool) -> None:
    _jit_switch("can_fuse_on_cpu", enabled)


def _jit_override_can_fuse_on_gpu(enabled: bool) -> None:
    _jit_switch("can_fuse_on_gpu", enabled)


def _jit_can_fuse_on_cpu() -> bool:
    return _jit_switches["can_fuse_on_cpu"]


def _jit_can_fuse_on_gpu() -> bool:
    return _jit_switches["can_fuse_on_gpu"]


class _nn:  # noqa: N801  (PyTorch's torch._C._nn)
    """The argument parsers of torch._C._nn that libraries call directly."""

    @staticmethod
    def _parse_to(*args, **kwargs):
        """`Tensor.to`'s arguments as (device, dtype, non_blocking, memory_format)."""
        from ember._tensor import _parse_to
        memory_format = kwargs.pop("memory_format", None)
        dtype, device, _, non_blocking = _parse_to(None, args, dict(kwargs))
        if device is not None:
            from ember._core.device import as_device
            device = as_device(device)
        return device, dtype, non_blocking, memory_format


def __getattr__(name: str):
    # The classes libraries test against: ember's own (TensorBase, Generator, Size...).
    import ember
    if name == "TensorBase":
        return ember.Tensor
    if name in ("Generator", "Size", "dtype", "device", "layout", "memory_format",
                "finfo", "iinfo", "Stream", "Event"):
        return getattr(ember, name)
    if name in ("_has_torch_function", "_has_torch_function_unary",
                "_has_torch_function_variadic"):
        # ember.overrides sits above this module (NOTE [upcalls]): reached by name.
        return getattr(importlib.import_module("ember.overrides"), name.lstrip("_"))
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")
