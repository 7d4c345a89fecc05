"""`ember.get_defaults()`: a read-only snapshot of every global default and switch."""
from __future__ import annotations

from typing import NamedTuple


class Defaults(NamedTuple):
    dtype: object
    device: object
    grad_enabled: bool
    inference_mode: bool
    deterministic_algorithms: bool
    deterministic_warn_only: bool
    float32_matmul_precision: str
    warn_always: bool
    num_threads: int


def get_defaults() -> Defaults:
    """The defaults in force in this thread now (a tuple: reading it changes nothing)."""
    from ember._core.device import get_default_device
    from ember._core.dtype import get_default_dtype
    from ember._switches import get_num_threads, switches
    from ember.autograd import grad_mode
    return Defaults(
        dtype=get_default_dtype(),
        device=get_default_device(),
        grad_enabled=grad_mode.is_grad_enabled(),
        inference_mode=grad_mode.is_inference_mode_enabled(),
        deterministic_algorithms=switches.deterministic,
        deterministic_warn_only=switches.warn_only,
        float32_matmul_precision=switches.matmul_precision,
        warn_always=switches.warn_always,
        num_threads=get_num_threads(),
    )


# The device a `set_default_tensor_type(ember.cuda.FloatTensor)` made the default, so that a
# later CPU type undoes it (and only it).
_device_from_tensor_type = [None]


def set_default_tensor_type(t) -> None:
    """Deprecated (as in PyTorch 2.1): the default dtype, and the default device, from a legacy
    tensor type (`ember.DoubleTensor`, 'torch.cuda.FloatTensor'). Warns once."""
    from ember._core import device as device_module
    from ember._core.checks import _check_type, _warn_once
    from ember._legacy_types import LegacyTensorType, parse_type_name
    if isinstance(t, str):
        try:
            dtype, device = parse_type_name(t)
        except ValueError:
            # PyTorch looks the dotted name up as an attribute path.
            raise AttributeError(f"set_default_tensor_type(): no tensor type named '{t}'") \
                from None
    else:
        _check_type(isinstance(t, LegacyTensorType), lambda: (
            "set_default_tensor_type(): argument 't' must be a tensor type or its name, not "
            f"{type(t).__name__}"))
        dtype, device = t.dtype, t._device
    _check_type(dtype.is_floating_point, lambda: (
        "only floating-point types are supported as the default type, got "
        f"{dtype._cpp_name}Tensor"))
    _warn_once("set_default_tensor_type", "ember.set_default_tensor_type() is deprecated (as "
               "in PyTorch 2.1); use ember.set_default_dtype() and ember.set_default_device() "
               "instead.")
    from ember._core.dtype import set_default_dtype
    set_default_dtype(dtype)
    if device is not device_module.CPU:
        device_module._global_default[0] = device
        _device_from_tensor_type[0] = device
    elif _device_from_tensor_type[0] is not None:
        if device_module._global_default[0] is _device_from_tensor_type[0]:
            device_module._global_default[0] = None
        _device_from_tensor_type[0] = None
