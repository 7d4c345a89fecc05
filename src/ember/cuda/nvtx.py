"""`ember.cuda.nvtx`: NVTX ranges and marks for profilers, through CuPy's NVTX binding; without
CUDA they raise PyTorch's "NVTX functions not installed"."""
from __future__ import annotations

import contextlib

from ember._backends.cuda import _cupy

__all__ = ["mark", "range", "range_end", "range_pop", "range_push", "range_start"]


def _nvtx():
    cupy = _cupy()
    if cupy is None:
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")
    from cupy.cuda import nvtx
    return nvtx


def range_push(msg: str) -> int:
    _nvtx().RangePush(msg)
    return 0


def range_pop() -> int:
    _nvtx().RangePop()
    return 0


def range_start(msg: str) -> int:
    """Start a range that may end on another thread; returns its id for `range_end`."""
    return int(_nvtx().RangeStart(msg))


def range_end(range_id: int) -> None:
    _nvtx().RangeEnd(range_id)


def mark(msg: str) -> None:
    _nvtx().Mark(msg)


@contextlib.contextmanager
def range(msg: str, *args, **kwargs):
    """`with range("step {}", i):` brackets the block with a named NVTX range."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
