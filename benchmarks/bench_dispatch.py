"""Per-op dispatch overhead, each library in its own process: plain tensors, Tensor subclasses
(Parameter-like) and a tiny backward, ember against PyTorch.

    python benchmarks/bench_dispatch.py [--rounds N] [--number N] [--also SRC_DIR ...]

Every round starts one fresh interpreter per library (ember, PyTorch, and with each `--also`
another ember from another source tree, e.g. an older checkout's `src`) in turn, A B A B ...; each
prints its per-call times and the table shows the medians over rounds. Run with
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 and without.
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


def _subclass_instance(lib, cls, t):
    """`t`'s data as an instance of `cls`, a Tensor subclass (no constructor of ember's
    needed, so an older ember can be measured too)."""
    if lib.__name__ == "torch":
        return cls(t, requires_grad=False)
    s = object.__new__(cls)
    for name in ("_data", "_dtype", "_device", "_storage", "_requires_grad", "_grad_fn",
                 "_grad", "_base"):
        setattr(s, name, getattr(t, name))
    return s


def _cases(lib):
    import numpy as np
    a_np = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    m_np = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)
    a, b, m = lib.tensor(a_np), lib.tensor(a_np), lib.tensor(m_np)
    c = lib.tensor(a_np.astype(np.float64))
    x = lib.tensor(a_np, requires_grad=True)
    y = lib.tensor(a_np, requires_grad=True)
    if lib.__name__ == "torch":
        param_cls = lib.nn.Parameter
    else:
        disabled = getattr(getattr(lib, "_C", None), "_disabled_torch_function_impl", None)
        body = {} if disabled is None else {"__torch_function__": disabled}
        param_cls = type("Parameter", (lib.Tensor,), body)
    p = _subclass_instance(lib, param_cls, a)
    q = _subclass_instance(lib, param_cls, b)
    return {
        "a + b, float32 (8,)": lambda: a + b,
        "a * 2.0, float32 (8,)": lambda: a * 2.0,
        "a.sum(), float32 (8,)": lambda: a.sum(),
        "a.view(-1)": lambda: a.view(-1),
        "16x16 @": lambda: m @ m,
        "a + c, float32 + float64 (promotion)": lambda: a + c,
        "cat([a, b])": lambda: lib.cat([a, b]),
        "p + q, Parameter-like subclass (8,)": lambda: p + q,
        "p.sum(), Parameter-like subclass (8,)": lambda: p.sum(),
        "(x * y).sum().backward(), (8,)": lambda: (x * y).sum().backward(),
        "x * y recorded, (8,)": lambda: x * y,
        "zeros(8)": lambda: lib.zeros(8),
        "x.exp(), float32 (8,)": lambda: a.exp(),
        "a.sum().item(), float32 (8,)": lambda: a.sum().item(),
        "relu(a), float32 (8,)": lambda: lib.relu(a),
        "ones_like(a), float32 (8,)": lambda: lib.ones_like(a),
        "a.expand(2, 8)": lambda: a.expand(2, 8),
    }


def worker(lib_name: str, number: int) -> None:
    lib = __import__(lib_name)
    out = {}
    for name, fn in _cases(lib).items():
        n = number // 10 if "backward" in name else number
        fn()
        out[name] = min(timeit.repeat(fn, number=n, repeat=3)) / n * 1e6
    print(json.dumps(out))


def _run(lib_name: str, src, number: int) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run([sys.executable, __file__, "--worker", lib_name, str(number)],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


def main(argv) -> None:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 5
    number = int(argv[argv.index("--number") + 1]) if "--number" in argv else 20_000
    runs = {"ember": ("ember", SRC), "torch": ("torch", None)}
    others = [argv[k + 1] for k, arg in enumerate(argv) if arg == "--also"]
    for k, src in enumerate(others):     # --also may be given more than once
        label = "ember (other src)" if len(others) == 1 else f"ember ({src})"
        runs[label] = ("ember", pathlib.Path(src))
    times: dict = {label: [] for label in runs}
    for k in range(rounds):
        order = list(runs.items())
        order = order[k % len(order):] + order[:k % len(order)]   # no library always first
        for label, (lib_name, src) in order:
            times[label].append(_run(lib_name, src, number))
    medians = {label: {case: statistics.median(r[case] for r in results)
                       for case in results[0]} for label, results in times.items()}
    labels = list(runs)
    print("\n## Dispatch overhead, one process per library, median of "
          f"{rounds} interleaved rounds (us per call)\n")
    print("| case | " + " | ".join(labels) + " | ember / torch |")
    print("| --- |" + " ---: |" * (len(labels) + 1))
    for case in medians["ember"]:
        row = " | ".join(f"{medians[label][case]:.2f}" for label in labels)
        ratio = medians["ember"][case] / medians["torch"][case]
        print(f"| {case} | {row} | {ratio:.2f}x |")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1:])
