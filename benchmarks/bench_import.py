"""What `import` costs: ember, `ember.nn`, `ember.optim` against NumPy, ml-dtypes and PyTorch,
each import in a fresh interpreter, bytecode cached as an installed package has it.

    python benchmarks/bench_import.py [--rounds N] [--also SRC_DIR ...]

Every round starts one interpreter per case in turn (interleaved, A B C ... A B C ...), and the
table shows medians over rounds of the wall time and of the CPU time (`time.process_time`,
steadier than the wall on a shared machine). The ember rows are also given above NumPy: the
issue-23 target is `import ember` <= 40 ms more than `import numpy`. With `--also`, ember,
ember.nn and ember.optim from another source tree (an older checkout's `src`) are timed in the
same rounds.
The plug-in autoload (NOTE in `_backends/plugins.py`) runs as it would for the user: with a
plug-in installed in the environment (the test plug-in `ember_npdev` in the development venv),
its import is counted; the "autoload off" row shows ember without it.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"
TARGET_ABOVE_NUMPY_MS = 40.0

_CODE = ("import time\n"
         "w, c = time.perf_counter(), time.process_time()\n"
         "import {module}\n"
         "print(time.perf_counter() - w, time.process_time() - c)\n")


def _env(src, extra=None):
    # As a user's machine does: bytecode cached (installed packages such as torch ship theirs;
    # a PYTHONDONTWRITEBYTECODE left in the environment would make ember recompile each time).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = str(src)
    env.update(extra or {})
    return env


def _once(module, src, extra=None):
    done = subprocess.run([sys.executable, "-c", _CODE.format(module=module)],
                          capture_output=True, text=True, check=True, env=_env(src, extra))
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def _cases(also):
    cases = {
        "numpy": ("numpy", None, None),
        "ml_dtypes (NumPy included)": ("ml_dtypes", None, None),
        "ember": ("ember", SRC, None),
        "ember, autoload off": ("ember", SRC, {"EMBER_DEVICE_BACKEND_AUTOLOAD": "0"}),
        "ember.nn": ("ember.nn", SRC, None),
        "ember.optim": ("ember.optim", SRC, None),
        "ember.nn, ember.optim": ("ember.nn, ember.optim", SRC, None),
    }
    for src in also:
        for module in ("ember", "ember.nn", "ember.optim"):
            cases[f"{module} ({src})"] = (module, pathlib.Path(src), None)
    cases["torch"] = ("torch", None, None)
    return cases


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--also", action="append", default=[])
    args = parser.parse_args(argv)
    cases = _cases(args.also)
    for module, src, extra in cases.values():     # write the bytecode caches first
        _once(module, src, extra=extra)
    times = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, (module, src, extra) in cases.items():
            times[name].append(_once(module, src, extra))
    wall = {name: statistics.median(t[0] for t in ts) * 1e3 for name, ts in times.items()}
    cpu = {name: statistics.median(t[1] for t in ts) * 1e3 for name, ts in times.items()}
    print(f"\n## Import time (medians of {args.rounds} rounds of fresh processes)\n")
    print("| import | wall | CPU | wall above numpy | CPU above numpy |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in cases:
        above = " | " if name in ("numpy", "torch") else \
            f"{wall[name] - wall['numpy']:.0f} ms | {cpu[name] - cpu['numpy']:.0f} ms"
        print(f"| {name} | {wall[name]:.0f} ms | {cpu[name]:.0f} ms | {above} |")
    above = wall["ember"] - wall["numpy"]
    print(f"\n`import ember` above `import numpy`: {above:.0f} ms wall, "
          f"{cpu['ember'] - cpu['numpy']:.0f} ms CPU (target <= {TARGET_ABOVE_NUMPY_MS:.0f} ms); "
          f"ember / torch: {wall['ember'] / wall['torch']:.2f}")


if __name__ == "__main__":
    main()
