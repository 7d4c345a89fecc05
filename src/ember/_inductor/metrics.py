"""Counters the tests and benchmarks read (as torch._inductor.metrics): C compilations run,
shared objects found in the disk cache, kernels generated, extern calls planned, calls
run eagerly by a guard, graphs that could not be compiled."""

cpp_compiles = 0
disk_cache_hits = 0
generated_kernel_count = 0
extern_calls = 0
eager_fallbacks = 0      # calls a compiled graph's guards sent to the eager graph
compile_failures = 0     # graphs run eagerly: NOTE [a graph inductor cannot compile]


def reset() -> None:
    global cpp_compiles, disk_cache_hits, generated_kernel_count, extern_calls, eager_fallbacks
    global compile_failures
    cpp_compiles = disk_cache_hits = generated_kernel_count = extern_calls = 0
    eager_fallbacks = compile_failures = 0
