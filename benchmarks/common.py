"""Timing helpers: ember and PyTorch interleaved (A B A B ...), medians, ratios."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import timeit


def per_call_us(fn, number: int) -> float:
    return timeit.timeit(fn, number=number) / number * 1e6


def interleaved(cases, rounds: int = 7):
    """cases: {name: (ember_fn, torch_fn, number)} -> {name: (ember_us, torch_us)} medians."""
    results = {}
    for name, (ember_fn, torch_fn, number) in cases.items():
        ember_fn()
        torch_fn()
        e_times, t_times = [], []
        for _ in range(rounds):
            e_times.append(per_call_us(ember_fn, number))
            t_times.append(per_call_us(torch_fn, number))
        results[name] = (statistics.median(e_times), statistics.median(t_times))
    return results


def import_time_s(module: str, rounds: int = 5) -> float:
    """Median wall time of `import module` in a fresh interpreter."""
    code = (f"import time; t = time.perf_counter(); import {module}; "
            "print(time.perf_counter() - t)")
    # As a user's machine does: bytecode cached (installed packages such as torch ship theirs;
    # a PYTHONDONTWRITEBYTECODE left in the environment would make ember recompile each time).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, env=env)
    times = []
    for _ in range(rounds):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env=env)
        times.append(float(done.stdout.strip()))
    return statistics.median(times)


def print_table(title, results, limit=None):
    print(f"\n## {title}\n")
    print("| case | ember | PyTorch | ratio |" + (" target |" if limit else ""))
    print("| --- | ---: | ---: | ---: |" + (" ---: |" if limit else ""))
    for name, (e, t) in results.items():
        unit = "us"
        row = f"| {name} | {e:.2f} {unit} | {t:.2f} {unit} | {e / t:.2f}x |"
        if limit:
            row += f" <= {limit}x |"
        print(row)
