"""Autograd overhead and throughput, ember vs PyTorch (ratios in one run).

    python benchmarks/bench_autograd.py [--quick]
Tiny case: recording plus backward of `(x * y).sum()` on shape (8,) -- per-op Python overhead of
the tape and the engine. MLP case: forward and forward+backward of a 784-512-512-10 MLP with
ReLU (written as clamp_min(0)) on a batch of 256 -- the large-array work of the derivatives.
"""
from __future__ import annotations

import sys

import numpy as np

from common import interleaved, print_table


def _mlp(lib, arrays, x_np):
    params = [lib.tensor(a).requires_grad_(True) for a in arrays]
    x = lib.tensor(x_np)

    def forward():
        h = x
        for k in range(0, len(params) - 2, 2):
            h = (h @ params[k] + params[k + 1]).clamp_min(0)
        out = h @ params[-2] + params[-1]
        return (out * out).mean()

    def step():
        for p in params:
            p.grad = None
        forward().backward()
    return forward, step


def main(quick: bool = False) -> None:
    import ember
    import torch

    rounds = 3 if quick else 7
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(8).astype(np.float32)
    ex, ey = (ember.tensor(a_np).requires_grad_(True) for _ in range(2))
    tx, ty = (torch.tensor(a_np).requires_grad_(True) for _ in range(2))
    n = 2_000 if quick else 10_000
    tiny = {
        "(x * y).sum().backward(), shape (8,)": (
            lambda: (ex * ey).sum().backward(), lambda: (tx * ty).sum().backward(), n),
        "x * y recorded, shape (8,)": (lambda: ex * ey, lambda: tx * ty, n * 5),
    }
    print_table("Autograd on tiny tensors (median of interleaved rounds)",
                interleaved(tiny, rounds), limit=2)

    sizes = [784, 512, 512, 10]
    arrays = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        arrays.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in))
                      .astype(np.float32))
        arrays.append(np.zeros(fan_out, np.float32))
    x_np = rng.standard_normal((256, 784)).astype(np.float32)
    e_forward, e_step = _mlp(ember, arrays, x_np)
    t_forward, t_step = _mlp(torch, arrays, x_np)
    reps = 3 if quick else 10
    large = {
        "MLP 784-512-512-10, batch 256: forward": (e_forward, t_forward, reps),
        "MLP 784-512-512-10, batch 256: forward + backward": (e_step, t_step, reps),
    }
    print_table("MLP training step (median of interleaved rounds)", interleaved(large, rounds),
                limit=1.2)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
