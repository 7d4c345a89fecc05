"""Gamma(concentration, rate), Chi2(df) and InverseGamma(concentration, rate)."""
from __future__ import annotations

import math
from numbers import Number
from typing import ClassVar

import numpy as np

import ember
from ember.distributions import constraints
from ember.distributions._expand import expand_params
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import PowerTransform
from ember.distributions.utils import broadcast_all

__all__ = ["Chi2", "Gamma", "InverseGamma"]


def _gammainc(a, x):
    """The regularised lower incomplete gamma P(a, x), differentiable in x (not in a, as in
    PyTorch). A local stand-in until ember.special.gammainc exists: the value comes from
    SciPy on the host; the gradient d/dx = x^(a-1) e^-x / Gamma(a) is attached by adding
    density * (x - x.detach()), which is zero in value."""
    import scipy.special
    a, x = ember.broadcast_tensors(a, x)
    values = scipy.special.gammainc(a.detach().double().numpy(), x.detach().double().numpy())
    result = ember.from_numpy(np.asarray(values)).to(x.dtype)
    if x.requires_grad:
        density = ember.exp(ember.xlogy(a - 1, x) - x - ember.lgamma(a)).detach()
        result = result + density * (x - x.detach())
    return result


class Gamma(ExponentialFamily):
    """Density rate^c x^(c-1) exp(-rate x) / Gamma(c), c the concentration."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape = ember.Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, Gamma, batch_shape, ("concentration", "rate"), _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = ember._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # A float32 division can underflow to 0, outside the support: the value is raised to
        # the smallest normal number, the gradient left as the division's.
        floor = value.detach().clamp(min=ember.finfo(value.dtype).tiny)
        return value + (floor - value.detach())

    def log_prob(self, value):
        value = ember.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (ember.xlogy(self.concentration, self.rate)
                + ember.xlogy(self.concentration - 1, value)
                - self.rate * value - ember.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - ember.log(self.rate) + ember.lgamma(self.concentration)
                + (1.0 - self.concentration) * ember.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return ember.lgamma(x + 1) + (x + 1) * ember.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """Gamma(df / 2, 1 / 2)."""

    arg_constraints: ClassVar[dict] = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate)."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return ember.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square()
                                       * (self.concentration - 2))
        return ember.where(self.concentration > 2, result, math.inf)

    def entropy(self):
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())
