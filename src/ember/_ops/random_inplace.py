"""In-place samplers, Tensor methods only: uniform_, normal_, bernoulli_, random_,
exponential_, geometric_, log_normal_, cauchy_.

Each is the functional registry op PyTorch's functionalisation names (`uniform`,
`normal_functional`, `bernoulli.p`, `random.from`, `exponential` ...) run in place by
`dispatch.call_inplace` (`_sample_into`), which writes the fresh sample into `self` and bumps
its version; the
generator is one of the op's arguments (NOTE [the generator is an input], random.py). The
samples have zero gradient, as in PyTorch. On meta tensors they only check their arguments.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type
from ember._core.registry import OPS, register_frontend, register_op
from ember._ops.grad_utils import zeros_grad
from ember._ops.linalg import cxx
from ember._ops.random import _SAMPLER, _check_int_range, _g, _need_float, _normal, _uniform, host
from ember._random import numpy_generator

_NP_TO_DTYPE = dt.NP_TO_DTYPE
_GEN = "Generator? generator=None"


def _sampler(schema, check, draw, node_name, check_on_meta=True):
    """Register the functional op of an in-place sampler: `check(dtype, *params)` refuses bad
    arguments (on meta too where PyTorch's meta kernel does), `draw(rng, shape, dtype,
    *params)` gives the host sample."""
    def meta(self, *rest):
        if check_on_meta:
            check(self._dtype, *rest[:-1])
        return (self._data.shape, self._dtype)

    def kernel(xp, self, *rest):
        dtype = _NP_TO_DTYPE[self.dtype]
        params, generator = rest[:-1], rest[-1]
        check(dtype, *params)
        values = np.asarray(draw(numpy_generator(generator), tuple(self.shape), dtype, *params))
        values = values.astype(self.dtype, copy=False)
        return values if xp is np else xp.asarray(values)
    kernel.__doc__ = f"{schema.split('(')[0]}: a fresh sample in self's shape and dtype (the " \
                     "in-place sampler's functional form)."
    register_op(schema, **_SAMPLER, meta=meta, derivatives={"self": zeros_grad},
                node_name=node_name)(kernel)
    return OPS[schema.split("(")[0]]


def _sample_into(op, args):
    """Run the sampler `op` in place on args[0]. When neither autograd nor a mode has to see
    the write (see NOTE [the slow path]), the sample is copied in directly: the op still runs
    through the dispatcher, and its result has self's shape and dtype by construction."""
    self = args[0]
    state = dispatch.state
    if state.slow or (self._requires_grad and state.grad_enabled()) or \
            0 in self._data.strides:
        return dispatch.call_inplace(op, args)
    dispatch.write_array(self, dispatch.call(op, args))
    return self


def _continuous(dtype, name):
    _check(dtype.is_floating_point, lambda: (
        f"{name} distribution is a continuous probability distribution. dtype must be a "
        f"floating point but you specified "
        f"{dtype._cpp_name if name == 'Exponential' else cxx(dtype._np)}"))


def _uniform_check(dtype, low=0.0, high=1.0):
    _need_float(dtype, "check_uniform_bounds")
    _check(low <= high, lambda: (
        f"uniform_ expects to return a [from, to) range, but found from={_g(low)} > "
        f"to={_g(high)}"))


_UNIFORM = _sampler(f"uniform(Tensor self, float from=0, float to=1, *, {_GEN}) -> Tensor",
                    _uniform_check, _uniform, "UniformBackward0", check_on_meta=False)


@register_frontend(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Fill `self` in place with numbers drawn uniformly from [from, to); returns `self`."""
    from_ = kwargs.pop("from", from_)
    return _sample_into(_UNIFORM, (self, from_, to, generator))


def _normal_check(dtype, mean=0.0, std=1.0):
    _need_float(dtype, "normal_kernel_cpu")
    _check(std >= 0, lambda: f"normal expects std >= 0.0, but found std {_g(std)}")


_NORMAL = _sampler(f"normal_functional(Tensor self, float mean=0, float std=1, *, {_GEN}) -> "
                   "Tensor", _normal_check, _normal, "NormalBackward0")


@register_frontend(function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill `self` in place with draws from the normal distribution N(mean, std**2); returns
    `self`."""
    return _sample_into(_NORMAL, (self, mean, std, generator))


def _bernoulli_tensor_meta(self, p, generator=None):
    return (self._data.shape, self._dtype)


@register_op(f"bernoulli.Tensor(Tensor self, Tensor p, *, {_GEN}) -> Tensor", **_SAMPLER,
             meta=_bernoulli_tensor_meta, derivatives={"self": zeros_grad},
             node_name="BernoulliBackward2")
def _bernoulli_tensor(xp, self, p, generator=None):
    """bernoulli.Tensor: 1 with the probabilities `p` (broadcast to self's shape), else 0, in
    self's dtype (Tensor.bernoulli_(p) with a tensor p)."""
    probs = host(xp, p).astype(np.float64)
    _check(bool(((probs >= 0) & (probs <= 1)).all()),
           "bernoulli_ expects all elements of p to be in [0, 1]")
    values = (numpy_generator(generator).random(tuple(self.shape)) < probs).astype(self.dtype)
    return values if xp is np else xp.asarray(values)


@register_frontend(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill `self` in place with 1 with probability `p` (a number or a tensor broadcast to
    self's shape), else 0; returns `self`."""
    if isinstance(p, dispatch.Tensor):
        return _sample_into(OPS["bernoulli.Tensor"], (self, p, generator))
    return _sample_into(OPS["bernoulli.p"], (self, p, generator))


# Default upper bounds of random_(): every integer the dtype holds exactly.
_MANTISSA_BOUND = {dt.float16: 1 << 11, dt.bfloat16: 1 << 8, dt.float32: 1 << 24,
                   dt.float64: 1 << 53}


def _random_bounds(dtype, low, high):
    if dtype is dt.bool_:
        return low or 0, 2 if high is None else high
    if dtype in _MANTISSA_BOUND:
        return low or 0, (_MANTISSA_BOUND[dtype] + 1) if high is None else high
    info = np.iinfo(dtype._np)
    return low or 0, (int(info.max) + 1) if high is None else high


def _random_check(dtype, low, high):
    _check_int_range(*_random_bounds(dtype, low, high), dtype)


def _random_draw(rng, shape, dtype, low, high):
    low, high = _random_bounds(dtype, low, high)
    # uint64 bounds don't fit in int64: draw those with NumPy's unsigned sampler.
    kind = np.uint64 if high > np.iinfo(np.int64).max else np.int64
    return rng.integers(low, high, size=shape, dtype=kind)


_RANDOM = _sampler(f"random.from(Tensor self, int from, int? to, *, {_GEN}) -> Tensor",
                   _random_check, _random_draw, "RandomBackward0", check_on_meta=False)


@register_frontend(function=False)
def random_(self, *args, generator=None, **kwargs):
    """random_(), random_(to), random_(from, to): integers in [from, to) (to=None: up to the
    largest value of the dtype)."""
    low, high = kwargs.pop("from", None), kwargs.pop("to", None)
    _check_type(not kwargs and len(args) <= 2, "random_() received an invalid combination "
                                               "of arguments")
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    return _sample_into(_RANDOM, (self, low or 0, high, generator))


def _exponential_check(dtype, lambd=1.0):
    _continuous(dtype, "Exponential")
    _check(lambd > 0, lambda: f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")


_EXPONENTIAL = _sampler(f"exponential(Tensor self, float lambd=1, *, {_GEN}) -> Tensor",
                        _exponential_check,
                        lambda rng, shape, dtype, lambd: rng.standard_exponential(shape) / lambd,
                        "ExponentialBackward0")


@register_frontend(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill `self` in place with draws from the exponential distribution of rate `lambd`;
    returns `self`."""
    return _sample_into(_EXPONENTIAL, (self, lambd, generator))


def _geometric_check(dtype, p):
    _check(0 < p < 1, lambda: f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")


_GEOMETRIC = _sampler(f"geometric(Tensor self, float p, *, {_GEN}) -> Tensor", _geometric_check,
                      lambda rng, shape, dtype, p: rng.geometric(p, size=shape),
                      "GeometricBackward0")


@register_frontend(function=False)
def geometric_(self, p, *, generator=None):
    """Fill `self` in place with the number of Bernoulli(p) trials up to the first success
    (1, 2, ...); returns `self`."""
    return _sample_into(_GEOMETRIC, (self, p, generator))


def _log_normal_check(dtype, mean=1.0, std=2.0):
    _need_float(dtype, "log_normal_cpu")
    _check(std > 0, lambda: f"log_normal_ expects std > 0.0, but found std={_g(std)}")


_LOG_NORMAL = _sampler(f"log_normal(Tensor self, float mean=1, float std=2, *, {_GEN}) -> "
                       "Tensor", _log_normal_check,
                       lambda rng, shape, dtype, mean, std: rng.lognormal(mean, std, size=shape),
                       "LogNormalBackward0")


@register_frontend(function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill `self` in place with exp(X), X drawn from N(mean, std**2); returns `self`."""
    return _sample_into(_LOG_NORMAL, (self, mean, std, generator))


def _cauchy_check(dtype, median=0.0, sigma=1.0):
    _continuous(dtype, "Cauchy")
    _check(sigma > 0, lambda: f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")


_CAUCHY = _sampler(f"cauchy(Tensor self, float median=0, float sigma=1, *, {_GEN}) -> Tensor",
                   _cauchy_check,
                   lambda rng, shape, dtype, median, sigma: median + sigma * rng.standard_cauchy(
                       shape), "CauchyBackward0")


@register_frontend(function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill `self` in place with draws from the Cauchy distribution located at `median` with
    scale `sigma`; returns `self`."""
    return _sample_into(_CAUCHY, (self, median, sigma, generator))
