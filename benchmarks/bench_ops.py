"""Per-op overhead on tiny tensors and throughput on large ones, ember vs PyTorch.

    python benchmarks/bench_ops.py [--quick]
Run with OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 and without, as the README says.

With two threads, interleaving has a cost for ember that a program using ember alone never
pays: after each PyTorch call its OpenMP threads spin for a while, taking the second core from
ember's next call (a 10^7-element sum measures 2.9x; with OMP_WAIT_POLICY=PASSIVE, 1.18x).
"""
from __future__ import annotations

import sys

import numpy as np
from common import interleaved, print_table


def main(quick: bool = False) -> None:
    import torch

    import ember

    rounds = 3 if quick else 7
    a_np = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    m_np = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)
    ea, eb, em = ember.tensor(a_np), ember.tensor(a_np), ember.tensor(m_np)
    ta, tb, tm = torch.tensor(a_np), torch.tensor(a_np), torch.tensor(m_np)
    n = 20_000 if quick else 100_000
    tiny = {
        "a + b, shape (8,)": (lambda: ea + eb, lambda: ta + tb, n),
        "a * 2.0, shape (8,)": (lambda: ea * 2.0, lambda: ta * 2.0, n),
        "relu, shape (8,)": (lambda: ember.relu(ea), lambda: torch.relu(ta), n)
        if hasattr(ember, "relu") else None,
        "16x16 @": (lambda: em @ em, lambda: tm @ tm, n),
        "a.sum(), shape (8,)": (lambda: ea.sum(), lambda: ta.sum(), n),
        "a.view(2, 4)": (lambda: ea.view(2, 4), lambda: ta.view(2, 4), n),
        "zeros(8)": (lambda: ember.zeros(8), lambda: torch.zeros(8), n),
        "randn(8)": (lambda: ember.randn(8), lambda: torch.randn(8), n),
        "tensor([1., 2., 3.])": (lambda: ember.tensor([1.0, 2.0, 3.0]),
                                 lambda: torch.tensor([1.0, 2.0, 3.0]), n),
        "zeros_like(a)": (lambda: ember.zeros_like(ea), lambda: torch.zeros_like(ta), n),
        "a.detach()": (lambda: ea.detach(), lambda: ta.detach(), n),
    }
    tiny = {k: v for k, v in tiny.items() if v is not None}
    print_table("Per-op time on tiny tensors (median of interleaved rounds)",
                interleaved(tiny, rounds), limit=2)

    big = 1024
    x_np = np.random.default_rng(2).standard_normal((big, big)).astype(np.float32)
    v_np = np.random.default_rng(3).standard_normal(10_000_000).astype(np.float32)
    ex, tx = ember.tensor(x_np), torch.tensor(x_np)
    ev, tv = ember.tensor(v_np), torch.tensor(v_np)
    large = {
        "1024^3 matmul (float32)": (lambda: ex @ ex, lambda: tx @ tx, 1 if quick else 3),
        "v + v, 10^7 elements": (lambda: ev + ev, lambda: tv + tv, 3 if quick else 10),
        "v * 2.0, 10^7 elements": (lambda: ev * 2.0, lambda: tv * 2.0, 3 if quick else 10),
        "v.exp(), 10^7 elements": (lambda: ev.exp(), lambda: tv.exp(), 3 if quick else 10),
        "v.sum(), 10^7 elements": (lambda: ev.sum(), lambda: tv.sum(), 3 if quick else 10),
    }
    print_table("Large ops (median of interleaved rounds)", interleaved(large, rounds),
                limit=1.2)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
