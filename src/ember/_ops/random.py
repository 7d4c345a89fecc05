"""Random ops: rand, randn, randint, randperm, normal, bernoulli, multinomial, poisson, the
`*_like` factories and the in-place samplers (uniform_, normal_, random_, ...).

Every op takes `generator=` (an `ember.Generator`; the default generator when None). Numbers are
drawn on the host from the generator's NumPy stream and then placed on the target device, so
one seed gives the same numbers on every device.
NOTE [random streams differ from PyTorch]: the values are not PyTorch's for the same seed;
dtypes, shapes, supports and errors are.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dispatch, layout
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.device import META, as_device
from ember._core.promotion import promote_types
from ember._core.registry import register_frontend
from ember._core.shape import check_shape, normalize_shape
from ember._ops.creation_ranges import _device, _place
from ember._ops.linalg import broadcast_batch, cxx
from ember._random import numpy_generator


def _g(value) -> str:
    """A number as PyTorch prints it in messages (-1 for -1.0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _need_float(dtype, kernel):
    _check_not_implemented(dtype.is_floating_point or dtype.is_complex, lambda: (
        f'"{kernel}" not implemented for \'{dtype._cpp_name}\''))


def _uniform(rng, shape, dtype, low=0.0, high=1.0):
    if dtype.is_complex:
        real = rng.random(shape) * (high - low) + low
        return (real + 1j * (rng.random(shape) * (high - low) + low)).astype(dtype._np)
    if dtype is dt.float32:
        values = rng.random(shape, dtype=np.float32)
        return values if (low, high) == (0.0, 1.0) else (values * np.float32(high - low) +
                                                         np.float32(low))
    values = rng.random(shape) * (high - low) + low
    # Rounding to a narrow type may reach `high`; keep the interval half-open.
    out = values.astype(dtype._np)
    if dtype.itemsize <= 2:
        out = np.where(out.astype(np.float64) >= high, np.asarray(low, dtype._np), out)
    return out


def _normal(rng, shape, dtype, mean=0.0, std=1.0):
    if dtype.is_complex:
        scale = std / math.sqrt(2.0)
        values = rng.standard_normal(shape) * scale + 1j * rng.standard_normal(shape) * scale
        return (values + mean).astype(dtype._np)
    if dtype is dt.float32:
        return rng.standard_normal(shape, dtype=np.float32) * np.float32(std) + np.float32(mean)
    return (rng.standard_normal(shape) * std + mean).astype(dtype._np)


def _factory(shape, dtype, device, requires_grad, out, draw):
    """Draw `draw(rng-free shape)` host values (none on meta) and place them."""
    check_shape(shape)
    if out is None and device is META:
        return _place(np.empty(shape, dtype._np), dtype, device, requires_grad, None)
    return _place(draw(shape), dtype, device, requires_grad, out)


def _float_dtype(dtype, out):
    if dtype is not None:
        return dtype
    return out._dtype if out is not None else dt.get_default_dtype()


# --------------------------------------------------------------------------- factories

@register_frontend(method=False)
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         pin_memory=False, requires_grad=False):
    dtype = _float_dtype(dtype, out)
    _need_float(dtype, "check_uniform_bounds")
    rng = numpy_generator(generator)
    return _factory(normalize_shape(size), dtype, _device(device), requires_grad, out,
                    lambda shape: _uniform(rng, shape, dtype))


@register_frontend(method=False)
def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          pin_memory=False, requires_grad=False):
    dtype = _float_dtype(dtype, out)
    _need_float(dtype, "normal_kernel_cpu")
    rng = numpy_generator(generator)
    return _factory(normalize_shape(size), dtype, _device(device), requires_grad, out,
                    lambda shape: _normal(rng, shape, dtype))


