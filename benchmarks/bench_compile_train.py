"""A compiled training step (AOT autograd: NOTE [the joint graph] in
ember/_functorch/aot_autograd.py), against eager, in ember and PyTorch.

The issue's MLP, 784-512-512-10 on a batch of 256: forward, cross-entropy, backward and a
written-out SGD update (p -= lr * grad). Five runs, each in its own process, interleaved
(A B C D E, A B C D E ...): ember eager, ember compiled (`ember.compile`, default backend
"inductor": forward and backward graphs through compile_fx), ember `aot_eager` (the graphs
run uncompiled: what tracing and the one autograd node cost or save), PyTorch eager and
`torch.compile`. Medians of the per-step times (ms), ratios against PyTorch eager.

    PYTHONPATH=src python benchmarks/bench_compile_train.py [--quick] [--threads 1]
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # (also loaded by path)
from shared_models import sgd_step  # noqa: E402

LABELS = ("ember eager", "ember compiled", "ember aot_eager", "torch eager", "torch.compile")
TARGET = 0.65       # the target: compiled ember at most 0.65x PyTorch eager


def _step(lib, compile_with):
    lib.manual_seed(0)
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    x = lib.randn(256, 784)
    y = lib.randint(0, 10, (256,))

    def loss_fn(x, y):
        return F.cross_entropy(model(x), y)

    if compile_with is not None:
        loss_fn = compile_with(loss_fn)
    return sgd_step(lib, loss_fn, list(model.parameters()), x, y)


def worker(label, threads, quick):
    if label.startswith("torch"):
        import torch as lib
        compile_with = lib.compile if label == "torch.compile" else None
    else:
        import ember as lib
        compile_with = {"ember compiled": lib.compile,
                        "ember aot_eager": lambda f: lib.compile(f, backend="aot_eager")
                        }.get(label)
    lib.set_num_threads(threads)
    step = _step(lib, compile_with)
    for _ in range(3):
        step()          # capture and compile, then warm
    number = 5 if quick else 20
    t = min(timeit.repeat(step, number=number, repeat=3)) / number * 1e3
    print(json.dumps({"ms": t}))


def main(args):
    quick = "--quick" in args
    threads = args[args.index("--threads") + 1] if "--threads" in args else "1"
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    times = {label: [] for label in LABELS}
    for _ in range(3 if quick else 5):
        for label in LABELS:
            env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=threads,
                       OPENBLAS_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
            done = subprocess.run([sys.executable, __file__, "--worker", label, threads,
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            times[label].append(json.loads(done.stdout.strip().splitlines()[-1])["ms"])
    base = statistics.median(times["torch eager"])
    print(f"\n## MLP 784-512-512-10 training step, batch 256, {threads} thread(s)\n")
    print("| run | median ms | vs PyTorch eager |")
    print("| --- | ---: | ---: |")
    for label in LABELS:
        m = statistics.median(times[label])
        print(f"| {label} | {m:.2f} | {m / base:.2f}x |")
    print(f"\ntarget: ember compiled <= {TARGET}x PyTorch eager")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "quick")
    else:
        main(sys.argv[1:])
