"""GeneralizedPareto(loc, scale, concentration): survival function
(1 + concentration z)^(-1 / concentration), z = (x - loc) / scale (exp(-z) at concentration
0)."""
from __future__ import annotations

import math
from numbers import Number, Real
from typing import ClassVar

import ember
from ember.distributions import constraints
from ember.distributions._expand import expand_params
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The limit law of threshold excesses; concentration 0 is the shifted Exponential, a
    negative concentration bounds the support above."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real,
                                       "scale": constraints.positive,
                                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, Number) for v in (loc, scale, concentration)):
            batch_shape = ember.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, GeneralizedPareto, batch_shape,
                             ("loc", "scale", "concentration"), _instance)

    def _safe_concentration(self):
        # (concentration 0 takes the exponential branch; 1 stands in to keep the other finite)
        at_zero = ember.isclose(self.concentration, ember.zeros_like(self.concentration))
        return at_zero, ember.where(at_zero, ember.ones_like(self.concentration),
                                    self.concentration)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = ember.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, safe = self._safe_concentration()
        y = 1 / safe + ember.ones_like(z)
        nonzero = ember.where(y == 0, y, y * ember.log1p(safe * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - ember.where(at_zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, safe = self._safe_concentration()
        return ember.where(at_zero, -z, -ember.log1p(safe * z) / safe)

    def log_cdf(self, value):
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        at_zero, safe = self._safe_concentration()
        logu = ember.log1p(-value)
        nonzero = self.loc + self.scale / safe * ember.expm1(-safe * logu)
        return ember.where(at_zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        safe = ember.where(valid, self.concentration, 0.5)
        return ember.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe = ember.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return ember.where(valid, result, math.nan)

    def entropy(self):
        return ember.broadcast_to(ember.log(self.scale) + self.concentration + 1,
                                  self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = ember.where(self.concentration < 0, lower - self.scale / self.concentration,
                            math.inf)
        return constraints.interval(lower, upper)