def _check_int_range(low, high, dtype):
    _check(low < high, lambda: (
        f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"))
    if dtype._category <= dt.INT:
        info = (0, 1) if dtype is dt.bool_ else (np.iinfo(dtype._np).min, np.iinfo(dtype._np).max)
        _check(info[0] <= low <= info[1], lambda: (
            f"from is out of bounds for {cxx(dtype._np)}"))
        _check(info[0] <= high - 1 <= info[1], lambda: (
            f"to - 1 is out of bounds for {cxx(dtype._np)}"))


def _integers(rng, low, high, shape, dtype):
    values = rng.integers(low, high, size=shape, dtype=np.int64)
    return values.astype(dtype._np)


@register_frontend(method=False)
def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            pin_memory=False, requires_grad=False):
    """randint(low=0, high, size, ...): integers drawn uniformly from [low, high)."""
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    _check_type(size is not None and 1 <= len(args) <= 2 and all(
        isinstance(a, (int, np.integer)) for a in args), lambda: (
        "randint() received an invalid combination of arguments - expected (int high, tuple "
        "of ints size) or (int low, int high, tuple of ints size)"))
    low, high = (0, args[0]) if len(args) == 1 else args
    dtype = dtype or (out._dtype if out is not None else dt.int64)
    _check_int_range(low, high, dtype)
    rng = numpy_generator(generator)
    return _factory(normalize_shape((size,)), dtype, _device(device), requires_grad, out,
                    lambda shape: _integers(rng, low, high, shape, dtype))


def _like(input, dtype, device):
    return (input._dtype if dtype is None else dtype,
            input._device if device is None else as_device(device))


def _like_layout(result, input, memory_format, where):
    """`result` (a fresh contiguous sample) laid out as `memory_format` asks of a tensor made
    like `input` (preserve: input's own dense layout)."""
    name = layout.format_name(memory_format, where)
    # See NOTE [preserve_format in *_like] (creation.py).
    if name == layout.CONTIGUOUS or (name == layout.PRESERVE and input.is_contiguous()):
        return result
    from ember._ops.creation import like_array
    target = dispatch.wrap(like_array(input, None, result._dtype, result._device,
                                      memory_format, where), result._dtype, result._device)
    dispatch.write_array(target, result)
    target._requires_grad = result._requires_grad
    return target


@register_frontend(method=False)
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None,
              pin_memory=False, requires_grad=False, memory_format=None):
    dtype, device = _like(input, dtype, device)
    return _like_layout(rand(input.shape, generator=generator, dtype=dtype, device=device,
                             requires_grad=requires_grad), input, memory_format, "rand_like")


@register_frontend(method=False)
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None,
               pin_memory=False, requires_grad=False, memory_format=None):
    dtype, device = _like(input, dtype, device)
    return _like_layout(randn(input.shape, generator=generator, dtype=dtype, device=device,
                              requires_grad=requires_grad), input, memory_format, "randn_like")


@register_frontend(method=False)
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, pin_memory=False, requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    if isinstance(high, dispatch.Tensor):
        high = high.item()
    dtype, device = _like(input, dtype, device)
    return _like_layout(randint(low, high, tuple(input.shape), generator=generator, dtype=dtype,
                                device=device, requires_grad=requires_grad),
                        input, memory_format, "randint_like")


@register_frontend(method=False)
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    dtype = dtype or (out._dtype if out is not None else dt.int64)
    check_shape((n,))
    if dtype._category == dt.INT and n > 0:
        _check(n - 1 <= np.iinfo(dtype._np).max, lambda: (
            f"value cannot be converted to type {cxx(dtype._np).replace('signed char', 'int8_t')}"
            " without overflow"))
    rng = numpy_generator(generator)
    return _factory((n,), dtype, _device(device), requires_grad, out,
                    lambda shape: rng.permutation(n).astype(dtype._np))


# --------------------------------------------------------------------------- from tensors

def _host(t):
    return t._host() if t._device is not META else None


def _result_device(*tensors):
    return next(t._device for t in tensors if isinstance(t, dispatch.Tensor))


