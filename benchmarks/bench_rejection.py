"""PyTorch's rejection samplers on 10^5 elements (gamma, Dirichlet, poisson, binomial: PyTorch's
numbers bit for bit in ember, NOTE [rejection samplers on PyTorch's stream]) and the
double-valued fills on 10^6 (exponential_, cauchy_, log_normal_, geometric_, randn float64):
ember, PyTorch and optionally another ember checkout (`--baseline path/to/src`) in separate
processes, interleaved round by round, medians.

    OMP_NUM_THREADS=1 python benchmarks/bench_rejection.py [--quick] [--baseline /tmp/old/src]

Each round starts one fresh process per library, which times every case (best of a few
repeats); the table shows the median over rounds in milliseconds.
"""
from __future__ import annotations

import sys

import common

SIZE = 10 ** 5
FILL = 10 ** 6


def _cases(lib):
    lib.manual_seed(0)
    generator = lib.Generator().manual_seed(0)

    def full(value, dtype=None):
        return lib.full((SIZE,), value, dtype=dtype or lib.float32)

    shape_2 = lib.tensor([0.5, 3.0]).expand(SIZE // 2, 2).contiguous()
    dirichlet = lib.tensor([0.5, 1.0, 2.0, 4.0, 8.0]).expand(SIZE // 5, 5).contiguous()
    cases = {
        "_standard_gamma alpha=0.5": (full(0.5),),
        "_standard_gamma alpha=2.5": (full(2.5),),
        "_standard_gamma alpha=2.5 float64": (full(2.5, lib.float64),),
        "_standard_gamma alpha=(0.5, 3) expanded": (shape_2,),
        "_sample_dirichlet 5 columns": (dirichlet,),
        "poisson rate=3": (full(3.0),),
        "poisson rate=30": (full(30.0),),
        "binomial 5, 0.3": (full(5.0), full(0.3)),
        "binomial 100, 0.3": (full(100.0), full(0.3)),
        "binomial 1000, 0.9": (full(1000.0), full(0.9)),
    }
    ops = {"_standard_gamma": lib._standard_gamma, "_sample_dirichlet": lib._sample_dirichlet,
           "poisson": lib.poisson, "binomial": lib.binomial}
    def timed_case(op, args):
        return (lambda: op(*args, generator=generator)), 3

    timed = {name: timed_case(ops[name.split()[0]], args) for name, args in cases.items()}
    x64 = lib.empty(FILL, dtype=lib.float64)
    x32 = lib.empty(FILL)
    timed.update({
        "exponential_ float32 (10^6)": (lambda: x32.exponential_(), 3),
        "cauchy_ float64 (10^6)": (lambda: x64.cauchy_(), 3),
        "log_normal_ float64 (10^6)": (lambda: x64.log_normal_(), 3),
        "geometric_(0.3) float64 (10^6)": (lambda: x64.geometric_(0.3), 3),
        "randn float64 (10^6)": (lambda: lib.randn(FILL, dtype=lib.float64), 3),
    })
    return timed


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"rejection samplers ({SIZE} elements) and double fills ({FILL}), "
                             f"{threads} thread(s): median ms over rounds (separate processes)",
                             times, target=lambda case: "<= 3x" if "(10^6)" not in case
                             else "")


if __name__ == "__main__":
    main()
