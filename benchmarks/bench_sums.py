"""Sums (and the per-op cost of tiny ops) in separate processes: ember, PyTorch and optionally
another ember checkout (`--baseline path/to/src`), interleaved round by round, medians.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sums.py [--quick]
    python benchmarks/bench_sums.py --threads 2 --baseline /tmp/old/src

Each round starts one fresh process per library, which times every case (best of a few
repeats) and prints them; the table shows the median over rounds in microseconds.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

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


def _worker(name, threads, quick):
    if name == "torch":
        import torch as lib
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, number) in _cases(lib).items():
        number = max(1, number // (4 if quick else 1))
        fn()
        results[case] = min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e6
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
    print(f"\n## Sums, {threads} thread(s): median us over rounds (separate processes)\n")
    print("| case | " + " | ".join(labels) + " | ember / torch |")
    print("| --- |" + " ---: |" * (len(labels) + 1))
    for case in times["ember"][0]:
        medians = {label: statistics.median(r[case] for r in times[label]) for label in labels}
        cells = " | ".join(f"{medians[label]:.2f}" for label in labels)
        print(f"| {case} | {cells} | {medians['ember'] / medians['torch']:.2f}x |")


if __name__ == "__main__":
    main()
