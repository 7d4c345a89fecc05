"""`ember.cuda.memory`: what the CUDA memory pool holds, and its knobs.

Without CUDA the statistics are PyTorch's CPU-only answers (0 bytes, empty dicts) and the calls
that need a device raise its "not compiled with CUDA" error. With CuPy the byte counts are
CuPy's default memory pool's; what that pool does not track (peaks, per-size histories, plug-in
allocators, private pools) raises `not_supported`.
"""
from __future__ import annotations

import collections
import contextlib

from ember._backends.cuda import (
    _cupy,
    _require,
    empty_cache,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    not_supported,
)

__all__ = [
    "CUDAPluggableAllocator",
    "MemPool",
    "caching_allocator_alloc",
    "caching_allocator_delete",
    "caching_allocator_disabled",
    "caching_allocator_enable",
    "change_current_allocator",
    "empty_cache",
    "get_allocator_backend",
    "get_per_process_memory_fraction",
    "host_memory_stats",
    "host_memory_stats_as_nested_dict",
    "list_gpu_processes",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_snapshot",
    "memory_stats",
    "memory_stats_as_nested_dict",
    "memory_summary",
    "reset_accumulated_host_memory_stats",
    "reset_accumulated_memory_stats",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "reset_peak_host_memory_stats",
    "reset_peak_memory_stats",
    "set_per_process_memory_fraction",
    "use_mem_pool",
]


def _gpu_only(what: str):
    _require()
    raise not_supported(what)


def memory_stats(device=None) -> collections.OrderedDict:
    """Flat statistics ('allocated_bytes.all.current', ...): empty without CUDA."""
    if _cupy() is None:
        return collections.OrderedDict()
    return collections.OrderedDict([
        ("allocated_bytes.all.current", memory_allocated(device)),
        ("reserved_bytes.all.current", memory_reserved(device)),
    ])


def _nest(flat: dict) -> dict:
    nested: dict = {}
    for key, value in flat.items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def memory_stats_as_nested_dict(device=None) -> dict:
    return _nest(memory_stats(device))


def host_memory_stats() -> collections.OrderedDict:
    """Pinned host memory statistics: ember pins no host memory, so there are none."""
    return collections.OrderedDict()


def host_memory_stats_as_nested_dict() -> dict:
    return _nest(host_memory_stats())


def _peak(name: str) -> int:
    if _cupy() is None:
        return 0
    raise not_supported(f"torch.cuda.{name} (CuPy's pool keeps no peak)")


def max_memory_allocated(device=None) -> int:
    return _peak("max_memory_allocated")


def max_memory_reserved(device=None) -> int:
    return _peak("max_memory_reserved")


def memory_cached(device=None) -> int:
    """The old name of `memory_reserved`."""
    import warnings
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """The old name of `max_memory_reserved`."""
    import warnings
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    _gpu_only("torch.cuda.reset_peak_memory_stats")


def reset_accumulated_memory_stats(device=None) -> None:
    _gpu_only("torch.cuda.reset_accumulated_memory_stats")


def reset_max_memory_allocated(device=None) -> None:
    _gpu_only("torch.cuda.reset_max_memory_allocated")


def reset_max_memory_cached(device=None) -> None:
    _gpu_only("torch.cuda.reset_max_memory_cached")


def reset_peak_host_memory_stats() -> None:
    _gpu_only("torch.cuda.reset_peak_host_memory_stats")


def reset_accumulated_host_memory_stats() -> None:
    _gpu_only("torch.cuda.reset_accumulated_host_memory_stats")


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A table of the pool's current bytes. Without CUDA the statistics are empty and, as in
    PyTorch, reading them raises KeyError."""
    stats = memory_stats(device)
    rows = [("Allocated memory", stats["allocated_bytes.all.current"]),
            ("Reserved memory", stats["reserved_bytes.all.current"])]
    return "\n".join(f"{name:<24}{value:>16} B" for name, value in rows)


def memory_snapshot(mempool_id=None, include_traces=True):
    _gpu_only("torch.cuda.memory_snapshot")


def list_gpu_processes(device=None) -> str:
    """Processes using the GPU, through NVML (nvidia-ml-py)."""
    try:
        import pynvml  # noqa: F401
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    _gpu_only("torch.cuda.list_gpu_processes")


def caching_allocator_alloc(size, device=None, stream=None):
    _gpu_only("torch.cuda.caching_allocator_alloc")


def caching_allocator_delete(mem_ptr) -> None:
    _gpu_only("torch.cuda.caching_allocator_delete")


def caching_allocator_enable(value: bool = True) -> None:
    """Turn the caching allocator on or off; it is only consulted once CUDA starts."""
    if _cupy() is not None:
        _gpu_only("torch.cuda.caching_allocator_enable")


@contextlib.contextmanager
def caching_allocator_disabled():
    _gpu_only("torch.cuda.caching_allocator_disabled")
    yield


def get_per_process_memory_fraction(device=None) -> float:
    _gpu_only("torch.cuda.get_per_process_memory_fraction")


def set_per_process_memory_fraction(fraction, device=None) -> None:
    _gpu_only("torch.cuda.set_per_process_memory_fraction")


def get_allocator_backend() -> str:
    _gpu_only("torch.cuda.get_allocator_backend")


class CUDAPluggableAllocator:
    """An allocator from a shared library's alloc/free functions (loaded as PyTorch loads it;
    ember cannot install it: `change_current_allocator` refuses)."""

    def __init__(self, path_to_so_file: str, alloc_fn_name: str, free_fn_name: str) -> None:
        import ctypes
        self._library = ctypes.CDLL(path_to_so_file)
        self._alloc = getattr(self._library, alloc_fn_name)
        self._free = getattr(self._library, free_fn_name)

    def allocator(self):
        return self


def change_current_allocator(allocator) -> None:
    _gpu_only("torch.cuda.change_current_allocator")


class MemPool:
    """A private memory pool (not in ember: its CuPy back-end has the one default pool)."""

    def __init__(self, *args, **kwargs) -> None:
        _gpu_only("torch.cuda.MemPool")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    _gpu_only("torch.cuda.use_mem_pool")
    yield
