"""Sparse @ dense in separate processes: ember and PyTorch (and optionally another ember
checkout, `--baseline path/to/src`), interleaved round by round, medians.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sparse.py [--quick]
    python benchmarks/bench_sparse.py --threads 2

The issue's case: a COO matrix of 10^5 nonzeros, 10^4 x 10^4, float32, times a dense
10^4 x 64 matrix (target: at most 1.5x PyTorch). Also the same with the sparse tensor built
inside the timed call (so a per-tensor conversion is paid each time) and with CSR.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

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


def _worker(name, threads, quick):
    if name == "torch":
        import warnings

        import torch as lib
        warnings.filterwarnings("ignore", message="Sparse")
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, number) in _cases(lib).items():
        number = max(1, number // (4 if quick else 1))
        fn()
        results[case] = min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e3
    print(json.dumps(results))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--worker":
        _worker(args[1], int(args[2]), args[3] == "quick")
        return
    quick = "--quick" in args
    threads = int(args[args.index("--threads") + 1]) if "--threads" in args else 1
    here = os.path.dirname(os.path.abspath(__file__))
    ember_src = os.path.join(os.path.dirname(here), "src")
    runs = {"ember": ember_src, "torch": ember_src}
    if "--baseline" in args:
        runs = {"ember": ember_src, "ember (baseline)": args[args.index("--baseline") + 1],
                "torch": ember_src}
    times = {label: [] for label in runs}
    for _ in range(3 if quick else 5):
        for label, src in runs.items():
            env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads))
            kind = "torch" if label == "torch" else "ember"
            done = subprocess.run([sys.executable, __file__, "--worker", kind, str(threads),
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            times[label].append(json.loads(done.stdout))
    labels = list(runs)
    print(f"\n## Sparse, {threads} thread(s): median ms over rounds (separate processes)\n")
    print("| case | " + " | ".join(labels) + " | ember / torch | target |")
    print("| --- |" + " ---: |" * (len(labels) + 2))
    for case in times["ember"][0]:
        medians = {label: statistics.median(r[case] for r in times[label]) for label in labels}
        cells = " | ".join(f"{medians[label]:.2f}" for label in labels)
        target = "<= 1.5x" if case == "COO @ dense" else ""
        print(f"| {case} | {cells} | {medians['ember'] / medians['torch']:.2f}x | {target} |")


if __name__ == "__main__":
    main()
