"""The samplers that do not draw PyTorch's stream (NOTE [gamma's stream], NOTE [poisson's
stream]): PyTorch's CPU kernels run a rejection loop per element on one generator, so each
element takes a number of draws that depends on the draws before it. ember's numbers follow the
same distributions instead: two-sample tests against PyTorch's own draws, seeded (so they do not
flake) and large enough that a wrong shape, scale or off-by-one count fails them."""
import numpy as np
import pytest
import torch
from scipy import stats

import ember

SIZE = 20000
# Seeded two-sample tests: a p-value this small means the distributions differ.
P_FLOOR = 1e-3


def _both(fn, seed=3):
    torch.manual_seed(seed)
    ember.manual_seed(seed)
    return fn(ember).double().numpy().ravel(), fn(torch).double().numpy().ravel()


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0, 2.5, 40.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_follows_pytorchs_distribution(alpha, dtype):
    got, expected = _both(lambda L: L._standard_gamma(
        L.full((SIZE,), alpha, dtype=getattr(L, dtype))))
    assert stats.ks_2samp(got, expected).pvalue > P_FLOOR
    assert (got > 0).all()


def test_dirichlet_and_beta_follow_pytorchs_distribution():
    concentration = [0.3, 1.0, 4.0]
    got, expected = _both(lambda L: L.distributions.Dirichlet(
        L.tensor(concentration)).sample((SIZE,)))
    for column in range(3):
        assert stats.ks_2samp(got[column::3], expected[column::3]).pvalue > P_FLOOR
    got, expected = _both(lambda L: L.distributions.Beta(
        L.tensor(0.7), L.tensor(2.5)).sample((SIZE,)))
    assert stats.ks_2samp(got, expected).pvalue > P_FLOOR


def _same_counts(got, expected):
    """Chi-square test of homogeneity over the values either side drew."""
    values = np.union1d(got, expected)
    table = np.array([[np.count_nonzero(got == v) for v in values],
                      [np.count_nonzero(expected == v) for v in values]])
    # (pool the sparse tail so every expected cell count is reasonable)
    keep = table.sum(0) >= 20
    pooled = np.column_stack([table[:, keep], table[:, ~keep].sum(1)]) if (~keep).any() \
        else table
    assert stats.chi2_contingency(pooled).pvalue > P_FLOOR


@pytest.mark.parametrize("rate", [0.1, 3.0, 12.0, 300.0])
def test_poisson_follows_pytorchs_distribution(rate):
    got, expected = _both(lambda L: L.poisson(L.full((SIZE,), rate)))
    assert (got == np.round(got)).all()
    _same_counts(got, expected)


@pytest.mark.parametrize("count, prob", [(1.0, 0.3), (10.0, 0.5), (40.0, 0.05), (500.0, 0.7)])
def test_binomial_follows_pytorchs_distribution(count, prob):
    got, expected = _both(lambda L: L.binomial(L.full((SIZE,), count), L.full((SIZE,), prob)))
    assert ((0 <= got) & (got <= count)).all()
    _same_counts(got, expected)
