"""ember.backends.nnpack: the NNPACK convolution library's switch, which ember does not use."""
from __future__ import annotations

import contextlib

__all__ = ["flags", "is_available", "set_flags"]

_state = [True]


def is_available() -> bool:
    return False


def set_flags(_enabled) -> tuple:
    previous = (_state[0],)
    _state[0] = bool(_enabled)
    return previous


@contextlib.contextmanager
def flags(enabled=False):
    previous = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(*previous)
