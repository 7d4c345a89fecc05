"""The cost of an op under autocast, ember against PyTorch, one process per library per round,
interleaved (A B A B ...), medians: tiny ops with autocast off and on (CPU, bfloat16), an op
without a policy (add), ops cast to bfloat16 (mm, linear with a cached weight), one kept in
float32 (cross_entropy), and entering/leaving the context.

    python benchmarks/bench_autocast.py [--rounds N] [--number N]

Run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 and without.
"""
from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import timeit

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def _cases(lib):
    import numpy as np
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal(8).astype(np.float32))
    m = lib.tensor(rng.standard_normal((16, 16)).astype(np.float32))
    w = lib.nn.Parameter(lib.tensor(rng.standard_normal((16, 16)).astype(np.float32)))
    labels = lib.tensor(np.arange(16) % 16)
    F = lib.nn.functional
    return {
        "a + b (8,)": lambda: a + a,
        "16x16 mm": lambda: lib.mm(m, m),
        "linear 16x16, Parameter weight": lambda: F.linear(m, w),
        "cross_entropy 16x16": lambda: F.cross_entropy(m, labels),
    }


def worker(lib_name: str, number: int) -> None:
    lib = __import__(lib_name)
    out = {}
    for name, fn in _cases(lib).items():
        fn()
        out[f"{name}, autocast off"] = min(timeit.repeat(fn, number=number, repeat=3)) \
            / number * 1e6
        with lib.autocast("cpu"):
            fn()
            out[f"{name}, autocast on"] = min(timeit.repeat(fn, number=number, repeat=3)) \
                / number * 1e6

    def enter_exit():
        with lib.autocast("cpu"):
            pass
    out["with autocast('cpu'): pass"] = min(timeit.repeat(enter_exit, number=number,
                                                          repeat=3)) / number * 1e6
    print(json.dumps(out))


def _run(lib_name: str, number: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    done = subprocess.run([sys.executable, __file__, "--worker", lib_name, str(number)],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


def main(argv) -> None:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 5
    number = int(argv[argv.index("--number") + 1]) if "--number" in argv else 5_000
    times: dict = {"ember": [], "torch": []}
    for k in range(rounds):
        order = ["ember", "torch"] if k % 2 == 0 else ["torch", "ember"]
        for lib_name in order:
            times[lib_name].append(_run(lib_name, number))
    medians = {lib: {case: statistics.median(r[case] for r in results)
                     for case in results[0]} for lib, results in times.items()}
    print(f"\n## Autocast cost, median of {rounds} interleaved rounds (us per call), "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}\n")
    print("| case | ember | torch | ember / torch |")
    print("| --- | ---: | ---: | ---: |")
    for case in medians["ember"]:
        e, t = medians["ember"][case], medians["torch"][case]
        print(f"| {case} | {e:.2f} | {t:.2f} | {e / t:.2f}x |")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1:])
