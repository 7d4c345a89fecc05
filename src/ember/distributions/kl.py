"""kl_divergence(p, q) and register_kl: closed forms of KL(p || q) looked up by the pair of
classes (the most specific registered pair wins; ambiguity warns)."""
from __future__ import annotations

import math
import warnings
from functools import total_ordering

import ember
import ember.nn.functional as F
from ember.distributions.bernoulli import Bernoulli, Geometric
from ember.distributions.binomial import Binomial
from ember.distributions.categorical import Categorical, OneHotCategorical
from ember.distributions.cauchy import Cauchy
from ember.distributions.continuous_bernoulli import ContinuousBernoulli
from ember.distributions.dirichlet import Beta, Dirichlet
from ember.distributions.distribution import Distribution
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.exponential import Exponential, Laplace
from ember.distributions.gamma import Gamma
from ember.distributions.gumbel import Gumbel, Pareto
from ember.distributions.half_normal import HalfNormal
from ember.distributions.independent import Independent
from ember.distributions.multivariate_normal import (
    LowRankMultivariateNormal,
    MultivariateNormal,
    _batch_mahalanobis,
    _batch_trace_XXT,
    _linalg,
)
from ember.distributions.normal import Normal
from ember.distributions.poisson import Poisson
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.uniform import Uniform
from ember.distributions.utils import _sum_rightmost, euler_constant

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}     # (type_p, type_q) -> function
_KL_MEMOIZE: dict = {}      # (type_p, type_q) -> the function dispatch chose
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def register_kl(type_p, type_q):
    """Decorator registering a function `kl(p, q)` for the pair of Distribution subclasses;
    it also serves their subclasses, unless a more specific pair is registered."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun
    return decorator


@total_ordering
class _Match:
    """A registered pair, ordered so that the most specific one is the smallest
    (lexicographically: p's class first)."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=3)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the batch shape."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return ember.full_like(tensor, math.inf)


def _inf_where(condition, result):
    return ember.where(condition, math.inf, result)


def _x_log_x(x):
    return ember.xlogy(x, x)


# --------------------------------------------------------------------------- same family

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = ember.where(p.probs == 0, 0.0, _inf_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = ember.where(p.probs == 1, 0.0, _inf_where(q.probs == 1, t2))
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * ember.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * ember.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * ember.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return _inf_where(p.total_count > q.total_count, kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _inf_where((q.probs == 0).expand_as(t), t)
    t = ember.where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + ember.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - ember.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # The Bregman divergence of the log normaliser between the natural parameters.
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    p_nparams = [param.detach().requires_grad_() for param in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = ember.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, gradient in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * gradient, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * ember.log(p.rate / q.rate)
    t2 = ember.lgamma(q.concentration) - ember.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * ember.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = ember.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - ember.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ember.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    t1 = q.alpha * scale_ratio.log()
    t2 = -alpha_ratio.log()
    result = t1 + t2 + alpha_ratio - 1
    return _inf_where(p.support.lower_bound < q.support.lower_bound, result)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


# --------------------------------------------------------------------------- across families
# Most are -H(p) - E_p[log q(x)] with the moments of p that log q needs.

def _normal_cross_entropy(q, mean, second_moment):
    """-E[log q(x)] for q Normal, from E[x] and E[x^2]."""
    variance_q = q.scale.pow(2)
    return (_HALF_LOG_2PI + q.scale.log()
            + (second_moment - 2 * q.loc * mean + q.loc.pow(2)) / (2 * variance_q))


def _gamma_cross_entropy(q, mean, mean_log):
    """-E[log q(x)] for q Gamma, from E[x] and E[log x]."""
    return (-q.concentration * q.rate.log() - (q.concentration - 1) * mean_log
            + q.rate * mean + q.concentration.lgamma())


def _gumbel_cross_entropy(q, mean, mean_exp_neg):
    """-E[log q(x)] for q Gumbel, from E[x] and E[exp(-x / scale_q)]."""
    return (q.scale.log() - (q.loc - mean) / q.scale
            + ember.exp(q.loc / q.scale) * mean_exp_neg)


def _exponential_cross_entropy(q, mean):
    return -q.rate.log() + q.rate * mean


def _cb_cross_entropy(q, mean):
    """-E[log q(x)] for q ContinuousBernoulli, from E[x]."""
    return -mean * q.logits - ember.log1p(-q.probs) - q._cont_bern_log_norm()


def _pareto_cross_entropy(q, mean_log):
    return -q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * mean_log


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


def _beta_moments(p):
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    second = mean * (1 - mean) / (total + 1) + mean.pow(2)
    mean_log = ember.digamma(p.concentration1) - ember.digamma(total)
    return mean, second, mean_log


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _cb_cross_entropy(q, p.mean)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(q, p.mean)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    mean, _, mean_log = _beta_moments(p)
    return -p.entropy() + _gamma_cross_entropy(q, mean, mean_log)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    mean, second, _ = _beta_moments(p)
    return -p.entropy() + _normal_cross_entropy(q, mean, second)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _inf_where((q.low > p.support.lower_bound) | (q.high < p.support.upper_bound),
                      result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(q, p.mean)


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(q, p.mean, p.variance + p.mean.pow(2))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # (as PyTorch: bounds that merely touch [0, 1] also count as infinite)
    outside = ember.max(ember.ge(q.low, p.support.lower_bound),
                        ember.le(q.high, p.support.upper_bound))
    return _inf_where(outside, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    mean_log = -euler_constant - p.rate.log()
    return -p.entropy() + _gamma_cross_entropy(q, p.rate.reciprocal(), mean_log)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    mean_exp_neg = p.rate / (p.rate + q.scale.reciprocal())
    return -p.entropy() + _gumbel_cross_entropy(q, p.rate.reciprocal(), mean_exp_neg)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    mean = p.rate.reciprocal()
    return -p.entropy() + _normal_cross_entropy(q, mean, 2 * mean.pow(2))


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(q, p.concentration / p.rate)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    mean_exp_neg = (p.rate / (p.rate + q.scale.reciprocal())).pow(p.concentration)
    return -p.entropy() + _gumbel_cross_entropy(q, p.concentration / p.rate, mean_exp_neg)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    mean = p.concentration / p.rate
    second = p.concentration * (p.concentration + 1) / p.rate.pow(2)
    return -p.entropy() + _normal_cross_entropy(q, mean, second)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    mean = p.loc + p.scale * euler_constant
    second = (math.pi * p.scale).pow(2) / 6 + mean.pow(2)
    return -p.entropy() + _normal_cross_entropy(q, mean, second)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    second = 2 * p.scale.pow(2) + p.loc.pow(2)
    return -p.entropy() + _normal_cross_entropy(q, p.loc, second)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_exp_neg = ember.exp(-p.loc / q.scale + (p.scale / q.scale).pow(2) / 2)
    return -p.entropy() + _gumbel_cross_entropy(q, p.loc, mean_exp_neg)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|x - loc_q| for x ~ Normal: the mean of a folded normal
    d = p.loc - q.loc
    mean_abs = (p.scale * math.sqrt(2 / math.pi) * ember.exp(-(d / p.scale).pow(2) / 2)
                + d * ember.erf(d / (p.scale * math.sqrt(2))))
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


def _pareto_moments(p):
    alpha = p.alpha
    mean = alpha * p.scale / (alpha - 1)
    second = alpha * p.scale.pow(2) / (alpha - 2)
    mean_log = p.scale.log() + alpha.reciprocal()
    return mean, second, mean_log


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    mean, _, _ = _pareto_moments(p)
    return _inf_where(p.alpha <= 1, -p.entropy() + _exponential_cross_entropy(q, mean))


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean, _, mean_log = _pareto_moments(p)
    return _inf_where(p.alpha <= 1, -p.entropy() + _gamma_cross_entropy(q, mean, mean_log))


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    mean, second, _ = _pareto_moments(p)
    return _inf_where(p.alpha <= 2, -p.entropy() + _normal_cross_entropy(q, mean, second))


def _uniform_mean_log(low, high):
    """E[log x] for x uniform on [low, high], 0 <= low."""
    return (_x_log_x(high) - _x_log_x(low)) / (high - low) - 1


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    mean_log = _uniform_mean_log(p.low, p.high)
    mean_log1m = _uniform_mean_log(1 - p.high, 1 - p.low)
    lbeta = (q.concentration1.lgamma() + q.concentration0.lgamma()
             - (q.concentration1 + q.concentration0).lgamma())
    result = (-p.entropy() - (q.concentration1 - 1) * mean_log
              - (q.concentration0 - 1) * mean_log1m + lbeta)
    return _inf_where((p.high > q.support.upper_bound) | (p.low < q.support.lower_bound),
                      result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() + _cb_cross_entropy(q, p.mean)
    return _inf_where(ember.max(ember.ge(p.high, q.support.upper_bound),
                                ember.le(p.low, q.support.lower_bound)), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = -p.entropy() + _exponential_cross_entropy(q, p.mean)
    return _inf_where(p.low < q.support.lower_bound, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    result = -p.entropy() + _gamma_cross_entropy(q, p.mean, _uniform_mean_log(p.low, p.high))
    return _inf_where(p.low < q.support.lower_bound, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    mean_exp_neg = q.scale * (ember.exp(-p.low / q.scale) - ember.exp(-p.high / q.scale)) / (
        p.high - p.low)
    return -p.entropy() + _gumbel_cross_entropy(q, p.mean, mean_exp_neg)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    second = (p.high.pow(2) + p.high * p.low + p.low.pow(2)) / 3
    return -p.entropy() + _normal_cross_entropy(q, p.mean, second)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    result = -p.entropy() + _pareto_cross_entropy(q, _uniform_mean_log(p.low, p.high))
    return _inf_where(p.low < q.support.lower_bound, result)


# --------------------------------------------------------------------------- gaussians

def _scale_tril_of(d):
    if isinstance(d, MultivariateNormal):
        return d._unbroadcasted_scale_tril
    return d.scale_tril      # (a LowRankMultivariateNormal's, built on first use)


def _kl_gaussian_gaussian(p, q, what):
    """0.5 (tr(Sq^-1 Sp) + (mq - mp)^T Sq^-1 (mq - mp) - n + log det Sq - log det Sp), through
    the lower Cholesky factors: tr(Sq^-1 Sp) = |Lq^-1 Lp|_F^2."""
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes "
                         "cannot be computed")
    p_tril, q_tril = _scale_tril_of(p), _scale_tril_of(q)
    half_term1 = (q_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    n = p.event_shape[0]
    batch = ember.broadcast_shapes(q_tril.shape[:-2], p_tril.shape[:-2])
    term2 = _batch_trace_XXT(_linalg().solve_triangular(
        q_tril.expand(batch + (n, n)), p_tril.expand(batch + (n, n)), upper=False))
    term3 = _batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    return _kl_gaussian_gaussian(p, q, "Multivariate Normals")


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    return _kl_gaussian_gaussian(p, q, "Low Rank Multivariate Normals")


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    return _kl_gaussian_gaussian(p, q, "(Low Rank) Multivariate Normals")


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    return _kl_gaussian_gaussian(p, q, "(Low Rank) Multivariate Normals")


# --------------------------------------------------------------------------- infinite
# p puts mass where q has none (q's support is bounded where p's is not).

def _kl_infinite(parameter_name):
    def kl(p, q):
        return _infinite_like(getattr(p, parameter_name))
    return kl


for _p_type, _q_types, _parameter in (
        (Beta, (Pareto,), "concentration1"),
        (ContinuousBernoulli, (Pareto,), "probs"),
        (Exponential, (Beta, ContinuousBernoulli, Pareto, Uniform), "rate"),
        (Gamma, (Beta, ContinuousBernoulli, Pareto, Uniform), "concentration"),
        (Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Laplace, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Normal, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc"),
        (Pareto, (Beta, ContinuousBernoulli, Uniform), "scale"),
        (Poisson, (Bernoulli, Binomial), "rate")):
    for _q_type in _q_types:
        register_kl(_p_type, _q_type)(_kl_infinite(_parameter))
