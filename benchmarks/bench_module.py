"""nn.Module overheads, each library in its own process: calling a module with no hooks
(against calling its forward directly: NOTE [the plain module call]), with one forward hook,
walking parameters, building a module, state_dict, and ops on a Parameter.

    python benchmarks/bench_module.py [--rounds N] [--number N]

Every round starts one fresh interpreter per library in turn (A B A B ...); the table shows
medians over rounds. Run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 and without.
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
    nn = lib.nn

    class Identity(nn.Module):
        def forward(self, x):
            return x

    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(lib.ones(16))
            self.register_buffer("count", lib.zeros(()))

        def forward(self, x):
            return x * self.weight

    class Deep(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList(nn.Sequential(Scale(), Scale()) for _ in range(8))

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    x = lib.ones(4, 16)
    identity, hooked, scale, deep = Identity(), Identity(), Scale(), Deep()
    hooked.register_forward_hook(lambda module, args, output: None)
    param = nn.Parameter(lib.ones(16, 16))
    plain = lib.ones(16, 16)
    return {
        "identity.forward(x)": lambda: identity.forward(x),
        "identity(x), no hooks": lambda: identity(x),
        "identity(x), one forward hook": lambda: hooked(x),
        "scale(x) under no_grad": lambda: _no_grad_call(lib, scale, x),
        "deep(x): 8 x Sequential(Scale, Scale)": lambda: deep(x),
        "list(deep.parameters())": lambda: list(deep.parameters()),
        "deep.state_dict()": lambda: deep.state_dict(),
        "Scale() construction": lambda: Scale(),
        "param * 2 (16x16, no_grad)": lambda: _no_grad_call(lib, lambda v: v * 2, param),
        "plain * 2 (16x16, no_grad)": lambda: _no_grad_call(lib, lambda v: v * 2, plain),
    }


def _no_grad_call(lib, fn, arg):
    with lib.no_grad():
        return fn(arg)


def worker(lib_name: str, number: int) -> None:
    lib = __import__(lib_name)
    out = {}
    for name, fn in _cases(lib).items():
        n = number // 20 if name.startswith(("deep", "list", "Scale")) else number
        fn()
        out[name] = min(timeit.repeat(fn, number=n, repeat=3)) / n * 1e6
    print(json.dumps(out))


def _run(lib_name: str, number: int) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC)
    done = subprocess.run([sys.executable, __file__, "--worker", lib_name, str(number)],
                          capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout)


def main(argv) -> None:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 5
    number = int(argv[argv.index("--number") + 1]) if "--number" in argv else 20_000
    labels = ("ember", "torch")
    times: dict = {label: [] for label in labels}
    for k in range(rounds):
        order = labels if k % 2 == 0 else labels[::-1]     # no library always first
        for label in order:
            times[label].append(_run(label, number))
    medians = {label: {case: statistics.median(r[case] for r in results)
                       for case in results[0]} for label, results in times.items()}
    print(f"\n## nn.Module overheads, one process per library, median of {rounds} "
          "interleaved rounds (us per call)\n")
    print("| case | ember | torch | ember / torch |")
    print("| --- | ---: | ---: | ---: |")
    for case in medians["ember"]:
        ratio = medians["ember"][case] / medians["torch"][case]
        print(f"| {case} | {medians['ember'][case]:.2f} | {medians['torch'][case]:.2f} | "
              f"{ratio:.2f}x |")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1:])
