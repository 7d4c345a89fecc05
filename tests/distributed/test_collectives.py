"""Every collective on 2 and 3 MPI ranks against NumPy (workers/collectives.py) and against
PyTorch's gloo on the same inputs in the same job (workers/against_gloo.py), and a process
started alone (workers/single.py)."""
import socket
import subprocess
import sys

import pytest
from tests.distributed.launch import WORKERS, checked, env, require_mpi, run_workers


@pytest.mark.parametrize("ranks", [2, 3])
def test_collectives_match_numpy(ranks):
    counts = checked(run_workers(ranks, "collectives.py"), ranks)
    assert min(counts) > 600


def test_collectives_match_pytorch_gloo():
    pytest.importorskip("torch")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    counts = checked(run_workers(3, "against_gloo.py", port), 3)
    assert min(counts) > 60


def _alone(what, **variables):
    require_mpi()
    return subprocess.run([sys.executable, str(WORKERS / "single.py"), what],
                          capture_output=True, text=True, timeout=60, check=False,
                          env=env(**variables))


def test_a_process_started_alone_is_a_world_of_one():
    checked(_alone("world_of_one", WORLD_SIZE="1", RANK="0"), 1)


def test_a_process_started_alone_refuses_more_ranks():
    done = _alone("too_many", WORLD_SIZE="2", RANK="0")
    checked(done, 1)
