"""`ember.cuda`: NVIDIA GPUs through CuPy. Importable without CuPy: then `is_available()` is
False and `device_count()` is 0."""
from __future__ import annotations

import functools

from ember._backends.cuda import CudaUnavailableError, cupy_or_none

_current = [0]


@functools.lru_cache(maxsize=1)
def _cupy():
    return cupy_or_none()


def is_available() -> bool:
    return _cupy() is not None


def device_count() -> int:
    cupy = _cupy()
    return 0 if cupy is None else int(cupy.cuda.runtime.getDeviceCount())


def _require():
    cupy = _cupy()
    if cupy is None:
        raise CudaUnavailableError("ember was not able to use CUDA: CuPy or an NVIDIA GPU is "
                                   "missing")
    return cupy


def is_initialized() -> bool:
    return _cupy() is not None


def init() -> None:
    _require()


def current_device() -> int:
    _require()
    return _current[0]


def set_device(device) -> None:
    from ember._core.device import as_device
    index = device if isinstance(device, int) else as_device(device).index or 0
    if index < 0:
        return
    cupy = _require()
    cupy.cuda.Device(index).use()
    _current[0] = index


def synchronize(device=None) -> None:
    _require().cuda.Device(_current[0] if device is None else int(
        device if isinstance(device, int) else (device.index or 0))).synchronize()


def get_device_name(device=None) -> str:
    cupy = _require()
    index = _current[0] if device is None else int(getattr(device, "index", device) or 0)
    return cupy.cuda.runtime.getDeviceProperties(index)["name"].decode()


def manual_seed(seed: int) -> None:
    """Seed the GPU generators (a no-op without CUDA, as in PyTorch)."""
    cupy = _cupy()
    if cupy is not None:
        cupy.random.seed(int(seed))


def manual_seed_all(seed: int) -> None:
    manual_seed(seed)


def empty_cache() -> None:
    cupy = _cupy()
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None) -> int:
    cupy = _cupy()
    return 0 if cupy is None else int(cupy.get_default_memory_pool().used_bytes())


class device:
    """Context manager that makes `device` the current CUDA device inside the block."""

    def __init__(self, device):
        self.index = device if isinstance(device, int) else (getattr(device, "index", 0) or 0)
        self.previous = None

    def __enter__(self):
        self.previous = _current[0]
        set_device(self.index)

    def __exit__(self, *exc):
        set_device(self.previous)
        return False
