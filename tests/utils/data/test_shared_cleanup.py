"""DataLoader batches cross from workers through anonymous shared memory (NOTE [batches through
shared memory] in ember/utils/data/_utils/shared.py): nothing is left in /dev/shm when the main
process is killed, no name can be pre-created to block a loader, and every layout of batch
(many tensors, empty tensors, other start methods) arrives whole."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ember
import ember.utils.data as edata
from ember.utils.data._utils import shared

pytestmark = pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm")

_LOADER = textwrap.dedent("""
    import os, sys, time
    import ember
    import ember.utils.data as data

    x = ember.arange(64 * 1000, dtype=ember.float32).reshape(64, 1000)
    loader = data.DataLoader(data.TensorDataset(x, ember.arange(64)), batch_size=4,
                             num_workers=2)
    it = iter(loader)
    batches = [next(it) for _ in range(3)]
    assert batches[2][1].tolist() == [8, 9, 10, 11]
    print(" ".join(str(w.pid) for w in it._workers), flush=True)
    time.sleep(60)
""")


def _run_child(code, *argv):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-c", code, *argv], stdout=subprocess.PIPE,
                            env=env)


def _gone(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.split()[1] in ("Z", "X") for line in f if line.startswith("State:"))
    except FileNotFoundError:
        return True


def test_killing_the_main_process_leaves_nothing_in_dev_shm():
    before = set(os.listdir("/dev/shm"))
    child = _run_child(_LOADER)
    try:
        workers = [int(pid) for pid in child.stdout.readline().split()]
        assert len(workers) == 2
        during = set(os.listdir("/dev/shm")) - before
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    # The workers notice within STATUS_CHECK_INTERVAL that their parent is gone.
    deadline = time.monotonic() + 20
    while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(_gone(pid) for pid in workers)
    ours = [name for name in set(os.listdir("/dev/shm")) - before
            if str(child.pid) in name or any(str(pid) in name for pid in workers)]
    assert ours == []
    # Not even while it ran: the memory has no name.
    assert [name for name in during if str(child.pid) in name] == []


_SQUATTED = textwrap.dedent("""
    import os
    import ember
    import ember.utils.data as data

    # Every name the old scheme could have given this loader's first batches:
    # ember_dl_<main pid>_<loader number>_<worker pid>_<counter>.
    pid, made = os.getpid(), []
    for worker in range(pid + 1, pid + 300):
        for counter in range(3):
            path = f"/dev/shm/ember_dl_{pid}_0_{worker}_{counter}"
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            made.append(path)
    try:
        x = ember.arange(40, dtype=ember.float32).reshape(20, 2)
        loader = data.DataLoader(data.TensorDataset(x), batch_size=4, num_workers=2)
        print(sum(batch[0].sum().item() for batch in loader), flush=True)
    finally:
        for path in made:
            os.unlink(path)
""")


def test_files_precreated_under_the_old_predictable_names_do_not_block_the_loader():
    child = _run_child(_SQUATTED)
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0
    assert float(out.split()[-1]) == sum(range(40))


class _Many(edata.Dataset):
    """Items of many tensors, some empty, of several dtypes."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return {"many": [ember.full((3,), float(i * 100 + k)) for k in range(70)],
                "empty": ember.zeros(0, 5),
                "flags": ember.tensor([i % 2 == 0, True]),
                "ints": ember.arange(5, dtype=ember.int16) + i}


def _check_many(batches):
    assert len(batches) == 3
    for b, batch in enumerate(batches):
        rows = [2 * b, 2 * b + 1]
        assert len(batch["many"]) == 70
        for k, t in enumerate(batch["many"]):
            np.testing.assert_array_equal(t.numpy(), [[r * 100.0 + k] * 3 for r in rows])
        assert batch["empty"].shape == (2, 0, 5)
        assert batch["flags"].tolist() == [[r % 2 == 0, True] for r in rows]
        assert batch["ints"].dtype == ember.int16
        assert batch["ints"].tolist() == [list(range(r, r + 5)) for r in rows]


def test_batches_of_many_and_of_empty_tensors_arrive_whole():
    # More than _FILES_PER_BATCH tensors: packed into one file per batch.
    assert 70 + 3 > shared._FILES_PER_BATCH
    _check_many(list(edata.DataLoader(_Many(), batch_size=2, num_workers=2)))


def test_a_kept_tensor_outlives_the_rest_of_its_batch():
    import gc
    loader = edata.DataLoader(edata.TensorDataset(ember.arange(12.0).reshape(6, 2),
                                                  ember.arange(6)), batch_size=3, num_workers=1)
    kept = [y for _, y in loader]
    gc.collect()
    assert [k.tolist() for k in kept] == [[0, 1, 2], [3, 4, 5]]


def test_workers_started_with_spawn_send_their_batches():
    x = ember.arange(24, dtype=ember.float32).reshape(12, 2)
    loader = edata.DataLoader(edata.TensorDataset(x), batch_size=5, num_workers=1,
                              multiprocessing_context="spawn")
    got = [batch[0] for batch in loader]
    assert [t.shape[0] for t in got] == [5, 5, 2]
    np.testing.assert_array_equal(np.concatenate([t.numpy() for t in got]), x.numpy())


def test_persistent_workers_drop_a_stale_epoch_cleanly():
    x = ember.arange(200, dtype=ember.float32).reshape(100, 2)
    loader = edata.DataLoader(edata.TensorDataset(x), batch_size=4, num_workers=2,
                              persistent_workers=True, prefetch_factor=4)
    for _ in range(3):
        it = iter(loader)
        next(it)                    # abandon the epoch with batches still in flight
    assert sum(batch[0].sum().item() for batch in loader) == sum(range(200))
