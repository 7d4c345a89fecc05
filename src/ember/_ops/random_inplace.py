"""In-place samplers, Tensor methods only: uniform_, normal_, bernoulli_, random_,
exponential_, geometric_, log_normal_, cauchy_.

Each is the functional registry op PyTorch's functionalisation names (`uniform`,
`normal_functional`, `bernoulli.p`, `random.from`, `exponential` ...) run in place by
`dispatch.call_inplace` (`_sample_into`), which writes the fresh sample into `self` and bumps
its version; the
generator is one of the op's arguments (NOTE [the generator is an input], random.py). The
samples have zero gradient, as in PyTorch. On meta tensors they only check their arguments.
The numbers are PyTorch's for the same seed (NOTE [ember draws PyTorch's CPU stream]), drawn in
self's memory order as PyTorch's kernels visit it.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._ops import random_transforms as rt
from ember._ops.grad_utils import zeros_grad
from ember._ops.linalg import cxx
from ember._ops.random import (
    _SAMPLER,
    _check_int_range,
    _draw_below,
    _g,
    _need_float,
    _normal,
    _uniform,
    host,
    in_memory_order,
)
from ember._random import cpu_generator

_NP_TO_DTYPE = dt.NP_TO_DTYPE
_GEN = "Generator? generator=None"


def _sampler(schema, check, draw, node_name, check_on_meta=True):
    """Register the functional op of an in-place sampler: `check(dtype, *params)` refuses bad
    arguments (on meta too where PyTorch's meta kernel does), `draw(generator, count, dtype,
    contiguous, *params)` gives the flat host sample in the order of self's memory."""
    def meta(self, *rest):
        if check_on_meta:
            check(self._dtype, *rest[:-1], **_empty(check, self._data.size))
        return (self._data.shape, self._dtype)

    def kernel(xp, self, *rest):
        dtype = _NP_TO_DTYPE[self.dtype]
        params, generator = rest[:-1], rest[-1]
        check(dtype, *params, **_empty(check, self.size))
        shape = tuple(self.shape)
        contiguous = backend_helpers(xp).in_memory_order(self)     # NOTE [back-end helpers]
        values = draw(cpu_generator(generator), math.prod(shape), dtype, contiguous, *params)
        values = rt.to_dtype(np.asarray(values), dtype)
        values = values.reshape(shape) if contiguous else in_memory_order(
            values, shape, self.strides)
        return backend_helpers(xp).from_host(values)
    kernel.__doc__ = f"{schema.split('(')[0]}: a fresh sample in self's shape and dtype (the " \
                     "in-place sampler's functional form)."
    register_op(schema, **_SAMPLER, meta=meta, derivatives={"self": zeros_grad},
                node_name=node_name)(kernel)
    return OPS[schema.split("(")[0]]


# NOTE [empty samples look for no kernel]: PyTorch's normal, log-normal and exponential fills
# check their parameters, return at once on an empty tensor, and only then look for the dtype's
# kernel: an empty integer tensor is filled without complaint (randn_like of an empty int64
# tensor, zeros(0, dtype=long).exponential_()); a non-empty one raises. Their checks take
# `empty`; the other samplers check the dtype first, empty or not (uniform_, cauchy_).
_EMPTY_AWARE = set()


def _empty(check, count):
    return {"empty": count == 0} if check in _EMPTY_AWARE else {}


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
                    _uniform_check,
                    lambda generator, count, dtype, contiguous, low=0.0, high=1.0: _uniform(
                        generator, (count,), dtype, low, high),
                    "UniformBackward0", check_on_meta=False)


@register_frontend(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    """Fill `self` in place with numbers drawn uniformly from [from, to); returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(uniform_, locals())
    from_ = kwargs.pop("from", from_)
    return _sample_into(_UNIFORM, (self, from_, to, generator))


def _normal_check(dtype, mean=0.0, std=1.0, empty=False):
    _check(std >= 0, lambda: f"normal expects std >= 0.0, but found std {_g(std)}")
    if not empty:                   # NOTE [empty samples look for no kernel]
        _need_float(dtype, "normal_kernel_cpu")


_EMPTY_AWARE.add(_normal_check)


_NORMAL = _sampler(f"normal_functional(Tensor self, float mean=0, float std=1, *, {_GEN}) -> "
                   "Tensor", _normal_check,
                   lambda generator, count, dtype, contiguous, mean=0.0, std=1.0: _normal(
                       generator, (count,), dtype, mean, std, contiguous),
                   "NormalBackward0")


@register_frontend(function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill `self` in place with draws from the normal distribution N(mean, std**2); returns
    `self`."""
    if _state.entry and _wants(locals()):
        return _handle(normal_, locals())
    return _sample_into(_NORMAL, (self, mean, std, generator))


def _bernoulli_tensor_meta(self, p, generator=None):
    return (self._data.shape, self._dtype)


@register_op(f"bernoulli.Tensor(Tensor self, Tensor p, *, {_GEN}) -> Tensor", **_SAMPLER,
             meta=_bernoulli_tensor_meta, derivatives={"self": zeros_grad},
             node_name="BernoulliBackward2")
def _bernoulli_tensor(xp, self, p, generator=None):
    """bernoulli.Tensor: 1 with the probabilities `p` (broadcast to self's shape), else 0, in
    self's dtype (Tensor.bernoulli_(p) with a tensor p)."""
    probs = host(xp, p)
    _check(bool(((probs >= 0) & (probs <= 1)).all()),
           "bernoulli_ expects all elements of p to be in [0, 1]")
    return _draw_below(xp, generator, self, probs)


@register_frontend(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill `self` in place with 1 with probability `p` (a number or a tensor broadcast to
    self's shape), else 0; returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(bernoulli_, locals())
    _no_complex32(self._dtype, "bernoulli_scalar_cpu_")
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


def _no_complex32(dtype, kernel):
    """The samplers PyTorch has no ComplexHalf kernel for (NOTE [complex32 storage])."""
    _check_not_implemented(dtype is not dt.complex32,
                           lambda: f"\"{kernel}\" not implemented for 'ComplexHalf'")


def _random_check(dtype, low, high):
    _no_complex32(dtype, "random_from_to")
    _check_int_range(*_random_bounds(dtype, low, high), dtype)


def _random_draw(generator, count, dtype, contiguous, low, high):
    low, high = _random_bounds(dtype, low, high)
    return rt.integers(generator, count, dtype, low, high)


_RANDOM = _sampler(f"random.from(Tensor self, int from, int? to, *, {_GEN}) -> Tensor",
                   _random_check, _random_draw, "RandomBackward0", check_on_meta=False)


_RANDOM_ALL = _sampler(f"random(Tensor self, *, {_GEN}) -> Tensor",
                       lambda dtype: _no_complex32(dtype, "random_kernel_cpu"),
                       lambda generator, count, dtype, contiguous: rt.integers_default(
                           generator, count, dtype), "RandomBackward2", check_on_meta=False)


@register_frontend(function=False)
def random_(self, *args, generator=None, **kwargs):
    """random_(), random_(to), random_(from, to): integers in [from, to) (to=None: up to the
    largest value of the dtype)."""
    if _state.entry and _wants(locals()):
        return _handle(random_, locals())
    low, high = kwargs.pop("from", None), kwargs.pop("to", None)
    _check_type(not kwargs and len(args) <= 2, "random_() received an invalid combination "
                                               "of arguments")
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    if low is None and high is None:
        return _sample_into(_RANDOM_ALL, (self, generator))
    return _sample_into(_RANDOM, (self, low or 0, high, generator))


def _exponential_check(dtype, lambd=1.0, empty=False):
    _check(lambd > 0, lambda: f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    if not empty:                   # NOTE [empty samples look for no kernel]
        _continuous(dtype, "Exponential")


_EMPTY_AWARE.add(_exponential_check)


_EXPONENTIAL = _sampler(f"exponential(Tensor self, float lambd=1, *, {_GEN}) -> Tensor",
                        _exponential_check,
                        lambda generator, count, dtype, contiguous, lambd: rt.exponential(
                            generator, count, lambd),
                        "ExponentialBackward0")


@register_frontend(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill `self` in place with draws from the exponential distribution of rate `lambd`;
    returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(exponential_, locals())
    return _sample_into(_EXPONENTIAL, (self, lambd, generator))


def _geometric_check(dtype, p):
    _no_complex32(dtype, "geometric_cpu")
    _check(0 < p < 1, lambda: f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")


_GEOMETRIC = _sampler(f"geometric(Tensor self, float p, *, {_GEN}) -> Tensor", _geometric_check,
                      lambda generator, count, dtype, contiguous, p: rt.geometric(
                          generator, count, p),
                      "GeometricBackward0")


@register_frontend(function=False)
def geometric_(self, p, *, generator=None):
    """Fill `self` in place with the number of Bernoulli(p) trials up to the first success
    (1, 2, ...); returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(geometric_, locals())
    return _sample_into(_GEOMETRIC, (self, p, generator))


def _log_normal_check(dtype, mean=1.0, std=2.0, empty=False):
    _check(std > 0, lambda: f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    if not empty:                   # NOTE [empty samples look for no kernel]
        _need_float(dtype, "log_normal_cpu")
        _no_complex32(dtype, "log_normal_cpu")


_EMPTY_AWARE.add(_log_normal_check)


_LOG_NORMAL = _sampler(f"log_normal(Tensor self, float mean=1, float std=2, *, {_GEN}) -> "
                       "Tensor", _log_normal_check,
                       lambda generator, count, dtype, contiguous, mean, std: rt.log_normal(
                           generator, count, mean, std),
                       "LogNormalBackward0")


@register_frontend(function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill `self` in place with exp(X), X drawn from N(mean, std**2); returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(log_normal_, locals())
    return _sample_into(_LOG_NORMAL, (self, mean, std, generator))


def _cauchy_check(dtype, median=0.0, sigma=1.0):
    _continuous(dtype, "Cauchy")
    _check(sigma > 0, lambda: f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")


_CAUCHY = _sampler(f"cauchy(Tensor self, float median=0, float sigma=1, *, {_GEN}) -> Tensor",
                   _cauchy_check,
                   lambda generator, count, dtype, contiguous, median, sigma: rt.cauchy(
                       generator, count, median, sigma), "CauchyBackward0")


@register_frontend(function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill `self` in place with draws from the Cauchy distribution located at `median` with
    scale `sigma`; returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(cauchy_, locals())
    return _sample_into(_CAUCHY, (self, median, sigma, generator))
