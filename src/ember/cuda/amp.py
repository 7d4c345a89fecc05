"""`ember.cuda.amp`: the deprecated CUDA spellings of `ember.amp`."""
from __future__ import annotations

import warnings

from ember._core import dtype as _dtypes
from ember.amp import autocast_mode as _mode
from ember.amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler", "amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd"]


def amp_definitely_not_available() -> bool:
    """True when no CUDA is there to run mixed precision on."""
    from ember._backends.cuda import is_available
    return not is_available()


def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use `{new}` instead.",
                  FutureWarning, stacklevel=3)


class autocast(_mode.autocast):
    """`ember.amp.autocast("cuda", ...)` under its old name."""

    def __init__(self, enabled: bool = True, dtype=_dtypes.float16, cache_enabled: bool = True):
        _deprecated("autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    _deprecated("custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return _mode.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    _deprecated("custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _mode.custom_bwd(bwd, device_type="cuda")


class GradScaler(_GradScaler):
    """`ember.amp.GradScaler("cuda", ...)` under its old name."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
