"""Pooling and resampling, forward and forward+backward, on (32, 64, 32, 32) float32: ember vs
PyTorch in separate processes, interleaved round by round (medians, ratios).

    python benchmarks/bench_pool.py [--quick] [--threads 2]

Cases: max_pool2d 2x2, adaptive_avg_pool2d to 7x7, bilinear interpolate x2. Each round starts
one fresh process per library, which times every case (best of a few repeats).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

import numpy as np

SHAPE = (32, 64, 32, 32)


def _cases(lib):
    F = lib.nn.functional
    data = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    x = lib.from_numpy(data.copy())
    xg = lib.from_numpy(data.copy()).requires_grad_(True)
    ops = {
        "max_pool2d 2x2": lambda t: F.max_pool2d(t, 2),
        "adaptive_avg_pool2d 7x7": lambda t: F.adaptive_avg_pool2d(t, 7),
        "interpolate bilinear x2": lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"),
    }
    cases = {}
    for name, op in ops.items():
        cases[f"{name} forward"] = (lambda op=op: op(x), 5)

        def step(op=op):
            xg.grad = None
            op(xg).sum().backward()
        cases[f"{name} forward+backward"] = (step, 3)
    return cases


def _worker(name, threads, quick):
    if name == "torch":
        import torch as lib
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, number) in _cases(lib).items():
        fn()
        results[case] = min(timeit.repeat(fn, number=number, repeat=2 if quick else 3)) \
            / number * 1e3
    print(json.dumps(results))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--worker":
        _worker(args[1], int(args[2]), args[3] == "quick")
        return
    quick = "--quick" in args
    threads = int(args[args.index("--threads") + 1]) if "--threads" in args else 1
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(os.path.dirname(here), "src")
    times = {"ember": [], "torch": []}
    for _ in range(3 if quick else 5):
        for label, runs in times.items():
            env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads))
            done = subprocess.run([sys.executable, __file__, "--worker", label, str(threads),
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            runs.append(json.loads(done.stdout))
    print(f"\n## Pooling and resampling on {SHAPE} float32, {threads} thread(s): median ms "
          "over rounds (separate processes)\n")
    print("| case | ember | torch | ember / torch |")
    print("| --- | ---: | ---: | ---: |")
    for case in times["ember"][0]:
        e = statistics.median(r[case] for r in times["ember"])
        t = statistics.median(r[case] for r in times["torch"])
        print(f"| {case} | {e:.2f} | {t:.2f} | {e / t:.2f}x |")


if __name__ == "__main__":
    main()
