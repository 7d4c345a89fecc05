"""Large float sums are as accurate as PyTorch's cascade sums (NOTE [pairwise sums]), on one
and on two intra-op threads: full sums, sums over the first, last and a middle dim, half
types, and the ops built on the sum (mean, nansum, var, norm, logsumexp, softmax).

The bounds are relative errors against the float64 sum of the same float32 values: around
1e-7 where a sequential (or einsum) float32 sum is off by 1e-5 or more.
"""
from __future__ import annotations

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

# A float32 cascade sum of a few million values is off by well under this; a sequential one
# by 1e-5 and more.
BOUND = 1e-6


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    ember_before, torch_before = ember.get_num_threads(), torch.get_num_threads()
    ember.set_num_threads(request.param)
    torch.set_num_threads(request.param)
    yield request.param
    ember.set_num_threads(ember_before)
    torch.set_num_threads(torch_before)


def _relative_errors(ember_result, torch_result, exact):
    exact = np.asarray(exact, dtype=np.float64)
    scale = np.maximum(np.abs(exact), np.finfo(np.float64).tiny)
    mine = np.abs(ember_result.numpy().astype(np.float64) - exact) / scale
    theirs = np.abs(torch_result.numpy().astype(np.float64) - exact) / scale
    return mine.max(), theirs.max()


def _check(ember_result, torch_result, exact, bound=BOUND):
    mine, theirs = _relative_errors(ember_result, torch_result, exact)
    # Close to PyTorch's own error (which is about 1e-7 here), and small in absolute terms.
    assert mine <= max(bound, 4 * theirs), f"ember off by {mine:.2e}, torch by {theirs:.2e}"


def test_sum_of_2_24_tenths(threads):
    values = np.full(1 << 24, 0.1, dtype=np.float32)
    exact = values.size * float(values[0])
    _check(ember.from_numpy(values).sum(), torch.from_numpy(values).sum(), exact)


@pytest.fixture(scope="module")
def uniform():
    """Positive values: a sequential float32 sum's rounding errors pile up on one side."""
    return np.random.default_rng(0).random(1 << 22, dtype=np.float32)


def test_sum_of_random_values(threads, uniform):
    exact = uniform.astype(np.float64).sum()
    _check(ember.from_numpy(uniform).sum(), torch.from_numpy(uniform).sum(), exact)


@pytest.mark.parametrize("shape,dim", [((1 << 20, 4), 0), ((4, 1 << 20), -1),
                                       ((1 << 11, 1 << 11), 0), ((1 << 11, 1 << 11), 1),
                                       ((4, 1 << 18, 4), 1), ((1 << 20, 4), (0, 1))],
                         ids=["tall-dim0", "wide-dim-1", "square-dim0", "square-dim1",
                              "middle-dim", "two-dims"])
def test_sum_over_dims(threads, uniform, shape, dim):
    values = uniform.reshape(shape)
    exact = values.astype(np.float64).sum(axis=dim)
    _check(ember.from_numpy(values).sum(dim), torch.from_numpy(values).sum(dim), exact)


def test_sum_of_a_transposed_and_a_strided_view(threads, uniform):
    tall = uniform.reshape(1 << 19, 8)
    for view in (lambda t: t.t(), lambda t: t[::2]):
        e, t = view(ember.from_numpy(tall)), view(torch.from_numpy(tall))
        exact = view(torch.from_numpy(tall).double())
        _check(e.sum(0), t.sum(0), exact.sum(0).numpy())
        _check(e.sum(), t.sum(), exact.sum().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_sums(threads, dtype):
    # 2**20 values of 0.01 sum to about 10486, which float16 and bfloat16 can hold; both
    # libraries add in float32 and round once, so they agree to the last bit of the half type.
    values = torch.full((1 << 20,), 0.01, dtype=getattr(torch, dtype))
    mine = ember.full((1 << 20,), 0.01, dtype=getattr(ember, dtype))
    ulp = float(torch.finfo(values.dtype).eps)
    for e, t in ((mine.sum(), values.sum()), (mine.reshape(1 << 18, 4).sum(0),
                                             values.reshape(1 << 18, 4).sum(0)),
                 (mine.reshape(4, 1 << 18).mean(1), values.reshape(4, 1 << 18).mean(1))):
        assert e.dtype == getattr(ember, dtype)
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=ulp)


def test_ops_built_on_the_sum(threads, uniform):
    tall = uniform[:1 << 20].reshape(1 << 18, 4)
    e, t = ember.from_numpy(tall), torch.from_numpy(tall)
    exact = torch.from_numpy(tall).double()
    _check(e.mean(0), t.mean(0), exact.mean(0).numpy())
    _check(e.mean(), t.mean(), exact.mean().numpy())
    _check(e.norm(dim=0), t.norm(dim=0), exact.norm(dim=0).numpy())
    _check(e.var(0), t.var(0), exact.var(0).numpy(), bound=1e-5)
    _check(e.logsumexp(0), t.logsumexp(0), exact.logsumexp(0).numpy())
    _check(e.t().softmax(1), t.t().softmax(1), exact.t().softmax(1).numpy())
    with_nan = uniform.copy()
    with_nan[::1000] = np.nan
    exact_nan = np.nansum(with_nan.astype(np.float64))
    _check(ember.from_numpy(with_nan).nansum(), torch.from_numpy(with_nan).nansum(), exact_nan)
