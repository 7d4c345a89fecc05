"""Training steps on a CUDA GPU: ember (CuPy back-end) against PyTorch's CUDA, each library in its
own process, interleaved round by round (A B A B ...), medians in milliseconds.

    python benchmarks/bench_cuda_train.py [--quick]

Cases: the issue's 784-512-512-10 MLP training step (batch 256: forward, cross-entropy, backward,
SGD update), the same MLP at batch 4096 (where the GPU's arithmetic starts to count), a
forward-only `nn.Linear(16, 16)` on a (4, 16) input under no_grad (per-call overhead), a tiny
`a + b` (per-op overhead) and a 4096 x 4096 float32 matmul (the device's own speed). Every
timed call ends with a device synchronize, so the time is the work's, not its launch's. Each
worker warms every case up first (CuPy compiles each kernel the first time it meets it).
Needs a GPU (ember.cuda.is_available()); the workers print {case: ms} as JSON.
"""
from __future__ import annotations

import sys

import common


def _cases(lib):
    device = "cuda"
    sync = lib.cuda.synchronize
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    def training_step(batch):
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10)).to(device)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
        x = lib.randn(batch, 784, device=device)
        target = lib.randint(0, 10, (batch,), device=device)

        def step():
            optimizer.zero_grad()
            F.cross_entropy(model(x), target).backward()
            optimizer.step()
            sync()
        for _ in range(3):          # warm-up: every kernel compiled, optimizer state made
            step()
        return step

    small = nn.Linear(16, 16).to(device)
    small_input = lib.randn(4, 16, device=device)

    def linear_no_grad():
        with lib.no_grad():
            small(small_input)
        sync()

    a, b = lib.randn(1000, device=device), lib.randn(1000, device=device)

    def tiny_add():
        a + b
        sync()

    m = lib.randn(4096, 4096, device=device)

    def matmul():
        m @ m
        sync()

    return {
        "MLP step, batch 256": (training_step(256), 50),
        "MLP step, batch 4096": (training_step(4096), 20),
        "Linear(16,16) no_grad": (linear_no_grad, 500),
        "a + b, 1000": (tiny_add, 1000),
        "matmul 4096^2 fp32": (matmul, 10),
    }


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        common.worker(_cases, args, scale=1e3)
        return
    quick, thread_counts, runs = common.options(args, "1")
    for threads in thread_counts:
        times = common.run_workers(__file__, runs, threads, quick)
        common.print_medians(f"CUDA, {threads} CPU thread(s): median ms over rounds (separate "
                             "processes, each call synchronized)", times)


if __name__ == "__main__":
    main()
