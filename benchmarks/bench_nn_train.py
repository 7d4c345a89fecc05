"""Training steps of small models (forward, loss, backward, SGD update), ember against PyTorch,
each library in its own process, interleaved (A B A B ...), medians and ratios.

    python benchmarks/bench_nn_train.py [--rounds N] [--steps N] [--threads 1,2] [--only NAME]
                                        [--also SRC_DIR]

`--also` times another ember tree (its `src` folder, e.g. a checkout of an earlier commit)
beside this one, in the same interleaved rounds.

The models are the issue's: a 784-512-512-10 MLP (batch 256), a LeNet-style CNN on 1x28x28
(batch 64), a small ResNet of BasicBlocks with BatchNorm on 3x32x32 (batch 32), a 2-layer LSTM
language model (vocab 1000, embedding 128, hidden 256, seq 35, batch 20), a 4-layer, 4-head,
128-wide character GPT (block 64, batch 16); and `nn.Linear(16, 16)` on a (4, 16) input under
no_grad (per-call overhead). The same code builds both libraries' models (`lib` is torch or
ember). The update is written out (p -= lr * grad) so that it times the same work in both.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # (also loaded by path)
from shared_models import char_gpt_class

HERE = pathlib.Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def _models(lib):
    nn = lib.nn
    F = lib.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(256, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = lib.flatten(x, 1)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                              nn.BatchNorm2d(cout))

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + self.shortcut(x))

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
            self.bn = nn.BatchNorm2d(16)
            self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 32, 2),
                                        BasicBlock(32, 64, 2))
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            x = self.layers(F.relu(self.bn(self.conv(x))))
            return self.fc(lib.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    class LSTMLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(1000, 128)
            self.lstm = nn.LSTM(128, 256, num_layers=2)
            self.head = nn.Linear(256, 1000)

        def forward(self, x):
            out, _ = self.lstm(self.embed(x))
            return self.head(out)

    CharGPT = char_gpt_class(lib)

    g = lib.Generator().manual_seed(0)

    def mlp():
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
        return model, (lib.randn(256, 784, generator=g),), lib.randint(0, 10, (256,),
                                                                      generator=g)

    def lenet():
        return LeNet(), (lib.randn(64, 1, 28, 28, generator=g),), lib.randint(
            0, 10, (64,), generator=g)

    def resnet():
        return ResNet(), (lib.randn(32, 3, 32, 32, generator=g),), lib.randint(
            0, 10, (32,), generator=g)

    def lstm():
        x = lib.randint(0, 1000, (35, 20), generator=g)
        return LSTMLM(), (x,), lib.randint(0, 1000, (35 * 20,), generator=g)

    def gpt():
        x = lib.randint(0, 65, (16, 64), generator=g)
        return CharGPT(), (x,), lib.randint(0, 65, (16 * 64,), generator=g)

    return {"MLP 784-512-512-10, batch 256": mlp, "LeNet, batch 64": lenet,
            "ResNet (BasicBlocks), batch 32": resnet, "LSTM LM, seq 35 batch 20": lstm,
            "char GPT 4x4x128, batch 16": gpt}


def _train_step(lib, model, inputs, target):
    out = model(*inputs)
    loss = lib.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target)
    loss.backward()
    with lib.no_grad():
        for p in model.parameters():
            p.sub_(p.grad, alpha=0.01)
            p.grad = None


def worker(lib_name: str, only: str | None, steps: int) -> None:
    lib = __import__(lib_name)
    out = {}
    for name, build in _models(lib).items():
        if only and only not in name:
            continue
        model, inputs, target = build()
        _train_step(lib, model, inputs, target)
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            _train_step(lib, model, inputs, target)
            times.append(time.perf_counter() - t)
        out[name] = statistics.median(times) * 1e3
    if not only or "Linear" in only:
        layer = lib.nn.Linear(16, 16)
        x = lib.randn(4, 16)
        with lib.no_grad():
            for _ in range(100):
                layer(x)
            t = time.perf_counter()
            for _ in range(2000):
                layer(x)
        out["nn.Linear(16, 16) on (4, 16), no_grad"] = (time.perf_counter() - t) / 2000 * 1e3
    print(json.dumps(out))


def _run(lib_name, threads, only, steps, src=SRC):
    env = dict(os.environ, PYTHONPATH=str(src), OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--worker", lib_name, "--steps", str(steps)]
    if only:
        cmd += ["--only", only]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--only")
    parser.add_argument("--also")
    args = parser.parse_args()
    if args.worker:
        if args.worker == "torch":
            import torch
            torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
        worker(args.worker, args.only, args.steps)
        return
    for threads in [int(t) for t in args.threads.split(",")]:
        labels = {"ember": ("ember", SRC), "torch": ("torch", SRC)}
        if args.also:
            labels["ember (--also)"] = ("ember", pathlib.Path(args.also).resolve())
        runs = {label: [] for label in labels}
        for _ in range(args.rounds):
            for label, (lib_name, src) in labels.items():
                runs[label].append(_run(lib_name, threads, args.only, args.steps, src))
        print(f"\n## Training steps, {threads} thread(s), median ms over {args.rounds} rounds "
              f"x {args.steps} steps\n")
        also = " ember (--also) |" if args.also else ""
        print(f"| model | ember |{also} PyTorch | ratio |")
        print("| --- | ---: |" + (" ---: |" if args.also else "") + " ---: | ---: |")
        for name in runs["torch"][0]:
            e = statistics.median(r[name] for r in runs["ember"])
            t = statistics.median(r[name] for r in runs["torch"])
            unit = "us" if "no_grad" in name else "ms"
            scale = 1e3 if unit == "us" else 1
            cell = ""
            if args.also:
                b = statistics.median(r[name] for r in runs["ember (--also)"])
                cell = f" {b * scale:.2f} {unit} |"
            print(f"| {name} | {e * scale:.2f} {unit} |{cell} {t * scale:.2f} {unit} | "
                  f"{e / t:.2f}x |")


if __name__ == "__main__":
    main()
