"""Datasets, samplers and collation against PyTorch's."""
import collections

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def _same(ours, theirs):
    """Structures equal, tensors compared by dtype name and values."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, ember.Tensor), type(ours)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        return
    assert type(ours).__name__ == type(theirs).__name__, (type(ours), type(theirs))
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        for key in theirs:
            _same(ours[key], theirs[key])
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    else:
        assert ours == theirs


Point = collections.namedtuple("Point", ["x", "y"])


def _samples(lib, kind):
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    return {
        "tensors": [lib.tensor(arr[i]) for i in range(2)],
        "numpy": [arr[0], arr[1]],
        "numbers": [1, 2],
        "floats": [1.5, 2.5],
        "numpy scalars": [np.float32(1.5), np.int64(3)],
        "strings": ["a", "b"],
        "bytes": [b"a", b"b"],
        "dicts": [{"a": 1, "b": lib.tensor([1.0])}, {"a": 2, "b": lib.tensor([2.0])}],
        "tuples": [(1, 2.0, "x"), (3, 4.0, "y")],
        "lists": [[1, 2], [3, 4]],
        "namedtuples": [Point(1, lib.tensor(1.0)), Point(2, lib.tensor(2.0))],
        "bools": [True, False],
    }[kind]


KINDS = ["tensors", "numpy", "numbers", "floats", "numpy scalars", "strings", "bytes", "dicts",
         "tuples", "lists", "namedtuples", "bools"]


@pytest.mark.parametrize("kind", KINDS)
def test_default_collate_matches_pytorch(kind):
    _same(edata.default_collate(_samples(ember, kind)),
          tdata.default_collate(_samples(torch, kind)))


@pytest.mark.parametrize("kind", KINDS)
def test_default_convert_matches_pytorch(kind):
    _same(edata.default_convert(_samples(ember, kind)),
          tdata.default_convert(_samples(torch, kind)))


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - class and message compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("batch", [[object(), object()], [[1, 2], [3]],
                                   [np.array(["a"]), np.array(["b"])]])
def test_collate_errors_match_pytorch(batch):
    assert _error(lambda: edata.default_collate(batch)) == \
        _error(lambda: tdata.default_collate(batch))


def test_datasets_match_pytorch():
    def build(lib, data):
        x = lib.arange(12.0).view(6, 2)
        y = lib.arange(6)
        tensors = data.TensorDataset(x, y)
        stacked = data.StackDataset(tensors, y)
        named = data.StackDataset(a=tensors, b=y)
        concat = data.ConcatDataset([tensors, data.Subset(tensors, [5, 0])])
        return [tensors[2], len(tensors), stacked[1], named[3], len(concat), concat[6],
                concat[-1], stacked.__getitems__([0, 2]), (tensors + tensors)[7]]
    ours = build(ember, edata)
    theirs = build(torch, tdata)
    for a, b in zip(ours, theirs):
        _same(a, b)


def test_chain_and_iterable_datasets():
    class Stream(edata.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    chain = Stream(2) + Stream(3)
    assert isinstance(chain, edata.ChainDataset)
    assert list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5


def test_random_split_lengths_and_fractions_match_pytorch():
    for lengths in ([3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [0.33, 0.33, 0.34]):
        ours = edata.random_split(range(10), lengths, generator=ember.Generator().manual_seed(1))
        theirs = tdata.random_split(range(10), lengths,
                                    generator=torch.Generator().manual_seed(1))
        assert [s.indices for s in ours] == [s.indices for s in theirs]
    assert _error(lambda: edata.random_split(range(10), [3, 3])) == \
        _error(lambda: tdata.random_split(range(10), [3, 3]))


@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_and_sequential_samplers_match_pytorch(drop_last):
    ours = edata.BatchSampler(edata.SequentialSampler(range(10)), 3, drop_last)
    theirs = tdata.BatchSampler(tdata.SequentialSampler(range(10)), 3, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)


@pytest.mark.parametrize("make", [
    lambda d: d.BatchSampler(range(3), 0, False),
    lambda d: d.BatchSampler(range(3), 2, "no"),
    lambda d: d.RandomSampler(range(3), replacement=1),
    lambda d: d.RandomSampler(range(3), num_samples=0),
    lambda d: d.WeightedRandomSampler([0.1, 0.9], 0),
    lambda d: d.WeightedRandomSampler([[0.1, 0.9]], 2),
    lambda d: d.DistributedSampler(range(3), num_replicas=2, rank=2),
])
def test_sampler_errors_match_pytorch(make):
    assert _error(lambda: make(edata)) == _error(lambda: make(tdata))


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
def test_distributed_sampler_shares(drop_last, shuffle):
    for rank in range(3):
        ours = edata.DistributedSampler(range(10), 3, rank, shuffle=shuffle, drop_last=drop_last)
        theirs = tdata.DistributedSampler(range(10), 3, rank, shuffle=shuffle,
                                          drop_last=drop_last)
        assert len(ours) == len(theirs)
        assert list(ours) == list(theirs)


def test_weighted_and_random_samplers_draw_pytorchs_indices():
    def draws(lib, data):
        weighted = data.WeightedRandomSampler([0.0, 1.0, 0.5, 3.0], 50,
                                              generator=lib.Generator().manual_seed(0))
        with_replacement = data.RandomSampler(range(7), replacement=True, num_samples=40,
                                              generator=lib.Generator().manual_seed(1))
        subset = data.SubsetRandomSampler([3, 5, 8, 13],
                                          generator=lib.Generator().manual_seed(2))
        return list(weighted), list(with_replacement), list(subset)
    assert draws(ember, edata) == draws(torch, tdata)
