"""save / load, ember against PyTorch, each library in its own process, interleaved (A B A B
...), medians and ratios. Two state dicts: a few large tensors (about 25 MB in 40 tensors) and
many small ones (3,000 tensors of 64 to 512 floats, where the per-record and unpickling costs
show). Loading is timed with the default `weights_only=True` (every pickle through the
weights-only unpickler) and with `weights_only=False`, and with `mmap=True`.

    python benchmarks/bench_checkpoint.py [--rounds N] [--also SRC_DIR]

`--also` times another ember tree (its `src` folder) beside this one, e.g. a checkout of an
earlier commit, in the same interleaved rounds.
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

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from common import median_ms  # noqa: E402


def _state_dicts(lib):
    import numpy as np
    rng = np.random.default_rng(0)
    large = {f"layer{i}.weight": lib.from_numpy(rng.standard_normal((400, 400), np.float32))
             for i in range(40)}
    small = {f"block{i}.param": lib.from_numpy(
        rng.standard_normal(64 * (1 + i % 8), np.float32)) for i in range(3000)}
    return {"40 tensors, 25 MB": large, "3000 small tensors": small}


def worker(lib_name: str) -> None:
    lib = __import__(lib_name)
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, state in _state_dicts(lib).items():
            path = os.path.join(folder, "state.pt")
            out[f"save, {name}"] = median_ms(lambda: lib.save(state, path), 7)
            out[f"load, {name}"] = median_ms(lambda: lib.load(path), 7)
            out[f"load weights_only=False, {name}"] = median_ms(
                lambda: lib.load(path, weights_only=False), 7)
            out[f"load mmap=True, {name}"] = median_ms(lambda: lib.load(path, mmap=True), 7)
    print(json.dumps(out))


def _run(lib_name, src, threads):
    env = dict(os.environ, PYTHONPATH=str(src), OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    done = subprocess.run([sys.executable, __file__, "--worker", lib_name], capture_output=True,
                          text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--also")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    runs = {"ember": ("ember", SRC), "torch": ("torch", SRC)}
    if args.also:
        runs["ember (--also)"] = ("ember", pathlib.Path(args.also).resolve())
    results = {label: [] for label in runs}
    for _ in range(args.rounds):
        for label, (lib_name, src) in runs.items():
            results[label].append(_run(lib_name, src, args.threads))
    labels = list(runs)
    print(f"\n## save / load ({args.threads} thread(s), medians of {args.rounds} rounds, ms)\n")
    print("| case | " + " | ".join(labels) + " | ember / torch |")
    print("| --- |" + " ---: |" * (len(labels) + 1))
    for case in results["ember"][0]:
        medians = {label: statistics.median(r[case] for r in results[label]) for label in labels}
        cells = " | ".join(f"{medians[label]:.1f}" for label in labels)
        print(f"| {case} | {cells} | {medians['ember'] / medians['torch']:.2f}x |")


if __name__ == "__main__":
    main()
