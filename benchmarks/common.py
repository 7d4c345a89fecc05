"""Timing helpers: ember and PyTorch interleaved (A B A B ...), medians, ratios."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import timeit


def median_ms(fn, repeat: int) -> float:
    """Median wall time of `fn()` in milliseconds over `repeat` calls, after one warm-up."""
    import time
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


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


# --------------------------------------------------------------------------- one process a run
# The shape most benchmarks share: the script re-runs itself as `--worker KIND THREADS MODE`
# (KIND ember or torch), once per library per round, interleaved, and prints a table of
# medians. A benchmark supplies `cases(lib) -> {name: (fn, number)}` and a title.

def worker(cases, args, scale=1e3, torch_setup=None) -> None:
    """The worker side: time each case (min of 3 repeats after one warm-up call) in this
    process and print {case: time} as JSON (`scale` 1e3: ms, 1e6: us)."""
    import json
    kind, threads, quick = args[1], int(args[2]), args[3] == "quick"
    if kind == "torch":
        import torch as lib
        if torch_setup is not None:
            torch_setup()
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, number) in cases(lib).items():
        number = max(1, number // (4 if quick else 1))
        fn()
        results[case] = min(timeit.repeat(fn, number=number, repeat=3)) / number * scale
    print(json.dumps(results))


def options(args, default_threads="1"):
    """(quick, [thread counts], {label: src}) from --quick, --threads 1,2, --baseline SRC."""
    quick = "--quick" in args
    threads = args[args.index("--threads") + 1] if "--threads" in args else default_threads
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    runs = {"ember": src}
    if "--baseline" in args:
        runs["ember (baseline)"] = args[args.index("--baseline") + 1]
    runs["torch"] = src
    return quick, [int(t) for t in threads.split(",")], runs


def run_workers(script, runs, threads, quick):
    """{label: [results of each round]}: every label's worker in its own process, the labels
    interleaved within each round (3 rounds quick, else 5)."""
    import json
    times = {label: [] for label in runs}
    for _ in range(3 if quick else 5):
        for label, src in runs.items():
            env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
            kind = "torch" if label == "torch" else "ember"
            done = subprocess.run([sys.executable, script, "--worker", kind, str(threads),
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            times[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
    return times


def print_medians(title, times, target=None) -> None:
    """A markdown table of each case's median per label and the ember / torch ratio;
    `target(case)` gives a target column's text."""
    labels = list(times)
    print(f"\n## {title}\n")
    extra = " target |" if target else ""
    print("| case | " + " | ".join(labels) + " | ember / torch |" + extra)
    print("| --- |" + " ---: |" * (len(labels) + 1 + bool(target)))
    for case in times["torch"][0]:
        medians = {label: statistics.median(r[case] for r in times[label])
                   for label in labels if case in times[label][0]}
        if "ember" not in medians:
            continue
        cells = " | ".join(f"{medians[label]:.2f}" if label in medians else "-"
                           for label in labels)
        row = f"| {case} | {cells} | {medians['ember'] / medians['torch']:.2f}x |"
        print(row + (f" {target(case)} |" if target else ""))
