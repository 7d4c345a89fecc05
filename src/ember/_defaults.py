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
    from ember._switches import switches, get_num_threads
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
