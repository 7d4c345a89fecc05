"""Memory of training loops: minor page faults per step and peak resident memory, ember against
PyTorch, each library in its own process, interleaved (A B A B ...), medians over rounds.

    python benchmarks/bench_memory.py [--rounds N] [--steps N] [--threads 1,2] [--only NAME]
                                      [--also SRC_DIR]

The models and the step are bench_nn_train.py's (forward, cross entropy, backward, p -= lr *
grad). Each worker builds one model, runs two warm-up steps, then `--steps` steps, and reports:
minor page faults per step (`ru_minflt`: a fault is a fresh page the kernel hands out, so a loop
that frees its temporaries back to the system and maps them again pays one per 4 KiB every
step), the peak resident set of the process (`ru_maxrss`, the library's own import included)
and the peak above the resident set measured after the import (the loop's own memory). The
issue-23 targets: faults per GPT step <= 2x PyTorch's, peak resident memory of the GPT and
ResNet loops <= 1.2x PyTorch's.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

MODELS = {"GPT": "char GPT 4x4x128, batch 16", "ResNet": "ResNet (BasicBlocks), batch 32"}


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def worker(lib_name: str, model_key: str, steps: int) -> None:
    lib = __import__(lib_name)
    from bench_nn_train import _models, _train_step
    lib.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    base_kb = _rss_kb()
    model, inputs, target = _models(lib)[MODELS[model_key]]()
    for _ in range(2):
        _train_step(lib, model, inputs, target)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        _train_step(lib, model, inputs, target)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / steps
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"faults": faults, "peak_mb": peak_kb / 1024,
                      "loop_mb": (peak_kb - base_kb) / 1024}))


def _run(lib_name, model_key, threads, steps, src):
    # (bytecode cached as an installed package has it: compiling at import would count in the
    # resident set measured after the import)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(src), OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--worker", lib_name, "--model", model_key,
           "--steps", str(steps)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--model")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", default="1")
    parser.add_argument("--only")
    parser.add_argument("--also")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.model, args.steps)
        return
    labels = {"ember": ("ember", SRC)}
    if args.also:
        labels["ember (--also)"] = ("ember", pathlib.Path(args.also).resolve())
    labels["torch"] = ("torch", SRC)
    for threads in [int(t) for t in args.threads.split(",")]:
        print(f"\n## Training-loop memory, {threads} thread(s), medians over {args.rounds} "
              f"rounds x {args.steps} steps\n")
        print("| model | library | faults / step | peak RSS | loop's own peak |"
              " faults vs PyTorch | peak vs PyTorch |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for key in MODELS:
            if args.only and args.only not in key:
                continue
            runs = {label: [] for label in labels}
            for _ in range(args.rounds):
                for label, (lib_name, src) in labels.items():
                    runs[label].append(_run(lib_name, key, threads, args.steps, src))
            med = {label: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                   for label, rs in runs.items()}
            t = med["torch"]
            for label, m in med.items():
                print(f"| {key} | {label} | {m['faults']:.0f} | {m['peak_mb']:.0f} MB | "
                      f"{m['loop_mb']:.0f} MB | {m['faults'] / t['faults']:.2f}x | "
                      f"{m['peak_mb'] / t['peak_mb']:.2f}x |")


if __name__ == "__main__":
    main()
