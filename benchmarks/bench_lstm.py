"""One training step of a 2-layer LSTM language model, ember vs PyTorch.

    python benchmarks/bench_lstm.py [--quick] [--threads N ...]

The model: Embedding(1000, 128) -> LSTM(128, 256, num_layers=2) -> Linear(256, 1000), input
(35 steps, batch 20) of token ids, cross-entropy against the next tokens; a step is forward,
loss, backward (gradients zeroed first). Where ember lacks nn.Embedding / nn.Linear /
F.cross_entropy the step times the LSTM alone (loss = output.sum()); the table says which.
Also: the LSTM forward under no_grad. Each library runs in its own process; the processes
alternate (ember, torch, ember, torch ...) and the table gives medians over the rounds, with
OMP_NUM_THREADS / OPENBLAS_NUM_THREADS set to the thread count.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import timeit

import numpy as np

VOCAB, EMBED, HIDDEN, LAYERS, STEPS, BATCH = 1000, 128, 256, 2, 35, 20


def _full_model_available(lib) -> bool:
    nn = lib.nn
    return all(hasattr(nn, n) for n in ("Embedding", "Linear")) and \
        hasattr(nn.functional, "cross_entropy")


def _cases(lib, full):
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens = lib.from_numpy(rng.integers(0, VOCAB, size=(STEPS + 1, BATCH)).astype(np.int64))
    inputs, targets = tokens[:-1], tokens[1:].reshape(-1)
    lstm = lib.nn.LSTM(EMBED, HIDDEN, LAYERS)
    embedded = lib.from_numpy(rng.standard_normal((STEPS, BATCH, EMBED)).astype(np.float32))
    if full:
        embedding = lib.nn.Embedding(VOCAB, EMBED)
        decoder = lib.nn.Linear(HIDDEN, VOCAB)
        params = [*embedding.parameters(), *lstm.parameters(), *decoder.parameters()]

        def step():
            for p in params:
                p.grad = None
            out, _ = lstm(embedding(inputs))
            logits = decoder(out.reshape(-1, HIDDEN))
            lib.nn.functional.cross_entropy(logits, targets).backward()
    else:
        params = list(lstm.parameters())

        def step():
            for p in params:
                p.grad = None
            out, _ = lstm(embedded)
            out.sum().backward()

    def forward():
        with lib.no_grad():
            lstm(embedded)

    name = "LM training step" if full else "LSTM-only training step (no Embedding/Linear)"
    return {name: (step, 5), "LSTM forward, no_grad": (forward, 10)}


def _worker(name, threads, quick, full):
    if name == "torch":
        import torch as lib
    else:
        import ember as lib
    lib.set_num_threads(threads)
    results = {}
    for case, (fn, number) in _cases(lib, full).items():
        number = max(1, number // (2 if quick else 1))
        fn()
        results[case] = min(timeit.repeat(fn, number=number, repeat=3)) / number * 1e3
    print(json.dumps(results))


def _run(threads, rounds, full):
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(os.path.dirname(here), "src")
    times = {"ember": [], "torch": []}
    for _ in range(rounds):
        for kind in ("ember", "torch"):
            env = dict(os.environ, PYTHONPATH=src, OMP_NUM_THREADS=str(threads),
                       OPENBLAS_NUM_THREADS=str(threads))
            done = subprocess.run([sys.executable, __file__, "--worker", kind, str(threads),
                                   "quick" if rounds < 5 else "full", str(int(full))],
                                  capture_output=True,
                                  text=True, check=True, env=env)
            times[kind].append(json.loads(done.stdout))
    print(f"\n## 2-layer LSTM LM, {threads} thread(s): median ms over {rounds} rounds "
          "(separate processes, interleaved)\n")
    print("| case | ember | torch | ember / torch |")
    print("| --- | ---: | ---: | ---: |")
    for case, torch_case in zip(times["ember"][0], times["torch"][0]):
        e = statistics.median(r[case] for r in times["ember"])
        t = statistics.median(r[torch_case] for r in times["torch"])
        print(f"| {case} | {e:.2f} | {t:.2f} | {e / t:.2f}x |")


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--worker":
        _worker(args[1], int(args[2]), args[3] == "quick", args[4] == "1")
        return
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__))), "src"))
    import ember
    full = _full_model_available(ember)      # both libraries time the same model
    rounds = 3 if "--quick" in args else 7
    threads = [int(args[i + 1]) for i, a in enumerate(args) if a == "--threads"] or [1, 2]
    for n in threads:
        _run(n, rounds, full)


if __name__ == "__main__":
    main()
