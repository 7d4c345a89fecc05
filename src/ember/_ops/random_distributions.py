"""Random ops the distributions need beyond random.py: `_standard_gamma` (with its
reparameterisation gradient `_standard_gamma_grad`), `_sample_dirichlet` (with
`_dirichlet_grad`) and `binomial`.

NOTE [gamma's stream]: PyTorch's gamma, Dirichlet and binomial samplers are rejection samplers
that draw a varying number of words per element; as for poisson (NOTE [poisson's stream],
random.py) ember takes one 64-bit draw from the generator to seed NumPy's sampler. The numbers
follow the distribution, and one seed gives the same numbers, but they are not PyTorch's.
(Reproducing the stream would mean replaying PyTorch's serial loop: where element i starts in
the stream depends on every rejection and every cached Box-Muller normal before it, so the
vectorised attempt, run the usual path in bulk and restart after each rejection, still costs a
Python step per rejection, ~2-5% of elements, and ends near a Python loop per number.)
tests/distributions/test_sampler_distributions.py checks the distributions against PyTorch's
draws; tests/distributions/test_gamma_stream_reference.py replays PyTorch's gamma loop one
number at a time (bit for bit, float32 and float64), the reference for an exact sampler.

NOTE [implicit reparameterisation]: a sample x of a distribution with CDF F(x; a) moves with
its parameter as dx/da = -(dF/da) / (dF/dx) (differentiate F(x(a); a) = u at a fixed uniform
u). For Gamma(a, 1), F is the regularised lower incomplete gamma; for one coordinate of a
Dirichlet it is the marginal Beta(a, total - a) CDF with `total - a` held fixed. dF/dx is the
density; dF/da has no closed form, so it is a central difference of SciPy's F in float64
(relative error near 1e-9, far below the float32 results).
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check, _check_value
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._ops.grad_utils import zeros_grad
from ember._ops.pointwise_special import _special
from ember._ops.random import _GEN, _SAMPLER, _need_float_input, host
from ember._random import cpu_generator

_NP_TO_DTYPE = dt.NP_TO_DTYPE
_FUNCTION_SAMPLER = {**_SAMPLER, "function": True}
_SAVING_SAMPLER = {k: v for k, v in _FUNCTION_SAMPLER.items() if k != "saves"}


def _seeded_numpy(generator):
    # NOTE [gamma's stream]
    return np.random.default_rng(int(cpu_generator(generator).random64(1)[0]))


def _device_array(xp, values):
    return values if xp is np else xp.asarray(values)


def _same_meta(self, *rest):
    return (self._data.shape, self._dtype)


def _tiny_floor(values, dtype):
    # PyTorch keeps a gamma draw at least the dtype's smallest normal number (never 0).
    return np.maximum(values.astype(dtype), np.finfo(dtype).tiny)


def _gamma_draws(rng, concentration):
    with np.errstate(all="ignore"):
        return rng.standard_gamma(concentration)


# --------------------------------------------------------------------------- gamma

def _standard_gamma_derivative(c):
    return c.grad * call(OPS["_standard_gamma_grad"], (c.self, c.result))


@register_op(f"_standard_gamma(Tensor self, {_GEN}) -> Tensor", **_SAVING_SAMPLER,
             meta=_same_meta, saves=("self", "result"),
             derivatives={"self": _standard_gamma_derivative})
def _standard_gamma(xp, self, generator=None):
    """_standard_gamma(input, generator=None) -> Tensor: a Gamma(input, 1) draw per element;
    its gradient is the implicit reparameterisation one (NOTE [implicit
    reparameterisation])."""
    _need_float_input(_NP_TO_DTYPE[self.dtype], "gamma_cpu")
    concentration = host(xp, self).astype(np.float64)
    draws = _gamma_draws(_seeded_numpy(generator), concentration)
    return _device_array(xp, _tiny_floor(np.asarray(draws), self.dtype))


def _gamma_cdf_by_concentration(special, alpha, x):
    step = 1e-6 * np.maximum(alpha, 1e-3)
    return (special.gammainc(alpha + step, x) - special.gammainc(alpha - step, x)) / (2 * step)


@register_op("_standard_gamma_grad(Tensor self, Tensor output) -> Tensor", kind="generic",
             function=True, method=False, differentiable=False,
             meta=lambda self, output: (self._data.shape, self._dtype))
def _standard_gamma_grad(xp, self, output):
    """_standard_gamma_grad(alpha, x) -> Tensor: dx/dalpha of a Gamma(alpha, 1) sample x."""
    special = _special(np)
    alpha = np.broadcast_to(host(xp, self).astype(np.float64), np.broadcast_shapes(
        self.shape, output.shape))
    x = host(xp, output).astype(np.float64)
    with np.errstate(all="ignore"):
        density = np.exp((alpha - 1) * np.log(x) - x - special.gammaln(alpha))
        result = -_gamma_cdf_by_concentration(special, alpha, x) / density
    return _device_array(xp, np.asarray(result).astype(self.dtype))


# --------------------------------------------------------------------------- dirichlet

def _dirichlet_derivative(c):
    # d<g, x>/d alpha_i: x_i moves by d_i = dx_i/dalpha_i (its marginal Beta with the rest of
    # the total fixed), each other x_k by -x_k / (1 - x_i) d_i, so the sum is
    # d_i / (1 - x_i) (g_i - <g, x>): _dirichlet_grad gives d_i / (1 - x_i).
    x = c.result
    total = c.self.sum(-1, keepdim=True).expand_as(c.self)
    local = call(OPS["_dirichlet_grad"], (x, c.self, total))
    return local * (c.grad - (x * c.grad).sum(-1, keepdim=True))


@register_op(f"_sample_dirichlet(Tensor self, {_GEN}) -> Tensor", **_SAVING_SAMPLER,
             meta=_same_meta, saves=("self", "result"),
             derivatives={"self": _dirichlet_derivative})
def _sample_dirichlet(xp, self, generator=None):
    """_sample_dirichlet(concentration, generator=None) -> Tensor: a Dirichlet draw per row
    of the last dimension."""
    _need_float_input(_NP_TO_DTYPE[self.dtype], "dirichlet")
    concentration = host(xp, self).astype(np.float64)
    gammas = np.asarray(_gamma_draws(_seeded_numpy(generator), concentration))
    gammas = np.maximum(gammas, np.finfo(np.float64).tiny)
    values = gammas / gammas.sum(-1, keepdims=True)
    return _device_array(xp, _tiny_floor(values, self.dtype))


@register_op("_dirichlet_grad(Tensor x, Tensor alpha, Tensor total) -> Tensor", kind="generic",
             function=True, method=False, differentiable=False,
             meta=lambda x, alpha, total: (x._data.shape, x._dtype))
def _dirichlet_grad(xp, x, alpha, total):
    """_dirichlet_grad(x, alpha, total) -> Tensor: dx/dalpha / (1 - x) for x ~ Beta(alpha,
    total - alpha) with total - alpha held fixed. (The other coordinates of a Dirichlet sample
    shrink by x_k / (1 - x) of that change, which is why the factor is divided out: see
    _dirichlet_derivative.)"""
    special = _special(np)
    shape = np.broadcast_shapes(x.shape, alpha.shape, total.shape)
    x64, a64, t64 = (np.broadcast_to(host(xp, v).astype(np.float64), shape)
                     for v in (x, alpha, total))
    b64 = t64 - a64
    step = 1e-6 * np.maximum(a64, 1e-3)
    with np.errstate(all="ignore"):
        cdf_by_alpha = (special.betainc(a64 + step, b64, x64)
                        - special.betainc(a64 - step, b64, x64)) / (2 * step)
        density = np.exp((a64 - 1) * np.log(x64) + (b64 - 1) * np.log1p(-x64)
                         - special.betaln(a64, b64))
        result = -cdf_by_alpha / density / (1 - x64)
    return _device_array(xp, np.asarray(result).astype(x.dtype))


# --------------------------------------------------------------------------- binomial

def _check_binomial_dtypes(count_dtype, prob_dtype):
    for name, dtype in (("count", count_dtype), ("prob", prob_dtype)):
        _check_value(dtype.is_floating_point, lambda name=name, dtype=dtype: (
            f"binomial only supports floating-point dtypes for {name}, got: "
            f"{dtype._cpp_name}"))
    _check(count_dtype == prob_dtype, lambda: (
        f"Found dtype {prob_dtype._cpp_name} but expected {count_dtype._cpp_name}"))


def _binomial_meta(count, prob, generator=None):
    _check_binomial_dtypes(count._dtype, prob._dtype)
    shape = np.broadcast_shapes(tuple(count._data.shape), tuple(prob._data.shape))
    return (shape, count._dtype)


@register_op(f"binomial(Tensor count, Tensor prob, {_GEN}) -> Tensor", **_FUNCTION_SAMPLER,
             meta=_binomial_meta, derivatives={"count": zeros_grad, "prob": zeros_grad})
def _binomial(xp, count, prob, generator=None):
    """binomial(count, prob, generator=None) -> Tensor: the number of successes in `count`
    trials of probability `prob`, per element."""
    _check_binomial_dtypes(_NP_TO_DTYPE[count.dtype], _NP_TO_DTYPE[prob.dtype])
    trials, probs = host(xp, count).astype(np.float64), host(xp, prob).astype(np.float64)
    _check(bool((trials >= 0).all()), "binomial: count must be non-negative")
    draws = _seeded_numpy(generator).binomial(trials.astype(np.int64), np.clip(probs, 0, 1))
    return _device_array(xp, np.asarray(draws).astype(count.dtype))
