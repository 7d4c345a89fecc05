"""Random ops the distributions need beyond random.py: `_standard_gamma` (with its
reparameterisation gradient `_standard_gamma_grad`), `_sample_dirichlet` (with
`_dirichlet_grad`) and `binomial`.

NOTE [gamma's stream]: PyTorch's gamma, Dirichlet and binomial samplers are rejection samplers
that draw a varying number of words per element. With exact rejection sampling on (NOTE
[exact rejection streams are opt-in]) ember runs their loops on blocks of the stream (NOTE
[rejection samplers on PyTorch's stream], random_chain.py), so one seed gives PyTorch's
numbers and leaves the generator as PyTorch does. By default, and for parameters too varied
(more than a few dozen distinct values without a short period), they take one 64-bit draw
from the generator to seed NumPy's sampler instead: numbers that follow the distribution, not
PyTorch's.
tests/distributions/test_rejection_streams.py checks the numbers and the generator's state
against PyTorch; tests/distributions/test_gamma_stream_reference.py replays PyTorch's gamma
loop one number at a time.

NOTE [implicit reparameterisation]: a sample x of a distribution with CDF F(x; a) moves with
its parameter as dx/da = -(dF/da) / (dF/dx) (differentiate F(x(a); a) = u at a fixed uniform
u). For Gamma(a, 1), F is the regularised lower incomplete gamma; for one coordinate of a
Dirichlet it is the marginal Beta(a, total - a) CDF with `total - a` held fixed. dF/dx is the
density; dF/da has no closed form, so it is a central difference of SciPy's F in float64
(relative error near 1e-9, far below the float32 results).
"""
from __future__ import annotations

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_value
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._ops import random_chain, random_rejection
from ember._ops.grad_utils import zeros_grad
from ember._ops.pointwise_special import _special
from ember._ops.random import _GEN, _SAMPLER, host
from ember._random import cpu_generator

_NP_TO_DTYPE = dt.NP_TO_DTYPE
_FUNCTION_SAMPLER = {**_SAMPLER, "function": True}
_SAVING_SAMPLER = {k: v for k, v in _FUNCTION_SAMPLER.items() if k != "saves"}


def _seeded_numpy(generator):
    # NOTE [gamma's stream]
    return np.random.default_rng(int(cpu_generator(generator).random64(1)[0]))


def _device_array(xp, values):
    return backend_helpers(xp).from_host(values)          # NOTE [back-end helpers]


def _same_meta(self, *rest):
    return (self._data.shape, self._dtype)


def _tiny_floor(values, dtype):
    # PyTorch keeps a gamma draw at least the dtype's smallest normal number (never 0).
    return np.maximum(values.astype(dtype), np.finfo(dtype).tiny)


def _gamma_draws(rng, concentration):
    with np.errstate(all="ignore"):
        return rng.standard_gamma(concentration)


def _need_float_or_double(dtype, kernel):
    _check_not_implemented(dtype in (dt.float32, dt.float64), lambda: (
        f'"{kernel}" not implemented for \'{dtype._cpp_name}\''))


def _exact_gammas(generator, concentration, own):
    """PyTorch's gamma draws for `concentration` (visited in row-major order), alpha's own
    arithmetic in `own`; None where the parameters are too varied (NOTE [gamma's stream])."""
    flat = np.ascontiguousarray(concentration).reshape(-1, 1).astype(np.float64)
    values = random_chain.sample(cpu_generator(generator), flat, random_rejection.Gamma(own),
                                 own)
    return None if values is None else values.reshape(concentration.shape)


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
    _need_float_or_double(_NP_TO_DTYPE[self.dtype], "gamma_cpu")
    concentration = host(xp, self)
    draws = _exact_gammas(generator, concentration, concentration.dtype.type)
    if draws is None:
        draws = _tiny_floor(np.asarray(_gamma_draws(_seeded_numpy(generator),
                                                    concentration.astype(np.float64))),
                            self.dtype)
    return _device_array(xp, draws)


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
    _need_float_or_double(_NP_TO_DTYPE[self.dtype], "dirichlet")
    # PyTorch draws the gammas in double (alpha converted first), then divides each by its
    # row's sum and keeps the result in [smallest normal, largest number below 1].
    concentration = host(xp, self).astype(np.float64)
    gammas = _exact_gammas(generator, concentration, np.float64)
    if gammas is None:
        gammas = np.asarray(_gamma_draws(_seeded_numpy(generator), concentration))
        gammas = np.maximum(gammas, np.finfo(np.float64).tiny)
    values = (gammas / _row_sums(gammas)).astype(self.dtype)
    below_one = np.nextafter(self.dtype.type(1), self.dtype.type(0))
    return _device_array(xp, np.minimum(below_one, np.fmax(values, np.finfo(self.dtype).tiny)))


# PyTorch's double sum of a contiguous row of up to 256 numbers: four accumulators of four
# lanes take the blocks of 16, the first accumulator the blocks of 4 left over, the first lane
# the numbers left after that; accumulators, then lanes, summed in order. (Longer rows: its
# cascade, not reproduced: NumPy's sum.)
_ROW_SUM_EXACT = 256


def _row_sums(values):
    width = values.shape[-1]
    if width > _ROW_SUM_EXACT or values.size == 0:
        return values.sum(-1, keepdims=True)
    rows = values.reshape(-1, width)
    blocks = width // 4
    grouped = blocks - blocks % 4
    accumulators = np.zeros((4, rows.shape[0], 4))
    for block in range(blocks):
        at = block % 4 if block < grouped else 0
        accumulators[at] += rows[:, 4 * block:4 * block + 4]
    lanes = ((accumulators[0] + accumulators[1]) + accumulators[2]) + accumulators[3]
    rest = np.zeros(rows.shape[0])
    for column in range(4 * blocks, width):
        rest += rows[:, column]
    lanes[:, 0] += rest
    total = ((lanes[:, 0] + lanes[:, 1]) + lanes[:, 2]) + lanes[:, 3]
    return total.reshape(values.shape[:-1] + (1,))


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
    _need_float_or_double(_NP_TO_DTYPE[count.dtype], "binomial_cpu")
    # A negative count is zero trials (PyTorch samples 0 there; it refuses nothing).
    counts = np.maximum(host(xp, count), 0)
    trials, probs = counts.astype(np.float64), host(xp, prob).astype(np.float64)
    own = count.dtype.type
    shape = np.broadcast_shapes(count.shape, prob.shape)
    rows = np.stack([np.broadcast_to(counts, shape).reshape(-1),
                     np.broadcast_to(host(xp, prob), shape).reshape(-1)], 1).astype(np.float64)
    draws = random_chain.sample(cpu_generator(generator), rows,
                                random_rejection.Binomial(own), own)
    if draws is None:       # NOTE [gamma's stream]
        draws = _seeded_numpy(generator).binomial(np.broadcast_to(trials, shape).astype(
            np.int64), np.clip(np.broadcast_to(probs, shape), 0, 1))
    return _device_array(xp, np.asarray(draws).astype(count.dtype).reshape(shape))