@register_frontend(method=False)
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """normal(mean, std, ...): mean and std as tensors or numbers; both numbers need `size`."""
    mean_t, std_t = isinstance(mean, dispatch.Tensor), isinstance(std, dispatch.Tensor)
    rng = numpy_generator(generator)
    if not mean_t and not std_t:
        _check_type(size is not None, "normal() received an invalid combination of arguments - "
                                      "got (float, float), expected a size")
        dtype = _float_dtype(dtype, out)
        _need_float(dtype, "normal_kernel_cpu")
        _check(std >= 0, lambda: f"normal expects std >= 0.0, but found std {_g(std)}")
        return _factory(normalize_shape((size,)), dtype, _device(device), requires_grad, out,
                        lambda shape: _normal(rng, shape, dtype, mean, std))
    tensors = [t for t in (mean, std) if isinstance(t, dispatch.Tensor)]
    dtype = tensors[0]._dtype if len(tensors) == 1 else promote_types(mean._dtype, std._dtype)
    _need_float(dtype, "normal_kernel_cpu")
    shape = broadcast_batch(*(t.shape for t in tensors)) if len(tensors) == 2 else \
        tuple(tensors[0].shape)
    device = _result_device(mean, std)
    if not std_t:
        _check(std >= 0, lambda: f"normal expects std >= 0.0, but found std {_g(std)}")
    if device is META:
        return _place(np.empty(shape, dtype._np), dtype, device, False, out)
    mean_v = _host(mean) if mean_t else mean
    std_v = _host(std) if std_t else std
    if std_t:
        _check(bool((std_v >= 0).all()), "normal expects all elements of std >= 0.0")
    values = rng.standard_normal(shape) * np.asarray(std_v, np.float64) + np.asarray(
        mean_v, np.float64)
    return _place(values.astype(dtype._np), dtype, device, False, out)


def _check_probability(p_array, message):
    _check(bool(((p_array >= 0) & (p_array <= 1)).all()), message)


@register_frontend()
def bernoulli(input, p=None, *, generator=None, out=None):
    """bernoulli(input, p=None): 1 with probability `input` (or `p`), else 0."""
    rng = numpy_generator(generator)
    if p is None:
        _check_not_implemented(input._dtype.is_floating_point, lambda: (
            f'"bernoulli_tensor_cpu_p_" not implemented for \'{input._dtype._cpp_name}\''))
        if input._device is META:
            return _place(np.empty(input.shape, input._dtype._np), input._dtype, META, False,
                          out)
        probs = _host(input).astype(np.float64)
        _check_probability(probs, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    else:
        _check(0 <= p <= 1, lambda: f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
        probs = p
        if input._device is META:
            return _place(np.empty(input.shape, input._dtype._np), input._dtype, META, False,
                          out)
    values = (rng.random(tuple(input.shape)) < probs).astype(input._dtype._np)
    return _place(values, input._dtype, input._device, False, out)


@register_frontend()
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """multinomial(input, num_samples, replacement=False): category indices drawn with the
    (unnormalised) weights in each row of `input`."""
    _check(input.ndim in (1, 2), "prob_dist must be 1 or 2 dim")
    _check(input._dtype.is_floating_point, lambda: (
        f"multinomial only supports floating-point dtypes for input, got: "
        f"{input._dtype._cpp_name}"))
    _check(num_samples > 0, "cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    _check(replacement or num_samples <= categories, (
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement"))
    shape = tuple(input.shape[:-1]) + (num_samples,)
    if input._device is META:
        return _place(np.empty(shape, np.int64), dt.int64, META, False, out)
    weights = np.atleast_2d(_host(input).astype(np.float64))
    _check(bool(np.isfinite(weights).all() and (weights >= 0).all()),
           "probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=1)
    _check(bool((totals > 0).all()), "invalid multinomial distribution (sum of probabilities <= 0)")
    rng = numpy_generator(generator)
    if replacement:
        cumulative = np.cumsum(weights, axis=1) / totals[:, None]
        draws = rng.random((weights.shape[0], num_samples))
        picks = np.stack([np.searchsorted(row, d, side="right")
                          for row, d in zip(cumulative, draws)])
        picks = np.minimum(picks, categories - 1)
    else:
        # Exponential races: the k smallest E_i / w_i are a weighted sample without
        # replacement; zero weights never win while another category is left.
        with np.errstate(divide="ignore"):
            keys = rng.standard_exponential(weights.shape) / weights
        picks = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    return _place(picks.reshape(shape).astype(np.int64), dt.int64, input._device, False, out)


@register_frontend(method=False)
def poisson(input, generator=None):
    _check_not_implemented(input._dtype.is_floating_point, lambda: (
        f'"poisson_cpu" not implemented for \'{input._dtype._cpp_name}\''))
    if input._device is META:
        return _place(np.empty(input.shape, input._dtype._np), input._dtype, META, False, None)
    rates = _host(input).astype(np.float64)
    _check(bool((rates >= 0).all()), "invalid Poisson rate, expected rate to be non-negative")
    values = numpy_generator(generator).poisson(rates)
    return _place(values.astype(input._dtype._np), input._dtype, input._device, False, None)
