"""Sparse @ dense in separate processes: ember and PyTorch (and optionally another ember
checkout, `--baseline path/to/src`), interleaved round by round, medians.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sparse.py [--quick]
    python benchmarks/bench_sparse.py --threads 2

The issue's case: a COO matrix of 10^5 nonzeros, 10^4 x 10^4, float32, times a dense
10^4 x 64 matrix (target: at most 1.5x PyTorch). Also the same with the sparse tensor built
inside the timed call (so a per-tensor conversion is paid each time) and with CSR.
"""
from __future__ import annotations

import sys

import common
import numpy as np

SIZE, NNZ, COLUMNS = 10_000, 100_000, 64


def _cases(lib):
    rng = np.random.default_rng(0)
    linear = np.unique(rng.integers(0, SIZE * SIZE, size=NNZ + NNZ // 10))[:NNZ]
    rng.shuffle(linear)
    indices = lib.from_numpy(np.stack(np.unravel_index(linear, (SIZE, SIZE))).astype(np.int64))
    values = lib.from_numpy(rng.standard_normal(NNZ).astype(np.float32))
    dense = lib.from_numpy(rng.standard_normal((SIZE, COLUMNS)).astype(np.float32))
    coo = lib.sparse_coo_tensor(indices, values, (SIZE, SIZE)).coalesce()
    csr = coo.to_sparse_csr()
    c_indices, c_values = coo.indices(), coo.values()
    return {
        "COO @ dense": (lambda: coo @ dense, 20),
        "sparse.mm(COO, dense)": (lambda: lib.sparse.mm(coo, dense), 20),
        "new COO (coalesced) @ dense": (lambda: lib.sparse_coo_tensor(
            c_indices, c_values, (SIZE, SIZE), is_coalesced=True) @ dense, 20),
        "CSR @ dense": (lambda: csr @ dense, 20),
        "COO.coalesce() of shuffled entries": (lambda: lib.sparse_coo_tensor(
            indices, values, (SIZE, SIZE)).coalesce(), 10),
    }


def _quiet_torch():
    import warnings
    warnings.filterwarnings("ignore", message="Sparse")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3, torch_setup=_quiet_torch)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"Sparse, {threads} thread(s): median ms over rounds (separate "
                             "processes)", times,
                             target=lambda case: "<= 1.5x" if case == "COO @ dense" else "")


if __name__ == "__main__":
    main()
