"""VonMises(loc, concentration): the circular normal on [-pi, pi)."""
from __future__ import annotations

import math
from typing import ClassVar

import ember
from ember.distributions import constraints
from ember.distributions._expand import expand_params
from ember.distributions.distribution import Distribution
from ember.distributions.utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# log I0 and log I1 (modified Bessel functions of the first kind) by the polynomial fits of
# Abramowitz and Stegun 9.8.1-9.8.4: in t^2 = (x / 3.75)^2 below 3.75, and for
# sqrt(x) e^-x I(x) in 3.75 / x above. A local composite of ember ops (so it is
# differentiable) until ember.special has i0e / i1e.
_SMALL = {
    0: (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
    1: (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
}
_LARGE = {
    0: (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
        0.02635537, -0.01647633, 0.00392377),
    1: (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967,
        -0.02895312, 0.01787654, -0.00420059),
}


def _polynomial(coefficients, x):
    result = coefficients[-1]
    for coefficient in reversed(coefficients[:-1]):
        result = result * x + coefficient
    return result


def _log_modified_bessel_fn(x, order=0):
    """log I_order(x) for x > 0, order 0 or 1."""
    if order not in (0, 1):
        raise ValueError("order must be 0 or 1")
    y = (x / 3.75).pow(2)
    small = _polynomial(_SMALL[order], y).log()
    if order == 1:
        small = x.log() + small
    large = x - 0.5 * x.log() + _polynomial(_LARGE[order], 3.75 / x).log()
    return ember.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's (1979) wrapped-Cauchy rejection sampler, all elements at once: each
    round draws three uniforms per element and keeps the first accepted value."""
    done = ember.zeros(x.shape, dtype=ember.bool, device=loc.device)
    while not bool(done.all()):
        u1, u2, u3 = ember.rand((3,) + tuple(x.shape), dtype=loc.dtype,
                                device=loc.device).unbind()
        z = ember.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = ember.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """Density exp(concentration cos(x - loc)) / (2 pi I0(concentration))."""

    arg_constraints: ClassVar[dict] = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        batch_shape = self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(self, VonMises, batch_shape, ("loc", "concentration"), _instance)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * ember.cos(value - self.loc)
        return (log_prob - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @property
    def _loc(self):
        return self.loc.to(ember.double)

    @property
    def _concentration(self):
        return self.concentration.to(ember.double)

    @property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        # (for tiny kappa the closed form cancels; its expansion is 1 / kappa + kappa)
        return ember.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)

    @ember.no_grad()
    def sample(self, sample_shape=()):
        """Drawn in double precision (in single precision small concentrations make the
        rejection loop accept almost nothing)."""
        shape = self._extended_shape(sample_shape)
        x = ember.empty(shape, dtype=self._loc.dtype, device=self.loc.device)
        return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                 x).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
