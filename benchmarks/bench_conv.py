"""Convolutions, ember vs PyTorch: each measurement in its own process, the two libraries
alternating (A B A B ...) over several rounds; medians and ratios, at 1 and 2 threads.

    python benchmarks/bench_conv.py [--quick]

Cases (float32, forward + backward of the summed output, parameters requiring grad; and the
forward alone under no_grad):
- "LeNet-style stack": Conv2d(1, 6, 5, padding=2) -> relu -> Conv2d(6, 16, 5, stride=2) ->
  relu -> Conv2d(16, 32, 3, stride=2) -> relu on (64, 1, 28, 28). (Pooling layers belong to
  another family; strided convolutions downsample instead.)
- "3x3 conv 64->64": Conv2d(64, 64, 3, padding=1) on (32, 64, 32, 32).
- "ResNet-width stack": the small ResNet's narrow layers, Conv2d(16, 16, 3, padding=1) ->
  relu -> Conv2d(16, 32, 3, stride=2, padding=1) -> relu -> Conv2d(32, 32, 3, padding=1) on
  (32, 16, 32, 32).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

CASES = ("lenet", "conv3x3", "narrow")
TITLES = {"lenet": "LeNet-style stack, (64,1,28,28)", "conv3x3": "3x3 conv 64->64, (32,64,32,32)",
          "narrow": "ResNet-width stack, (32,16,32,32)"}


def _model(lib, case):
    nn = lib.nn
    if case == "lenet":
        layers = [nn.Conv2d(1, 6, 5, padding=2), nn.Conv2d(6, 16, 5, stride=2),
                  nn.Conv2d(16, 32, 3, stride=2)]
        shape = (64, 1, 28, 28)
    elif case == "narrow":
        layers = [nn.Conv2d(16, 16, 3, padding=1), nn.Conv2d(16, 32, 3, stride=2, padding=1),
                  nn.Conv2d(32, 32, 3, padding=1)]
        shape = (32, 16, 32, 32)
    else:
        layers = [nn.Conv2d(64, 64, 3, padding=1)]
        shape = (32, 64, 32, 32)

    def forward(x):
        for layer in layers:
            x = lib.relu(layer(x)) if case != "conv3x3" else layer(x)
        return x
    return forward, shape


def worker(lib_name, case, mode, reps):
    """Time `reps` calls after a warm-up; print the median in milliseconds."""
    import numpy as np
    lib = __import__(lib_name)
    forward, shape = _model(lib, case)
    x = lib.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))

    def step():
        if mode == "forward":
            with lib.no_grad():
                forward(x)
        else:
            forward(x).sum().backward()
    step()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    print(statistics.median(times) * 1e3)


def _run(lib_name, case, mode, threads, reps):
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(threads)
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, __file__, "--worker", lib_name, case, mode,
                           str(reps)], env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main(quick=False):
    rounds, reps = (3, 3) if quick else (5, 5)
    print("\n## Convolutions (median ms per call over interleaved processes)\n")
    print("| case | threads | ember | PyTorch | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for threads in (1, 2):
        for case in CASES:
            for mode in ("forward+backward", "forward"):
                ember_ms, torch_ms = [], []
                for _ in range(rounds):
                    ember_ms.append(_run("ember", case, mode, threads, reps))
                    torch_ms.append(_run("torch", case, mode, threads, reps))
                e, t = statistics.median(ember_ms), statistics.median(torch_ms)
                print(f"| {TITLES[case]} {mode} | {threads} | {e:.1f} ms | {t:.1f} ms | "
                      f"{e / t:.2f}x |", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main(quick="--quick" in sys.argv)
