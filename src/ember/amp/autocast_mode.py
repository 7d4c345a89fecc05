"""`autocast` (context manager and decorator), the autocast state functions that PyTorch keeps
in `torch.*` (`is_autocast_enabled`, `set_autocast_dtype` ...), and `custom_fwd`/`custom_bwd`.

The state itself and the casting live in the dispatcher (`_core/dispatch/autocast.py`, NOTE
[autocast is a handler]); importing this module gives it the policy tables (`policy.py`).
"""
from __future__ import annotations

import collections.abc
import functools
import warnings

import numpy as np

from ember._core import dtype as dtypes
from ember._core.dispatch import autocast as _state
from ember._core.registry import OPS
from ember.amp import policy as _policy

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

_state.install_policies({"cpu": _policy.resolve(_policy.CPU),
                         "cuda": _policy.resolve(_policy.CUDA)}, OPS["_to_copy"])

# Device types PyTorch refuses for autocast although it parses them.
_UNAVAILABLE = frozenset(("meta", "lazy", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                          "fpga", "vulkan"))


_parsed_types: dict = {}     # 'cuda:0' -> 'cuda', for the strings seen so far


def _device_type(device_type) -> str:
    """The type in `device_type` ('cuda:0' -> 'cuda'), with PyTorch's error for an unknown one."""
    found = _parsed_types.get(device_type) if type(device_type) is str else None
    if found is None:
        from ember._core.device import device
        found = device(device_type).type
        if type(device_type) is str:
            _parsed_types[device_type] = found
    return found


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be used on `device_type` ('cpu', 'cuda' ...)."""
    return _device_type(device_type) not in _UNAVAILABLE


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for `device_type` in this thread (CUDA's when None)."""
    return _state.is_enabled("cuda" if device_type is None else _device_type(device_type))


def set_autocast_enabled(device_type, enabled=None) -> None:
    """Turn autocast on or off for `device_type` in this thread (the old one-argument form
    sets CUDA's)."""
    if enabled is None:               # the old form: set_autocast_enabled(bool) is CUDA's
        device_type, enabled = "cuda", device_type
    if not isinstance(enabled, bool):
        raise TypeError(f"set_autocast_enabled(): argument 'enabled' (position 2) must be "
                        f"bool, not {type(enabled).__name__}")
    _state.set_enabled(_device_type(device_type), enabled)


