"""The distributions under test, built the same way in ember and in PyTorch from NumPy data:
each case names the family, its parameters and valid values of its support."""
from __future__ import annotations

import math

import numpy as np

B = 3          # batch size
N = 4          # values per batch element (the sample dim of the values)


def _pos(rng, *shape, low=0.5, high=2.5):
    return rng.uniform(low, high, shape)


def _simplex(rng, *shape):
    x = rng.uniform(0.2, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


def _counts(rng, total, *shape):
    out = np.zeros(shape)
    picks = rng.integers(0, shape[-1], shape[:-1] + (total,))
    for index in np.ndindex(*shape[:-1]):
        out[index] = np.bincount(picks[index], minlength=shape[-1])
    return out


def _one_hot(rng, *shape):
    return np.eye(shape[-1])[rng.integers(0, shape[-1], shape[:-1])]


class Case:
    """`family` (a name in distributions), `params` (name -> array or number; arrays become
    float64 tensors requiring grad unless named in `fixed`), `values(rng)` -> an array of
    valid values, `extra` other constructor arguments."""

    def __init__(self, name, family, params, values, fixed=(), extra=None, builder=None,
                 dtype="float64"):
        self.name = name
        self.family = family
        self.params = params
        self.values = values
        self.fixed = set(fixed)
        self.extra = extra or {}
        self.builder = builder
        self.dtype = dtype

    def tensors(self, lib, grad=True):
        out = {}
        for key, value in self.params.items():
            if isinstance(value, np.ndarray):
                t = lib.tensor(value, dtype=getattr(lib, self.dtype))
                if grad and key not in self.fixed:
                    t.requires_grad_(True)
                out[key] = t
            else:
                out[key] = value
        return out

    def build(self, lib, params=None):
        params = self.tensors(lib) if params is None else params
        if self.builder is not None:
            return self.builder(lib, params)
        return getattr(lib.distributions, self.family)(**params, **self.extra)


def _mixture(lib, p):
    D = lib.distributions
    return D.MixtureSameFamily(D.Categorical(probs=p["probs"]),
                               D.Normal(p["loc"], p["scale"]))


def _independent(lib, p):
    D = lib.distributions
    return D.Independent(D.Normal(p["loc"], p["scale"]), 1)


def _affine_exp(lib, p):
    D = lib.distributions
    T = D.transforms
    return D.TransformedDistribution(D.Normal(p["loc"], p["scale"]),
                                     [T.AffineTransform(p["shift"], 2.0), T.ExpTransform()])


def _spd(rng, *batch, n=3):
    a = rng.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _corr_cholesky(rng, *batch, n=3):
    out = np.empty(batch + (n, n))
    for index in np.ndindex(*batch):
        out[index] = np.linalg.cholesky(np.corrcoef(rng.normal(size=(n, 2 * n))))
    return out


def make_cases():
    rng = np.random.default_rng(1234)
    r = rng
    cases = [
        Case("Normal", "Normal", {"loc": r.normal(size=B), "scale": _pos(r, B)},
             lambda g: g.normal(size=(N, B))),
        Case("Normal_scalar", "Normal", {"loc": 0.5, "scale": 2.0},
             lambda g: g.normal(size=(N,))),
        Case("LogNormal", "LogNormal", {"loc": r.normal(size=B), "scale": _pos(r, B)},
             lambda g: _pos(g, N, B)),
        Case("HalfNormal", "HalfNormal", {"scale": _pos(r, B)}, lambda g: _pos(g, N, B)),
        Case("Uniform", "Uniform", {"low": -_pos(r, B), "high": _pos(r, B)},
             lambda g: g.uniform(-0.4, 0.4, (N, B))),
        Case("Bernoulli_probs", "Bernoulli", {"probs": r.uniform(0.1, 0.9, B)},
             lambda g: g.integers(0, 2, (N, B)).astype(float)),
        Case("Bernoulli_logits", "Bernoulli", {"logits": r.normal(size=B)},
             lambda g: g.integers(0, 2, (N, B)).astype(float)),
        Case("Categorical_probs", "Categorical", {"probs": _simplex(r, B, 4)},
             lambda g: g.integers(0, 4, (N, B)).astype(float)),
        Case("Categorical_logits", "Categorical", {"logits": r.normal(size=(B, 4))},
             lambda g: g.integers(0, 4, (N, B)).astype(float)),
        Case("OneHotCategorical", "OneHotCategorical", {"probs": _simplex(r, B, 4)},
             lambda g: _one_hot(g, N, B, 4)),
        Case("Binomial", "Binomial", {"total_count": np.full(B, 5.0),
                                      "probs": r.uniform(0.1, 0.9, B)},
             lambda g: g.integers(0, 6, (N, B)).astype(float), fixed=("total_count",)),
        Case("Binomial_logits", "Binomial", {"total_count": np.array([3.0, 6.0, 4.0]),
                                             "logits": r.normal(size=B)},
             lambda g: g.integers(0, 4, (N, B)).astype(float), fixed=("total_count",)),
        Case("Multinomial", "Multinomial", {"total_count": 4, "probs": _simplex(r, B, 3)},
             lambda g: _counts(g, 4, N, B, 3)),
        Case("Poisson", "Poisson", {"rate": _pos(r, B)},
             lambda g: g.integers(0, 6, (N, B)).astype(float)),
        Case("Geometric", "Geometric", {"probs": r.uniform(0.1, 0.9, B)},
             lambda g: g.integers(0, 6, (N, B)).astype(float)),
        Case("NegativeBinomial", "NegativeBinomial", {"total_count": _pos(r, B),
                                                      "probs": r.uniform(0.1, 0.9, B)},
             lambda g: g.integers(0, 6, (N, B)).astype(float)),
        Case("Exponential", "Exponential", {"rate": _pos(r, B)}, lambda g: _pos(g, N, B)),
        Case("Gamma", "Gamma", {"concentration": _pos(r, B), "rate": _pos(r, B)},
             lambda g: _pos(g, N, B)),
        Case("Chi2", "Chi2", {"df": _pos(r, B, low=1.0, high=5.0)}, lambda g: _pos(g, N, B)),
        Case("InverseGamma", "InverseGamma", {"concentration": _pos(r, B, low=2.5, high=4),
                                              "rate": _pos(r, B)}, lambda g: _pos(g, N, B)),
        Case("Beta", "Beta", {"concentration1": _pos(r, B), "concentration0": _pos(r, B)},
             lambda g: g.uniform(0.05, 0.95, (N, B))),
        Case("Dirichlet", "Dirichlet", {"concentration": _pos(r, B, 4)},
             lambda g: _simplex(g, N, B, 4)),
        Case("Laplace", "Laplace", {"loc": r.normal(size=B), "scale": _pos(r, B)},
             lambda g: g.normal(size=(N, B))),
        Case("Cauchy", "Cauchy", {"loc": r.normal(size=B), "scale": _pos(r, B)},
             lambda g: g.normal(size=(N, B))),
        Case("HalfCauchy", "HalfCauchy", {"scale": _pos(r, B)}, lambda g: _pos(g, N, B)),
        Case("StudentT", "StudentT", {"df": _pos(r, B, low=0.8, high=5.0),
                                      "loc": r.normal(size=B), "scale": _pos(r, B)},
             lambda g: g.normal(size=(N, B))),
        Case("Gumbel", "Gumbel", {"loc": r.normal(size=B), "scale": _pos(r, B)},
             lambda g: g.normal(size=(N, B))),
        Case("Weibull", "Weibull", {"scale": _pos(r, B), "concentration": _pos(r, B)},
             lambda g: _pos(g, N, B)),
        Case("Pareto", "Pareto", {"scale": _pos(r, B, low=0.1, high=0.4),
                                  "alpha": _pos(r, B, low=0.5, high=3.0)},
             lambda g: _pos(g, N, B)),
        Case("VonMises", "VonMises", {"loc": r.normal(size=B),
                                      "concentration": np.array([0.5, 2.0, 8.0])},
             lambda g: g.uniform(-math.pi, math.pi, (N, B))),
        Case("Kumaraswamy", "Kumaraswamy", {"concentration1": _pos(r, B),
                                            "concentration0": _pos(r, B)},
             lambda g: g.uniform(0.05, 0.95, (N, B))),
        Case("FisherSnedecor", "FisherSnedecor", {"df1": _pos(r, B, low=1, high=6),
                                                  "df2": _pos(r, B, low=1, high=6)},
             lambda g: _pos(g, N, B)),
        Case("LogisticNormal", "LogisticNormal", {"loc": r.normal(size=(B, 2)),
                                                  "scale": _pos(r, B, 2)},
             lambda g: _simplex(g, N, B, 3)),
        Case("ContinuousBernoulli", "ContinuousBernoulli",
             {"probs": np.array([0.2, 0.4995, 0.8])}, lambda g: g.uniform(0.05, 0.95, (N, B))),
        Case("ContinuousBernoulli_logits", "ContinuousBernoulli",
             {"logits": r.normal(size=B)}, lambda g: g.uniform(0.05, 0.95, (N, B))),
        Case("RelaxedBernoulli", "RelaxedBernoulli",
             {"temperature": np.array(0.7), "probs": r.uniform(0.1, 0.9, B)},
             lambda g: g.uniform(0.05, 0.95, (N, B))),
        Case("RelaxedOneHotCategorical", "RelaxedOneHotCategorical",
             {"temperature": np.array(0.7), "probs": _simplex(r, B, 4)},
             lambda g: _simplex(g, N, B, 4)),
        Case("GeneralizedPareto", "GeneralizedPareto",
             {"loc": np.array([0.0, -0.5, 0.2]), "scale": _pos(r, B),
              "concentration": np.array([0.3, 0.0, -0.1])},
             lambda g: g.uniform(0.25, 1.5, (N, B)).astype(np.float32),
             dtype="float32"),      # (PyTorch's isclose against a float32 0 fails on float64)
        Case("MultivariateNormal_cov", "MultivariateNormal",
             {"loc": r.normal(size=(B, 3)), "covariance_matrix": _spd(r, B)},
             lambda g: g.normal(size=(N, B, 3))),
        Case("MultivariateNormal_precision", "MultivariateNormal",
             {"loc": r.normal(size=3), "precision_matrix": _spd(r, B)},
             lambda g: g.normal(size=(N, B, 3))),
        Case("MultivariateNormal_tril", "MultivariateNormal",
             {"loc": r.normal(size=(B, 3)),
              "scale_tril": np.linalg.cholesky(_spd(r, B))},
             lambda g: g.normal(size=(N, B, 3))),
        Case("LowRankMultivariateNormal", "LowRankMultivariateNormal",
             {"loc": r.normal(size=(B, 3)), "cov_factor": r.normal(size=(B, 3, 2)),
              "cov_diag": _pos(r, B, 3)}, lambda g: g.normal(size=(N, B, 3))),
        Case("LKJCholesky", "LKJCholesky", {"dim": 3, "concentration": _pos(r, B)},
             lambda g: _corr_cholesky(g, N, B)),
        Case("Wishart", "Wishart", {"df": _pos(r, B, low=3.5, high=6.0),
                                    "covariance_matrix": _spd(r, B)},
             lambda g: _spd(g, N, B)),
        Case("Independent", None, {"loc": r.normal(size=(B, 2)), "scale": _pos(r, B, 2)},
             lambda g: g.normal(size=(N, B, 2)), builder=_independent),
        Case("MixtureSameFamily", None, {"probs": _simplex(r, B), "loc": r.normal(size=B),
                                         "scale": _pos(r, B)},
             lambda g: g.normal(size=(N,)), builder=_mixture),
        Case("TransformedAffineExp", None, {"loc": r.normal(size=B), "scale": _pos(r, B),
                                            "shift": r.normal(size=B)},
             lambda g: _pos(g, N, B), builder=_affine_exp),
    ]
    return {case.name: case for case in cases}


CASES = make_cases()
