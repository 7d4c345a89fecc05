"""Nothing hangs: a collective a peer never joins raises a clear error within the timeout, and
a rank that dies, raises or exits ends the whole job with a non-zero status and no process left
behind."""
import time
import uuid

import pytest
from tests.distributed.launch import leftover_processes, run_workers


def _run(mode):
    marker = f"fault-{uuid.uuid4().hex}"
    start = time.monotonic()
    done = run_workers(2, "faults.py", mode, marker, timeout=120)
    elapsed = time.monotonic() - start
    time.sleep(0.2)
    assert leftover_processes(marker) == []
    return done, elapsed


def test_a_collective_never_joined_times_out_with_a_clear_error():
    done, elapsed = _run("timeout")
    assert done.returncode != 0
    caught = [line for line in done.stdout.splitlines() if line.startswith("CAUGHT")]
    assert caught, done.stdout + done.stderr
    waited = float(caught[0].split()[1])
    assert 2.0 <= waited < 7.0     # the 2 s timeout, plus scheduling on a busy machine
    assert "all_reduce did not complete within the timeout (0:00:02)" in caught[0]
    assert "BROKEN this process group is broken" in done.stdout
    assert elapsed < 60


@pytest.mark.parametrize("mode", ["kill", "raise", "exit"])
def test_a_failing_rank_ends_the_job(mode):
    done, elapsed = _run(mode)
    assert done.returncode != 0
    assert "UNREACHABLE" not in done.stdout
    assert elapsed < 60
    if mode == "raise":
        # The failing rank's traceback (its last line can be cut when MPI's teardown races
        # the forwarding of stderr on a loaded machine; the raising line is always there).
        assert 'raise ValueError("rank 1 fails on purpose")' in done.stderr
