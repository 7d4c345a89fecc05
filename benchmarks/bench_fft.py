"""fft.rfft of a 2^20 float32 signal (and a few neighbours): ember vs PyTorch in separate
processes, interleaved round by round (medians, ratios), with 1 and 2 intra-op threads.

    python benchmarks/bench_fft.py [--quick] [--threads 1,2]

Each round starts one fresh process per library and thread count, which times every case
(best of a few repeats); the table shows the median over rounds in milliseconds.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

import numpy as np

SIZE = 1 << 20


def _cases(lib):
    data = np.random.default_rng(0).standard_normal(SIZE).astype(np.float32)
    x = lib.from_numpy(data.copy())
    batch = lib.from_numpy(data.copy().reshape(64, SIZE // 64))
    spectrum = lib.fft.rfft(x)
    xg = lib.from_numpy(data.copy()).requires_grad_(True)

    def forward_backward():
        xg.grad = None
        lib.fft.rfft(xg).abs().sum().backward()
    return {
        "rfft 2^20": (lambda: lib.fft.rfft(x), 20),
        "irfft 2^20": (lambda: lib.fft.irfft(spectrum), 20),
        "rfft (64, 2^14) along -1": (lambda: lib.fft.rfft(batch), 20),
        "fft 2^20 (real in)": (lambda: lib.fft.fft(x), 10),
        "rfft 2^20 forward+backward": (forward_backward, 5),
    }


def _worker(name, threads, quick):
    if name == "torch":
        import torch as lib
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, number) in _cases(lib).items():
        number = max(1, number // (4 if quick else 1))
        fn()
        results[case] = min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e3
    print(json.dumps(results))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--worker":
        _worker(args[1], int(args[2]), args[3] == "quick")
        return
    quick = "--quick" in args
    thread_counts = [int(t) for t in (
        args[args.index("--threads") + 1] if "--threads" in args else "1,2").split(",")]
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(os.path.dirname(here), "src")
    times = {(label, t): [] for t in thread_counts for label in ("ember", "torch")}
    for _ in range(3 if quick else 5):
        for (label, threads), runs in times.items():
            env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
            done = subprocess.run([sys.executable, __file__, "--worker", label, str(threads),
                                   "quick" if quick else "full"], capture_output=True,
                                  text=True, check=True, env=env)
            runs.append(json.loads(done.stdout))
    for threads in thread_counts:
        print(f"\n## FFT on float32, {threads} thread(s): median ms over rounds (separate "
              "processes, interleaved)\n")
        print("| case | ember | torch | ember / torch | target |")
        print("| --- | ---: | ---: | ---: | ---: |")
        ember_runs, torch_runs = times[("ember", threads)], times[("torch", threads)]
        for case in ember_runs[0]:
            e = statistics.median(r[case] for r in ember_runs)
            t = statistics.median(r[case] for r in torch_runs)
            target = "<= 1.5x" if case == "rfft 2^20" else ""
            print(f"| {case} | {e:.2f} | {t:.2f} | {e / t:.2f}x | {target} |")


if __name__ == "__main__":
    main()
