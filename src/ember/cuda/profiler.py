"""`ember.cuda.profiler`: start and stop the CUDA profiler (nsys/ncu) around a region."""
from __future__ import annotations

import contextlib

from ember._backends.cuda import _require

__all__ = ["profile", "start", "stop"]


def start() -> None:
    _require().cuda.profiler.start()


def stop() -> None:
    _require().cuda.profiler.stop()


@contextlib.contextmanager
def profile():
    start()
    try:
        yield
    finally:
        stop()
