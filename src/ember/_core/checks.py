"""The error taxonomy: each `_check*` raises one exception class, building its message lazily.

`message` may be a string or a zero-argument callable; the callable runs only on failure, so a
passing check costs one truth test.
"""
from __future__ import annotations


def _message(message, default: str) -> str:
    if message is None:
        return default
    if callable(message):
        return str(message())
    return str(message)


def _check_with(error_type, cond, message=None) -> None:
    if not cond:
        raise error_type(_message(message, f"Expected cond to be True, but got False."))


def _check(cond, message=None) -> None:
    if not cond:
        raise RuntimeError(_message(message, "Expected cond to be True, but got False."))


def _check_index(cond, message=None) -> None:
    if not cond:
        raise IndexError(_message(message, "Expected cond to be True, but got False."))


def _check_value(cond, message=None) -> None:
    if not cond:
        raise ValueError(_message(message, "Expected cond to be True, but got False."))


def _check_type(cond, message=None) -> None:
    if not cond:
        raise TypeError(_message(message, "Expected cond to be True, but got False."))


def _check_not_implemented(cond, message=None) -> None:
    if not cond:
        raise NotImplementedError(_message(message, "Expected cond to be True, but got False."))
