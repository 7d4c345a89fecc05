"""all_reduce of a 64 MB float32 tensor between 2 local processes: ember.distributed against
mpi4py's own Allreduce on the same NumPy buffer (interleaved, medians; target <= 1.1x), and
PyTorch's gloo on the same machine; then the DDP step overhead on an MLP (2 ranks: the wrapped
model against a plain copy of it on the same per-rank batch), ember's and PyTorch's (gloo).

    python benchmarks/bench_distributed.py [--mb 64] [--rounds 15]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import time

SRC = str(pathlib.Path(__file__).resolve().parents[1] / "src")


def _mpiexec() -> str:
    here = pathlib.Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else "mpiexec"


def _env(**extra):
    return {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1", **extra}


def worker_allreduce(mb: int, rounds: int) -> None:
    import numpy as np

    import ember
    import ember.distributed as dist
    dist.init_process_group("gloo")
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    array = np.ones(mb * 1024 * 1024 // 4, np.float32)
    tensor = ember.from_numpy(array)               # the same memory
    assert tensor.data_ptr() == array.ctypes.data

    def raw():
        comm.Allreduce(MPI.IN_PLACE, array, op=MPI.SUM)

    def ours():
        dist.all_reduce(tensor)

    times = {"mpi4py": [], "ember": []}
    for fn in (raw, ours):
        comm.Barrier()
        fn()
    for _ in range(rounds):
        for name, fn in (("mpi4py", raw), ("ember", ours)):
            comm.Barrier()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    if comm.Get_rank() == 0:
        raw_ms = statistics.median(times["mpi4py"]) * 1e3
        ours_ms = statistics.median(times["ember"]) * 1e3
        print(f"RESULT allreduce {raw_ms:.2f} {ours_ms:.2f}", flush=True)


def _ddp_overhead(torch, dist, ddp_class, steps: int):
    """Median step times (ms) of a plain MLP and of a DDP-wrapped copy of it, in alternating
    rounds (A B A B) so that drift on a shared machine hits both alike."""
    import copy
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    wrapped = ddp_class(copy.deepcopy(model))     # its own parameters: the plain model's
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))  # backward must not sync
    times = {"alone": [], "ddp": []}
    for _ in range(5):
        for name, net in (("alone", model), ("ddp", wrapped)):
            opt = torch.optim.SGD(net.parameters(), lr=0.01)
            for step in range(steps):
                dist.barrier()
                start = time.perf_counter()
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(x), y).backward()
                opt.step()
                if step >= 2:
                    times[name].append(time.perf_counter() - start)
    return (statistics.median(times["alone"]) * 1e3, statistics.median(times["ddp"]) * 1e3)


def worker_ddp(steps: int) -> None:
    import ember as torch
    import ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo")
    alone, wrapped = _ddp_overhead(torch, dist, DDP, steps)
    if dist.get_rank() == 0:
        print(f"RESULT ddp {alone:.2f} {wrapped:.2f}", flush=True)


def torch_gloo_worker(mb: int, rounds: int) -> None:
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo")
    torch.set_num_threads(1)
    alone, wrapped = _ddp_overhead(torch, dist, torch.nn.parallel.DistributedDataParallel, 10)
    if dist.get_rank() == 0:
        print(f"RESULT ddp {alone:.2f} {wrapped:.2f}", flush=True)
    t = torch.ones(mb * 1024 * 1024 // 4)
    dist.all_reduce(t)
    times = []
    for _ in range(rounds):
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        times.append(time.perf_counter() - start)
    if dist.get_rank() == 0:
        print(f"RESULT gloo {statistics.median(times) * 1e3:.2f}", flush=True)
    dist.destroy_process_group()


def _results(output: str) -> list:
    return [line.split()[1:] for line in output.splitlines() if line.startswith("RESULT")]


def _torch_gloo(mb: int, rounds: int):
    try:
        import torch  # noqa: F401
    except ImportError:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", "gloo", "--mb", str(mb),
                               "--rounds", str(rounds)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1", "RANK": str(r),
                                   "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
                                   "MASTER_PORT": str(port)}) for r in range(2)]
    out = "".join(p.communicate(timeout=600)[0] for p in procs)
    found = {row[0]: row[1:] for row in _results(out)}
    return found if "gloo" in found else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--worker", default=None)
    args = parser.parse_args()
    if args.worker == "allreduce":
        return worker_allreduce(args.mb, args.rounds)
    if args.worker == "ddp":
        return worker_ddp(10)
    if args.worker == "gloo":
        return torch_gloo_worker(args.mb, args.rounds)
    def launch(kind):
        done = subprocess.run([_mpiexec(), "-n", "2", sys.executable, __file__, "--worker",
                               kind, "--mb", str(args.mb), "--rounds", str(args.rounds)],
                              capture_output=True, text=True, env=_env(), timeout=600,
                              check=False)
        if done.returncode != 0:
            raise SystemExit(done.stdout + done.stderr)
        return _results(done.stdout)[0]
    _, raw_ms, ours_ms = launch("allreduce")
    raw_ms, ours_ms = float(raw_ms), float(ours_ms)
    gloo = _torch_gloo(args.mb, args.rounds)
    gloo_ms = float(gloo["gloo"][0]) if gloo else None
    print(f"all_reduce {args.mb} MB float32, 2 processes (median of {args.rounds})")
    print(f"  mpi4py Allreduce      {raw_ms:9.2f} ms")
    print(f"  ember all_reduce      {ours_ms:9.2f} ms   ratio {ours_ms / raw_ms:.3f}x "
          f"(target <= 1.1x)")
    if gloo_ms is not None:
        print(f"  PyTorch gloo          {gloo_ms:9.2f} ms   ember / gloo {ours_ms / gloo_ms:.3f}x")
    _, alone, wrapped = launch("ddp")
    alone, wrapped = float(alone), float(wrapped)
    print("DDP step, MLP 256-512-512-10, batch 64 per rank, 2 ranks (median ms)")
    print(f"  ember    plain module {alone:8.2f}   DDP {wrapped:8.2f}   overhead "
          f"{wrapped / alone:.2f}x")
    if gloo:
        alone, wrapped = map(float, gloo["ddp"])
        print(f"  PyTorch  plain module {alone:8.2f}   DDP {wrapped:8.2f}   overhead "
              f"{wrapped / alone:.2f}x (gloo)")


if __name__ == "__main__":
    main()
