"""The random fills on 10^6 elements (PyTorch's CPU stream, bit for bit in ember): ember,
PyTorch and optionally another ember checkout (`--baseline path/to/src`) in separate
processes, interleaved round by round, medians.

    OMP_NUM_THREADS=1 python benchmarks/bench_random.py [--quick] [--baseline /tmp/old/src]

Each round starts one fresh process per library, which times every case (best of a few
repeats); the table shows the median over rounds in milliseconds.
"""
from __future__ import annotations

import sys

import common

SIZE = 10 ** 6


def _cases(lib):
    lib.manual_seed(0)
    x32 = lib.empty(SIZE)
    x64 = lib.empty(SIZE, dtype=lib.float64)
    probs = lib.full((SIZE,), 0.3)
    return {
        "randn float32": (lambda: lib.randn(SIZE), 5),
        "normal_(1, 2) float32": (lambda: x32.normal_(1.0, 2.0), 5),
        "randn float64": (lambda: lib.randn(SIZE, dtype=lib.float64), 3),
        "rand float32": (lambda: lib.rand(SIZE), 5),
        "uniform_(-2, 3) float32": (lambda: x32.uniform_(-2.0, 3.0), 5),
        "uniform_ float64": (lambda: x64.uniform_(), 5),
        "exponential_ float32": (lambda: x32.exponential_(), 3),
        "bernoulli_(0.3) float32": (lambda: x32.bernoulli_(0.3), 5),
        "bernoulli(p) float32": (lambda: lib.bernoulli(probs), 5),
        "randint(0, 1000)": (lambda: lib.randint(0, 1000, (SIZE,)), 5),
        "randperm": (lambda: lib.randperm(SIZE), 2),
    }


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"random fills of {SIZE} elements, {threads} thread(s): median ms "
                             f"over rounds (separate processes)", times)


if __name__ == "__main__":
    main()
