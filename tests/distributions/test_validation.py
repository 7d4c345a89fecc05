"""validate_args: PyTorch's ValueError messages for bad parameters and values, and the
switches (validate_args=False, Distribution.set_default_validate_args)."""
import re

import pytest
import torch

import ember


def _same_error(build):
    """`build(lib)` raises the same exception class with the same message in both."""
    with pytest.raises(Exception) as expected:
        build(torch)
    with pytest.raises(type(expected.value)) as got:
        build(ember)
    assert _plain(str(got.value)) == _plain(str(expected.value))


def _plain(message):
    return re.sub(r"\btorch\.", "ember.", message)


@pytest.mark.parametrize("build", [
    lambda lib: lib.distributions.Normal(0.0, -1.0),
    lambda lib: lib.distributions.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -1.0])),
    lambda lib: lib.distributions.Gamma(lib.tensor([1.0, 0.0]), 1.0),
    lambda lib: lib.distributions.Beta(lib.tensor([1.0]), lib.tensor([-2.0])),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5, 1.5])),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([[0.5, -0.5]])),
    lambda lib: lib.distributions.Dirichlet(lib.tensor([1.0, -1.0])),
    lambda lib: lib.distributions.Uniform(1.0, 0.0),
    lambda lib: lib.distributions.Geometric(probs=lib.tensor([0.0, 0.5])),
    lambda lib: lib.distributions.Poisson(lib.tensor([-1.0])),
    lambda lib: lib.distributions.StudentT(lib.tensor([-1.0])),
    lambda lib: lib.distributions.LogNormal(0.0, lib.tensor([0.0])),
    lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([2.0]), validate_args=True),
], ids=lambda build: "")
def test_bad_parameters_raise_pytorchs_value_error(build):
    _same_error(build)


@pytest.mark.parametrize("build", [
    lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob([0.0]),
    lambda lib: lib.distributions.Exponential(lib.tensor([1.0, 2.0])).log_prob(
        lib.tensor([1.0, -1.0])),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
    lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.ones(2) / 2),
    lambda lib: lib.distributions.Bernoulli(0.3).log_prob(lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(lib.ones(3)).log_prob(lib.tensor(3)),
    lambda lib: lib.distributions.Beta(2.0, 2.0).log_prob(lib.tensor([1.5])),
    lambda lib: lib.distributions.Binomial(5, lib.tensor([0.5])).log_prob(lib.tensor([6.0])),
], ids=lambda build: "")
def test_bad_values_raise_pytorchs_value_error(build):
    _same_error(build)


@pytest.mark.parametrize("build", [
    lambda lib: lib.distributions.Bernoulli(),
    lambda lib: lib.distributions.Bernoulli(probs=0.5, logits=0.0),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(logits=lib.tensor(0.5)),
    lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
    lambda lib: lib.distributions.Multinomial(lib.tensor(3), lib.ones(3)),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), 1.0), 2),
    lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), "exp"),
    lambda lib: lib.distributions.MixtureSameFamily(lib.distributions.Normal(0.0, 1.0),
                                                    lib.distributions.Normal(0.0, 1.0)),
    lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(3)),
        lib.distributions.Normal(lib.zeros(2), 1.0)),
    lambda lib: lib.distributions.Binomial(lib.tensor([2.0, 3.0]), lib.tensor(0.5)).entropy(),
    lambda lib: lib.distributions.transforms.ReshapeTransform((2, 3), (5,)),
    lambda lib: lib.distributions.Distribution.set_default_validate_args(3),
], ids=lambda build: "")
def test_misuse_raises_pytorchs_exception(build):
    _same_error(build)


def test_validate_args_false_skips_the_checks():
    normal = ember.distributions.Normal(0.0, -1.0, validate_args=False)
    assert not normal._validate_args
    assert float(normal.log_prob(ember.tensor(0.0))) != 0
    ember.distributions.Exponential(1.0, validate_args=False).log_prob(ember.tensor(-1.0))


def test_set_default_validate_args_switches_new_instances():
    Distribution = ember.distributions.Distribution
    assert Distribution._validate_args is True
    Distribution.set_default_validate_args(False)
    try:
        assert ember.distributions.Normal(0.0, -1.0)._validate_args is False
        assert ember.distributions.Normal(0.0, 1.0, validate_args=True)._validate_args is True
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        ember.distributions.Normal(0.0, -1.0)


def test_expand_of_a_subclass_with_its_own_init_needs_its_own_expand():
    def build(lib):
        class Shifted(lib.distributions.Normal):
            def __init__(self, loc):
                super().__init__(loc, 1.0)
        return Shifted(lib.zeros(2)).expand((3, 2))
    _same_error(build)


def test_repr_matches_pytorchs():
    for build in (lambda lib: lib.distributions.Normal(0.0, 1.0),
                  lambda lib: lib.distributions.Normal(lib.zeros(3), lib.ones(3)),
                  lambda lib: lib.distributions.Bernoulli(logits=lib.tensor([0.3])),
                  lambda lib: lib.distributions.Independent(
                      lib.distributions.Normal(lib.zeros(3), 1.0), 1),
                  lambda lib: lib.distributions.MixtureSameFamily(
                      lib.distributions.Categorical(lib.ones(2)),
                      lib.distributions.Normal(lib.zeros(2), 1.0))):
        assert _plain(repr(build(ember))) == _plain(repr(build(torch)))
