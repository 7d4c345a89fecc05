"""Every family against PyTorch on the same parameters: log_prob, cdf, icdf, entropy,
moments, enumerate_support, shapes, supports and the gradients of log_prob."""
import math

import numpy as np
import pytest
import torch
from tests.distributions.cases import CASES

import ember

_PROPERTIES = ("mean", "mode", "variance", "stddev")


def _close(mine, theirs, rtol=1e-6, atol=1e-8):
    assert isinstance(mine, ember.Tensor), type(mine)
    assert tuple(mine.shape) == tuple(theirs.shape)
    if theirs.dtype == torch.float32:      # (float32 cases: a few units of rounding)
        rtol, atol = max(rtol, 2e-5), max(atol, 1e-6)
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=atol, equal_nan=True)


def _both(case):
    return case.build(ember), case.build(torch)


def _call_both(mine_fn, theirs_fn):
    """Both results, or both NotImplementedError (then None)."""
    try:
        theirs = theirs_fn()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            mine_fn()
        return None, None
    return mine_fn(), theirs


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_support_and_flags(name):
    mine, theirs = _both(CASES[name])
    assert tuple(mine.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(mine.event_shape) == tuple(theirs.event_shape)
    assert mine.has_rsample == theirs.has_rsample
    assert mine.has_enumerate_support == theirs.has_enumerate_support
    assert repr(mine.support).split("(")[0] == repr(theirs.support).split("(")[0]
    assert sorted(mine.arg_constraints) == sorted(theirs.arg_constraints)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_its_gradients(name):
    case = CASES[name]
    values = case.values(np.random.default_rng(7))
    mine_params, theirs_params = case.tensors(ember), case.tensors(torch)
    mine, theirs = case.build(ember, mine_params), case.build(torch, theirs_params)
    expected = theirs.log_prob(torch.tensor(values))
    got = mine.log_prob(ember.tensor(values))
    _close(got, expected)
    if not expected.requires_grad:
        assert not got.requires_grad
        return
    expected.sum().backward()
    got.sum().backward()
    for key, param in theirs_params.items():
        if isinstance(param, torch.Tensor) and param.requires_grad:
            assert mine_params[key].grad is not None, key
            _close(mine_params[key].grad, param.grad, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_moments_and_entropy(name):
    mine, theirs = _both(CASES[name])
    for attribute in _PROPERTIES:
        got, expected = _call_both(lambda attribute=attribute: getattr(mine, attribute),
                                   lambda attribute=attribute: getattr(theirs, attribute))
        if expected is not None:
            _close(got, expected, rtol=1e-5)
    got, expected = _call_both(mine.entropy, theirs.entropy)
    if expected is not None:
        _close(got, expected, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cdf_and_icdf(name):
    case = CASES[name]
    mine, theirs = _both(case)
    values = case.values(np.random.default_rng(3))
    got, expected = _call_both(lambda: mine.cdf(ember.tensor(values)),
                               lambda: theirs.cdf(torch.tensor(values)))
    if expected is not None:
        _close(got, expected, rtol=1e-5)
    probs = np.random.default_rng(4).uniform(0.05, 0.95, values.shape)
    got, expected = _call_both(lambda: mine.icdf(ember.tensor(probs)),
                               lambda: theirs.icdf(torch.tensor(probs)))
    if expected is not None:
        _close(got, expected, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n].build(torch)
                                        .has_enumerate_support))
def test_enumerate_support(name):
    mine, theirs = _both(CASES[name])
    for expand in (True, False):
        got, expected = _call_both(lambda expand=expand: mine.enumerate_support(expand=expand),
                                   lambda expand=expand: theirs.enumerate_support(expand=expand))
        if expected is None:
            continue
        assert got.dtype.is_floating_point == expected.dtype.is_floating_point
        _close(got, expected)


@pytest.mark.parametrize("name", sorted(CASES))
def test_samples_have_the_shape_dtype_and_support(name):
    mine, theirs = _both(CASES[name])
    ember.manual_seed(0)
    got = mine.sample((2,))
    expected = theirs.sample((2,))
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert not got.requires_grad
    assert bool(mine.support.check(got).all()) if not name.startswith("Mixture") else bool(
        ember.isfinite(got).all())
    if mine.has_rsample:
        drawn = mine.rsample((2,))
        assert drawn.requires_grad == theirs.rsample((2,)).requires_grad
        assert tuple(drawn.shape) == tuple(expected.shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand(name):
    mine, theirs = _both(CASES[name])
    shape = (2,) + tuple(theirs.batch_shape)
    big_mine, big_theirs = mine.expand(shape), theirs.expand(shape)
    assert type(big_mine).__name__ == type(big_theirs).__name__
    assert tuple(big_mine.batch_shape) == tuple(big_theirs.batch_shape)
    assert tuple(big_mine.event_shape) == tuple(big_theirs.event_shape)
    values = CASES[name].values(np.random.default_rng(5))[:1]
    _close(big_mine.log_prob(ember.tensor(values)), big_theirs.log_prob(torch.tensor(values)))
    assert tuple(big_mine.sample().shape) == tuple(big_theirs.sample().shape)


def test_sample_means_match_the_distribution_mean():
    ember.manual_seed(0)
    for name in ("Normal", "Gamma", "Beta", "Poisson", "Binomial", "Exponential", "Dirichlet",
                 "Geometric", "Laplace", "StudentT", "Bernoulli_probs", "Chi2",
                 "NegativeBinomial", "Uniform", "Weibull", "Gumbel", "Kumaraswamy"):
        mine = CASES[name].build(ember)
        draws = mine.sample((4000,))
        spread = mine.stddev if name != "StudentT" else mine.scale * 2
        error = (draws.mean(0) - mine.mean).abs() / spread
        assert bool((error < 0.1).all()), (name, error)


def test_von_mises_samples_centre_on_loc():
    ember.manual_seed(0)
    mine = CASES["VonMises"].build(ember)
    draws = mine.sample((4000,))
    centre = ember.atan2(draws.sin().mean(0), draws.cos().mean(0))
    gap = (centre - mine.loc.detach() + math.pi) % (2 * math.pi) - math.pi
    assert bool((gap.abs() < 0.3).all()), gap
    assert bool(((draws >= -math.pi) & (draws < math.pi)).all())


def test_perplexity_is_exp_entropy():
    mine = CASES["Normal"].build(ember)
    _close(mine.perplexity(), torch.exp(CASES["Normal"].build(torch).entropy()))
    assert math.isfinite(float(mine.perplexity().sum()))
