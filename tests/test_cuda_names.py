"""Every `torch.cuda` name as a CPU-only PyTorch answers it (NOTE [ember.cuda without CUDA]).

Each case runs the same call on PyTorch (the oracle, a CPU build) and on ember and compares the
outcome: the value, or the exception's class and the start of its message. Where PyTorch's CPU
build fails only because one of its C bindings is missing (an AttributeError from torch._C),
the case says so and ember must raise its "not compiled with CUDA" error instead.
"""
from __future__ import annotations

import collections
import warnings

import pytest
import torch

import ember

pytestmark = pytest.mark.skipif(
    torch.cuda.is_available() or ember.cuda.is_available(),
    reason="these compare CPU-only behaviour; tests/cuda covers a machine with CUDA")


def _outcome(lib, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "value", call(lib)
        except Exception as error:  # noqa: BLE001 -- the outcome under test
            return type(error), str(error)


def _plain(value):
    """A comparable form of a returned value (ember's and torch's objects differ in type)."""
    if isinstance(value, (collections.OrderedDict, dict, list, tuple, str, int, float, bool,
                          type(None))):
        return value
    return type(value).__name__


SAME = [    # (label, call): same value, or same exception class and message start
    ("is_available", lambda t: t.cuda.is_available()),
    ("device_count", lambda t: t.cuda.device_count()),
    ("is_initialized", lambda t: t.cuda.is_initialized()),
    ("is_bf16_supported", lambda t: t.cuda.is_bf16_supported()),
    ("is_bf16_supported(False)", lambda t: t.cuda.is_bf16_supported(False)),
    ("is_tf32_supported", lambda t: t.cuda.is_tf32_supported()),
    ("get_arch_list", lambda t: t.cuda.get_arch_list()),
    ("get_gencode_flags", lambda t: t.cuda.get_gencode_flags()),
    ("has_half", lambda t: t.cuda.has_half),
    ("has_magma", lambda t: t.cuda.has_magma),
    ("default_generators", lambda t: t.cuda.default_generators),
    ("cudaStatus", lambda t: (t.cuda.cudaStatus.SUCCESS, t.cuda.cudaStatus.ERROR_NOT_READY)),
    ("DeferredCudaCallError", lambda t: (issubclass(t.cuda.DeferredCudaCallError, Exception),
                                         issubclass(t.cuda.CudaError, RuntimeError))),
    ("memory_allocated", lambda t: t.cuda.memory_allocated()),
    ("memory_allocated(0)", lambda t: t.cuda.memory_allocated(0)),
    ("memory_reserved", lambda t: t.cuda.memory_reserved()),
    ("max_memory_allocated", lambda t: t.cuda.max_memory_allocated()),
    ("max_memory_reserved", lambda t: t.cuda.max_memory_reserved()),
    ("memory_cached", lambda t: t.cuda.memory_cached()),
    ("max_memory_cached", lambda t: t.cuda.max_memory_cached()),
    ("memory_stats", lambda t: t.cuda.memory_stats()),
    ("memory_stats_as_nested_dict", lambda t: t.cuda.memory_stats_as_nested_dict()),
    ("host_memory_stats", lambda t: t.cuda.host_memory_stats()),
    ("host_memory_stats_as_nested_dict", lambda t: t.cuda.host_memory_stats_as_nested_dict()),
    ("memory.memory_stats", lambda t: t.cuda.memory.memory_stats(0)),
    ("memory_summary", lambda t: t.cuda.memory_summary()),
    ("list_gpu_processes", lambda t: t.cuda.list_gpu_processes()),
    ("empty_cache", lambda t: t.cuda.empty_cache()),
    ("caching_allocator_enable", lambda t: t.cuda.caching_allocator_enable(True)),
    ("manual_seed", lambda t: t.cuda.manual_seed(3)),
    ("manual_seed_all", lambda t: t.cuda.manual_seed_all(3)),
    ("seed", lambda t: t.cuda.seed()),
    ("seed_all", lambda t: t.cuda.seed_all()),
    ("get_rng_state_all", lambda t: t.cuda.get_rng_state_all()),
    ("set_rng_state", lambda t: t.cuda.set_rng_state(t.zeros(8, dtype=t.uint8))),
    ("set_rng_state_all", lambda t: t.cuda.set_rng_state_all([])),
    ("random.seed", lambda t: t.cuda.random.seed()),
    ("set_stream(None)", lambda t: t.cuda.set_stream(None)),
    ("stream(None)", lambda t: _enter(t.cuda.stream(None))),
    ("StreamContext(None)", lambda t: _enter(t.cuda.StreamContext(None))),
    ("device(-1)", lambda t: _enter(t.cuda.device(-1))),
    ("device_of(cpu tensor)", lambda t: _enter(t.cuda.device_of(t.ones(2)))),
    ("set_device(-1)", lambda t: t.cuda.set_device(-1)),
    ("amp_definitely_not_available", lambda t: t.cuda.amp.amp_definitely_not_available()),
    ("nccl.is_available", lambda t: t.cuda.nccl.is_available([t.ones(2)])),
    ("isinstance cuda.FloatTensor", lambda t: isinstance(t.ones(2), t.cuda.FloatTensor)),
    ("cuda.FloatTensor.dtype", lambda t: (str(t.cuda.FloatTensor.dtype).split(".")[1],
                                          t.cuda.LongTensor.is_cuda)),
    ("isinstance cuda.sparse", lambda t: isinstance(t.ones(2).to_sparse(),
                                                    t.cuda.sparse.FloatTensor)),
    ("isinstance cuda.FloatStorage", lambda t: isinstance(t.ones(2).storage(),
                                                          t.cuda.FloatStorage)),
    # what needs a GPU
    ("current_device", lambda t: t.cuda.current_device()),
    ("init", lambda t: t.cuda.init()),
    ("synchronize", lambda t: t.cuda.synchronize()),
    ("get_device_name", lambda t: t.cuda.get_device_name()),
    ("get_device_properties", lambda t: t.cuda.get_device_properties(0)),
    ("get_device_capability", lambda t: t.cuda.get_device_capability()),
    ("mem_get_info", lambda t: t.cuda.mem_get_info()),
    ("cudart", lambda t: t.cuda.cudart()),
    ("current_blas_handle", lambda t: t.cuda.current_blas_handle()),
    ("current_solver_handle", lambda t: t.cuda.current_solver_handle()),
    ("ipc_collect", lambda t: t.cuda.ipc_collect()),
    ("current_stream", lambda t: t.cuda.current_stream()),
    ("default_stream", lambda t: t.cuda.default_stream()),
    ("get_stream_from_external", lambda t: t.cuda.get_stream_from_external(0)),
    ("get_rng_state", lambda t: t.cuda.get_rng_state()),
    ("initial_seed", lambda t: t.cuda.initial_seed()),
    ("get_sync_debug_mode", lambda t: t.cuda.get_sync_debug_mode()),
    ("set_sync_debug_mode", lambda t: t.cuda.set_sync_debug_mode("warn")),
    ("get_per_process_memory_fraction", lambda t: t.cuda.get_per_process_memory_fraction()),
    ("set_per_process_memory_fraction",
     lambda t: t.cuda.set_per_process_memory_fraction(0.5)),
    ("caching_allocator_alloc", lambda t: t.cuda.caching_allocator_alloc(16)),
    ("can_device_access_peer", lambda t: t.cuda.can_device_access_peer(0, 1)),
    ("use_mem_pool", lambda t: _enter(t.cuda.use_mem_pool(None))),
    ("set_device('cpu')", lambda t: t.cuda.set_device("cpu")),
    ("Stream()", lambda t: t.cuda.Stream()),
    ("streams.Stream(0)", lambda t: t.cuda.streams.Stream(0)),
    ("graph(None)", lambda t: t.cuda.graph(None)),
    ("FloatTensor(3)", lambda t: t.cuda.FloatTensor(3)),
    ("LongTensor([1])", lambda t: t.cuda.LongTensor([1])),
    ("sparse.FloatTensor()", lambda t: t.cuda.sparse.FloatTensor()),
    ("FloatStorage(3)", lambda t: t.cuda.FloatStorage(3)),
    ("ones(device=cuda)", lambda t: t.ones(2, device="cuda")),
    ("nvtx.range_push", lambda t: t.cuda.nvtx.range_push("step")),
    ("nvtx.range_pop", lambda t: t.cuda.nvtx.range_pop()),
    ("nvtx.mark", lambda t: t.cuda.nvtx.mark("step")),
    ("nvtx.range", lambda t: _enter(t.cuda.nvtx.range("step {}", 1))),
    ("profiler.start", lambda t: t.cuda.profiler.start()),
    ("profiler.profile", lambda t: _enter(t.cuda.profiler.profile())),
    ("GreenContext.create", lambda t: t.cuda.GreenContext.create(num_sms=1)),
    ("tunable.mgpu_tune_gemm_in_file", lambda t: t.cuda.tunable.mgpu_tune_gemm_in_file("f", 1)),
]

# PyTorch's class differs only where its message is about its own build: the dummy classes of
# its C extension ("Tried to instantiate dummy base class Event") -- same class, own words.
SAME_CLASS = [
    ("device(0)", lambda t: _enter(t.cuda.device(0))),
    ("Event()", lambda t: t.cuda.Event()),
    ("CUDAGraph()", lambda t: t.cuda.CUDAGraph()),
    ("MemPool()", lambda t: t.cuda.MemPool()),
    ("graph_pool_handle", lambda t: t.cuda.graph_pool_handle()),
    ("is_current_stream_capturing", lambda t: t.cuda.is_current_stream_capturing()),
    ("make_graphed_callables", lambda t: t.cuda.make_graphed_callables(
        t.nn.Linear(2, 2), (t.ones(1, 2),))),
    ("CUDAPluggableAllocator(missing .so)",
     lambda t: t.cuda.CUDAPluggableAllocator("/nonexistent/alloc.so", "a", "b")),
]

# PyTorch's CPU build fails on a missing torch._C binding (AttributeError): ember raises the
# "not compiled with CUDA" error (NOTE [ember.cuda without CUDA]).
MISSING_BINDING = [
    ("reset_peak_memory_stats", lambda t: t.cuda.reset_peak_memory_stats()),
    ("reset_accumulated_memory_stats", lambda t: t.cuda.reset_accumulated_memory_stats()),
    ("reset_max_memory_allocated", lambda t: t.cuda.reset_max_memory_allocated()),
    ("reset_max_memory_cached", lambda t: t.cuda.reset_max_memory_cached()),
    ("reset_peak_host_memory_stats", lambda t: t.cuda.reset_peak_host_memory_stats()),
    ("reset_accumulated_host_memory_stats",
     lambda t: t.cuda.reset_accumulated_host_memory_stats()),
    ("memory_snapshot", lambda t: t.cuda.memory_snapshot()),
    ("get_allocator_backend", lambda t: t.cuda.get_allocator_backend()),
    ("caching_allocator_delete", lambda t: t.cuda.caching_allocator_delete(0)),
    ("caching_allocator_disabled", lambda t: _enter(t.cuda.caching_allocator_disabled())),
    ("change_current_allocator", lambda t: t.cuda.change_current_allocator(None)),
    ("set_device(0)", lambda t: t.cuda.set_device(0)),
    ("check_error(0)", lambda t: t.cuda.check_error(0)),
    ("CudaError(2)", lambda t: t.cuda.CudaError(2)),
    ("tunable.enable", lambda t: t.cuda.tunable.enable()),
    ("tunable.is_enabled", lambda t: t.cuda.tunable.is_enabled()),
    ("tunable.set_filename", lambda t: t.cuda.tunable.set_filename("x.csv")),
    ("tunable.get_max_tuning_duration", lambda t: t.cuda.tunable.get_max_tuning_duration()),
]


def _enter(context):
    with context:
        return


@pytest.mark.parametrize("label,call", SAME, ids=[label for label, _ in SAME])
def test_same_outcome_as_cpu_only_torch(label, call):
    theirs, ours = _outcome(torch, call), _outcome(ember, call)
    if theirs[0] == "value":
        assert ours[0] == "value", f"{label}: PyTorch returned {theirs[1]!r}, ember raised {ours}"
        assert _plain(ours[1]) == _plain(theirs[1])
    else:
        assert ours[0] != "value", f"{label}: PyTorch raised {theirs}, ember returned {ours}"
        assert issubclass(ours[0], theirs[0]), f"{label}: {theirs} vs {ours}"
        assert ours[1].startswith(theirs[1].split(" (")[0][:30]), f"{label}: {theirs} vs {ours}"


@pytest.mark.parametrize("label,call", SAME_CLASS, ids=[label for label, _ in SAME_CLASS])
def test_same_exception_class(label, call):
    theirs, ours = _outcome(torch, call), _outcome(ember, call)
    assert theirs[0] != "value" and ours[0] != "value", (theirs, ours)
    assert issubclass(ours[0], theirs[0]), f"{label}: {theirs} vs {ours}"


@pytest.mark.parametrize("label,call", MISSING_BINDING,
                         ids=[label for label, _ in MISSING_BINDING])
def test_missing_binding_raises_not_compiled(label, call):
    theirs, ours = _outcome(torch, call), _outcome(ember, call)
    assert theirs[0] is AttributeError, f"{label}: PyTorch now answers {theirs}: compare directly"
    assert issubclass(ours[0], AssertionError), ours
    assert ours[1].startswith("Torch not compiled with CUDA enabled"), ours


def test_nccl_collectives_refuse():
    assert not torch.cuda.nccl.is_available([torch.ones(2)])
    with pytest.raises(RuntimeError, match="NCCL"):
        ember.cuda.nccl.all_reduce([ember.ones(2)])


def test_deprecated_memory_names_warn_like_torch():
    for name in ("memory_cached", "max_memory_cached"):
        with pytest.warns(FutureWarning, match="renamed"):
            getattr(torch.cuda, name)()
        with pytest.warns(FutureWarning, match="renamed"):
            getattr(ember.cuda, name)()


def test_jiterator_makes_a_function_that_needs_cuda():
    code = "template <typename T> T id(T x) { return x; }"
    theirs = torch.cuda.jiterator._create_jit_fn(code)
    ours = ember.cuda.jiterator._create_jit_fn(code)
    assert callable(theirs) and callable(ours)
    with pytest.raises(AssertionError):
        ours(ember.ones(2))
