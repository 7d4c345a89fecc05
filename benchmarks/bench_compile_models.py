"""The issue's compile targets in one table: ember compiled against PyTorch eager and
`torch.compile`, each run in its own process, interleaved rounds, medians.

Workloads (the same code builds both libraries' models; `lib` is torch or ember):
- tiny: `(x * y).sum()` on (8,) float32, per call (target: ember compiled <= 2x PyTorch eager);
- mlp_train: the MLP 784-512-512-10 training step, batch 256 (forward, cross-entropy, backward,
  a written-out SGD update; target <= 0.65x PyTorch eager);
- gpt_train: the 4-layer, 4-head, 128-wide character GPT (block 64) training step, batch 16
  (target <= 0.9x PyTorch eager);
- gpt_infer: the same GPT's forward under no_grad on a (1, 64) batch, per call (target: ember
  compiled <= 1.3x torch.compile), and its cold compile, the first call in a fresh process with
  an empty kernel cache (target <= 0.5x torch.compile's).

Times are CPU seconds of the process (`time.process_time`; for the cold compile, with the
CPU time of the compiler processes it ran), one thread
(OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1): the machine these were written on is
shared, and CPU time is what other processes disturb least.

    PYTHONPATH=src python benchmarks/bench_compile_models.py [--rounds 3] [--only tiny,mlp_train]
        [--modes "ember compiled,torch eager,torch.compile"]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # (also loaded by path)
from shared_models import char_gpt_class, sgd_step

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"
MODES = ("ember compiled", "ember eager", "torch eager", "torch.compile")
TARGETS = {"tiny": ("torch eager", 2.0), "mlp_train": ("torch eager", 0.65),
           "gpt_train": ("torch eager", 0.9), "gpt_infer": ("torch.compile", 1.3),
           "gpt_infer cold compile": ("torch.compile", 0.5)}


def _gpt(lib):
    return char_gpt_class(lib)()


def _train_step(lib, model, x, y, compile_fn):
    F = lib.nn.functional

    def loss_fn(x, y):
        out = model(x)
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y)
    if compile_fn is not None:
        loss_fn = compile_fn(loss_fn)
    return sgd_step(lib, loss_fn, list(model.parameters()), x, y)


def _workload(lib, name, compile_fn):
    """(fn, calls per timing) for one workload."""
    lib.manual_seed(0)
    nn = lib.nn
    if name == "tiny":
        x, y = lib.randn(8), lib.randn(8)

        def f(x, y):
            return (x * y).sum()
        f = compile_fn(f) if compile_fn else f
        return (lambda: f(x, y)), 20000
    if name == "mlp_train":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
        x, y = lib.randn(256, 784), lib.randint(0, 10, (256,))
        return _train_step(lib, model, x, y, compile_fn), 20
    if name == "gpt_train":
        model = _gpt(lib)
        x, y = lib.randint(0, 65, (16, 64)), lib.randint(0, 65, (16 * 64,))
        return _train_step(lib, model, x, y, compile_fn), 5
    if name == "gpt_infer":
        model = _gpt(lib).eval()
        idx = lib.randint(0, 65, (1, 64))
        f = compile_fn(model) if compile_fn else model

        def infer():
            with lib.no_grad():
                return f(idx)
        return infer, 50
    raise ValueError(name)


def worker(mode, name, rounds):
    lib = __import__("torch" if mode.startswith("torch") else "ember")
    lib.set_num_threads(1)
    compile_fn = lib.compile if mode in ("ember compiled", "torch.compile") else None
    fn, number = _workload(lib, name, compile_fn)
    import resource
    out = {}
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    start, wall = time.process_time(), time.perf_counter()
    fn()
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the first call's CPU time, the C compilers it ran (child processes) included
    out["first"] = time.process_time() - start + (done.ru_utime - children.ru_utime) + \
        (done.ru_stime - children.ru_stime)
    out["first_wall"] = time.perf_counter() - wall
    for _ in range(2):
        fn()
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - start) / number)
    out["call"] = min(times)
    print(json.dumps(out))


def _run(mode, name, rounds, cold):
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as cache:
        if cold:     # empty caches: the first call compiles everything
            env.update(EMBER_CACHE_DIR=cache, TORCHINDUCTOR_CACHE_DIR=cache,
                       TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
        done = subprocess.run([sys.executable, __file__, "--worker", mode, name, str(rounds)],
                              capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="tiny,mlp_train,gpt_train,gpt_infer")
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return
    modes = args.modes.split(",")
    names = args.only.split(",")
    calls = {(n, m): [] for n in names for m in modes}
    firsts = {(n, m): [] for n in names for m in modes}
    for _ in range(args.rounds):
        for name in names:
            for mode in modes:
                r = _run(mode, name, 3, cold=name == "gpt_infer")
                calls[name, mode].append(r["call"])
                firsts[name, mode].append(r["first"])
    rows = [(n, calls) for n in names]
    if "gpt_infer" in names:
        rows.append(("gpt_infer cold compile", firsts))
    print(f"\n## ember.compile targets: CPU time, 1 thread, median of {args.rounds} rounds "
          "(separate processes, interleaved)\n")
    print("| workload | " + " | ".join(modes) + " | ratio vs target |")
    print("| --- |" + " ---: |" * len(modes) + " --- |")
    for label, table in rows:
        key = "gpt_infer" if label.startswith("gpt_infer") else label
        med = {m: statistics.median(table[key, m]) for m in modes}
        cells = [_fmt(med[m]) for m in modes]
        ratio = ""
        against, limit = TARGETS[label]
        if "ember compiled" in med and against in med:
            r = med["ember compiled"] / med[against]
            ratio = f"{r:.2f}x {against} (target <= {limit}x)"
        print(f"| {label} | " + " | ".join(cells) + f" | {ratio} |")
    print(json.dumps({f"{n}|{m}": [calls[n, m], firsts[n, m]] for n in names for m in modes}),
          file=sys.stderr)


def _fmt(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.1f} s"


if __name__ == "__main__":
    main()
