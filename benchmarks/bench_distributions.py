"""distributions.Normal(loc, scale).log_prob(x) over 10^6 float32 elements (forward, and
forward+backward to loc and scale): ember vs PyTorch in separate processes, interleaved
round by round (medians, ratios).

    python benchmarks/bench_distributions.py [--quick] [--threads 2]

Each round starts one fresh process per library, which times every case (best of a few
repeats). Target: at most 1.5x PyTorch.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

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
                       OPENBLAS_NUM_THREADS=str(threads))
            done = subprocess.run([sys.executable, __file__, "--worker", label, str(threads),
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            runs.append(json.loads(done.stdout))
    print(f"\n## distributions on {SIZE} float32 elements, {threads} thread(s): median ms "
          "over rounds (separate processes)\n")
    print("| case | ember | torch | ember / torch |")
    print("| --- | ---: | ---: | ---: |")
    for case in times["ember"][0]:
        e = statistics.median(r[case] for r in times["ember"])
        t = statistics.median(r[case] for r in times["torch"])
        print(f"| {case} | {e:.2f} | {t:.2f} | {e / t:.2f}x |")


if __name__ == "__main__":
    main()
