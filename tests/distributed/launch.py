"""Start worker scripts under MPI's launcher from pytest, with a timeout so nothing hangs.

Workers (workers/*.py) check their results themselves and print one line per failed check
("FAIL ...") and a last line "DONE <checks>"; `run_workers` returns the finished process."""
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

WORKERS = pathlib.Path(__file__).parent / "workers"
SRC = pathlib.Path(__file__).parents[2] / "src"


def mpiexec():
    here = pathlib.Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def require_mpi():
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpi4py is not installed (pip install mpi4py mpich)")
    if mpiexec() is None:
        pytest.skip("no mpiexec found (pip install mpich)")


def env(**extra):
    return {**os.environ, "PYTHONPATH": str(SRC), "OMP_NUM_THREADS": "1", **extra}


def run_workers(n, script, *args, timeout=120, **extra_env):
    require_mpi()
    command = [mpiexec(), "-n", str(n), sys.executable, str(WORKERS / script), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                          env=env(**extra_env))


def run_launcher(*args, timeout=120, **extra_env):
    command = [sys.executable, "-m", "ember.distributed.run", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                          env=env(**extra_env))


def checked(done, n):
    """Assert every rank finished with no failed check; the number of checks per rank."""
    assert done.returncode == 0, done.stdout + done.stderr
    # Ranks share the pipe, so a record may not start a line: found by pattern.
    assert "FAIL" not in done.stdout, done.stdout + done.stderr
    counts = [int(n) for n in re.findall(r"DONE (\d+)", done.stdout)]
    assert len(counts) == n, done.stdout + done.stderr
    return counts


def leftover_processes(marker: str) -> list:
    """Processes whose command line holds `marker` (workers the launcher failed to end)."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if marker in cmdline and str(os.getpid()) != entry.name:
            found.append(cmdline)
    return found
