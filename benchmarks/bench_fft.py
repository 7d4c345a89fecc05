"""fft.rfft of a 2^20 float32 signal (and a few neighbours): ember vs PyTorch in separate
processes, interleaved round by round (medians, ratios), with 1 and 2 intra-op threads.

    python benchmarks/bench_fft.py [--quick] [--threads 1,2]

Each round starts one fresh process per library and thread count, which times every case
(best of a few repeats); the table shows the median over rounds in milliseconds.
"""
from __future__ import annotations

import sys

import common
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


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1,2")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"FFT on float32, {threads} thread(s): median ms over rounds "
                             "(separate processes, interleaved)", times,
                             target=lambda case: "<= 1.5x" if case == "rfft 2^20" else "")


if __name__ == "__main__":
    main()
