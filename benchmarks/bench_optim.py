"""Optimizer steps, ember against PyTorch (and optionally another ember tree), each library in
its own process, interleaved round by round: medians of a step's time in ms.

    python benchmarks/bench_optim.py [--quick] [--threads 1,2] [--also SRC_DIR] [--only NAME]

The optimizers are Adam, AdamW (weight_decay 0.01), SGD with momentum 0.9, RMSprop, Adagrad,
Adamax, NAdam, RAdam, Adadelta, ASGD and Rprop, each with foreach=None (the default; ember's plain path runs the `_foreach_*` ops, PyTorch's CPU
default is its per-tensor loop) and foreach=True (both libraries' multi-tensor path), over the
parameters of a 784-512-512-10 MLP (6 tensors, 670k elements), 100 parameters of 64x64 and
100 parameters of 32 elements (per-call overhead). The gradients are set once; each timed call
is one `step()`. `--also` times another ember tree (its `src` folder, e.g. main's) beside this
one in the same rounds; `--only` keeps the cases whose name contains NAME.
"""
from __future__ import annotations

import os
import sys

import common
import numpy as np

OPTIMIZERS = {
    "Adam": ("Adam", {"lr": 1e-3}),
    "AdamW": ("AdamW", {"lr": 1e-3, "weight_decay": 0.01}),
    "SGD momentum": ("SGD", {"lr": 1e-3, "momentum": 0.9}),
    "RMSprop": ("RMSprop", {"lr": 1e-3}),
    "Adagrad": ("Adagrad", {"lr": 1e-2}),
    "Adamax": ("Adamax", {"lr": 2e-3}),
    "NAdam": ("NAdam", {"lr": 2e-3}),
    "RAdam": ("RAdam", {"lr": 1e-3}),
    "Adadelta": ("Adadelta", {}),
    "ASGD": ("ASGD", {"lr": 1e-2}),
    "Rprop": ("Rprop", {}),
}


def _parameter_sets(lib):
    rng = np.random.default_rng(0)

    def params(shapes):
        out = []
        for shape in shapes:
            p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape).astype(np.float32)))
            p.grad = lib.tensor(rng.standard_normal(shape).astype(np.float32) * 1e-2)
            out.append(p)
        return out

    mlp = [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)]
    return {"MLP 784-512-512-10": lambda: params(mlp),
            "100 x 64x64": lambda: params([(64, 64)] * 100),
            "100 x 32": lambda: params([(32,)] * 100)}


def _cases(lib):
    only = os.environ.get("BENCH_OPTIM_ONLY", "")
    cases = {}
    for label, make in _parameter_sets(lib).items():
        for name, (cls, kwargs) in OPTIMIZERS.items():
            for foreach in (None, True):
                case = f"{name}, {label}, foreach={foreach}"
                if only and only not in case:
                    continue
                opt = getattr(lib.optim, cls)(make(), foreach=foreach, **kwargs)
                opt.step()          # the state exists: the timed steps are updates only
                number = 20 if label.startswith("MLP") else 50
                cases[case] = (opt.step, number)
    return cases


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    if "--only" in args:
        os.environ["BENCH_OPTIM_ONLY"] = args[args.index("--only") + 1]
    quick, thread_counts, runs = common.options(args, "1,2")
    if "--also" in args:
        runs = {"ember": runs["ember"], "ember (--also)": args[args.index("--also") + 1],
                "torch": runs["torch"]}
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"optimizer steps, {threads} thread(s): median ms over rounds "
                             f"(separate processes)", times)


if __name__ == "__main__":
    main()
