"""The CUDA back-end: kernels run on CuPy arrays, loaded on first use of a 'cuda' device; and
the functions of the `ember.cuda` device module (which re-exports them), CuPy found lazily too.

Which kernel a 'cuda' call runs is its op's kernel-table entry for (strided, "cuda") (NOTE [the
kernel table], _core/kernel_table.py): a CUDA entry where the op has one, registered beside the
op with `@kernel_entry(name, "CUDA")` (lcm, frexp), else the op's shared `xp` kernel on CuPy.
"""
from __future__ import annotations

import functools

from ember._backends.registry import Backend, register_lazy_backend
from ember._core.device import CURRENT_INDEX


class CudaUnavailableError(RuntimeError, AssertionError):
    """No usable CUDA: CuPy is missing or sees no GPU. (PyTorch raises AssertionError here;
    this class is both, so either `except` catches it.)"""


# PyTorch's words for "this build has no CUDA", which programs match on; ember adds why.
NOT_COMPILED = ("Torch not compiled with CUDA enabled (ember's CUDA back-end needs CuPy and an "
                "NVIDIA GPU)")


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
        raise CudaUnavailableError(f"{NOT_COMPILED}: pip install cupy-cuda12x")

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
        raise CudaUnavailableError(NOT_COMPILED)
    return cupy


def not_supported(what: str) -> RuntimeError:
    """The error of a CUDA feature ember's CuPy back-end lacks (graphs, allocator plug-ins)."""
    return RuntimeError(f"{what} is not supported by ember's CUDA back-end (CuPy)")


def is_initialized() -> bool:
    return _cupy() is not None


def init() -> None:
    _require()


def current_device() -> int:
    _require()
    return _current[0]


def _index(device) -> int:
    """The index a device argument names (int, 'cuda:1', ember.device): the current device's
    when it names none (None, 'cuda')."""
    if device is None:
        return _current[0]
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    from ember._core.device import as_device
    device = as_device(device)
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    index = device.index
    return _current[0] if index is None else index


def set_device(device) -> None:
    index = _index(device)
    if index < 0:
        return
    cupy = _require()
    cupy.cuda.Device(index).use()
    _current[0] = index
    CURRENT_INDEX["cuda"] = index


def synchronize(device=None) -> None:
    _require().cuda.Device(_index(device)).synchronize()


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


class _DeviceProperties:
    """What `get_device_properties` reports (PyTorch's field names)."""

    def __init__(self, props: dict) -> None:
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.major = int(props.get("major", 0))
        self.minor = int(props.get("minor", 0))
        self.total_memory = int(props.get("totalGlobalMem", 0))
        self.multi_processor_count = int(props.get("multiProcessorCount", 0))
        self.is_integrated = bool(props.get("integrated", 0))
        self.is_multi_gpu_board = bool(props.get("isMultiGpuBoard", 0))
        self.L2_cache_size = int(props.get("l2CacheSize", 0))

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // (1 << 20)}MB, "
                f"multi_processor_count={self.multi_processor_count}, "
                f"L2_cache_size={self.L2_cache_size // (1 << 20)}MB)")


def get_device_properties(device=None) -> _DeviceProperties:
    cupy = _require()
    return _DeviceProperties(cupy.cuda.runtime.getDeviceProperties(_index(device)))


def get_device_capability(device=None) -> tuple:
    props = get_device_properties(device)
    return (props.major, props.minor)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """bfloat16 arithmetic is native from compute capability 8.0 (Ampere) on."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8 or including_emulation


def mem_get_info(device=None) -> tuple:
    """(free, total) bytes of the device's memory."""
    cupy = _require()
    with cupy.cuda.Device(_index(device)):
        free, total = cupy.cuda.runtime.memGetInfo()
    return (int(free), int(total))


_seed = [None]


def manual_seed(seed: int) -> None:
    """Seed the GPU generators (a no-op without CUDA, as in PyTorch)."""
    cupy = _cupy()
    if cupy is not None:
        _seed[0] = int(seed)
        cupy.random.seed(int(seed))


def manual_seed_all(seed: int) -> None:
    manual_seed(seed)


def empty_cache() -> None:
    cupy = _cupy()
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None) -> int:
    """Bytes held by tensors (CuPy's memory pool's used bytes)."""
    cupy = _cupy()
    return 0 if cupy is None else int(cupy.get_default_memory_pool().used_bytes())


def memory_reserved(device=None) -> int:
    """Bytes the memory pool holds from the device, used or cached."""
    cupy = _cupy()
    return 0 if cupy is None else int(cupy.get_default_memory_pool().total_bytes())


class device:
    """Context manager that makes `device` the current CUDA device inside the block."""

    def __init__(self, device):
        self.index = _index(device)
        self.previous = None

    def __enter__(self):
        if self.index >= 0:          # -1: no device, a no-op as in PyTorch
            self.previous = _current[0]
            set_device(self.index)

    def __exit__(self, *exc):
        if self.previous is not None:
            set_device(self.previous)
        return False
