"""`ember.accelerator`: the accelerator this process would use (CUDA when present), if any."""
from __future__ import annotations

from ember._core.device import device as _device


def current_accelerator(check_available: bool = False):
    """device('cuda') when CUDA is usable, a registered plug-in device type otherwise (if it
    reports is_available()), else None."""
    from ember import cuda
    if cuda.is_available():
        return _device("cuda")
    from ember._backends.plugins import _device_modules
    for name, module in _device_modules.items():
        available = getattr(module, "is_available", None)
        if available is not None and available():
            return _device(name)
    return None


def is_available() -> bool:
    return current_accelerator() is not None


def device_count() -> int:
    found = current_accelerator()
    if found is None:
        return 0
    from ember import get_device_module
    return int(get_device_module(found).device_count())


def current_device_index() -> int:
    found = current_accelerator()
    if found is None:
        return -1
    from ember import get_device_module
    module = get_device_module(found)
    return int(module.current_device()) if hasattr(module, "current_device") else 0


def set_device_index(device) -> None:
    found = current_accelerator()
    if found is not None:
        from ember import get_device_module
        get_device_module(found).set_device(device)


def synchronize(device=None) -> None:
    found = current_accelerator()
    if found is not None:
        from ember import get_device_module
        get_device_module(found).synchronize()
