"""DataLoader against PyTorch's: batches, arguments and errors in one process; worker
processes (order, sharding of iterable datasets, seeds, worker exceptions and deaths, timeouts,
persistent workers, cleanup)."""
import os
import signal
import time

import numpy as np
import pytest
import torch
import torch.utils.data as tdata
from tests.utils.data.test_datasets_samplers import _error, _same

import ember
import ember.utils.data as edata


def _dataset(lib, data):
    return data.TensorDataset(lib.arange(20.0).view(10, 2), lib.arange(10))


@pytest.mark.parametrize("kwargs", [{}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True},
                                    {"batch_size": None}, {"batch_size": 4,
                                                           "collate_fn": lambda b: len(b)}])
def test_batches_match_pytorch(kwargs):
    ours = list(edata.DataLoader(_dataset(ember, edata), **kwargs))
    theirs = list(tdata.DataLoader(_dataset(torch, tdata), **kwargs))
    _same(ours, theirs)
    assert len(edata.DataLoader(_dataset(ember, edata), **kwargs)) == \
        len(tdata.DataLoader(_dataset(torch, tdata), **kwargs))


def test_shuffle_visits_every_sample_once_per_epoch():
    loader = edata.DataLoader(_dataset(ember, edata), batch_size=4, shuffle=True,
                              generator=ember.Generator().manual_seed(3))
    first = [i for _, y in loader for i in y.tolist()]
    second = [i for _, y in loader for i in y.tolist()]
    assert sorted(first) == list(range(10)) and sorted(second) == list(range(10))
    assert first != second


class _Stream:
    """An IterableDataset that splits its range across workers with get_worker_info()."""

    def __init__(self, data, n):
        self.data = data
        self.n = n

    def make(self):
        data, n = self.data, self.n

        class Stream(data.IterableDataset):
            def __iter__(self):
                info = data.get_worker_info()
                if info is None:
                    return iter(range(n))
                return iter(range(info.id, n, info.num_workers))

            def __len__(self):
                return n
        return Stream()


@pytest.mark.parametrize("make", [
    lambda d, ds: d.DataLoader(ds, num_workers=-1),
    lambda d, ds: d.DataLoader(ds, timeout=-1),
    lambda d, ds: d.DataLoader(ds, prefetch_factor=2),
    lambda d, ds: d.DataLoader(ds, persistent_workers=True),
    lambda d, ds: d.DataLoader(ds, shuffle=True, sampler=d.SequentialSampler(ds)),
    lambda d, ds: d.DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]]),
    lambda d, ds: d.DataLoader(ds, batch_size=None, drop_last=True),
    lambda d, ds: d.DataLoader(ds, multiprocessing_context="fork"),
    lambda d, ds: d.DataLoader(ds, num_workers=1, multiprocessing_context="nope"),
    lambda d, ds: setattr(d.DataLoader(ds), "batch_size", 3),
])
def test_bad_arguments_raise_as_pytorch(make):
    assert _error(lambda: make(edata, _dataset(ember, edata))) == \
        _error(lambda: make(tdata, _dataset(torch, tdata)))


def test_iterable_dataset_errors_match_pytorch():
    for kwargs in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        assert _error(lambda: edata.DataLoader(_Stream(edata, 4).make(), **kwargs)) == \
            _error(lambda: tdata.DataLoader(_Stream(tdata, 4).make(), **kwargs))


def _children():
    import multiprocessing
    return [p for p in multiprocessing.active_children()]


def _shm_leftovers():
    """Batch memory files this process still holds open (they are closed once mapped)."""
    if not os.path.isdir("/proc/self/fd"):
        return []
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:        # the listing's own descriptor, closed by now
            continue
        if "memfd:ember_dataloader" in target:
            held.append(target)
    return held


def test_workers_give_the_same_batches_in_order():
    ours = list(edata.DataLoader(_dataset(ember, edata), batch_size=3, num_workers=2))
    theirs = list(tdata.DataLoader(_dataset(torch, tdata), batch_size=3))
    _same(ours, theirs)
    assert not _children()
    # A kept batch holds its mappings (Python's mmap keeps a descriptor of its own, as
    # PyTorch's file_descriptor strategy does); dropped, nothing of it stays open.
    del ours
    import gc
    gc.collect()
    assert not _shm_leftovers()


