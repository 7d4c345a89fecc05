"""The exception classes PyTorch keeps at the top of its namespace for device failures."""
from __future__ import annotations


class AcceleratorError(RuntimeError):
    """Raised while executing on a device."""


class OutOfMemoryError(RuntimeError):
    """Raised when a device is out of memory."""


class FatalError(Exception):
    """Raised on an unrecoverable internal error."""


for _cls in (AcceleratorError, OutOfMemoryError, FatalError):
    _cls.__module__ = "ember"
