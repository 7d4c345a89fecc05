"""The inductor's compiled graphs against ember eager and PyTorch eager, each in its own
processes, interleaved round by round, medians (ms).

    python benchmarks/bench_inductor.py [--quick] [--threads 1]

Workloads: softmax of (256, 1024), layer_norm of (256, 1024), a GELU chain, an MLP forward
(784 -> 256 -> 10, batch 64). "ember compiled" traces each with make_fx (core ATen
decompositions) and compiles it with `ember._inductor.compile_fx` (compilation happens before
timing; the kernel cache makes later processes skip the C compiler).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

import common
import numpy as np


def _workloads(lib):
    F = lib.nn.functional
    rng = np.random.default_rng(0)

    def t(*shape):
        return lib.from_numpy(rng.standard_normal(shape).astype(np.float32))
    x = t(256, 1024)
    w, b = t(1024), t(1024)
    batch, w1, b1, w2, b2 = t(64, 784), t(256, 784) * 0.05, t(256), t(10, 256) * 0.05, t(10)
    return {
        "softmax (256, 1024)": (lambda x: lib.softmax(x, -1), (x,), 200),
        "layer_norm (256, 1024)": (lambda x, w, b: F.layer_norm(x, (1024,), w, b),
                                   (x, w, b), 200),
        "gelu chain (256, 1024)": (lambda x: F.gelu(x * 1.5 + 0.5) * x - 1, (x,), 200),
        "mlp forward (64, 784)": (lambda x, w1, b1, w2, b2:
                                  F.linear(F.relu(F.linear(x, w1, b1)), w2, b2),
                                  (batch, w1, b1, w2, b2), 200),
    }


def worker(kind, threads, quick):
    if kind == "torch":
        import torch as lib
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, args, number) in _workloads(lib).items():
        if kind == "compiled":
            from ember._decomp import core_aten_decompositions
            from ember._inductor import compile_fx
            from ember.fx.experimental.proxy_tensor import make_fx
            gm = make_fx(fn, core_aten_decompositions())(*args)
            fn = compile_fx(gm, list(args))
        number = max(1, number // (4 if quick else 1))

        def call(fn=fn, args=args):
            return fn(*args)
        call()
        results[case] = min(timeit.repeat(call, number=number, repeat=3)) / number * 1e3
    print(json.dumps(results))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        worker(args[1], int(args[2]), args[3] == "quick")
        return
    quick, thread_counts, _ = common.options(args, "1")
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    kinds = {"ember eager": "ember", "ember compiled": "compiled", "torch eager": "torch"}
    for threads in thread_counts:
        times = {label: [] for label in kinds}
        for _ in range(3 if quick else 5):
            for label, kind in kinds.items():
                env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=str(threads),
                           OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
                done = subprocess.run([sys.executable, __file__, "--worker", kind,
                                       str(threads), "quick" if quick else "full"],
                                      capture_output=True, text=True, check=True, env=env)
                times[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"\n## Inductor, {threads} thread(s): median ms over rounds (separate "
              "processes)\n")
        print("| case | " + " | ".join(kinds) + " | compiled / eager | compiled / torch |")
        print("| --- |" + " ---: |" * (len(kinds) + 2))
        for case in times["torch eager"][0]:
            m = {label: statistics.median(r[case] for r in times[label]) for label in kinds}
            cells = " | ".join(f"{m[label]:.3f}" for label in kinds)
            print(f"| {case} | {cells} | {m['ember compiled'] / m['ember eager']:.2f}x | "
                  f"{m['ember compiled'] / m['torch eager']:.2f}x |")


if __name__ == "__main__":
    main()
