"""ember.backends.mha: the switch of `nn.MultiheadAttention`'s inference fast path (PyTorch's
fused kernel; ember's module runs one path, so the flag is stored and read back)."""
from __future__ import annotations

_fastpath = [True]


def get_fastpath_enabled() -> bool:
    return _fastpath[0]


def set_fastpath_enabled(value: bool) -> None:
    _fastpath[0] = bool(value)
