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


# The rest of PyTorch's accelerator calls: the current accelerator's device module answers;
# without one, PyTorch's RuntimeError.
_NONE = "Cannot access accelerator device when none is available."


def _module():
    found = current_accelerator()
    if found is None:
        raise RuntimeError(_NONE)
    from ember import get_device_module
    return get_device_module(found)


def current_device_idx() -> int:
    """The current accelerator device's index (without an accelerator: PyTorch's
    RuntimeError)."""
    _module()
    return current_device_index()


def set_device_idx(device) -> None:
    """The old name of `set_device_index` (without an accelerator: PyTorch's RuntimeError)."""
    _module()
    set_device_index(device)


def current_stream(device=None, /):
    return _module().current_stream(device)


def set_stream(stream) -> None:
    _module().set_stream(stream)


def empty_cache() -> None:
    _module().empty_cache()


def empty_host_cache() -> None:
    """Free cached pinned host memory (ember pins none)."""
    _module()


def get_device_capability(device=None, /) -> dict:
    module = _module()
    major, minor = module.get_device_capability(device)
    return {"major": major, "minor": minor}


def get_memory_info(device_index=None, /) -> tuple:
    return _module().mem_get_info(device_index)


def memory_stats(device_index=None, /):
    return _module().memory_stats(device_index)


def memory_allocated(device_index=None, /) -> int:
    return _module().memory_allocated(device_index)


def max_memory_allocated(device_index=None, /) -> int:
    return _module().max_memory_allocated(device_index)


def memory_reserved(device_index=None, /) -> int:
    return _module().memory_reserved(device_index)


def max_memory_reserved(device_index=None, /) -> int:
    return _module().max_memory_reserved(device_index)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    _module().reset_accumulated_memory_stats(device_index)


def reset_peak_memory_stats(device_index=None, /) -> None:
    _module().reset_peak_memory_stats(device_index)


class device_index:
    """`with device_index(i):` makes accelerator device i current in the block (None: no-op)."""

    def __init__(self, device, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            _module()
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc) -> bool:
        if self.idx is not None:
            set_device_index(self.prev_idx)
        return False


class Graph:
    """A captured accelerator graph (needs an accelerator that captures; ember's do not)."""

    def __init__(self, *args, **kwargs) -> None:
        _module()
        raise RuntimeError("ember.accelerator.Graph: ember's accelerator back-ends do not "
                           "capture graphs")
