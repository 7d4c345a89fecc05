"""Seeded draws: ember's random ops give PyTorch's stream, so every family that draws through
them gives PyTorch's samples for the same seed (exactly where the arithmetic after the draw
is the same; to rounding where a transform's exp or log may differ in the last bit)."""
import numpy as np
import pytest
import torch
from tests._capability import NORMAL_FILL_ULPS, UNIFORM_ULPS, assert_same_draws

import ember

_EXACT = {
    "Normal.sample": lambda l, D: D.Normal(l.zeros(20, dtype=l.float64),
                                           l.ones(20, dtype=l.float64)).sample((3,)),
    "Normal.rsample": lambda l, D: D.Normal(l.zeros(20), l.ones(20)).rsample((3,)),
    "Normal.rsample small": lambda l, D: D.Normal(l.zeros(3), l.ones(3)).rsample(),
    "Uniform": lambda l, D: D.Uniform(l.zeros(5), l.ones(5)).rsample((2,)),
    "Exponential": lambda l, D: D.Exponential(l.ones(5)).rsample((2,)),
    "Cauchy": lambda l, D: D.Cauchy(l.zeros(5), l.ones(5)).rsample((2,)),
    "Laplace": lambda l, D: D.Laplace(l.zeros(5), l.ones(5)).rsample((2,)),
    "Bernoulli": lambda l, D: D.Bernoulli(l.full((5,), 0.3)).sample((2,)),
    "Categorical": lambda l, D: D.Categorical(l.tensor([0.1, 0.2, 0.7])).sample((6,)),
    "Categorical batched": lambda l, D: D.Categorical(
        l.tensor([[0.1, 0.2, 0.7], [0.5, 0.4, 0.1]])).sample(),
    "OneHotCategorical": lambda l, D: D.OneHotCategorical(
        l.tensor([0.1, 0.2, 0.7])).sample((4,)),
    "Multinomial": lambda l, D: D.Multinomial(5, l.tensor([0.1, 0.2, 0.7])).sample((2,)),
    "Geometric": lambda l, D: D.Geometric(l.full((5,), 0.3)).sample((2,)),
    "HalfNormal": lambda l, D: D.HalfNormal(l.ones(5)).rsample((2,)),
    "HalfCauchy": lambda l, D: D.HalfCauchy(l.ones(5)).rsample((2,)),
    "RelaxedBernoulli": lambda l, D: D.RelaxedBernoulli(l.tensor(0.5),
                                                        l.full((5,), 0.3)).rsample((2,)),
    "VonMises": lambda l, D: D.VonMises(l.zeros(5), l.ones(5)).sample((2,)),
    "MixtureSameFamily": lambda l, D: D.MixtureSameFamily(
        D.Categorical(l.tensor([0.3, 0.7])), D.Normal(l.zeros(2), l.ones(2))).sample((4,)),
}
_CLOSE = {
    "Gumbel": lambda l, D: D.Gumbel(l.zeros(5), l.ones(5)).rsample((2,)),
    "LogNormal": lambda l, D: D.LogNormal(l.zeros(5), l.ones(5)).rsample((2,)),
    "Weibull": lambda l, D: D.Weibull(l.ones(5), l.ones(5) * 2).rsample((2,)),
    "Pareto": lambda l, D: D.Pareto(l.ones(5), l.ones(5) * 2).rsample((2,)),
    "Kumaraswamy": lambda l, D: D.Kumaraswamy(l.ones(5), l.ones(5) * 2).rsample((2,)),
    "RelaxedOneHotCategorical": lambda l, D: D.RelaxedOneHotCategorical(
        l.tensor(0.5), l.tensor([0.1, 0.2, 0.7])).rsample((2,)),
    "ContinuousBernoulli": lambda l, D: D.ContinuousBernoulli(
        l.full((5,), 0.3)).rsample((2,)),
    "LogisticNormal": lambda l, D: D.LogisticNormal(l.zeros(2), l.ones(2)).rsample((2,)),
}


def _draw(lib, make):
    lib.manual_seed(5)
    result = make(lib, lib.distributions)
    return result.detach().numpy(), str(result.dtype).split(".")[-1]


# Exact under AVX2/AVX-512 only (tests/_capability.py): the float32 normal fill, and a
# uniform_(low, high).
_BY_CAPABILITY = {"Normal.rsample": NORMAL_FILL_ULPS, "Laplace": UNIFORM_ULPS}


@pytest.mark.parametrize("name", sorted(_EXACT))
def test_seeded_samples_equal_pytorchs(name):
    got, got_dtype = _draw(ember, _EXACT[name])
    expected, expected_dtype = _draw(torch, _EXACT[name])
    assert got_dtype == expected_dtype
    assert_same_draws(got, expected, _BY_CAPABILITY.get(name, 0))


@pytest.mark.parametrize("name", sorted(_CLOSE))
def test_seeded_transformed_samples_match_pytorchs(name):
    got, got_dtype = _draw(ember, _CLOSE[name])
    expected, expected_dtype = _draw(torch, _CLOSE[name])
    assert got_dtype == expected_dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_rsample_gradients_match_pytorchs():
    """The same draw, so the pathwise gradients agree too."""
    grads = []
    for lib in (torch, ember):
        lib.manual_seed(3)
        loc = lib.tensor([0.5, -1.0], requires_grad=True)
        scale = lib.tensor([1.5, 0.2], requires_grad=True)
        lib.distributions.Normal(loc, scale).rsample((4,)).pow(2).sum().backward()
        grads.append((loc.grad.numpy(), scale.grad.numpy()))
    for mine, theirs in zip(grads[1], grads[0]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_gamma_family_rsample_is_reparameterised():
    concentration = ember.tensor([0.5, 2.0, 9.0], requires_grad=True)
    draws = ember.distributions.Gamma(concentration, 1.0).rsample((2000,))
    draws.mean(0).sum().backward()
    # d E[x] / d concentration = 1 for a Gamma(c, 1)
    np.testing.assert_allclose(concentration.grad.numpy(), np.ones(3), atol=0.15)
    alpha = ember.tensor([2.0, 3.0, 5.0], requires_grad=True)
    ember.distributions.Dirichlet(alpha).rsample((2000,)).mean(0)[0].backward()
    # E[x_0] = a_0 / sum a: gradient (sum - a_0, -a_0, -a_0) / sum^2
    expected = np.array([8.0, -2.0, -2.0]) / 100
    np.testing.assert_allclose(alpha.grad.numpy(), expected, atol=0.01)
    for name in ("Beta", "Chi2", "StudentT", "FisherSnedecor", "InverseGamma"):
        family = getattr(ember.distributions, name)
        assert family.has_rsample
