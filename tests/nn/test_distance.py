"""Distances and similarities (F.pairwise_distance, cosine_similarity, pdist, cdist,
normalize, one_hot; nn.PairwiseDistance, nn.CosineSimilarity) against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from nn.compare import check_module


def _run(lib, name, arrays, kwargs, grad=True):
    tensors = [lib.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    target = lib if name in ("cdist",) else lib.nn.functional
    out = getattr(target, name)(*tensors, **kwargs)
    if not grad:
        return out.numpy(), []
    upstream = lib.from_numpy(np.random.default_rng(0).standard_normal(tuple(out.shape)))
    grads = lib.autograd.grad(out, tensors, upstream)
    return out.detach().numpy(), [g.numpy() for g in grads]


def _compare(name, arrays, rtol=1e-10, atol=1e-12, **kwargs):
    t_out, t_grads = _run(torch, name, arrays, kwargs)
    e_out, e_grads = _run(ember, name, arrays, kwargs)
    np.testing.assert_allclose(e_out, t_out, rtol=rtol, atol=atol)
    for e, t in zip(e_grads, t_grads, strict=True):
        np.testing.assert_allclose(e, t, rtol=rtol * 100, atol=atol * 100)


RNG = np.random.default_rng(1)
X1, X2 = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(p, keepdim):
    _compare("pairwise_distance", [X1, X2], p=p, keepdim=keepdim)
    _compare("pairwise_distance", [X1, X2[0]], p=p, eps=1e-3, keepdim=keepdim)
    _compare("pairwise_distance", [X1[0], X2[0]], p=p, keepdim=keepdim)


@pytest.mark.parametrize("dim", [1, 0, -1])
def test_cosine_similarity(dim):
    _compare("cosine_similarity", [X1, X2], dim=dim)
    _compare("cosine_similarity", [X1, X2[:1]], dim=dim)
    _compare("cosine_similarity", [RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 4))],
             dim=dim)


def test_cosine_similarity_small_norm_clamped():
    small = np.full((2, 3), 1e-10)
    _compare("cosine_similarity", [small, X1[:2, :3]], dim=1, eps=1e-8)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, float("inf"), 3.0])
def test_pdist(p):
    _compare("pdist", [RNG.standard_normal((5, 3))], p=p)


def test_pdist_errors():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
            lib.nn.functional.pdist(lib.zeros(2, 3, 4))
        with pytest.raises(RuntimeError, match="pdist only supports non-negative p values"):
            lib.nn.functional.pdist(lib.zeros(2, 3), -1.0)


@pytest.mark.parametrize("p", [2.0, 1.0])
def test_cdist(p):
    _compare("cdist", [RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 5, 3))], p=p,
             rtol=1e-9)


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (float("inf"), -1), (3.0, 1)])
def test_normalize(p, dim):
    _compare("normalize", [X1], p=p, dim=dim)
    _compare("normalize", [np.zeros((2, 3))], p=p, dim=dim)


def test_normalize_out():
    out_e, out_t = ember.empty(4, 5, dtype=ember.float64), torch.empty(4, 5, dtype=torch.float64)
    ember.nn.functional.normalize(ember.from_numpy(X1), out=out_e)
    torch.nn.functional.normalize(torch.from_numpy(X1), out=out_t)
    np.testing.assert_allclose(out_e.numpy(), out_t.numpy(), rtol=1e-12)


@pytest.mark.parametrize("values,num_classes", [
    ([1, 0, 3], -1), ([[1, 0], [2, 2]], 5), ([], 3), (2, -1), (2, 4)])
def test_one_hot(values, num_classes):
    t_out = torch.nn.functional.one_hot(torch.tensor(values, dtype=torch.int64), num_classes)
    e_out = ember.nn.functional.one_hot(ember.tensor(values, dtype=ember.int64), num_classes)
    assert e_out.dtype == ember.int64
    assert tuple(e_out.shape) == tuple(t_out.shape)
    np.testing.assert_array_equal(e_out.numpy(), t_out.numpy())


@pytest.mark.parametrize("values,num_classes,dtype,match", [
    ([1, 2], -1, "int32", "one_hot is only applicable to index tensor of type LongTensor."),
    ([1, -2], -1, "int64", "Class values must be non-negative."),
    ([1, 2], 2, "int64", "Class values must be smaller than num_classes."),
    ([], -1, "int64", "Can not infer total number of classes from empty tensor."),
])
def test_one_hot_errors(values, num_classes, dtype, match):
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match=match):
            lib.nn.functional.one_hot(lib.tensor(values, dtype=getattr(lib, dtype)), num_classes)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_modules(dtype):
    x1 = torch.from_numpy(X1).to(dtype)
    x2 = torch.from_numpy(X2).to(dtype)
    check_module(torch.nn.PairwiseDistance(), ember.nn.PairwiseDistance(), x1, x2)
    check_module(torch.nn.PairwiseDistance(p=1.0, eps=0.0, keepdim=True),
                 ember.nn.PairwiseDistance(p=1.0, eps=0.0, keepdim=True), x1, x2)
    check_module(torch.nn.CosineSimilarity(), ember.nn.CosineSimilarity(), x1, x2)
    check_module(torch.nn.CosineSimilarity(dim=0, eps=1e-3),
                 ember.nn.CosineSimilarity(dim=0, eps=1e-3), x1, x2)
    assert ember.nn.PairwiseDistance.__constants__ == torch.nn.PairwiseDistance.__constants__
    assert ember.nn.CosineSimilarity.__constants__ == torch.nn.CosineSimilarity.__constants__