def get_autocast_dtype(device_type: str):
    """The lower-precision dtype autocast uses on `device_type` in this thread."""
    device_type = _device_type(device_type)
    if device_type in _UNAVAILABLE:
        raise RuntimeError("unsupported scalarType")
    return _state.get_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Set the lower-precision dtype autocast uses on `device_type` in this thread."""
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be "
                        f"torch.dtype, not {type(dtype).__name__}")
    _state.set_dtype(_device_type(device_type), dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast keeps the lower-precision copies of parameters (the weight cache)."""
    return _state.local.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Turn autocast's weight cache on or off in this thread."""
    _state.local.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Drop the lower-precision parameter copies kept by autocast in this thread."""
    _state.clear_cache()


def autocast_increment_nesting() -> int:
    """Count one more autocast region open in this thread; returns the new depth."""
    _state.local.nesting += 1
    return _state.local.nesting


def autocast_decrement_nesting() -> int:
    """Count one autocast region closed in this thread; returns the new depth."""
    _state.local.nesting -= 1
    return _state.local.nesting


def _deprecated_getter(old, new, read):
    def getter():
        """Deprecated: see the function named in its warning."""
        warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.",
                      DeprecationWarning, stacklevel=2)
        return read()
    getter.__name__ = old
    return getter


is_autocast_cpu_enabled = _deprecated_getter(
    "is_autocast_cpu_enabled", "is_autocast_enabled('cpu')", lambda: _state.is_enabled("cpu"))
get_autocast_cpu_dtype = _deprecated_getter(
    "get_autocast_cpu_dtype", "get_autocast_dtype('cpu')", lambda: _state.get_dtype("cpu"))
get_autocast_gpu_dtype = _deprecated_getter(
    "get_autocast_gpu_dtype", "get_autocast_dtype('cuda')", lambda: _state.get_dtype("cuda"))


is_autocast_ipu_enabled = _deprecated_getter(
    "is_autocast_ipu_enabled", "is_autocast_enabled('ipu')", lambda: _state.is_enabled("ipu"))
is_autocast_xla_enabled = _deprecated_getter(
    "is_autocast_xla_enabled", "is_autocast_enabled('xla')", lambda: _state.is_enabled("xla"))
get_autocast_ipu_dtype = _deprecated_getter(
    "get_autocast_ipu_dtype", "get_autocast_dtype('ipu')", lambda: _state.get_dtype("ipu"))
get_autocast_xla_dtype = _deprecated_getter(
    "get_autocast_xla_dtype", "get_autocast_dtype('xla')", lambda: _state.get_dtype("xla"))


def _deprecated_setter(old, argument, new, write):
    def setter(value):
        """Deprecated: see the function named in its warning."""
        warnings.warn(f"torch.{old}({argument}) is deprecated. Please use torch.{new} instead.",
                      DeprecationWarning, stacklevel=2)
        write(value)
    setter.__name__ = old
    return setter


set_autocast_ipu_enabled = _deprecated_setter(
    "set_autocast_ipu_enabled", "enabled", "set_autocast_enabled('ipu', enabled)",
    lambda enabled: set_autocast_enabled("ipu", enabled))
set_autocast_xla_enabled = _deprecated_setter(
    "set_autocast_xla_enabled", "enabled", "set_autocast_enabled('xla', enabled)",
    lambda enabled: set_autocast_enabled("xla", enabled))
set_autocast_ipu_dtype = _deprecated_setter(
    "set_autocast_ipu_dtype", "dtype", "set_autocast_dtype('ipu', dtype)",
    lambda dtype: set_autocast_dtype("ipu", dtype))
set_autocast_xla_dtype = _deprecated_setter(
    "set_autocast_xla_dtype", "dtype", "set_autocast_dtype('xla', dtype)",
    lambda dtype: set_autocast_dtype("xla", dtype))


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated spelling of `set_autocast_enabled('cpu', enabled)`."""
    set_autocast_enabled("cpu", enabled)


def set_autocast_cpu_dtype(dtype) -> None:
    """Deprecated spelling of `set_autocast_dtype('cpu', dtype)`."""
    set_autocast_dtype("cpu", dtype)


def set_autocast_gpu_dtype(dtype) -> None:
    """Deprecated spelling of `set_autocast_dtype('cuda', dtype)`."""
    set_autocast_dtype("cuda", dtype)


class autocast:
    """Run the ops of a region in mixed precision on `device_type`: the matmul family and
    convolutions in `dtype` (default: bfloat16 on CPU, float16 elsewhere), precision-hungry
    ops in float32, joins in their widest input type. Also a decorator. Per thread."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(  # noqa: TRY004  (PyTorch raises ValueError here)
                f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        if enabled:
            if device_type == "cuda":
                import ember
                if not ember.cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                                  "autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in (dtypes.bfloat16, dtypes.float16):
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              "torch.bfloat16, torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast(value, device_type: str, dtype):
    """Floating tensors of `device_type` (not float64) in `value`, however nested, as `dtype`."""
    from ember._tensor import Tensor
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and \
            value.dtype is not dtypes.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        cast = (_cast(v, device_type, dtype) for v in value)
        return type(value)(cast) if isinstance(value, (list, tuple)) else cast
    return value


def _check_device_type(device_type) -> None:
    if not isinstance(device_type, str):
        raise ValueError(  # noqa: TRY004  (PyTorch raises ValueError here)
                f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """For `forward` of a custom autograd Function: with `cast_inputs`, inside an autocast
    region the floating inputs are cast to it and `forward` runs with autocast off."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(*_cast(args, device_type, cast_inputs),
                       **_cast(kwargs, device_type, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """For `backward` of a custom autograd Function: runs it in the autocast state its
    forward saw."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                      dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd

