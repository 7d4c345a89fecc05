"""`python -m ember.distributed.run`: ranks get their variables and torch is ember in them; a
failing rank ends the job with its traceback and a non-zero exit; plain processes without MPI."""
import re
import uuid

from tests.distributed.launch import WORKERS, leftover_processes, require_mpi, run_launcher

SCRIPT = WORKERS / "launched.py"


def _env_lines(done):
    # Ranks share the pipe: their lines may arrive interleaved, so records are found by pattern.
    return sorted(re.findall(r"ENV \d+ \d+ \d+ \w+ \[[^\]]*\]", done.stdout))


def test_launcher_starts_mpi_ranks():
    require_mpi()
    done = run_launcher("--nproc-per-node", 2, SCRIPT, "collective", "x")
    assert done.returncode == 0, done.stderr
    assert _env_lines(done) == ["ENV 0 0 2 ember ['collective', 'x']",
                                "ENV 1 1 2 ember ['collective', 'x']"]
    assert done.stdout.count("SUM 2") == 2


def test_launcher_failure_ends_every_rank_with_the_traceback():
    require_mpi()
    marker = f"launch-{uuid.uuid4().hex}"
    done = run_launcher("--nproc-per-node", 3, SCRIPT, "fail", marker)
    assert done.returncode == 1
    tail = done.stderr[done.stderr.index("ember.distributed.run: the job failed"):]
    assert "first failure: rank 1" in tail and "KeyError: 'rank one breaks'" in tail
    assert "launched.py" in tail and "_rank_main" not in tail
    assert leftover_processes(marker) == []


def test_launcher_plain_processes_without_mpi():
    marker = f"plain-{uuid.uuid4().hex}"
    done = run_launcher("--no-mpi", "--nproc-per-node", 2, SCRIPT, "fail", marker)
    assert done.returncode == 1
    assert "first failure: rank 1" in done.stderr
    assert leftover_processes(marker) == []
    done = run_launcher("--no-mpi", "--nproc_per_node=2", SCRIPT, "plain")
    assert done.returncode == 0, done.stderr
    assert _env_lines(done) == ["ENV 0 0 2 ember ['plain']", "ENV 1 1 2 ember ['plain']"], (
        done.stdout + done.stderr)
