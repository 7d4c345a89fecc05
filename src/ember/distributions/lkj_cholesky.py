"""LKJCholesky(dim, concentration): Cholesky factors of random correlation matrices, with
density proportional to det(L L^T)^(concentration - 1)."""
from __future__ import annotations

import math
from typing import ClassVar

import ember
from ember.distributions import constraints
from ember.distributions.dirichlet import Beta
from ember.distributions.distribution import Distribution
from ember.distributions.utils import _mvlgamma, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Drawn by the onion method: row i of the factor is a uniform direction in the first i
    coordinates scaled by the square root of a Beta draw, its diagonal entry what is left to
    make the row unit length."""

    arg_constraints: ClassVar[dict] = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = ember.Size((dim, dim))
        # the squared norm of each row's off-diagonal part is Beta(i / 2, c + (dim - i - 1)/2)
        marginal_concentration = self.concentration + 0.5 * (self.dim - 2)
        offset = ember.arange(self.dim - 1, dtype=self.concentration.dtype,
                              device=self.concentration.device)
        offset = ember.cat([offset.new_zeros((1,)), offset])
        beta_concentration1 = offset + 0.5
        beta_concentration0 = marginal_concentration.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_concentration1, beta_concentration0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = ember.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = ember.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                               device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # (the first row has no off-diagonal part: 0 / 0 there becomes 0)
        first_row = ember.arange(self.dim, device=y.device) == 0
        u_hypersphere = ember.where(first_row.unsqueeze(-1), 0.0, u_hypersphere)
        w = ember.sqrt(y) * u_hypersphere
        tiny = ember.finfo(w.dtype).tiny
        diag_elems = ember.clamp(1 - ember.sum(w ** 2, dim=-1), min=tiny).sqrt()
        return w + ember.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = ember.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = ember.sum(order * diag_elems.log(), dim=-1)
        # the normaliser of Lewandowski, Kurowicka and Joe (2009), through the multivariate
        # log-gamma (whose own pi term differs from theirs by (dim - 1) log(pi) / 2)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = ember.lgamma(alpha) * dm1
        numerator = _mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
