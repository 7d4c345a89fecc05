"""ember.distributions: probability distributions with sampling (reparameterised where the
family allows), log densities, entropies, KL divergences, constraints and transforms. Every
family is a composite of ember ops, so gradients flow through log_prob and rsample. One
family (or a few close ones) per file; transforms in transforms.py and _transform_base.py;
biject_to / transform_to in constraint_registry.py; kl_divergence in kl.py."""
from ember.distributions import constraints, transforms
from ember.distributions.bernoulli import Bernoulli, Geometric
from ember.distributions.binomial import Binomial, Multinomial, NegativeBinomial
from ember.distributions.categorical import (
    Categorical,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from ember.distributions.cauchy import Cauchy, HalfCauchy, StudentT
from ember.distributions.constraint_registry import biject_to, transform_to
from ember.distributions.continuous_bernoulli import ContinuousBernoulli
from ember.distributions.dirichlet import Beta, Dirichlet
from ember.distributions.distribution import Distribution
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.exponential import Exponential, Laplace
from ember.distributions.fishersnedecor import FisherSnedecor, LogisticNormal
from ember.distributions.gamma import Chi2, Gamma, InverseGamma
from ember.distributions.generalized_pareto import GeneralizedPareto
from ember.distributions.gumbel import Gumbel, Kumaraswamy, Pareto, Weibull
from ember.distributions.half_normal import HalfNormal, LogNormal
from ember.distributions.independent import Independent
from ember.distributions.kl import kl_divergence, register_kl
from ember.distributions.lkj_cholesky import LKJCholesky
from ember.distributions.mixture_same_family import MixtureSameFamily
from ember.distributions.multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from ember.distributions.normal import Normal
from ember.distributions.poisson import Poisson
from ember.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from ember.distributions.uniform import Uniform
from ember.distributions.von_mises import VonMises
from ember.distributions.wishart import Wishart

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "CatTransform",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "ContinuousBernoulli",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "IndependentTransform",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LowRankMultivariateNormal",
    "LowerCholeskyTransform",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "identity_transform",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
