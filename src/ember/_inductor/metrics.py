"""Counters the tests and benchmarks read (as torch._inductor.metrics): C compilations run,
shared objects found in the disk cache, kernels generated, extern calls planned, calls
run eagerly by a guard, graphs that could not be compiled, autotuning runs and cache hits."""

cpp_compiles = 0
disk_cache_hits = 0
generated_kernel_count = 0
extern_calls = 0
eager_fallbacks = 0      # calls a compiled graph's guards sent to the eager graph
compile_failures = 0     # graphs run eagerly: NOTE [a graph inductor cannot compile]
autotune_runs = 0        # graphs whose kernel variants were timed (NOTE [max-autotune])
autotune_cache_hits = 0  # graphs whose choices were read from the disk cache


def reset() -> None:
    global cpp_compiles, disk_cache_hits, generated_kernel_count, extern_calls, eager_fallbacks
    global compile_failures, autotune_runs, autotune_cache_hits
    cpp_compiles = disk_cache_hits = generated_kernel_count = extern_calls = 0
    eager_fallbacks = compile_failures = autotune_runs = autotune_cache_hits = 0
