"""`mode="max-autotune"`: each kernel's variants timed, the fastest kept (NOTE [max-autotune]).

NOTE [max-autotune]: a kernel's C is written once (codegen_c.py); its variants differ only in
their OpenMP pragmas, so every variant computes the same loops:
- `simdlen(8)`, `simdlen(16)` on the vectorised loops (the vector width the compiler picks:
  gcc prefers 256-bit vectors on AVX-512 machines unless asked for more);
- with more than one thread: the parallel loops run serially, or on half the threads.
(A sum's order of additions follows the vector width, so variants of a float reduction may
differ in the last bits, as PyTorch's do between kernels.) All variants of a graph's kernels
are compiled into one shared object (one compiler run, cached as any other), each is called
on scratch buffers of its arguments' sizes, in interleaved rounds, and the one with the lowest
time is kept. The choices are written beside the kernel cache, keyed by the default source,
the thread count and the CPU (`<cache>/autotune/<key>.json`), so a later process compiles
the chosen C without timing again.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import tempfile
import time

import numpy as np

from ember._inductor import cpp_builder, metrics

ROUNDS = 5
MIN_BATCH_S = 2e-4       # each timing runs the kernel at least this long
_PARALLEL = re.compile(r"#pragma omp parallel for( simd)?")


def variants(kernel, threads) -> dict:
    """{label: C lines} for `kernel`'s variants, "default" first."""
    code = kernel.code
    found = {"default": code}
    if any("#pragma omp" in line and "simd" in line for line in code):
        for width in (8, 16):
            found[f"simdlen{width}"] = [_with_simdlen(line, width) for line in code]
    if threads > 1 and any("omp parallel" in line for line in code):
        found["serial"] = [_serial(line) for line in code if _serial(line) is not None]
        if threads > 2:
            half = threads // 2
            found[f"threads{half}"] = [
                line + f" num_threads({half})" if "omp parallel" in line else line
                for line in code]
    return found


def _with_simdlen(line, width):
    if "#pragma omp" in line and "simd" in line:
        return f"{line} simdlen({width})"
    return line


def _serial(line):
    """A parallel pragma without its threads: `parallel for simd ...` keeps `simd ...`, a
    plain `parallel for` goes (None); its `if` clause goes with it."""
    if "omp parallel" not in line:
        return line
    line = re.sub(r" if\(.*\)$", "", line)
    match = _PARALLEL.search(line)
    if match.group(1):                       # "parallel for simd <clauses>"
        return line.replace("parallel for simd", "simd")
    return None


def tune(kernels, graph, threads) -> dict:
    """Set each kernel's `code` to its fastest variant; returns {kernel name: label}."""
    options = {k.name: variants(k, threads) for k in kernels}
    if all(len(v) == 1 for v in options.values()):
        return {}
    key = _key(kernels, threads)
    path = os.path.join(cpp_builder.cache_dir(), "autotune", key + ".json")
    choices = _read(path)
    if choices is None or set(choices) != set(options):
        choices = _time_all(kernels, options, graph)
        _write(path, choices)
        metrics.autotune_runs += 1
    else:
        metrics.autotune_cache_hits += 1
    for kernel in kernels:
        kernel.code = options[kernel.name][choices[kernel.name]]
    return choices


def _key(kernels, threads) -> str:
    from ember._inductor.codegen_c import module_source
    text = "\0".join((module_source(kernels, cpp_builder.vector_math()), str(threads),
                      cpp_builder.cache_key("", cpp_builder.compiler())))
    return hashlib.sha256(text.encode()).hexdigest()


def _read(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write(path, choices):
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(choices, f)
    os.replace(tmp, path)


def _time_all(kernels, options, graph) -> dict:
    from ember._inductor.codegen_c import _indent, PRELUDE, vector_math_declarations
    parts = [PRELUDE + (vector_math_declarations() if cpp_builder.vector_math() else "")]
    params = {}
    for kernel in kernels:
        default = kernel.signature()
        for label, code in options[kernel.name].items():
            name = f"{kernel.name}__{label}"
            parts.append(default.replace(f"void {kernel.name}(", f"void {name}(", 1) + " {")
            parts.extend(_indent(code, 1))
            parts.append("}\n")
            params[name] = (len(kernel.params), len(kernel.size_args))
    functions = cpp_builder.load("\n".join(parts), params)
    choices = {}
    for kernel in kernels:
        labels = list(options[kernel.name])
        if len(labels) == 1:
            choices[kernel.name] = labels[0]
            continue
        args, _memory = _scratch_args(kernel, graph)     # the memory lives while timed
        fns = {label: functions[f"{kernel.name}__{label}"] for label in labels}
        best = {label: float("inf") for label in labels}
        batch = _batch(fns["default"], args)
        for _ in range(ROUNDS):
            for label, fn in fns.items():
                start = time.perf_counter()
                for _ in range(batch):
                    fn(*args)
                best[label] = min(best[label], time.perf_counter() - start)
        choices[kernel.name] = min(labels, key=lambda label: (best[label], labels.index(label)))
    return choices


def _batch(fn, args) -> int:
    fn(*args)
    start = time.perf_counter()
    fn(*args)
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, min(1000, int(MIN_BATCH_S / once) + 1))


def _scratch_args(kernel, graph) -> list:
    """Pointers to scratch memory as large as each argument's buffer, then the sizes; and
    the arrays themselves (the caller keeps them while the pointers are used)."""
    rng = np.random.default_rng(0)
    keep, args = [], []
    for name, (buffer, _written) in kernel.params.items():
        made = graph.buffers.get(name, buffer)
        extent = max(_extent(made), _extent(buffer), 1)
        if buffer.dtype.is_floating_point:
            memory = rng.uniform(0.5, 1.0, extent).astype(buffer.dtype._np)
        else:
            memory = np.zeros(extent, buffer.dtype._np)
        keep.append(memory)
        args.append(ctypes.c_void_p(memory.ctypes.data))
    args += [ctypes.c_int64(graph.size_values[name]) for name in kernel.size_args]
    return args, keep


def _extent(buffer) -> int:
    return int(buffer.offset) + sum((int(s) - 1) * abs(int(st))
                                    for s, st in zip(buffer.shape, buffer.strides) if s) + 1
