"""Random ops: rand, randn, randint, randperm, normal, bernoulli, multinomial, poisson and the
`*_like` factories, each a registry op (`rand`, `randn`, `randint.low`, `normal.Tensor_Tensor`,
`bernoulli.p` ...); the in-place samplers (uniform_, normal_, ...) live in random_inplace.py.

NOTE [the generator is an input]: every random op takes `Generator? generator=None` as a schema
argument and its kernel draws from that generator (None: the default one, resolved inside the
kernel). So a TorchDispatchMode sees the generator among the op's arguments, and replaying the op
with a generator in the same state gives the same numbers. Numbers are drawn on the host from
the generator's stream and then placed on the target device, so one seed gives the same
numbers on every device: PyTorch's CPU numbers (NOTE [ember draws PyTorch's CPU stream],
random_transforms.py; the rejection samplers: NOTE [rejection samplers on PyTorch's stream],
random_chain.py). Values are drawn in the order PyTorch's kernel visits the elements: the
output's memory order (`in_memory_order`).
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import arguments, dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.deprecated_forms import NOT_GIVEN
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import normalize_shape, sizes_or_keyword
from ember._ops import random_transforms as rt
from ember._ops.creation import (
    _FACTORY,
    _OPTIONS,
    check_sizes,
    like_strides,
    on_device,
    option_dtype,
    run_factory_op,
    strided_array,
)
from ember._ops.grad_utils import zeros_grad
from ember._ops.linalg import broadcast_batch, cxx
from ember._random import cpu_generator

_call = dispatch.call
_NP_TO_DTYPE = dt.NP_TO_DTYPE
_default_float = dt._default_float
# PyTorch tags its random ops "nondeterministic_seeded": their results depend on the generator.
_SEEDED = {**_FACTORY, "tags": ("nondeterministic_seeded",)}
_SAMPLER = {"function": False, "method": False, "out": False, "saves": (),
            "tags": ("nondeterministic_seeded",)}
_GEN = "Generator? generator=None"


def _g(value) -> str:
    """A number as PyTorch prints it in messages (-1 for -1.0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _need_float(dtype, kernel):
    _check_not_implemented(dtype.is_floating_point or dtype.is_complex, lambda: (
        f'"{kernel}" not implemented for \'{dtype._cpp_name}\''))


def _count(shape) -> int:
    return math.prod(shape)


def _uniform(generator, shape, dtype, low=0.0, high=1.0):
    generator = cpu_generator(generator)
    if dtype.is_complex:
        # (uniform_ on a complex tensor fills its real view: real, imaginary, real, ...)
        values = rt.uniform(generator, 2 * _count(shape), dtype.to_real(), low, high)
        return values.view(dtype._np).reshape(shape)
    return rt.uniform(generator, _count(shape), dtype, low, high).reshape(shape)


def _normal(generator, shape, dtype, mean=0.0, std=1.0, contiguous=True):
    generator = cpu_generator(generator)
    if dtype.is_complex:
        values = rt.normal(generator, 2 * _count(shape), dtype.to_real(), mean,
                           std / math.sqrt(2.0), contiguous)
        return values.view(dtype._np).reshape(shape)
    return rt.normal(generator, _count(shape), dtype, mean, std, contiguous).reshape(shape)


def in_memory_order(values, shape, strides):
    """`values` (drawn flat) laid out so the element at the k-th smallest memory offset of an
    array with `strides` is values[k]: the order PyTorch's kernels fill a strided output."""
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    laid = np.asarray(values).reshape([shape[d] for d in order])
    return laid.transpose(np.argsort(order))


def host(xp, array):
    """A kernel's input array on the host (random numbers are drawn there)."""
    return backend_helpers(xp).to_host(array)          # NOTE [back-end helpers]


def _float_dtype(dtype, kernel, size=None):
    """The floating dtype asked for; for the normal fills any dtype when `size` holds nothing
    (NOTE [empty samples look for no kernel] in random_inplace.py)."""
    if dtype is None:
        return _default_float[0]      # always a floating type
    dtype = option_dtype(dtype, None)
    if not (kernel == "normal_kernel_cpu" and size is not None and 0 in size):
        _need_float(dtype, kernel)
    return dtype


def _int_dtype(dtype):
    return dt.int64 if dtype is None or dtype == "long" else option_dtype(dtype, dt.int64)


def _sized_meta(kernel):
    def meta(size, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
        dtype = _float_dtype(dtype, kernel)
        check_sizes(size)
        return (size, dtype)
    return meta


# --------------------------------------------------------------------------- factories

@register_op(f"rand(SymInt[] size, *, {_GEN}, {_OPTIONS}) -> Tensor", **_SEEDED,
             meta=_sized_meta("check_uniform_bounds"))
def _rand(xp, size, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """rand(*size, *, generator=None, dtype=None, device=None) -> Tensor: uniform in [0, 1)."""
    dtype = _float_dtype(dtype, "check_uniform_bounds")
    if size and min(size) < 0:
        check_sizes(size)
    return on_device(xp, _uniform(generator, size, dtype), device)


@register_op(f"randn(SymInt[] size, *, {_GEN}, {_OPTIONS}) -> Tensor", **_SEEDED,
             meta=_sized_meta("normal_kernel_cpu"))
def _randn(xp, size, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """randn(*size, *, generator=None, dtype=None, device=None) -> Tensor: standard normal."""
    dtype = _float_dtype(dtype, "normal_kernel_cpu", size)
    if size and min(size) < 0:
        check_sizes(size)
    return on_device(xp, _normal(generator, size, dtype), device)


_RAND, _RANDN = OPS["rand"], OPS["randn"]


def _require_size(name, sizes, size) -> None:
    """PyTorch's parser wants the size (`randn()` is a TypeError, `randn(())` a 0-d tensor)."""
    if not sizes and size is None:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')


@register_frontend(method=False)
def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(rand, locals())
    if out is not None:
        dtype, device = dtype or out._dtype, out._device
    _require_size("rand", sizes, size)
    return run_factory_op(_RAND, (sizes_or_keyword(sizes, size, "rand", "size"), generator,
                                  dtype, layout, device, pin_memory), requires_grad, out)


@register_frontend(method=False)
def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(randn, locals())
    if out is not None:
        dtype, device = dtype or out._dtype, out._device
    _require_size("randn", sizes, size)
    shape = sizes_or_keyword(sizes, size, "randn", "size")
    made = _call(_RANDN, (shape, generator, dtype, layout, device, pin_memory))
    if out is not None:
        dispatch.copy_into_out(out, made)
        return out
    return made.requires_grad_(True) if requires_grad else made


def _check_int_range(low, high, dtype):
    _check(low < high, lambda: (
        f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"))
    if dtype._category <= dt.INT:
        info = (0, 1) if dtype is dt.bool_ else (np.iinfo(dtype._np).min, np.iinfo(dtype._np).max)
        _check(info[0] <= low <= info[1], lambda: (
            f"from is out of bounds for {cxx(dtype._np)}"))
        _check(info[0] <= high - 1 <= info[1], lambda: (
            f"to - 1 is out of bounds for {cxx(dtype._np)}"))


def _randint_meta(low, high, size, generator=None, dtype="long", layout=None, device=None,
                  pin_memory=None):
    dtype = _int_dtype(dtype)
    _check_int_range(low, high, dtype)
    check_sizes(size)
    return (size, dtype)


@register_op(f"randint.low(SymInt low, SymInt high, SymInt[] size, *, {_GEN}, "
             "ScalarType? dtype=long, Layout? layout=None, Device? device=None, "
             "bool? pin_memory=None) -> Tensor", **_SEEDED, meta=_randint_meta)
def _randint(xp, low, high, size, generator=None, dtype="long", layout=None, device=None,
             pin_memory=None):
    """randint(low=0, high, size, *, generator=None, dtype=ember.int64, device=None) -> Tensor:
    integers drawn uniformly from [low, high)."""
    dtype = _int_dtype(dtype)
    _check_int_range(low, high, dtype)
    check_sizes(size)
    values = rt.integers(cpu_generator(generator), _count(size), dtype, low, high)
    return on_device(xp, values.reshape(size), device)


@register_frontend(method=False)
def randint(*args, low=None, high=None, size=None, generator=None, out=None, dtype=None,
            layout=None, device=None, pin_memory=False, requires_grad=False):
    """randint(low=0, high, size, ...): integers drawn uniformly from [low, high)."""
    if _state.entry and _wants(locals()):
        return _handle(randint, locals())
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    # low and high may also come by keyword: randint(high=5, size=(3,)).
    if high is not None:
        args.append(high)
    if low is not None:
        args.insert(0, low)
    _check_type(size is not None and 1 <= len(args) <= 2 and all(
        isinstance(a, (int, np.integer)) for a in args), lambda: (
        "randint() received an invalid combination of arguments - expected (int high, tuple "
        "of ints size) or (int low, int high, tuple of ints size)"))
    low, high = (0, args[0]) if len(args) == 1 else args
    if out is not None:
        dtype, device = dtype or out._dtype, out._device
    return run_factory_op(OPS["randint.low"], (
        low, high, normalize_shape((size,)), generator, dtype or dt.int64, layout, device,
        pin_memory), requires_grad, out)


def _check_randperm(n, dtype):
    check_sizes((n,))
    _check_not_implemented(dtype is not dt.bool_, "\"randperm\" not implemented for 'Bool'")
    if dtype._category == dt.INT and n > 0:
        _check(n - 1 <= np.iinfo(dtype._np).max, lambda: (
            f"value cannot be converted to type {cxx(dtype._np).replace('signed char', 'int8_t')}"
            " without overflow"))


@register_op(f"randperm(SymInt n, *, {_GEN}, ScalarType? dtype=long, Layout? layout=None, "
             "Device? device=None, bool? pin_memory=None) -> Tensor", **_SEEDED,
             meta=lambda n, generator=None, dtype="long", layout=None, device=None,
             pin_memory=None: (_check_randperm(n, _int_dtype(dtype)), ((n,), _int_dtype(dtype)))[1])
def _randperm(xp, n, generator=None, dtype="long", layout=None, device=None, pin_memory=None):
    """randperm(n, *, generator=None, dtype=ember.int64, device=None) -> Tensor: a random
    permutation of 0 .. n-1."""
    dtype = _int_dtype(dtype)
    _check_randperm(n, dtype)
    values = rt.permutation(cpu_generator(generator), n)
    values = rt.to_dtype(values, dtype) if dtype.is_floating_point else values.astype(dtype._np)
    return on_device(xp, values, device)


@register_frontend(method=False)
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(randperm, locals())
    if out is not None:
        dtype, device = dtype or out._dtype, out._device
    return run_factory_op(OPS["randperm"], (n, generator, dtype or dt.int64, layout,
                                            device, pin_memory), requires_grad, out)


# --------------------------------------------------------------------------- *_like

def _like_target(self, memory_format, where):
    """The strides of the tensor `empty_like(self, memory_format=...)` (None: row-major)."""
    return like_strides(self, memory_format, where)


def _drawn_like(self, shape, memory_format, where, draw):
    """Draw in the memory order of the tensor made like `self`; `draw(contiguous)` gives the
    flat values."""
    strides = _like_target(self, memory_format, where)
    if strides is None:
        return draw(True).reshape(shape)
    target = strided_array(np, self.shape, strides, 0, dt.float32)
    contiguous = target.flags.c_contiguous
    values = draw(contiguous)
    return values.reshape(shape) if contiguous else in_memory_order(values, shape, strides)


def _laid_out_like(xp, self, values, memory_format, where):
    """Fresh `values` (already in the right element order) in the layout `memory_format` asks
    of a tensor made like the array `self` (preserve: self's own dense layout)."""
    strides = like_strides(self, memory_format, where)
    if strides is None:
        return values
    target = strided_array(xp, self.shape, strides, 0, _NP_TO_DTYPE[values.dtype])
    target[...] = values
    return target


def _like_meta(name, kernel, dtype_at, integer=False):
    def meta(self, *rest):
        dtype = rest[dtype_at]
        dtype = option_dtype(dtype, self._dtype)
        if not integer:
            _need_float(dtype, kernel)
        like_strides(self._data, rest[-1], name)
        return (self._data.shape, dtype)
    return meta


_LIKE_TAIL = f"{_OPTIONS}, MemoryFormat? memory_format=None) -> Tensor"


def _float_like_op(name, kernel_name, draw):
    def kernel(xp, self, generator=None, dtype=None, layout=None, device=None,
               pin_memory=None, memory_format=None):
        dtype = option_dtype(dtype, _NP_TO_DTYPE[self.dtype])
        if not (kernel_name == "normal_kernel_cpu" and self.size == 0):
            _need_float(dtype, kernel_name)     # (NOTE [empty samples look for no kernel])
        shape = tuple(self.shape)
        values = _drawn_like(self, shape, memory_format, name, lambda contiguous: draw(
            generator, (_count(shape),), dtype, contiguous=contiguous))
        return on_device(xp, _laid_out_like(np, self, values, memory_format, name), device)
    kernel.__doc__ = f"{name}(input, *, generator=None, dtype=None, device=None, " \
                     "memory_format=ember.preserve_format) -> Tensor: random numbers in " \
                     "input's shape (and by default dtype, device and layout)."
    register_op(f"{name}(Tensor self, *, {_GEN}, {_LIKE_TAIL}", **_SEEDED,
                meta=_like_meta(name, kernel_name, 1))(kernel)
    op = OPS[name]

    def frontend(input, *, generator=None, dtype=None, layout=None, device=None,
                 pin_memory=False, requires_grad=False, memory_format=None):
        if _state.entry and _wants(locals()):
            return _handle(frontend, locals())
        made = _call(op, (input, generator, dtype, layout, device, pin_memory, memory_format))
        return made.requires_grad_(True) if requires_grad else made
    frontend.__name__ = frontend.__qualname__ = name
    return register_frontend(name, method=False)(frontend)


rand_like = _float_like_op("rand_like", "check_uniform_bounds",
                           lambda generator, shape, dtype, contiguous: _uniform(
                               generator, shape, dtype))
randn_like = _float_like_op("randn_like", "normal_kernel_cpu", _normal)


@register_op(f"randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, {_GEN}, "
             f"{_LIKE_TAIL}", **_SEEDED, meta=_like_meta("randint_like", "", 3, integer=True))
def _randint_like(xp, self, low, high, generator=None, dtype=None, layout=None, device=None,
                  pin_memory=None, memory_format=None):
    """randint_like(input, low=0, high, *, generator=None, dtype=None, device=None) -> Tensor:
    integers from [low, high) in input's shape."""
    dtype = option_dtype(dtype, _NP_TO_DTYPE[self.dtype])
    _check_int_range(low, high, dtype)
    shape = tuple(self.shape)
    values = _drawn_like(self, shape, memory_format, "randint_like", lambda contiguous: (
        rt.integers(cpu_generator(generator), _count(shape), dtype, low, high)))
    return on_device(xp, _laid_out_like(np, self, values, memory_format, "randint_like"),
                     device)


@register_frontend(method=False)
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None,
                 device=None, pin_memory=False, requires_grad=False, memory_format=None):
    if _state.entry and _wants(locals()):
        return _handle(randint_like, locals())
    if high is None:
        low, high = 0, low
    if isinstance(high, dispatch.Tensor):
        high = high.item()
    made = _call(OPS["randint_like.low_dtype"], (input, low, high, generator, dtype, layout,
                                                  device, pin_memory, memory_format))
    return made.requires_grad_(True) if requires_grad else made


# --------------------------------------------------------------------------- from tensors

def _check_std(std):
    _check(std >= 0, lambda: f"normal expects std >= 0.0, but found std {_g(std)}")


@register_op(f"normal.float_float(float mean, float std, SymInt[] size, *, {_GEN}, "
             f"{_OPTIONS}) -> Tensor", **_SEEDED,
             meta=lambda mean, std, size, generator=None, dtype=None, layout=None, device=None,
             pin_memory=None: (_check_std(std), _sized_meta("normal_kernel_cpu")(
                 size, generator, dtype))[1])
def _normal_float_float(xp, mean, std, size, generator=None, dtype=None, layout=None,
                        device=None, pin_memory=None):
    """normal(mean, std, size, *, generator=None, dtype=None, device=None) -> Tensor."""
    _check_std(std)
    dtype = _float_dtype(dtype, "normal_kernel_cpu", size)
    check_sizes(size)
    return on_device(xp, _normal(generator, size, dtype, mean, std), device)


def _normal_dtype(*dtypes, empty=False):
    """The result dtype of normal with tensor operands (mean's, then std's dtypes): mean's
    dtype where mean is a tensor, std's otherwise -- PyTorch does not promote the two (a
    float32 mean beside a float64 std gives float32). An empty result takes any dtype (PyTorch
    draws nothing, so it looks for no kernel)."""
    dtype = dtypes[0]
    if not empty:
        _need_float(dtype, "normal_kernel_cpu")
    return dtype


def _normal_meta(mean, std, generator=None):
    tensors = [t for t in (mean, std) if isinstance(t, dispatch.Tensor)]
    if not isinstance(std, dispatch.Tensor):
        _check_std(std)
    shape = broadcast_batch(*(t.shape for t in tensors)) if len(tensors) == 2 else \
        tuple(tensors[0].shape)
    return (shape, _normal_dtype(*(t._dtype for t in tensors), empty=0 in shape))


def _normal_tensors(xp, mean, std, generator):
    """Numbers drawn around `mean` with spread `std` (arrays or Python numbers)."""
    arrays = [v for v in (mean, std) if not isinstance(v, (int, float))]
    shape = broadcast_batch(*(a.shape for a in arrays)) if len(arrays) == 2 else \
        tuple(arrays[0].shape)
    dtype = _normal_dtype(*(_NP_TO_DTYPE[a.dtype] for a in arrays), empty=0 in shape)
    if 0 in shape:
        return xp.empty(shape, dtype._np)
    mean_v = mean if isinstance(mean, (int, float)) else host(xp, mean)
    std_v = std if isinstance(std, (int, float)) else host(xp, std)
    if isinstance(std, (int, float)):
        _check_std(std)
    else:
        _check(bool((std_v >= 0).all()), "normal expects all elements of std >= 0.0")
    # PyTorch fills the output with normal_(0, std) (a number std) or normal_(0, 1), then
    # multiplies by a std tensor and adds the mean in the output's dtype, one op at a time.
    scalar_std = isinstance(std, (int, float))
    values = _normal(generator, shape, dtype, 0.0, float(std) if scalar_std else 1.0)
    if not scalar_std:
        values = values * np.asarray(std_v).astype(dtype._np, copy=False)
    values = values + np.asarray(mean_v).astype(dtype._np, copy=False)
    values = np.asarray(values).astype(dtype._np, copy=False)
    return backend_helpers(xp).from_host(values)          # NOTE [back-end helpers]


_NORMAL = {**_SAMPLER, "meta": _normal_meta}


@register_op(f"normal.Tensor_Tensor(Tensor mean, Tensor std, *, {_GEN}) -> Tensor", **_NORMAL,
             derivatives={"mean": zeros_grad, "std": zeros_grad}, node_name="NormalBackward3")
def _normal_tt(xp, mean, std, generator=None):
    """normal(mean, std, *, generator=None) -> Tensor: one number per element of the
    broadcast mean and std tensors."""
    return _normal_tensors(xp, mean, std, generator)


@register_op(f"normal.Tensor_float(Tensor mean, float std=1, *, {_GEN}) -> Tensor", **_NORMAL,
             derivatives={"mean": zeros_grad}, node_name="NormalBackward1")
def _normal_tf(xp, mean, std=1.0, generator=None):
    """normal(mean, std=1.0, *, generator=None) -> Tensor: around each element of mean."""
    return _normal_tensors(xp, mean, std, generator)


@register_op(f"normal.float_Tensor(float mean, Tensor std, *, {_GEN}) -> Tensor", **_NORMAL,
             derivatives={"std": zeros_grad}, node_name="NormalBackward2")
def _normal_ft(xp, mean, std, generator=None):
    """normal(mean, std, *, generator=None) -> Tensor: spread by each element of std."""
    return _normal_tensors(xp, mean, std, generator)


@register_frontend(method=False)
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """normal(mean, std, ...): mean and std as tensors or numbers; both numbers need `size`."""
    if _state.entry and _wants(locals()):
        return _handle(normal, locals())
    mean_t, std_t = isinstance(mean, dispatch.Tensor), isinstance(std, dispatch.Tensor)
    if not mean_t and not std_t:
        _check_type(size is not None, "normal() received an invalid combination of arguments - "
                                      "got (float, float), expected a size")
        if out is not None:
            dtype, device = dtype or out._dtype, out._device
        return run_factory_op(OPS["normal.float_float"], (
            mean, std, normalize_shape((size,)), generator, dtype, layout, device, pin_memory),
            requires_grad, out)
    # With a tensor, PyTorch's overloads take no size, and a number beside it is a float.
    _check_type(size is None, "normal() received an invalid combination of arguments - got a "
                              "size beside a tensor mean or std")
    if not mean_t and type(mean) is not float and type(mean) is not int:
        mean = arguments.float_(mean, ("normal", "mean", 1))
    if not std_t and type(std) is not float and type(std) is not int:
        std = arguments.float_(std, ("normal", "std", 2))
    name = "normal.Tensor_Tensor" if mean_t and std_t else (
        "normal.Tensor_float" if mean_t else "normal.float_Tensor")
    return run_factory_op(OPS[name], (mean, std, generator), False, out)


def _same_meta(self, *rest):
    return (self._data.shape, self._dtype)


def _check_p(p):
    _check(0 <= p <= 1, lambda: f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")


def _need_float_input(dtype, kernel):
    _check_not_implemented(dtype.is_floating_point, lambda: (
        f'"{kernel}" not implemented for \'{dtype._cpp_name}\''))


def _bernoulli_meta(self, generator=None):
    if self._data.size:                 # (an empty input is never looked at)
        _need_float_input(self._dtype, "bernoulli_tensor_cpu_p_")
    return (self._data.shape, self._dtype)


def _draw_below(xp, generator, like, probs):
    """1 where a uniform falls below the probability, in the shape, dtype and memory order of
    the array `like`: `probs` an array broadcast to that shape (float64 probabilities draw
    double uniforms, other dtypes float ones), or a number (double uniforms)."""
    generator = cpu_generator(generator)
    shape = tuple(like.shape)
    contiguous = backend_helpers(xp).in_memory_order(like)
    order = list(range(len(shape))) if contiguous else sorted(
        range(len(shape)), key=lambda d: -like.strides[d])
    if isinstance(probs, np.ndarray):
        visited = np.broadcast_to(probs, shape).transpose(order)
        flat = rt.bernoulli_tensor(generator, np.ascontiguousarray(visited).reshape(-1))
    else:
        flat = rt.bernoulli_scalar(generator, _count(shape), probs)
    values = flat.reshape(shape) if contiguous else in_memory_order(flat, shape, like.strides)
    values = values.astype(like.dtype)
    return backend_helpers(xp).from_host(values)          # NOTE [back-end helpers]


@register_op(f"bernoulli(Tensor self, *, {_GEN}) -> Tensor", **_SAMPLER, meta=_bernoulli_meta,
             derivatives={"self": zeros_grad}, node_name="BernoulliBackward0")
def _bernoulli(xp, self, generator=None):
    """bernoulli(input, *, generator=None) -> Tensor: 1 with probability input, else 0."""
    if self.size:                       # (an empty input is never looked at)
        _need_float_input(_NP_TO_DTYPE[self.dtype], "bernoulli_tensor_cpu_p_")
    probs = host(xp, self)
    _check(bool(((probs >= 0) & (probs <= 1)).all()),
           "Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    # (the result is a fresh contiguous tensor, filled in row-major order)
    return _draw_below(xp, generator, np.empty(self.shape, self.dtype), probs)


@register_op(f"bernoulli.p(Tensor self, float p, *, {_GEN}) -> Tensor", **_SAMPLER,
             meta=_same_meta,      # (PyTorch's meta kernel doesn't check p)
             derivatives={"self": zeros_grad}, node_name="BernoulliBackward1")
def _bernoulli_p(xp, self, p, generator=None):
    """bernoulli(input, p, *, generator=None) -> Tensor: 1 with probability p, else 0, in
    input's shape and dtype (also Tensor.bernoulli_(p))."""
    _check_not_implemented(self.dtype.kind != "c", lambda: (
        f"\"bernoulli_scalar_cpu_\" not implemented for '{_NP_TO_DTYPE[self.dtype]._cpp_name}'"))
    _check_p(p)
    return _draw_below(xp, generator, self, p)


@register_frontend()
def bernoulli(input, p=NOT_GIVEN, *, generator=None, out=None):
    """bernoulli(input, p=None): 1 with probability `input` (or `p`), else 0."""
    if _state.entry and _wants(locals()):
        return _handle(bernoulli, locals())
    # (PyTorch's overloads: bernoulli(input, *, generator) and bernoulli(input, float p ...);
    # p=None fits neither.)
    _check_type(p is not None, "bernoulli() received an invalid combination of arguments - "
                               "got p=None, but expected a float p or none")
    if p is NOT_GIVEN:
        return run_factory_op(OPS["bernoulli"], (input, generator), False, out)
    if isinstance(p, dispatch.Tensor) and p.ndim == 0 and not p.requires_grad:
        p = arguments.float_(p, ("bernoulli", "p", None))   # (0-d: a float p, as PyTorch's parser)
    return run_factory_op(OPS["bernoulli.p"], (input, p, generator), False, out)


def _multinomial_shape(self, num_samples, replacement):
    _check(self.ndim in (1, 2), "prob_dist must be 1 or 2 dim")
    dtype = _NP_TO_DTYPE[self.dtype]
    _check(dtype.is_floating_point, lambda: (
        f"multinomial only supports floating-point dtypes for input, got: {dtype._cpp_name}"))
    _check(num_samples > 0, "cannot sample n_sample <= 0 samples")
    _check(replacement or num_samples <= self.shape[-1], (
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement"))
    return tuple(self.shape[:-1]) + (num_samples,)


@register_op(f"multinomial(Tensor self, int num_samples, bool replacement=False, *, {_GEN}) "
             "-> Tensor", **_SAMPLER, differentiable=False,
             meta=lambda self, num_samples, replacement=False, generator=None: (
                 _multinomial_shape(self._data, num_samples, replacement), dt.int64))
def _multinomial(xp, self, num_samples, replacement=False, generator=None):
    """multinomial(input, num_samples, replacement=False, *, generator=None) -> Tensor:
    category indices drawn with the (unnormalised) weights in each row of `input`."""
    shape = _multinomial_shape(self, num_samples, replacement)
    weights = np.atleast_2d(host(xp, self).astype(np.float64))
    _check(bool(np.isfinite(weights).all() and (weights >= 0).all()),
           "probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(axis=1)
    _check(bool((totals > 0).all()), "invalid multinomial distribution (sum of probabilities <= 0)")
    generator = cpu_generator(generator)
    if replacement and num_samples > 1:
        # Per row: cumulative weights in the accumulation dtype, normalised, the last set to
        # 1; each double uniform picks the first category whose cumulative weight reaches it.
        accumulate = np.float64 if self.dtype == np.float64 else np.float32
        rows = np.atleast_2d(host(xp, self)).astype(accumulate)
        uniforms = rt.uniform_double(generator, rows.shape[0] * num_samples).reshape(
            rows.shape[0], num_samples)
        picks = np.empty(uniforms.shape, np.int64)
        for index, (row, draws) in enumerate(zip(rows, uniforms)):
            cumulative = np.cumsum(row, dtype=accumulate)
            cumulative = cumulative / cumulative[-1]
            cumulative[-1] = 1
            picks[index] = np.searchsorted(cumulative.astype(np.float64), draws, side="left")
    else:
        # PyTorch's fast path: argmax / top-k of weight / Exp(1) noise drawn in the input's
        # dtype. NOTE [multinomial ties]: ties (zero weights, once the others are drawn) go to
        # the lower index here; PyTorch's top-k leaves them in its sort's own order.
        source = host(xp, self)
        noise = rt.to_dtype(rt.exponential(generator, source.size, 1.0), _NP_TO_DTYPE[
            source.dtype]).reshape(source.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = np.atleast_2d(source / noise)
        picks = np.argsort(-keys.astype(np.float64), axis=1, kind="stable")[:, :num_samples]
    values = picks.reshape(shape).astype(np.int64)
    return backend_helpers(xp).from_host(values)          # NOTE [back-end helpers]


@register_frontend()
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """multinomial(input, num_samples, replacement=False): category indices drawn with the
    (unnormalised) weights in each row of `input`."""
    if _state.entry and _wants(locals()):
        return _handle(multinomial, locals())
    if type(num_samples) is not int or not (replacement is False or replacement is True):
        input, num_samples, replacement, generator = arguments.parser_error(
            OPS["multinomial"], (input, num_samples, replacement, generator), "multinomial",
            none_refused=True)              # (the parser's errors first)
    return run_factory_op(OPS["multinomial"], (input, num_samples, replacement,
                                               generator), False, out)


def _poisson_meta(self, generator=None):
    _need_float_input(self._dtype, "poisson_cpu")
    return (self._data.shape, self._dtype)


@register_op(f"poisson(Tensor self, {_GEN}) -> Tensor", **{**_SAMPLER, "function": True},
             meta=_poisson_meta, derivatives={"self": zeros_grad})
def _poisson(xp, self, generator=None):
    """poisson(input, generator=None) -> Tensor: a Poisson draw with each element's rate."""
    _need_float_input(_NP_TO_DTYPE[self.dtype], "poisson_cpu")
    rates = host(xp, self).astype(np.float64)
    _check(bool((rates >= 0).all()), "invalid Poisson rate, expected rate to be non-negative")
    # NOTE [poisson's stream]: PyTorch's sampler (a product of uniforms below rates of 10, a
    # transformed rejection from 10 on) runs on blocks of the stream as the gamma sampler does
    # (NOTE [gamma's stream], random_distributions.py) when exact rejection sampling is on:
    # PyTorch's numbers for one seed; otherwise (the default, NOTE [exact rejection streams
    # are opt-in]) or for parameters too varied, NumPy's sampler seeded by one 64-bit draw.
    from ember._ops import random_chain, random_rejection
    generator = cpu_generator(generator)
    values = random_chain.sample(generator, np.ascontiguousarray(rates).reshape(-1, 1),
                                 random_rejection.Poisson(), np.float64)
    if values is None:
        seed = int(generator.random64(1)[0])
        # (asarray: NumPy's samplers give a Python number for a 0-d input.)
        values = np.asarray(np.random.default_rng(seed).poisson(rates))
    values = values.reshape(rates.shape).astype(self.dtype)
    return backend_helpers(xp).from_host(values)          # NOTE [back-end helpers]
