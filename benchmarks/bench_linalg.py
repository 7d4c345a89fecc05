"""linalg.solve and linalg.eigh of a batch of 64 128x128 float32 matrices: ember vs PyTorch in
separate processes, interleaved round by round (medians, ratios; target <= 1.5x).

    python benchmarks/bench_linalg.py [--quick] [--threads 2]

Each round starts one fresh process per library, which times every case (best of a few
repeats). The matrices are well-conditioned (diagonally dominant; eigh gets A + A^T).
"""
from __future__ import annotations

import sys

import common
import numpy as np

BATCH, N = 64, 128


def _cases(lib):
    rng = np.random.default_rng(0)
    general = (rng.standard_normal((BATCH, N, N)) + N * np.eye(N)).astype(np.float32)
    symmetric = (general + general.transpose(0, 2, 1)).astype(np.float32)
    rhs = rng.standard_normal((BATCH, N, 4)).astype(np.float32)
    A, S, B = lib.from_numpy(general), lib.from_numpy(symmetric), lib.from_numpy(rhs)
    return {
        "linalg.solve (64, 128, 128) @ (64, 128, 4)": (lambda: lib.linalg.solve(A, B), 5),
        "linalg.eigh (64, 128, 128)": (lambda: lib.linalg.eigh(S), 2),
    }


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"linalg on a batch of {BATCH} {N}x{N} float32 matrices, "
                             f"{threads} thread(s): median ms over rounds (separate processes)",
                             times, target=lambda case: "<= 1.5x")


if __name__ == "__main__":
    main()
