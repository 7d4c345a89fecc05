"""linalg.solve and linalg.eigh of a batch of 64 128x128 float32 matrices: ember vs PyTorch in
separate processes, interleaved round by round (medians, ratios; target <= 1.5x).

    python benchmarks/bench_linalg.py [--quick] [--threads 2]

Each round starts one fresh process per library, which times every case (best of a few
repeats). The matrices are well-conditioned (diagonally dominant; eigh gets A + A^T).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

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
                       OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
            done = subprocess.run([sys.executable, __file__, "--worker", label, str(threads),
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            runs.append(json.loads(done.stdout))
    print(f"\n## linalg on a batch of {BATCH} {N}x{N} float32 matrices, {threads} thread(s): "
          "median ms over rounds (separate processes)\n")
    print("| case | ember | torch | ember / torch | target |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for case in times["ember"][0]:
        e = statistics.median(r[case] for r in times["ember"])
        t = statistics.median(r[case] for r in times["torch"])
        print(f"| {case} | {e:.2f} | {t:.2f} | {e / t:.2f}x | <= 1.5x |")


if __name__ == "__main__":
    main()
