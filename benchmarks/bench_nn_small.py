"""Per-call cost of small nn layers, ember against PyTorch, each library in its own process,
interleaved (A B A B ...), medians and ratios, with 1 and 2 threads.

    python benchmarks/bench_nn_small.py [--rounds N] [--threads 1,2]

The headline case is the issue's: `nn.Linear(16, 16)` on a (4, 16) input under no_grad must
cost at most 2x PyTorch. The others time a forward (and for some a backward) of the layers
of the normalisation, activation, embedding and dropout families on small inputs.
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
    nn = lib.nn
    lib.manual_seed(0)
    small = lib.randn(4, 16)
    linear = nn.Linear(16, 16)
    image = lib.randn(8, 16, 8, 8)
    batch_norm = nn.BatchNorm2d(16)
    rows = lib.randn(32, 64)
    layer_norm = nn.LayerNorm(64)
    act = lib.randn(64, 256)
    gelu = nn.GELU()
    embedding = nn.Embedding(1000, 64)
    tokens = lib.randint(0, 1000, (20, 35))
    dropout = nn.Dropout(0.1)
    grad_rows = lib.randn(32, 64, requires_grad=True)

    def no_grad(fn):
        def run():
            with lib.no_grad():
                fn()
        return run

    def embedding_step():
        embedding.weight.grad = None
        embedding(tokens).sum().backward()

    def layer_norm_step():
        grad_rows.grad = None
        layer_norm(grad_rows).sum().backward()

    return {
        "nn.Linear(16, 16) on (4, 16), no_grad": (no_grad(lambda: linear(small)), 20000),
        "nn.Linear(16, 16) on (4, 16), with grad": (lambda: linear(small), 20000),
        "BatchNorm2d(16) train on (8, 16, 8, 8), no_grad": (
            no_grad(lambda: batch_norm(image)), 2000),
        "LayerNorm(64) on (32, 64), no_grad": (no_grad(lambda: layer_norm(rows)), 5000),
        "LayerNorm(64) forward+backward on (32, 64)": (layer_norm_step, 2000),
        "GELU on (64, 256), no_grad": (no_grad(lambda: gelu(act)), 2000),
        "Embedding(1000, 64) forward+backward on (20, 35)": (embedding_step, 500),
        "Dropout(0.1) train on (64, 256), no_grad": (no_grad(lambda: dropout(act)), 2000),
    }


def worker(lib_name: str) -> None:
    if lib_name == "torch":
        import torch as lib
    else:
        import ember as lib
    results = {}
    for name, (fn, number) in _cases(lib).items():
        fn()
        start = time.perf_counter()
        for _ in range(number):
            fn()
        results[name] = (time.perf_counter() - start) / number * 1e6
    print(json.dumps(results))


def _run(lib_name: str, threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), PYTHONPATH=str(SRC))
    cmd = [sys.executable, __file__, "--worker", lib_name]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    for threads in (int(t) for t in args.threads.split(",")):
        ember_runs, torch_runs = [], []
        for _ in range(args.rounds):
            ember_runs.append(_run("ember", threads))
            torch_runs.append(_run("torch", threads))
        print(f"\n## {threads} thread{'s' if threads > 1 else ''} "
              f"(median of {args.rounds} interleaved process pairs)\n")
        print("| case | ember | PyTorch | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for name in ember_runs[0]:
            e = statistics.median(r[name] for r in ember_runs)
            t = statistics.median(r[name] for r in torch_runs)
            print(f"| {name} | {e:.1f} us | {t:.1f} us | {e / t:.2f}x |")


if __name__ == "__main__":
    main()
