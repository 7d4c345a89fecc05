"""`ember.cuda`: NVIDIA GPUs through CuPy. Importable without CuPy: then `is_available()` is
False and `device_count()` is 0. The functions live with the CUDA back-end in
ember/_backends/cuda.py."""
from __future__ import annotations

from ember._backends.cuda import (  # noqa: F401  (the public names of ember.cuda)
    CudaUnavailableError,
    current_device,
    device,
    device_count,
    empty_cache,
    get_device_capability,
    get_device_name,
    get_device_properties,
    init,
    is_available,
    is_bf16_supported,
    is_initialized,
    manual_seed,
    manual_seed_all,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    set_device,
    synchronize,
)


def __getattr__(name: str):
    if name == "amp":       # loaded on first use, as ember.amp is
        import importlib
        module = importlib.import_module(f"{__name__}.amp")
        globals()["amp"] = module
        return module
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
