"""ExponentialFamily: densities p(x) = h(x) exp(<t(x), theta> - F(theta)); the entropy
follows from the log normaliser F by the Bregman divergence."""
from __future__ import annotations

import ember
from ember.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A family that gives `_natural_params`, `_log_normalizer(*natural_params)` and
    `_mean_carrier_measure` (E[log h(x)]) gets `entropy` from them."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        # H = F(theta) - <theta, grad F(theta)> - E[log h(x)]
        result = -self._mean_carrier_measure
        natural = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*natural)
        gradients = ember.autograd.grad(log_normalizer.sum(), natural, create_graph=True)
        result = result + log_normalizer
        for parameter, gradient in zip(natural, gradients):
            result = result - (parameter * gradient).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
