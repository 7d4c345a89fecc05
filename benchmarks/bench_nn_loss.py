"""Losses, forward + backward to the input: ember against PyTorch, each library in its own
process, interleaved (A B A B ...), medians and ratios.

    python benchmarks/bench_nn_loss.py [--rounds N] [--calls N] [--threads 1,2]

Cross-entropy is the training models' loss (one log_softmax, one gather; the backward from the
softmax), so it is timed at the models' shapes: MLP logits (256, 10), a language model's
(700, 1000), and K-dimensional (32, 10, 16, 16) with label smoothing.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def _cases(lib):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(0)

    def logits(*shape):
        return lib.randn(*shape, generator=g).requires_grad_(True)

    def classes(high, *shape):
        return lib.randint(0, high, shape, generator=g)

    x1, t1 = logits(256, 10), classes(10, 256)
    x2, t2 = logits(700, 1000), classes(1000, 700)
    x3, t3 = logits(32, 10, 16, 16), classes(10, 32, 16, 16)
    x4, y4 = logits(256, 64), lib.randn(256, 64, generator=g)
    x5 = logits(256, 10)
    return {
        "cross_entropy (256, 10)": lambda: F.cross_entropy(x1, t1),
        "cross_entropy (700, 1000)": lambda: F.cross_entropy(x2, t2),
        "cross_entropy (32, 10, 16, 16), smoothing 0.1": lambda: F.cross_entropy(
            x3, t3, label_smoothing=0.1),
        "nll_loss(log_softmax) (256, 10)": lambda: F.nll_loss(x5.log_softmax(1), t1),
        "mse_loss (256, 64)": lambda: F.mse_loss(x4, y4),
    }


def worker(lib_name: str, calls: int) -> None:
    lib = __import__(lib_name)
    out = {}
    for name, loss in _cases(lib).items():
        loss().backward()
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            loss().backward()
            times.append(time.perf_counter() - t)
        out[name] = statistics.median(times) * 1e6
    print(json.dumps(out))


def _run(lib_name, threads, calls):
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--worker", lib_name, "--calls", str(calls)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    if args.worker:
        if args.worker == "torch":
            import torch
            torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        worker(args.worker, args.calls)
        return
    for threads in [int(t) for t in args.threads.split(",")]:
        runs = {"ember": [], "torch": []}
        for _ in range(args.rounds):
            for lib_name in ("ember", "torch"):
                runs[lib_name].append(_run(lib_name, threads, args.calls))
        print(f"\n## Loss forward + backward, {threads} thread(s), median us over {args.rounds} "
              f"rounds x {args.calls} calls\n")
        print("| case | ember | PyTorch | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for name in runs["torch"][0]:
            e = statistics.median(r[name] for r in runs["ember"])
            t = statistics.median(r[name] for r in runs["torch"])
            print(f"| {name} | {e:.1f} us | {t:.1f} us | {e / t:.2f}x |")


if __name__ == "__main__":
    main()
