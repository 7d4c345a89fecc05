"""The error taxonomy: each `_check*` raises one exception class, building its message lazily.

`message` may be a string or a zero-argument callable; the callable runs only on failure, so a
passing check costs one truth test.

Warnings that PyTorch gives once per process go through `_warn_once`; while
`ember.set_warn_always(True)` is on they are given every time.
"""
from __future__ import annotations

_DEFAULT = "Expected cond to be True, but got False."


def _message(message, default: str) -> str:
    if message is None:
        return default
    if callable(message):
        return str(message())
    return str(message)


def _check_with(error_type, cond, message=None) -> None:
    if not cond:
        raise error_type(_message(message, _DEFAULT))


def _check(cond, message=None) -> None:
    if not cond:
        raise RuntimeError(_message(message, _DEFAULT))


def _check_index(cond, message=None) -> None:
    if not cond:
        raise IndexError(_message(message, _DEFAULT))


def _check_value(cond, message=None) -> None:
    if not cond:
        raise ValueError(_message(message, _DEFAULT))


def _check_type(cond, message=None) -> None:
    if not cond:
        raise TypeError(_message(message, _DEFAULT))


def _check_not_implemented(cond, message=None) -> None:
    if not cond:
        raise NotImplementedError(_message(message, _DEFAULT))


# --------------------------------------------------------------------------- warn once

# NOTE [warn once]: the keys of the once-per-process warnings already given, and the
# `set_warn_always` switch (ember._switches sets it) that makes every one of them repeat.
_warned: set = set()
warn_always = [False]


def _warn_once(key: str, message, category=UserWarning) -> None:
    """Warn (pointing at the user's code) the first time `key` is seen in this process, or
    every time while warn-always is on."""
    if key in _warned and not warn_always[0]:
        return
    _warned.add(key)
    import warnings
    warnings.warn(_message(message, key), category, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The `stacklevel` that makes a warning raised here point at the first frame outside
    ember (the caller's line), as PyTorch's warnings from C++ do."""
    import os
    import sys
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level
