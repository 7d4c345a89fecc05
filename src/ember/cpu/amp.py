"""`ember.cpu.amp`: the deprecated CPU spellings of `ember.amp`."""
from __future__ import annotations

import warnings

from ember._core import dtype as _dtypes
from ember.amp import autocast_mode as _mode

__all__ = ["autocast"]


class autocast(_mode.autocast):
    """`ember.amp.autocast("cpu", ...)` under its old name."""

    def __init__(self, enabled: bool = True, dtype=_dtypes.bfloat16, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
