"""Embedding and EmbeddingBag against PyTorch: lookups, gradients (padding_idx,
scale_grad_by_freq, repeated indices), max_norm renormalisation, from_pretrained, bags."""
import numpy as np
import pytest
import torch
from tests.nn.compare import assert_close, check_module, to_ember

import ember


def _indices(*shape, high=10, seed=0):
    return torch.tensor(np.random.default_rng(seed).integers(0, high, shape))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                    {"scale_grad_by_freq": True}, {"sparse": True},
                                    {"padding_idx": 0, "scale_grad_by_freq": True}])
@pytest.mark.parametrize("shape", [(3, 5), (7,), ()])
def test_embedding_matches_torch(kwargs, dtype, shape):
    e = ember.nn.Embedding(10, 4, **kwargs).to(getattr(ember, str(dtype).split(".")[1]))
    if kwargs.get("sparse"):
        # ember's gradient is dense: compare with PyTorch's dense one.
        assert repr(e) == repr(torch.nn.Embedding(10, 4, **kwargs))
        kwargs = {}
    t = torch.nn.Embedding(10, 4, **kwargs).to(dtype)
    idx = _indices(*shape)
    if "padding_idx" in kwargs and shape:
        idx.view(-1)[0] = kwargs["padding_idx"] % 10
    check_module(t, e, idx, check_repr=not e.sparse)


def test_embedding_backward_large_table_uses_sorted_sums():
    # Above the one-hot size: the sorted reduceat path.
    t = torch.nn.Embedding(1000, 8, padding_idx=5, scale_grad_by_freq=True).double()
    e = ember.nn.Embedding(1000, 8, padding_idx=5, scale_grad_by_freq=True).double()
    idx = _indices(64, 9, high=1000)
    idx[0, :3] = 5
    idx[1, :] = 17
    check_module(t, e, idx)


def test_max_norm_renormalises_in_place():
    t = torch.nn.Embedding(10, 4, max_norm=1.0)
    e = ember.nn.Embedding(10, 4, max_norm=1.0)
    with torch.no_grad():
        t.weight.mul_(3)
    idx = _indices(6)
    check_module(t, e, idx)
    assert_close(e.weight, t.weight)      # looked-up rows rescaled, others untouched
    t2 = torch.nn.Embedding(10, 4, max_norm=2.0, norm_type=1.0)
    e2 = ember.nn.Embedding(10, 4, max_norm=2.0, norm_type=1.0)
    check_module(t2, e2, idx)
    assert_close(e2.weight, t2.weight)


def test_from_pretrained_and_repr():
    w = torch.randn(5, 3)
    t = torch.nn.Embedding.from_pretrained(w, padding_idx=1, max_norm=2.0, norm_type=3.0,
                                           scale_grad_by_freq=True, sparse=True)
    e = ember.nn.Embedding.from_pretrained(to_ember(w), padding_idx=1, max_norm=2.0,
                                           norm_type=3.0, scale_grad_by_freq=True, sparse=True)
    assert repr(e) == repr(t)
    assert e.weight.requires_grad is False
    assert_close(e(to_ember(_indices(4, high=5))), t(_indices(4, high=5)))
    e3 = ember.nn.Embedding(6, 2, padding_idx=3)
    assert (e3.weight[3].detach().numpy() == 0).all()


def test_embedding_errors_match_torch():
    cases = [
        lambda lib, w: lib.nn.functional.embedding(lib.tensor([10]), w),
        lambda lib, w: lib.nn.functional.embedding(lib.tensor([1.0]), w),
        lambda lib, w: lib.nn.Embedding(3, 2, padding_idx=5),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([1, 2]), w),
        lambda lib, w: lib.nn.functional.embedding_bag(lib.tensor([[1, 2]]), w, mode="prod"),
        lambda lib, w: lib.nn.functional.embedding_bag(
            lib.tensor([[1, 2]]), w, mode="max", per_sample_weights=lib.ones(1, 2)),
    ]
    w = torch.randn(10, 3)
    for case in cases:
        with pytest.raises(Exception) as t_error:
            case(torch, w)
        with pytest.raises(t_error.type):
            case(ember, to_ember(w))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_bag_2d(mode, padding_idx):
    t = torch.nn.EmbeddingBag(10, 4, mode=mode, padding_idx=padding_idx).double()
    e = ember.nn.EmbeddingBag(10, 4, mode=mode, padding_idx=padding_idx).double()
    idx = _indices(4, 5)
    idx[0, :2] = 3
    idx[1, :] = 3        # an all-padding bag
    check_module(t, e, idx)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_embedding_bag_offsets(mode, include_last_offset):
    t = torch.nn.EmbeddingBag(10, 3, mode=mode, include_last_offset=include_last_offset)
    e = ember.nn.EmbeddingBag(10, 3, mode=mode, include_last_offset=include_last_offset)
    idx = _indices(9)
    offsets = torch.tensor([0, 2, 2, 6] + ([9] if include_last_offset else []))
    check_module(t, e, idx, offsets)


def test_embedding_bag_per_sample_weights():
    t = torch.nn.EmbeddingBag(10, 3, mode="sum").double()
    e = ember.nn.EmbeddingBag(10, 3, mode="sum").double()
    idx = _indices(6)
    offsets = torch.tensor([0, 4])
    weights = torch.rand(6, dtype=torch.float64)
    check_module(t, e, idx, offsets, weights)
