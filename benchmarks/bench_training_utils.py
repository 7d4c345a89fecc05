"""The training utilities, ember against PyTorch, each library in its own process, interleaved
(A B A B ...), medians and ratios: an Adam step over the parameters of the 4-layer character
GPT of bench_nn_train.py, a DataLoader epoch over 60,000x784 float32 (batch 256) with 0 and 2
workers, and save / load of the GPT's state_dict.

    python benchmarks/bench_training_utils.py [--rounds N] [--threads 1,2] [--only-optim]

The optimizer rows time Adam and SGD (momentum) steps over the GPT's parameters and over 100
parameters of 64x64, and steps of RMSprop (plain, centered with momentum), Adagrad, Adamax,
NAdam, RAdam, Adadelta, ASGD and Rprop over the 100 parameters, with foreach=None (ember: the
batched update), True and False (ember: the per-parameter loop), in both libraries. Each
optimizer row gives the median wall time of a step and, since the machine may be shared, a
second "[CPU min]" row with the smallest process CPU time of a step (the minimum over steps
and rounds: the least disturbed figure).
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

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from common import median_ms  # noqa: E402


def _step_times(fn, repeat):
    """(median wall time, minimum process CPU time) of `fn` in ms."""
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return statistics.median(walls) * 1e3, min(cpus) * 1e3


OPTIMIZERS = {   # name: keyword arguments (the rows over 100 parameters of 64x64 only)
    "RMSprop": {"lr": 1e-3},
    "RMSprop centered momentum": {"lr": 1e-3, "centered": True, "momentum": 0.9},
    "Adagrad": {"lr": 1e-3},
    "Adamax": {"lr": 1e-3},
    "NAdam": {"lr": 1e-3},
    "RAdam": {"lr": 1e-3},
    "Adadelta": {},
    "ASGD": {"lr": 1e-3},
    "Rprop": {"lr": 1e-3},
}


def _optimizer_steps(lib, out) -> None:
    """Optimizer steps with the batched update (foreach=None in ember; PyTorch's CPU default
    is its per-tensor loop, so it is timed with foreach=True too) and the per-parameter one."""
    import numpy as np
    from bench_nn_train import _models
    model, _inputs, _ = _models(lib)["char GPT 4x4x128, batch 16"]()
    gpt = list(model.parameters())
    rng = np.random.default_rng(0)
    small = [lib.nn.Parameter(lib.tensor(rng.standard_normal((64, 64)).astype(np.float32)))
             for _ in range(100)]
    for params in (gpt, small):
        for p in params:
            p.grad = lib.ones_like(p) * 1e-3
    for label, params in ((f"GPT ({len(gpt)} tensors)", gpt), ("100 params 64x64", small)):
        for foreach in (None, True, False):
            for name, make in (("Adam", lambda ps, f: lib.optim.Adam(ps, lr=1e-3, foreach=f)),
                               ("SGD momentum", lambda ps, f: lib.optim.SGD(
                                   ps, lr=1e-3, momentum=0.9, foreach=f))):
                opt = make(params, foreach)
                key = f"{name} step, {label}, foreach={foreach}"
                out[key], out[key + " [CPU min]"] = _step_times(opt.step, 20)
    for name, kwargs in OPTIMIZERS.items():
        for foreach in (None, True, False):
            opt = getattr(lib.optim, name.split()[0])(small, foreach=foreach, **kwargs)
            key = f"{name} step, 100 params 64x64, foreach={foreach}"
            out[key], out[key + " [CPU min]"] = _step_times(opt.step, 20)


def worker(lib_name: str, only_optim: bool = False) -> None:
    import numpy as np
    from bench_nn_train import _models
    lib = __import__(lib_name)
    data_mod = __import__(f"{lib_name}.utils.data", fromlist=["DataLoader"])
    out = {}
    _optimizer_steps(lib, out)
    if only_optim:
        print(json.dumps(out))
        return
    model, _inputs, _ = _models(lib)["char GPT 4x4x128, batch 16"]()

    x = lib.from_numpy(np.random.default_rng(0).standard_normal((60000, 784), np.float32))
    y = lib.from_numpy(np.arange(60000) % 10)
    dataset = data_mod.TensorDataset(x, y)
    for workers in (0, 2):
        loader = data_mod.DataLoader(dataset, batch_size=256, shuffle=True,
                                     num_workers=workers)

        def epoch(loader=loader):
            for _batch in loader:
                pass
        out[f"DataLoader epoch 60000x784, batch 256, {workers} workers"] = \
            median_ms(epoch, 3)

    state = model.state_dict()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "gpt.pt")
        out["save GPT state_dict"] = median_ms(lambda: lib.save(state, path), 10)
        out["load GPT state_dict"] = median_ms(lambda: lib.load(path), 10)
    print(json.dumps(out))


def _run(lib_name, threads, only_optim=False):
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    command = [sys.executable, __file__, "--worker", lib_name] + \
        (["--only-optim"] if only_optim else [])
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--only-optim", action="store_true",
                        help="time only the optimizer steps")
    args = parser.parse_args()
    if args.worker:
        if args.worker == "torch":
            import torch
            torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        worker(args.worker, args.only_optim)
        return
    for threads in [int(t) for t in args.threads.split(",")]:
        runs = {"ember": [], "torch": []}
        for k in range(args.rounds):
            for lib_name in ("ember", "torch") if k % 2 == 0 else ("torch", "ember"):
                runs[lib_name].append(_run(lib_name, threads, args.only_optim))
        print(f"\n## Training utilities, {threads} thread(s), medians over {args.rounds} "
              "rounds\n")
        print("| case | ember | PyTorch | ratio |")
        print("| --- | ---: | ---: | ---: |")
        for name in runs["torch"][0]:
            summary = min if name.endswith("[CPU min]") else statistics.median
            e = summary(r[name] for r in runs["ember"])
            t = summary(r[name] for r in runs["torch"])
            print(f"| {name} | {e:.2f} ms | {t:.2f} ms | {e / t:.2f}x |")


if __name__ == "__main__":
    main()
