"""The CUDA back-end: kernels run on CuPy arrays, loaded on first use of a 'cuda' device; and
the functions of the `ember.cuda` device module (which re-exports them), CuPy found lazily too.
"""
from __future__ import annotations

import functools

from ember._backends.registry import Backend, register_lazy_backend
from ember._core.device import CURRENT_INDEX


class CudaUnavailableError(RuntimeError, AssertionError):
    """No usable CUDA: CuPy is missing or sees no GPU. (PyTorch raises AssertionError here;
    this class is both, so either `except` catches it.)"""


def cupy_or_none():
    try:
        import cupy
    except ImportError:
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() <= 0:
            return None
    except Exception:  # noqa: BLE001 -- CuPy raises its own CUDA driver errors here
        return None
    return cupy


def _load() -> Backend:
    cupy = cupy_or_none()
    if cupy is None:
        raise CudaUnavailableError(
            "ember was not able to use CUDA: the CUDA back-end needs CuPy and an NVIDIA GPU "
            "(pip install cupy-cuda12x)")

    def to_host(array):
        return cupy.asnumpy(array)

    def from_host(array, device):
        with cupy.cuda.Device(device.index or 0):
            return cupy.asarray(array)

    return Backend("cuda", cupy, to_host, from_host)


register_lazy_backend("cuda", _load)


# The `ember.cuda` device module: importable without CuPy (then is_available() is False).

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
    CURRENT_INDEX["cuda"] = index


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
