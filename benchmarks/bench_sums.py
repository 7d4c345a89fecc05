"""Sums (and the per-op cost of tiny ops) in separate processes: ember, PyTorch and optionally
another ember checkout (`--baseline path/to/src`), interleaved round by round, medians.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sums.py [--quick]
    python benchmarks/bench_sums.py --threads 2 --baseline /tmp/old/src

Each round starts one fresh process per library, which times every case (best of a few
repeats) and prints them; the table shows the median over rounds in microseconds.
"""
from __future__ import annotations

import sys

import common
import numpy as np


def _cases(lib):
    rng = np.random.default_rng(0)
    tiny = rng.standard_normal(8).astype(np.float32)
    big = rng.random(1 << 24, dtype=np.float32)
    a, b = lib.from_numpy(tiny.copy()), lib.from_numpy(tiny.copy())
    v = lib.from_numpy(big)
    tall = v[: 1 << 22].reshape(1 << 18, 16)
    square = v.reshape(4096, 4096)
    wide = v[: 1 << 22].reshape(16, 1 << 18)
    half = v[: 1 << 22].to(lib.float16)
    return {
        "tiny a + b": (lambda: a + b, 20000),
        "tiny a * 2.0": (lambda: a * 2.0, 20000),
        "tiny a.exp()": (lambda: a.exp(), 20000),
        "tiny a / b": (lambda: a / b, 20000),
        "tiny a.sum()": (lambda: a.sum(), 20000),
        "tiny a.sum(0)": (lambda: a.sum(0), 20000),
        "v.sum(), 2^24": (lambda: v.sum(), 10),
        "v.mean(), 2^24": (lambda: v.mean(), 10),
        "(2^18, 16).sum(0)": (lambda: tall.sum(0), 10),
        "(16, 2^18).sum(1)": (lambda: wide.sum(1), 10),
        "(4096, 4096).sum(0)": (lambda: square.sum(0), 5),
        "(4096, 4096).sum(1)": (lambda: square.sum(1), 5),
        "float16 v.sum(), 2^22": (lambda: half.sum(), 10),
    }


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e6)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"Sums, {threads} thread(s): "
                             f"median us over rounds (separate processes)", times)


if __name__ == "__main__":
    main()
