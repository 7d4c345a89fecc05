"""`ember.cpu`: the device module for the CPU (always available, one device)."""
from __future__ import annotations


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
