"""The torchrun analog: start N processes of a script on this machine.

    python -m ember.distributed.run --nproc-per-node N script.py [args ...]
    embrun --nproc-per-node N -m package.module [args ...]

Each process gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
and `import torch` resolves to ember in it. With mpi4py and MPI's `mpiexec` (MPICH's from PyPI
lands next to the Python executable) the processes are an MPI job, which
`init_process_group` joins (NOTE [ranks come from MPI]); without them they are plain
processes (env:// only: collectives need MPI). Several hosts: pass `--hostfile FILE` (MPI's
own host file, one host per line) with `--nproc-per-node` ranks on each host.

NOTE [a failing rank ends the job]: a rank that raises (or exits non-zero) prints its traceback,
records it for the launcher and ends the job (MPI_Abort, or the launcher terminates the plain
processes); the launcher exits with that rank's code and repeats its traceback last. A rank
that is killed is noticed by mpiexec, which ends the others. SIGINT/SIGTERM to the launcher
reach every rank.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

__all__ = ["get_args_parser", "main"]

_ABORT_GRACE_SECONDS = 1.0


def get_args_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ember.distributed.run",
        description="Start --nproc-per-node processes of a training script (torchrun's "
                    "options).")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                        help="processes on this machine (a number, or 'cpu' for one per core)")
    parser.add_argument("--nnodes", default="1", help="hosts taking part (with --hostfile)")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0)
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    parser.add_argument("--master-port", "--master_port", type=int, default=29500)
    parser.add_argument("--standalone", action="store_true",
                        help="a single-host job (the default here)")
    parser.add_argument("--hostfile", default=None, help="MPI host file for several hosts")
    parser.add_argument("--no-mpi", action="store_true",
                        help="plain processes with env:// variables, even where MPI exists")
    parser.add_argument("--run-path", "--run_path", action="store_true")
    parser.add_argument("-m", "--module", action="store_true",
                        help="run the script as a module (python -m)")
    parser.add_argument("training_script")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    return shutil.which("mpiexec")


def _mpi_usable() -> bool:
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None and _mpiexec() is not None


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {n}")
    return n


def main(argv=None) -> int:
    args = get_args_parser().parse_args(argv)
    nproc = _nproc(args.nproc_per_node)
    nnodes = int(str(args.nnodes).split(":")[-1])
    world = nproc * nnodes
    target = (["-m", args.training_script] if args.module else [args.training_script])
    target += args.training_script_args
    errors = tempfile.mkdtemp(prefix="ember_run_")
    env = {**os.environ, "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(nproc),
           "MASTER_ADDR": args.master_addr, "MASTER_PORT": str(args.master_port),
           "TORCHELASTIC_RUN_ID": os.environ.get("TORCHELASTIC_RUN_ID", uuid.uuid4().hex[:8]),
           "EMBER_NODE_RANK": str(args.node_rank), "EMBER_RUN_ERROR_DIR": errors}
    child = [sys.executable, "-m", "ember.distributed._rank_main", *target]
    try:
        if _mpi_usable() and not args.no_mpi:
            command = [_mpiexec(), "-n", str(world)]
            if args.hostfile:
                command += ["-f", args.hostfile, "-ppn", str(nproc)]
            code = _run_mpi(command + child, env, errors)
        else:
            if nnodes > 1:
                raise SystemExit("ember.distributed.run: several hosts need MPI (mpi4py and "
                                 "mpiexec); they are not installed")
            code = _run_plain(child, env, nproc, args.node_rank)
        return _report(errors, code)
    finally:
        shutil.rmtree(errors, ignore_errors=True)


def _forwarding(processes):
    def forward(signum, frame):
        for p in processes:
            if p.poll() is None:
                p.send_signal(signum)
    return forward


def _run_mpi(command, env, errors) -> int:
    # Its own session: ending the job ends mpiexec, its proxies and every rank together.
    process = subprocess.Popen(command, env=env, start_new_session=True)
    previous = {s: signal.signal(s, _forwarding([process]))
                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        failed_at = None
        while True:
            code = process.poll()
            if code is not None:
                return code
            if failed_at is None and os.listdir(errors):
                failed_at = time.monotonic()
            # A rank that failed before joining MPI cannot MPI_Abort: mpiexec would wait for
            # the others, so the launcher ends the job itself (after a moment for the abort).
            if failed_at is not None and time.monotonic() - failed_at > _ABORT_GRACE_SECONDS:
                _end_session(process)
                return process.wait()
            time.sleep(0.05)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if process.poll() is None:
            _end_session(process)


def _end_session(process, grace: float = 5.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(grace)
            os.killpg(process.pid, signal.SIGKILL)    # what is left of the session
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def _run_plain(child, env, nproc, node_rank) -> int:
    processes = []
    for local in range(nproc):
        rank = node_rank * nproc + local
        processes.append(subprocess.Popen(child, env={**env, "RANK": str(rank),
                                                      "LOCAL_RANK": str(local)}))
    previous = {s: signal.signal(s, _forwarding(processes))
                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while True:
            codes = [p.poll() for p in processes]
            failed = [c for c in codes if c not in (None, 0)]
            if failed:
                _terminate(processes)
                return failed[0]
            if all(c == 0 for c in codes):
                return 0
            time.sleep(0.05)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _terminate(processes, grace: float = 5.0) -> None:
    for p in processes:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + grace
    for p in processes:
        remaining = max(0.0, deadline - time.monotonic())
        try:
            p.wait(remaining)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _report(errors: str, code: int) -> int:
    records = sorted(os.listdir(errors))
    if not records and code == 0:
        return 0
    first = None
    if records:
        with open(os.path.join(errors, records[0])) as f:
            first = f.read()
    print("ember.distributed.run: the job failed", file=sys.stderr)
    if first is not None:
        rank_code, _, text = first.partition("\n")
        rank = records[0][len("rank"):-len(".txt")]
        print(f"  first failure: rank {rank} (exit code {rank_code})\n{text}", file=sys.stderr)
        return int(rank_code) or 1
    return code if code > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
