"""`ember.nn.attention`: the choice of kernel behind `scaled_dot_product_attention`.

ember has one implementation (a composite of matmul and softmax, PyTorch's "math" backend), so
`sdpa_kernel` checks its arguments and records the choice but every backend runs the same code.
"""
from __future__ import annotations

import contextlib
from enum import IntEnum

__all__ = ["WARN_FOR_UNFUSED_KERNELS", "SDPBackend", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(IntEnum):
    """The kernels PyTorch can pick for scaled_dot_product_attention (same values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self) -> str:
        return f"<SDPBackend.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


_enabled: tuple = tuple(SDPBackend)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Within the block, allow only `backends` (one SDPBackend or a list of them)."""
    global _enabled
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple)):
        raise AssertionError(  # noqa: TRY004 - PyTorch's class for this check
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances")
    for backend in backends:
        if not isinstance(backend, SDPBackend):
            raise AssertionError(  # noqa: TRY004 - PyTorch's class for this check
                "Backend must be an instance of SDPBackend or a list of SDPBackend instances")
    previous = _enabled
    _enabled = tuple(dict.fromkeys(backends))
    try:
        yield {}
    finally:
        _enabled = previous
