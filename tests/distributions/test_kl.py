"""kl_divergence against PyTorch for every pair PyTorch registers (values and gradients),
dispatch through register_kl, and the errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.distributions.kl as torch_kl
from tests.distributions.cases import CASES, Case

import ember
import ember.distributions as D

# One case per family name; the Uniform on part of (0, 1) reaches the finite branches of the
# pairs whose q lives on (0, 1) or (0, inf).
_UNIT_UNIFORM = Case("Uniform_unit", "Uniform",
                     {"low": np.array([0.1, 0.25, 0.05]), "high": np.array([0.5, 0.9, 0.7])},
                     lambda g: g.uniform(0.3, 0.45, (4, 3)))
_FAMILY_CASE = {case.family: case for case in reversed(list(CASES.values())) if case.family}
_FAMILY_CASE["Uniform"] = _UNIT_UNIFORM
_FAMILY_CASE["Bernoulli"] = CASES["Bernoulli_probs"]
_FAMILY_CASE["Categorical"] = CASES["Categorical_probs"]
_FAMILY_CASE["ContinuousBernoulli"] = CASES["ContinuousBernoulli"]
_FAMILY_CASE["Binomial"] = CASES["Binomial"]
_FAMILY_CASE["Normal"] = CASES["Normal"]
# (these three are tested on their own below)
_SKIPPED_FAMILIES = {"ExponentialFamily", "TransformedDistribution", "Independent"}


def _pairs():
    names = sorted({(p.__name__, q.__name__) for p, q in torch_kl._KL_REGISTRY})
    return [pair for pair in names if not set(pair) & _SKIPPED_FAMILIES]


def test_every_registered_pair_is_registered_here():
    mine = {(p.__name__, q.__name__) for p, q in D.kl._KL_REGISTRY}
    theirs = {(p.__name__, q.__name__) for p, q in torch_kl._KL_REGISTRY}
    assert theirs - mine == set()


def _kl_and_grads(lib, p_case, q_case):
    p_params, q_params = p_case.tensors(lib), q_case.tensors(lib)
    p, q = p_case.build(lib, p_params), q_case.build(lib, q_params)
    kl = lib.distributions.kl_divergence(p, q)
    finite = lib.where(lib.isfinite(kl), kl, lib.zeros_like(kl))
    leaves = [t for t in list(p_params.values()) + list(q_params.values())
              if isinstance(t, lib.Tensor) and t.requires_grad]
    grads = lib.autograd.grad(finite.sum(), leaves, allow_unused=True) if finite.requires_grad \
        else [None] * len(leaves)
    return kl, grads


@pytest.mark.parametrize("pair", _pairs(), ids="-".join)
def test_kl_values_and_gradients(pair):
    p_case, q_case = _FAMILY_CASE[pair[0]], _FAMILY_CASE[pair[1]]
    expected, expected_grads = _kl_and_grads(torch, p_case, q_case)
    got, got_grads = _kl_and_grads(ember, p_case, q_case)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5,
                               atol=1e-8, equal_nan=True)
    for mine, theirs in zip(got_grads, expected_grads):
        if theirs is None:
            assert mine is None or not bool(mine.abs().sum())
            continue
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-8,
                                   equal_nan=True)


def test_kl_of_transformed_and_independent_distributions():
    for name in ("Independent", "LogNormal", "HalfNormal"):
        case = CASES[name]
        other = Case(name, case.family, {k: v * 1.3 if isinstance(v, np.ndarray) else v
                                         for k, v in case.params.items()}, case.values,
                     builder=case.builder)
        got = D.kl_divergence(case.build(ember), other.build(ember))
        expected = torch.distributions.kl_divergence(case.build(torch), other.build(torch))
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-6)


def test_bregman_kl_of_an_exponential_family_matches_the_closed_form():
    p, q = CASES["Gamma"].build(ember), D.Gamma(ember.tensor([1.5, 2.0, 0.7]),
                                                ember.tensor([1.0, 0.3, 2.0]))
    np.testing.assert_allclose(D.kl._kl_expfamily_expfamily(p, q).detach().numpy(),
                               D.kl_divergence(p, q).detach().numpy(), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl._kl_expfamily_expfamily(p, D.Exponential(ember.tensor([1.0, 2.0, 3.0])))


def test_kl_of_gaussians_with_different_event_shapes_refused():
    def build(lib):
        D = lib.distributions
        return D.kl_divergence(D.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                               D.MultivariateNormal(lib.zeros(3), lib.eye(3)))
    with pytest.raises(ValueError, match="different event shapes"):
        build(torch)
    with pytest.raises(ValueError, match="different event shapes"):
        build(ember)


def test_unregistered_pair_raises_not_implemented():
    with pytest.raises(NotImplementedError,
                       match="No KL\\(p \\|\\| q\\) is implemented for p type Cauchy and q "
                             "type Normal"):
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0))


def test_register_kl_serves_subclasses_and_the_most_specific_pair_wins():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    np.testing.assert_allclose(float(D.kl_divergence(p, q)),
                               float(D.kl._kl_normal_normal(p, q)))

    @D.register_kl(MyNormal, D.Normal)
    def _constant(p, q):
        return ember.tensor(42.0)

    try:
        assert float(D.kl_divergence(p, q)) == 42.0
        assert float(D.kl_divergence(q, q)) != 42.0
    finally:
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
        D.kl._KL_MEMOIZE.clear()


def test_ambiguous_pairs_warn():
    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: ember.tensor(1.0))
    D.register_kl(D.Normal, B)(lambda p, q: ember.tensor(2.0))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
        assert any("Ambiguous kl_divergence(A, B)" in str(w.message) for w in caught)
    finally:
        del D.kl._KL_REGISTRY[A, D.Normal]
        del D.kl._KL_REGISTRY[D.Normal, B]
        D.kl._KL_MEMOIZE.clear()


def test_register_kl_refuses_non_distributions():
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        D.register_kl(int, D.Normal)
