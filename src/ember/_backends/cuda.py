"""The CUDA back-end: kernels run on CuPy arrays. Loaded on first use of a 'cuda' device."""
from __future__ import annotations

from ember._core.backend import Backend, register_lazy_backend


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
