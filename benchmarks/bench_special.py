"""Special functions and the exact GELU in separate processes: ember, PyTorch and optionally
another ember checkout (`--baseline path/to/src`), interleaved round by round, medians.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_special.py [--quick]
    python benchmarks/bench_special.py --threads 2 --baseline /tmp/old/src

Each round starts one fresh process per library, which times every case (best of a few
repeats) and prints them; the table shows the median over rounds in milliseconds. The cases
are 0.5M float32 elements (GPT-sized activations): erf, F.gelu forward, and F.gelu forward and
backward (its gradient through autograd).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

import numpy as np

_SIZE = 1 << 19


def _cases(lib):
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(_SIZE) * 2).astype(np.float32)
    x = lib.from_numpy(values.copy())
    xg = lib.from_numpy(values.copy()).requires_grad_()
    grad = lib.from_numpy(rng.standard_normal(_SIZE).astype(np.float32))
    unit = lib.from_numpy(rng.random(_SIZE).astype(np.float32))
    gelu = lib.nn.functional.gelu

    def forward_backward():
        gelu(xg).backward(grad)
        xg.grad = None

    cases = {
        "erf": (lambda: lib.erf(x), 20),
        "gelu forward": (lambda: gelu(x), 20),
        "gelu forward + backward": (forward_backward, 10),
    }
    special = getattr(lib, "special", None)
    if special is not None and hasattr(special, "log_ndtr"):
        cases.update({
            "special.log_ndtr": (lambda: special.log_ndtr(x), 5),
            "special.i0e": (lambda: special.i0e(x), 5),
            "special.ndtri": (lambda: special.ndtri(unit), 5),
            "special.erfcx": (lambda: special.erfcx(x), 5),
        })
    return cases


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
    print(f"\n## Special functions, {threads} thread(s), {_SIZE} float32 elements: "
          "median ms over rounds (separate processes)\n")
    print("| case | " + " | ".join(labels) + " | ember / torch |")
    print("| --- |" + " ---: |" * (len(labels) + 1))
    for case in times["torch"][0]:
        if case not in times["ember"][0]:
            continue
        medians = {label: statistics.median(r[case] for r in times[label])
                   for label in labels if case in times[label][0]}
        cells = " | ".join(f"{medians[label]:.2f}" if label in medians else "-"
                           for label in labels)
        print(f"| {case} | {cells} | {medians['ember'] / medians['torch']:.2f}x |")


if __name__ == "__main__":
    main()