def test_iterable_dataset_sharded_across_workers():
    loader = edata.DataLoader(_Stream(edata, 9).make(), batch_size=2, num_workers=3)
    got = sorted(i for batch in loader for i in batch.tolist())
    assert got == list(range(9))
    reference = tdata.DataLoader(_Stream(tdata, 9).make(), batch_size=2, num_workers=3)
    assert [b.tolist() for b in loader] == [b.tolist() for b in reference]


def test_worker_info_seed_and_init_fn():
    class Info(edata.Dataset):
        def __getitem__(self, i):
            info = edata.get_worker_info()
            return (info.id, info.num_workers, info.seed, int(os.environ.get("EMBER_T", -1)))

        def __len__(self):
            return 4

    def init(worker_id):
        os.environ["EMBER_T"] = str(worker_id * 10)
    rows = list(edata.DataLoader(Info(), batch_size=None, num_workers=2, worker_init_fn=init,
                                 generator=ember.Generator().manual_seed(0)))
    ids = [int(r[0]) for r in rows]
    assert ids == [0, 1, 0, 1]
    assert [int(r[3]) for r in rows] == [0, 10, 0, 10]
    seeds = {int(r[0]): int(r[2]) for r in rows}
    assert seeds[1] == seeds[0] + 1
    assert edata.get_worker_info() is None


class _Failing(edata.Dataset):
    def __getitem__(self, i):
        if i == 3:
            raise KeyError("missing sample 3")
        return i

    def __len__(self):
        return 6


def test_worker_exception_is_reraised_with_its_traceback():
    loader = edata.DataLoader(_Failing(), batch_size=2, num_workers=2)
    with pytest.raises(KeyError) as info:
        list(loader)
    text = str(info.value)
    assert "Caught KeyError in DataLoader worker process 1" in text
    assert "missing sample 3" in text and "__getitem__" in text
    del info, loader
    import gc
    gc.collect()
    assert not _children()


class _Dies(edata.Dataset):
    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return i

    def __len__(self):
        return 8


def test_a_killed_worker_is_reported_quickly():
    loader = edata.DataLoader(_Dies(), batch_size=1, num_workers=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           "unexpectedly"):
        list(loader)
    assert time.monotonic() - start < 10
    assert not _children()


class _Slow(edata.Dataset):
    def __getitem__(self, i):
        time.sleep(0.6)
        return i

    def __len__(self):
        return 2


def test_timeout_raises():
    loader = edata.DataLoader(_Slow(), num_workers=1, timeout=0.2)
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        next(iter(loader))


def test_persistent_workers_serve_several_epochs_and_abandoned_loops_clean_up():
    loader = edata.DataLoader(_dataset(ember, edata), batch_size=4, num_workers=2,
                              persistent_workers=True)
    for _ in range(3):
        assert [y.tolist() for _, y in loader] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    pids = {p.pid for p in _children()}
    assert len(pids) == 2
    del loader
    it = iter(edata.DataLoader(_dataset(ember, edata), batch_size=1, num_workers=2))
    next(it)
    del it
    import gc
    gc.collect()
    time.sleep(0.2)
    assert not _children() and not _shm_leftovers()


def test_out_of_order_delivery_yields_every_batch():
    loader = edata.DataLoader(_dataset(ember, edata), batch_size=2, num_workers=2,
                              in_order=False)
    assert sorted(i for _, y in loader for i in y.tolist()) == list(range(10))


def test_batches_arrive_in_shared_memory():
    batch = next(iter(edata.DataLoader(_dataset(ember, edata), batch_size=4, num_workers=1)))
    x = batch[0]
    root = x._data
    while getattr(root, "base", None) is not None:
        root = root.base
    import mmap
    assert isinstance(getattr(root, "obj", root), mmap.mmap) or shared_unavailable()
    np.testing.assert_array_equal(x.numpy(), np.arange(8.0).reshape(4, 2))


def shared_unavailable():
    from ember.utils.data._utils import shared
    return not shared.AVAILABLE


@pytest.mark.parametrize("seeded", ["generator", "global"])
def test_shuffled_batches_come_in_pytorchs_order(seeded):
    def batches(lib, data):
        kwargs = {}
        if seeded == "generator":
            kwargs["generator"] = lib.Generator().manual_seed(7)
        else:
            lib.manual_seed(7)
        loader = data.DataLoader(_dataset(lib, data), batch_size=3, shuffle=True, **kwargs)
        return [[y.tolist() for _, y in loader] for _ in range(2)]
    assert batches(ember, edata) == batches(torch, tdata)
