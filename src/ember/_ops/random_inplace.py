"""In-place samplers, Tensor methods only: uniform_, normal_, bernoulli_, random_,
exponential_, geometric_, log_normal_, cauchy_. Each fills `self` from `generator=` (see
random.py) and bumps its version; on meta tensors they only check their arguments.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_type
from ember._core.device import META
from ember._core.registry import register_frontend
from ember._ops.linalg import cxx
from ember._ops.random import _check_int_range, _g, _need_float, _normal, _uniform
from ember._random import numpy_generator


def _fill(self, draw):
    """Write `draw(rng-free shape)` into self with PyTorch's in-place rules."""
    _check_type(isinstance(self, dispatch.Tensor), "expected a Tensor")
    _check(not (self._requires_grad and self._grad_fn is None and
                dispatch.state.grad_enabled()),
           "a leaf Variable that requires grad is being used in an in-place operation.")
    if self._device is META:
        return self
    values = np.asarray(draw(tuple(self.shape)))
    source = dispatch.wrap(values.astype(self._dtype._np, copy=False), self._dtype,
                           dispatch.CPU)
    if self._device is not dispatch.CPU:
        source = source.to(self._device)
    dispatch.write_array(self, source)
    return self


def _continuous(self, name):
    _check(self._dtype.is_floating_point, lambda: (
        f"{name} distribution is a continuous probability distribution. dtype must be a "
        f"floating point but you specified "
        f"{self._dtype._cpp_name if name == 'Exponential' else cxx(self._dtype._np)}"))


@register_frontend(function=False)
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    from_ = kwargs.pop("from", from_)
    _need_float(self._dtype, "check_uniform_bounds")
    _check(from_ <= to, lambda: (
        f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > "
        f"to={_g(to)}"))
    rng = numpy_generator(generator)
    return _fill(self, lambda shape: _uniform(rng, shape, self._dtype, from_, to))


@register_frontend(function=False)
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _need_float(self._dtype, "normal_kernel_cpu")
    _check(std >= 0, lambda: f"normal expects std >= 0.0, but found std {_g(std)}")
    rng = numpy_generator(generator)
    return _fill(self, lambda shape: _normal(rng, shape, self._dtype, mean, std))


@register_frontend(function=False)
def bernoulli_(self, p=0.5, *, generator=None):
    rng = numpy_generator(generator)
    if isinstance(p, dispatch.Tensor):
        probs = p._host().astype(np.float64) if p._device is not META else 0.5
        _check(bool(((np.asarray(probs) >= 0) & (np.asarray(probs) <= 1)).all()),
               "bernoulli_ expects all elements of p to be in [0, 1]")
    else:
        _check(0 <= p <= 1, lambda: f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
        probs = p
    return _fill(self, lambda shape: rng.random(shape) < probs)


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
    low, high = _random_bounds(self._dtype, low, high)
    _check_int_range(low, high, self._dtype)
    rng = numpy_generator(generator)
    # uint64 bounds don't fit in int64: draw those with NumPy's unsigned sampler.
    kind = np.uint64 if high > np.iinfo(np.int64).max else np.int64
    return _fill(self, lambda shape: rng.integers(low, high, size=shape, dtype=kind))


@register_frontend(function=False)
def exponential_(self, lambd=1.0, *, generator=None):
    _continuous(self, "Exponential")
    _check(lambd > 0, lambda: f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    rng = numpy_generator(generator)
    return _fill(self, lambda shape: rng.standard_exponential(shape) / lambd)


@register_frontend(function=False)
def geometric_(self, p, *, generator=None):
    _check(0 < p < 1, lambda: f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    rng = numpy_generator(generator)
    return _fill(self, lambda shape: rng.geometric(p, size=shape))


@register_frontend(function=False)
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _need_float(self._dtype, "log_normal_cpu")
    _check(std > 0, lambda: f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    rng = numpy_generator(generator)
    return _fill(self, lambda shape: rng.lognormal(mean, std, size=shape))


@register_frontend(function=False)
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _continuous(self, "Cauchy")
    _check(sigma > 0, lambda: f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    rng = numpy_generator(generator)
    return _fill(self, lambda shape: median + sigma * rng.standard_cauchy(shape))
