"""`ember.types`: the type aliases of PyTorch's annotations (`Device`, `Number`) and the base
class of storages (`Storage`)."""
from __future__ import annotations

import abc
from typing import Union

from ember._core.device import device as _device

Device = Union[_device, str, int, None]  # noqa: UP007 (PyTorch's alias: a typing.Union)
Number = Union[int, float, bool]  # noqa: UP007


class Storage(abc.ABC):
    """What every storage class is (ember's TypedStorage and UntypedStorage count as one)."""

    @classmethod
    def __subclasshook__(cls, other):
        names = {klass.__name__ for klass in other.__mro__}
        return True if names & {"TypedStorage", "UntypedStorage"} else NotImplemented


__all__ = ["Device", "Number", "Storage"]
