"""Special functions and the exact GELU in separate processes: ember, PyTorch and optionally
another ember checkout (`--baseline path/to/src`), interleaved round by round, medians.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_special.py [--quick]
    python benchmarks/bench_special.py --threads 2 --baseline /tmp/old/src

Each round starts one fresh process per library, which times every case (best of a few
repeats) and prints them; the table shows the median over rounds in milliseconds. The cases
are 0.5M float32 elements (GPT-sized activations): erf, F.gelu forward, and F.gelu forward and
backward (its gradient through autograd).
"""
from __future__ import annotations

import sys

import common
import numpy as np

_SIZE = 1 << 19


def _cases(lib):
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(_SIZE) * 2).astype(np.float32)
    x = lib.from_numpy(values.copy())
    xg = lib.from_numpy(values.copy()).requires_grad_()
    grad = lib.from_numpy(rng.standard_normal(_SIZE).astype(np.float32))
    unit = lib.from_numpy(rng.random(_SIZE).astype(np.float32))
    gelu = lib.nn.functional.gelu

    def forward_backward():
        gelu(xg).backward(grad)
        xg.grad = None

    cases = {
        "erf": (lambda: lib.erf(x), 20),
        "gelu forward": (lambda: gelu(x), 20),
        "gelu forward + backward": (forward_backward, 10),
    }
    special = getattr(lib, "special", None)
    if special is not None and hasattr(special, "log_ndtr"):
        cases.update({
            "special.log_ndtr": (lambda: special.log_ndtr(x), 5),
            "special.i0e": (lambda: special.i0e(x), 5),
            "special.ndtri": (lambda: special.ndtri(unit), 5),
            "special.erfcx": (lambda: special.erfcx(x), 5),
        })
    return cases


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"Special functions, {threads} thread(s), {_SIZE} float32 elements: "
                             f"median ms over rounds (separate processes)", times)


if __name__ == "__main__":
    main()
