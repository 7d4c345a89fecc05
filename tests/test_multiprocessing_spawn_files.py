"""ember.multiprocessing.spawn leaves no file behind (NOTE [spawn writes no files]), whether
the children succeed or raise, and still carries a child's traceback to the parent."""
import glob
import os
import tempfile

import pytest

import ember.multiprocessing as mp


def _succeeds(rank):
    pass


def _raises(rank):
    if rank == 1:
        raise ValueError(f"boom in rank {rank}")


def _raises_long(rank):
    # Bigger than a pipe's buffer (64 KiB): the parent must read while the child writes.
    raise ValueError("x" * 300_000)


def _sleeps(rank):
    import time
    time.sleep(30)


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path, monkeypatch):
    # Other processes on the machine may run spawn at the same time: watch a temporary
    # directory of this test's own.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))


def _spawn_dirs():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "*")))


@pytest.mark.parametrize("start_method", ["spawn", "fork"])
def test_spawn_that_succeeds_leaves_no_directory(start_method):
    before = _spawn_dirs()
    assert mp.start_processes(_succeeds, nprocs=2, start_method=start_method) is None
    assert _spawn_dirs() == before


def test_spawn_that_raises_leaves_no_directory_and_carries_the_traceback():
    before = _spawn_dirs()
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(_raises, nprocs=2, start_method="fork")
    assert info.value.error_index == 1
    assert "ValueError: boom in rank 1" in str(info.value)
    assert _spawn_dirs() == before


def test_traceback_bigger_than_a_pipe_buffer_arrives_whole():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(_raises_long, nprocs=1, start_method="fork")
    assert "x" * 300_000 in str(info.value)


def test_join_timeout_leaves_no_directory():
    before = _spawn_dirs()
    context = mp.start_processes(_sleeps, nprocs=1, join=False, start_method="fork")
    try:
        assert context.join(timeout=0.2) is False
        assert _spawn_dirs() == before
    finally:
        for process in context.processes:
            process.kill()
            process.join()
    with pytest.raises(mp.ProcessExitedException) as info:
        context.join()
    assert info.value.signal_name == "SIGKILL"
    assert _spawn_dirs() == before
