"""`ember.device` and the thread-local default device."""
from __future__ import annotations

import re
import threading

from ember._core.checks import _check, _check_type, _warn_once

DEVICE_TYPES = [
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
]
_INDEX_RE = re.compile(r"^(0|[1-9][0-9]*)$")


class device:
    """Where a tensor lives: a type ('cpu', 'cuda', 'meta', ...) and an optional index."""

    __slots__ = ("_hash", "_prev_default", "index", "type")

    def __new__(cls, type_or_str=None, index=None, **kwargs):
        if kwargs:  # device(type="cuda", index=0): PyTorch's keyword names
            type_or_str = kwargs.pop("type", type_or_str)
            _check_type(not kwargs, lambda: f"device() got an unexpected keyword argument "
                                            f"'{next(iter(kwargs))}'")
        if isinstance(type_or_str, device):
            _check_type(index is None, "device(): argument 'type' (position 1) must be str, "
                                       "not ember.device")
            if type(type_or_str) is not device:     # a sparse tensor's host: NOTE [sparse layout]
                return _CACHE[(type_or_str.type, type_or_str.index)]
            return type_or_str
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool):
            index, type_or_str = type_or_str, _accelerator_type()
        _check_type(isinstance(type_or_str, str),
                    lambda: f"device() received an invalid combination of arguments - got "
                            f"({type(type_or_str).__name__})")
        text = type_or_str
        dev_type, sep, idx_text = text.partition(":")
        if sep and index is not None:
            raise RuntimeError("type (string) must not include an index because index was "
                               f"passed explicitly: {text}")
        dev_type = _RENAMES.get(dev_type, dev_type)
        _check(dev_type in DEVICE_TYPES,
               lambda: "Expected one of " + ", ".join(DEVICE_TYPES)
               + f" device type at start of device string: {dev_type}")
        if sep:
            _check(_INDEX_RE.match(idx_text) is not None,
                   lambda: f"Invalid device string: '{text}'")
            index = int(idx_text)
        if index is not None:
            _check_type(isinstance(index, int) and not isinstance(index, bool),
                        lambda: f"device(): index must be an int, got {type(index).__name__}")
            _check(index >= 0, "Device index must not be negative")
        key = (dev_type, index)
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        self = object.__new__(cls)
        self.type = dev_type
        self.index = index
        self._hash = hash(key)
        self._prev_default = []
        _CACHE[key] = self
        return self

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # Devices are interned, so identity is equality; strings never compare equal (as PyTorch).
        return self is other

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        # Save the thread's own setting (or its absence), so leaving the block falls back to
        # the global default again rather than pinning "no default" in this thread.
        self._prev_default.append(getattr(_local, "device", _UNSET))
        set_default_device_local(self)
        return self

    def __exit__(self, *exc):
        previous = self._prev_default.pop()
        if previous is _UNSET:
            del _local.device
        else:
            set_default_device_local(previous)


_CACHE: dict = {}
_RENAMES: dict = {}
_PRIVATEUSE1_NAME = ["privateuseone"]


def privateuse1_name() -> str:
    return _PRIVATEUSE1_NAME[0]


def rename_privateuse1(name: str) -> None:
    """Make `name` a device type standing for privateuseone (see backend_registration)."""
    _PRIVATEUSE1_NAME[0] = name
    _RENAMES["privateuseone"] = name
    if name not in DEVICE_TYPES:
        DEVICE_TYPES.append(name)


def _accelerator_type() -> str:
    return "cuda"


# NOTE [cuda means the current device]: a tensor always lives on an indexed CUDA device. A
# 'cuda' without an index, wherever a tensor is placed (factories, `to`, `tensor(...)`, load),
# means the current CUDA device, so `x.cuda()` and `y.to('cuda:0')` land on one device and mix.
# The CUDA back-end keeps the current index here (`set_device`).
CURRENT_INDEX = {"cuda": 0}


def placed(value: device) -> device:
    """The device a new tensor on `value` lives on (see NOTE [cuda means the current device])."""
    if value.index is None and value.type == "cuda":
        return device("cuda", CURRENT_INDEX["cuda"])
    return value


def as_device(value) -> device:
    """Normalize a device argument (str, int, device) to a device object; None stays None."""
    if value is None or type(value) is device:
        return value
    if type(value) is bytes:            # (PyTorch's parser reads bytes as a string here)
        value = value.decode("utf-8", "replace")
    return device(value)


CPU = device("cpu")
META = device("meta")

# NOTE [default device]: one global default, overridden per thread by `with ember.device(...)`.
_global_default = [None]
_local = threading.local()


def get_default_device_or_none():
    # (The thread's own dict: a missing attribute costs getattr a caught exception, and every
    # factory call asks.)
    local = _local.__dict__.get("device", _UNSET)
    if local is not _UNSET:
        return local
    return _global_default[0]


def set_default_device_local(dev) -> None:
    _local.device = dev


def set_default_device_global(dev) -> None:
    """`ember.set_default_device`: the process-wide default (a `with device(...)` block in a
    thread still wins there). Changing it is global state, so it warns once (NOTE [warn once])."""
    dev = None if dev is None else as_device(dev)
    _warn_once("set_default_device", "ember.set_default_device() changes the default device "
               "for the whole process; prefer `with ember.device(...):` to scope it.")
    _global_default[0] = dev


def get_default_device() -> device:
    """The device new tensors go to when a factory is given none."""
    found = get_default_device_or_none()
    return CPU if found is None else found


_UNSET = object()
