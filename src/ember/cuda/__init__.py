"""`ember.cuda`: NVIDIA GPUs through CuPy. Importable without CuPy: then `is_available()` is False,
`device_count()` is 0, and every call answers as a CPU-only PyTorch does (NOTE [ember.cuda
without CUDA]). Device basics live with the back-end (ember/_backends/cuda.py); memory, streams,
graphs, generators, legacy types and the rest in this package's modules."""
from __future__ import annotations

# NOTE [ember.cuda without CUDA]: a CPU-only PyTorch keeps every `torch.cuda` name. Facts of the
# build answer (`device_count()` 0, `memory_allocated()` 0, `memory_stats()` empty,
# `get_arch_list()` []), seeding is a no-op, `stream(None)` and `device(-1)` are no-ops, and
# what needs a GPU raises PyTorch's error for it: "Torch not compiled with CUDA enabled"
# (CudaUnavailableError: AssertionError and RuntimeError), "torch.cuda.Stream requires CUDA
# support" (RuntimeError), "type torch.cuda.FloatTensor not available" (TypeError). Where
# PyTorch's CPU build fails only because a C binding is missing (AttributeError from torch._C,
# e.g. reset_peak_memory_stats), ember raises the "not compiled with CUDA" error instead.
# tests/test_cuda_names.py holds each name against a CPU-only PyTorch.
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
from ember.cuda._legacy import STORAGE_TYPES, TENSOR_TYPES
from ember.cuda._runtime import (  # noqa: F401
    CudaError,
    DeferredCudaCallError,
    GreenContext,
    can_device_access_peer,
    check_error,
    clock_rate,
    cudart,
    cudaStatus,
    current_blas_handle,
    current_solver_handle,
    default_generators,
    device_memory_used,
    device_of,
    get_arch_list,
    get_gencode_flags,
    get_sync_debug_mode,
    has_half,
    has_magma,
    ipc_collect,
    is_tf32_supported,
    memory_usage,
    power_draw,
    set_sync_debug_mode,
    temperature,
    utilization,
)
from ember.cuda.graphs import (  # noqa: F401
    CUDAGraph,
    graph,
    graph_pool_handle,
    is_current_stream_capturing,
    make_graphed_callables,
)
from ember.cuda.memory import (  # noqa: F401
    CUDAPluggableAllocator,
    MemPool,
    caching_allocator_alloc,
    caching_allocator_delete,
    caching_allocator_disabled,
    caching_allocator_enable,
    change_current_allocator,
    get_allocator_backend,
    get_per_process_memory_fraction,
    host_memory_stats,
    host_memory_stats_as_nested_dict,
    list_gpu_processes,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    memory_cached,
    memory_snapshot,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_accumulated_host_memory_stats,
    reset_accumulated_memory_stats,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_host_memory_stats,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
    use_mem_pool,
)
from ember.cuda.random import (  # noqa: F401
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from ember.cuda.streams import (  # noqa: F401
    Event,
    ExternalStream,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    get_stream_from_external,
    set_stream,
    stream,
)

globals().update(TENSOR_TYPES)
globals().update(STORAGE_TYPES)

_LAZY = ("amp", "nvtx", "profiler", "nccl", "jiterator", "sparse", "tunable")


def __getattr__(name: str):
    if name in _LAZY:       # loaded on first use (amp loads ember.amp)
        import importlib
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
