"""The rest of `ember.cuda`'s runtime calls: errors, handles, build facts, NVML readings and the
`device_of` context. Without CUDA each answers as a CPU-only PyTorch does: facts of the build
('' / [] / False), else its "not compiled with CUDA" AssertionError."""
from __future__ import annotations

from ember._backends.cuda import _cupy, _index, _require, device, not_supported

has_half = True
has_magma = False
default_generators: tuple = ()


class CudaError(RuntimeError):
    """An error code returned by the CUDA runtime, with its message."""

    def __init__(self, code: int) -> None:
        cupy = _require()
        message = cupy.cuda.runtime.getErrorString(code)
        super().__init__(f"{message} ({code})")


class DeferredCudaCallError(Exception):
    """A call queued until CUDA starts (`_lazy_call`) failed when it ran."""


class cudaStatus:
    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


def check_error(res: int) -> None:
    """Raise CudaError unless `res` is cudaSuccess."""
    _require()
    if res != cudaStatus.SUCCESS:
        raise CudaError(res)


def cudart():
    """The CUDA runtime binding (CuPy's)."""
    return _require().cuda.runtime


def current_blas_handle() -> int:
    return int(_require().cuda.device.get_cublas_handle())


def current_solver_handle() -> int:
    return int(_require().cuda.device.get_cusolver_handle())


def ipc_collect() -> None:
    """Free the memory of tensors shared with other processes: ember shares none."""
    _require()


def get_arch_list() -> list:
    """The GPU architectures the build's kernels were compiled for (ember's come from CuPy's
    run-time compiler, so none are built in)."""
    return []


def get_gencode_flags() -> str:
    return " ".join(f"-gencode compute={arch},code={arch}" for arch in get_arch_list())


def is_tf32_supported() -> bool:
    """TF32 matmuls run from compute capability 8.0 (Ampere) on."""
    if _cupy() is None:
        return False
    from ember._backends.cuda import get_device_capability
    return get_device_capability()[0] >= 8


_sync_debug = [0]
_SYNC_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode) -> None:
    """Warn or raise on synchronizing calls: ember never synchronizes behind a call's back."""
    _require()
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               "`error`")
        debug_mode = _SYNC_MODES[debug_mode]
    _sync_debug[0] = int(debug_mode)


def get_sync_debug_mode() -> int:
    _require()
    return _sync_debug[0]


def can_device_access_peer(device, peer_device) -> bool:
    cupy = _require()
    return bool(cupy.cuda.runtime.deviceCanAccessPeer(_index(device), _index(peer_device)))


def _nvml(what: str):
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be "
                                  "imported.") from None
    _require()
    raise not_supported(f"torch.cuda.{what} (NVML readings)")


def clock_rate(device=None) -> int:
    return _nvml("clock_rate")


def device_memory_used(device=None) -> int:
    return _nvml("device_memory_used")


def memory_usage(device=None) -> int:
    return _nvml("memory_usage")


def power_draw(device=None) -> int:
    return _nvml("power_draw")


def temperature(device=None) -> int:
    return _nvml("temperature")


def utilization(device=None) -> int:
    return _nvml("utilization")


class device_of(device):
    """`with device_of(t):` makes `t`'s CUDA device current; a no-op for a CPU tensor."""

    def __init__(self, obj) -> None:
        index = obj.get_device() if obj.is_cuda else -1
        super().__init__(index)


class GreenContext:
    """A CUDA green context (a slice of the GPU's SMs): not in PyTorch's CPU build, nor ember."""

    @staticmethod
    def create(num_sms: int, device_id: int = 0):
        raise RuntimeError("PyTorch was not built with Green Context support!")
