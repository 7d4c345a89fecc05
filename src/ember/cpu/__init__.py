"""`ember.cpu`: the device module for the CPU (always available, one device), and the caching
allocator's controls and counters (`memory.py`)."""
from __future__ import annotations

from ember.cpu.memory import (  # noqa: F401
    empty_cache,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    memory_stats,
    reset_peak_memory_stats,
    set_cache_limit,
)


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """The CPU has one device; nothing to select."""


def synchronize(device=None) -> None:
    """CPU work is synchronous."""


def is_initialized() -> bool:
    """The CPU needs no start-up: always True."""
    return True


def get_capabilities():
    """The CPU's instruction-set features ('avx2': True ...), a read-only mapping (NumPy's
    feature detection, names lower-cased)."""
    import types

    from numpy._core._multiarray_umath import __cpu_features__ as features
    return types.MappingProxyType({name.lower(): bool(on) for name, on in features.items()})


class Stream:
    """The CPU's stream: CPU work runs in order, so there is nothing to wait for."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def wait_event(self, event) -> None:
        """Nothing to wait for."""

    def record_event(self, event=None):
        """Record (nothing) and return `event` (a new one when None)."""
        return Event() if event is None else event


class Event:
    """The CPU's event: always reached."""

    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        """Nothing to mark: CPU work is done when the call returns."""

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, stream=None) -> None:
        """Nothing to wait for."""


_current_stream = Stream()


def current_stream(device=None) -> Stream:
    return _current_stream


class StreamContext:
    """`with ember.cpu.stream(s):` (a no-op on the CPU)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def __enter__(self):
        return None

    def __exit__(self, *exc) -> bool:
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


class device:
    def __init__(self, device):
        self.device = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def __getattr__(name: str):
    if name == "amp":       # loaded on first use, as ember.amp is
        import importlib
        module = importlib.import_module(f"{__name__}.amp")
        globals()["amp"] = module
        return module
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
