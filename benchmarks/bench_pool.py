"""Pooling and resampling, forward and forward+backward, on (32, 64, 32, 32) float32: ember vs
PyTorch in separate processes, interleaved round by round (medians, ratios).

    python benchmarks/bench_pool.py [--quick] [--threads 2]

Cases: max_pool2d 2x2, adaptive_avg_pool2d to 7x7, bilinear interpolate x2. Each round starts
one fresh process per library, which times every case (best of a few repeats).
"""
from __future__ import annotations

import sys

import common
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


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"Pooling and resampling on {SHAPE} float32, {threads} thread(s): "
                             f"median ms over rounds (separate processes)", times)


if __name__ == "__main__":
    main()
