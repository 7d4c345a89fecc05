"""distributions.Normal(loc, scale).log_prob(x) over 10^6 float32 elements (forward, and
forward+backward to loc and scale): ember vs PyTorch in separate processes, interleaved
round by round (medians, ratios).

    python benchmarks/bench_distributions.py [--quick] [--threads 2]

Each round starts one fresh process per library, which times every case (best of a few
repeats). Target: at most 1.5x PyTorch.
"""
from __future__ import annotations

import sys

import common
import numpy as np

SIZE = 10 ** 6


def _cases(lib):
    rng = np.random.default_rng(0)
    loc = lib.from_numpy(rng.standard_normal(SIZE).astype(np.float32))
    scale = lib.from_numpy(rng.uniform(0.5, 2.0, SIZE).astype(np.float32))
    x = lib.from_numpy(rng.standard_normal(SIZE).astype(np.float32))
    loc_g = loc.clone().requires_grad_(True)
    scale_g = scale.clone().requires_grad_(True)
    Normal = lib.distributions.Normal

    def backward():
        loc_g.grad = scale_g.grad = None
        Normal(loc_g, scale_g).log_prob(x).sum().backward()

    return {
        "Normal(loc, scale).log_prob(x)": (lambda: Normal(loc, scale).log_prob(x), 5),
        "Normal(0., 1.).log_prob(x)": (lambda: Normal(0.0, 1.0).log_prob(x), 5),
        "log_prob(x).sum().backward()": (backward, 3),
        "Normal(loc, scale).rsample()": (lambda: Normal(loc, scale).rsample(), 3),
    }


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"distributions on {SIZE} float32 elements, {threads} thread(s): "
                             f"median ms over rounds (separate processes)", times)


if __name__ == "__main__":
    main()
