"""The CPU caching allocator's controls and counters (NOTE [CPU caching allocator] in
ember/_backends/cpu_allocator.py), in the shape of `ember.cuda`'s memory functions."""
from __future__ import annotations

from ember._backends import cpu_allocator as _allocator


def empty_cache() -> None:
    """Release the cached buffers no tensor uses back to the system."""
    _allocator.empty_cache()


def memory_stats(device=None) -> dict:
    """The caching allocator's counters, under `torch.cuda.memory_stats`-style keys:
    "allocated_bytes.all.current" (buffers in use), "reserved_bytes.all.current" (in use and
    cached) and ".peak", "inactive_split_bytes.all.current" (cached, free),
    "num_alloc_retries" (requests that missed the cache), "num_device_alloc" (buffers made),
    "num_device_free" (buffers released), "num_ooms" (requests past the limit, served
    uncached), "limit_bytes"."""
    s = _allocator.memory_stats()
    return {"allocated_bytes.all.current": s["active_bytes"],
            "reserved_bytes.all.current": s["reserved_bytes"],
            "reserved_bytes.all.peak": s["reserved_bytes_peak"],
            "inactive_split_bytes.all.current": s["cached_bytes"],
            "num_alloc_hits": s["hits"],
            "num_alloc_retries": s["misses"],
            "num_device_alloc": s["misses"] - s["oversize"],
            "num_device_free": s["releases"],
            "num_ooms": s["oversize"],
            "num_buffers": s["buffers"],
            "limit_bytes": s["limit_bytes"]}


def memory_allocated(device=None) -> int:
    """Bytes of the cache's buffers that tensors use now."""
    return _allocator.memory_stats()["active_bytes"]


def memory_reserved(device=None) -> int:
    """Bytes the cache holds (in use and free)."""
    return _allocator.memory_stats()["reserved_bytes"]


def max_memory_reserved(device=None) -> int:
    """The most bytes the cache has held since the start or `reset_peak_memory_stats()`."""
    return _allocator.memory_stats()["reserved_bytes_peak"]


def reset_peak_memory_stats(device=None) -> None:
    """Start `max_memory_reserved` over from the bytes held now."""
    _allocator.reset_peak_stats()


def set_cache_limit(nbytes: int) -> None:
    """Bound the bytes the cache holds (in use and free together); free buffers past the new
    bound are released now. Requests past it are served uncached."""
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
        raise ValueError(f"set_cache_limit expects a non-negative int, got {nbytes!r}")
    _allocator.set_limit(nbytes)
