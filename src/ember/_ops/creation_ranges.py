"""Range and structured factories: arange, range, linspace, logspace, eye, empty_strided.

Each is a registry op (`arange.start_step`, `range.step`, `linspace`, `logspace`, `eye.m`; see
NOTE [factory device]); the frontends here parse PyTorch's calling conventions (`arange(end)`
vs `arange(start, end, step)`, 0-d tensors as numbers, `out=`, `requires_grad=`) and infer the
dtype from the Python numbers. Values are computed in float64 (int64 for integer ranges) and
cast once, as PyTorch's CPU kernels compute in their accumulate type.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import cast
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import normalize_shape
from ember._ops.creation import (
    _FACTORY,
    _OPTIONS,
    check_sizes,
    on_device,
    option_dtype,
    run_factory_op,
)

_call = dispatch.call


def _number(value, name):
    """A Scalar argument as a Python number (0-d tensors give their value)."""
    if isinstance(value, dispatch.Tensor):
        _check(value.numel() == 1, lambda: (
            f"{name} must be a scalar, but got a tensor with {value.numel()} elements"))
        return value.item(), value._dtype
    _check_type(isinstance(value, (int, float, complex, np.number, np.bool_)), lambda: (
        f"argument '{name}' must be Number, not {type(value).__name__}"))
    return value, None


def _is_float(value, tensor_dtype):
    if tensor_dtype is not None:
        return tensor_dtype.is_floating_point
    return isinstance(value, (float, np.floating))


def _real(value, dtype):
    _check(not isinstance(value, (complex, np.complexfloating)) or dtype.is_complex, lambda: (
        "value cannot be converted to type double without overflow"))
    return value


def _cast(values, dtype):
    """float64/int64 host values in `dtype` (floats truncate toward zero for integer types)."""
    if dtype._category <= dt.INT and values.dtype.kind == "f":
        values = np.trunc(values)
    if dtype._category == dt.INT and values.dtype.kind == "f":
        values = cast(values, np.dtype(np.int64))   # wraps like a C cast for the narrow types
    return cast(values, dtype._np)


def _range_values(start, end, step, dtype, size):
    if dtype._category <= dt.INT and all(isinstance(v, (int, np.integer)) for v in
                                         (start, end, step)):
        return _cast(start + np.arange(size, dtype=np.int64) * step, dtype)
    work = np.complex128 if dtype.is_complex else np.float64
    return _cast(start + np.arange(size, dtype=work) * step, dtype)


def _check_range(start, end, step):
    _check(step != 0, "step must be nonzero")
    _check(math.isfinite(start) and math.isfinite(end), lambda: (
        f"unsupported range: {start} -> {end}"))
    _check((step > 0 and end >= start) or (step < 0 and end <= start),
           "upper bound and lower bound inconsistent with step sign")


def _arange_size(start, end, step, dtype):
    # The kernel is picked by dtype before the numbers are looked at (none for bool, complex).
    _check_not_implemented(dtype is not dt.bool_ and not dtype.is_complex, lambda: (
        f"\"arange_cpu\" not implemented for '{dtype._cpp_name}'"))
    for v in (start, end, step):
        _real(v, dtype)
    _check_range(start, end, step)
    if dtype is dt.int64 and not _all_integers(start, end, step):
        # NOTE [arange into integers]: for int64 PyTorch counts with the bounds and step cast
        # to int64 first (truncated), so arange(0, 5.5, 1) has 5 elements and a step below 1
        # is an error; the other integer dtypes count with the numbers as given.
        first, last, stride = (int(v) for v in (start, end, step))
        if stride == 0:
            raise ValueError("step must be nonzero")
        sign = 1 if stride > 0 else -1
        return max(0, (abs(last - first + stride - sign)) // abs(stride))
    return math.ceil((end - start) / step)


def _all_integers(*values):
    return all(isinstance(v, (int, np.integer)) for v in values)


def _range_dtype(start, end, step):
    """arange's dtype for Python numbers: the default float if any is a float, else int64."""
    return dt.get_default_dtype() if any(isinstance(v, (float, np.floating))
                                         for v in (start, end, step)) else dt.int64


@register_op(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_OPTIONS}) -> "
             "Tensor", **_FACTORY,
             meta=lambda start, end, step=1, dtype=None, layout=None, device=None,
             pin_memory=None: _arange_meta(start, end, step, dtype))
def _arange(xp, start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    """arange(start=0, end, step=1, *, dtype=None, device=None) -> Tensor: the numbers from
    start up to (not including) end, step apart."""
    if type(start) is int and type(end) is int and type(step) is int and \
            (dtype is None or dtype is dt.int64) and step and (end - start) * step >= 0:
        return xp.arange(start, end, step, dtype=np.int64)     # (the common arange(n))
    dtype = option_dtype(dtype, _range_dtype(start, end, step))
    size = _arange_size(start, end, step, dtype)
    if dtype._category == dt.INT and not _all_integers(start, end, step):
        # NOTE [arange into integers]: the values are int(start) + i * int(step) in int64.
        start, end, step = int(start), int(end), int(step)
    return on_device(xp, _range_values(start, end, step, dtype, size), device)


def _arange_meta(start, end, step, dtype):
    dtype = option_dtype(dtype, _range_dtype(start, end, step))
    size = _arange_size(start, end, step, dtype)
    # (PyTorch's meta kernel also refuses a step that truncates to 0 for the narrow integers.)
    _check(dtype._category != dt.INT or _all_integers(start, end, step) or int(step) != 0,
           "step must be nonzero")
    return ((size,), dtype)


_ARANGE = OPS["arange.start_step"]


@register_frontend(method=False)
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(arange, locals())
    if end is None:
        start, end = 0, start
    if type(start) is int and type(end) is int and type(step) is int and out is None:
        made = _call(_ARANGE, (start, end, step, dtype, layout, device, pin_memory))
        return made.requires_grad_(True) if requires_grad else made
    (start, t1), (end, t2), (step, t3) = (_number(start, "start"), _number(end, "end"),
                                          _number(step, "step"))
    if dtype is None:
        dtype = out._dtype if out is not None else (
            dt.get_default_dtype() if any(_is_float(v, t) for v, t in
                                          ((start, t1), (end, t2), (step, t3))) else dt.int64)
    if out is not None:
        device = out._device
    return run_factory_op(_ARANGE, (start, end, step, dtype, layout, device, pin_memory),
                          requires_grad, out)


def _range_step_size(start, end, step, dtype=None):
    if dtype is not None:
        _check_not_implemented(dtype is not dt.bool_ and not dtype.is_complex, lambda: (
            f"\"range_cpu\" not implemented for '{dtype._cpp_name}'"))
    _check_range(start, end, step)
    return math.floor((end - start) / step) + 1


@register_op(f"range.step(Scalar start, Scalar end, Scalar step=1, *, {_OPTIONS}) -> Tensor",
             **_FACTORY, meta=lambda start, end, step=1, dtype=None, layout=None, device=None,
             pin_memory=None: ((_range_step_size(
                 start, end, step, option_dtype(dtype, dt.get_default_dtype())),),
                 option_dtype(dtype, dt.get_default_dtype())))
def _range_step(xp, start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    """range(start=0, end, step=1) -> Tensor (deprecated): like arange, end included."""
    dtype = option_dtype(dtype, dt.get_default_dtype())
    size = _range_step_size(start, end, step, dtype)
    return on_device(xp, _range_values(start, end, step, dtype, size), device)


@register_frontend("range", method=False)
def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    # (no pin_memory: PyTorch's range takes none)
    if _state.entry and _wants(locals()):
        return _handle(range_, locals())
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    start, end, step = (_number(start, "start")[0], _number(end, "end")[0],
                        _number(step, "step")[0])
    dtype = dtype or (out._dtype if out is not None else dt.get_default_dtype())
    if out is not None:
        device = out._device
    return run_factory_op(OPS["range.step"], (start, end, step, dtype, layout, device, False),
                          requires_grad, out)


def _spaced(start, end, steps, dtype, kernel_name):
    """linspace's values in float64 (complex128), PyTorch's symmetric formula: the first half
    counts up from start, the second half down from end, so both ends are exact."""
    _check_type(isinstance(steps, (int, np.integer)) and not isinstance(steps, bool), lambda: (
        f"linspace(): argument 'steps' must be int, not {type(steps).__name__}"))
    _check(steps >= 0, "number of steps must be non-negative")
    _check_not_implemented(dtype is not dt.bool_ and dtype is not dt.complex32, lambda: (
        f"\"{kernel_name}\" not implemented for '{dtype._cpp_name}'"))
    work = np.complex128 if dtype.is_complex or isinstance(start, complex) or isinstance(
        end, complex) else np.float64
    if steps == 1:
        return np.array([start], dtype=work)
    if dtype is dt.float32 and work is np.float64 and kernel_name == "linspace_cpu":
        return _spaced_float32(start, end, steps)
    if dtype in (dt.float16, dt.bfloat16) and work is np.float64 and \
            kernel_name == "linspace_cpu":
        return _spaced_half(start, end, steps, dtype._np)
    step = (end - start) / max(steps - 1, 1)
    index = np.arange(steps, dtype=np.float64)
    half = steps // 2
    values = np.where(index < half, start + index * step, end - (steps - 1 - index) * step)
    return cast(values, np.dtype(work))


def _spaced_float32(start, end, steps):
    """float32 linspace as PyTorch's CPU kernel computes it: a float32 step, each value
    start + step * index (or end - step * (steps - 1 - index) in the second half) rounded
    once, as a fused multiply-add (float64 holds the product and sum exactly)."""
    low, high = np.float32(start), np.float32(end)
    step = np.float64((high - low) / np.float32(steps - 1))
    index = np.arange(steps, dtype=np.float64)
    half = steps // 2
    values = np.where(index < half, np.float64(low) + step * index,
                      np.float64(high) - step * (steps - 1 - index))
    return values.astype(np.float32).astype(np.float64)


def _spaced_half(start, end, steps, half):
    """float16 / bfloat16 linspace as PyTorch's CPU kernel computes it: every step in the
    half type (the ends, the step, the indices, each product and sum rounded to it)."""
    def rounded(values):
        return np.asarray(values, dtype=np.float32).astype(half).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        low, high = rounded(start), rounded(end)
        step = rounded(rounded(high - low) / rounded(steps - 1))
        index = np.arange(steps)
        half_way = steps // 2
        values = np.where(index < half_way, rounded(low + rounded(rounded(index) * step)),
                          rounded(high - rounded(rounded(steps - 1 - index) * step)))
    return values.astype(np.float64)


def _spaced_dtype(start, end, dtype):
    """linspace's dtype for Python numbers: the default complex dtype if either is complex."""
    is_complex = any(isinstance(v, (complex, np.complexfloating)) for v in (start, end))
    return option_dtype(dtype, dt.default_complex_dtype() if is_complex else
                        dt.get_default_dtype())


def _spaced_meta(kernel_name):
    def meta(start, end, steps, *rest):
        dtype = _spaced_dtype(start, end, rest[1] if kernel_name == "logspace_cpu" else
                              (rest[0] if rest else None))
        _spaced(start, end, steps, dtype, kernel_name)
        return ((steps,), dtype)
    return meta


@register_op(f"linspace(Scalar start, Scalar end, int steps, *, {_OPTIONS}) -> Tensor",
             **_FACTORY, meta=_spaced_meta("linspace_cpu"))
def _linspace(xp, start, end, steps, dtype=None, layout=None, device=None, pin_memory=None):
    """linspace(start, end, steps, *, dtype=None, device=None) -> Tensor: `steps` numbers
    evenly spaced from start to end, both included."""
    dtype = _spaced_dtype(start, end, dtype)
    values = _spaced(start, end, steps, dtype, "linspace_cpu")
    return on_device(xp, _cast(values, dtype), device)


@register_op("logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
             f"{_OPTIONS}) -> Tensor", **_FACTORY, meta=_spaced_meta("logspace_cpu"))
def _logspace(xp, start, end, steps, base=10.0, dtype=None, layout=None, device=None,
              pin_memory=None):
    """logspace(start, end, steps, base=10.0, *, dtype=None, device=None) -> Tensor: base to
    the powers linspace(start, end, steps) gives."""
    dtype = _spaced_dtype(start, end, dtype)
    values = _spaced(start, end, steps, dtype, "logspace_cpu")
    return on_device(xp, _cast(np.power(float(base), values), dtype), device)


def _spaced_frontend_dtype(start, end, dtype, out):
    """The dtype the frontend passes: out's, or inferred from the numbers and 0-d tensors."""
    start, t1 = _number(start, "start")
    end, t2 = _number(end, "end")
    if dtype is None:
        is_complex = any(isinstance(v, (complex, np.complexfloating)) or (
            t is not None and t.is_complex) for v, t in ((start, t1), (end, t2)))
        dtype = out._dtype if out is not None else (
            dt.default_complex_dtype() if is_complex else dt.get_default_dtype())
    return start, end, dtype


@register_frontend(method=False)
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(linspace, locals())
    start, end, dtype = _spaced_frontend_dtype(start, end, dtype, out)
    if out is not None:
        device = out._device
    return run_factory_op(OPS["linspace"], (start, end, steps, dtype, layout, device, pin_memory),
                          requires_grad, out)


@register_frontend(method=False)
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(logspace, locals())
    start, end, dtype = _spaced_frontend_dtype(start, end, dtype, out)
    if out is not None:
        device = out._device
    return run_factory_op(OPS["logspace"], (start, end, steps, base, dtype, layout, device,
                                            pin_memory), requires_grad, out)


def _eye_check(n, m):
    _check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    _check(m >= 0, lambda: f"m must be greater or equal to 0, got {m}")


@register_op(f"eye.m(SymInt n, SymInt m, *, {_OPTIONS}) -> Tensor", **_FACTORY,
             meta=lambda n, m, dtype=None, layout=None, device=None, pin_memory=None: (
                 _eye_check(n, m), ((n, m), option_dtype(dtype, dt.get_default_dtype())))[1])
def _eye(xp, n, m, dtype=None, layout=None, device=None, pin_memory=None):
    """eye(n, m=None, *, dtype=None, device=None) -> Tensor: ones on the diagonal."""
    _eye_check(n, m)
    dtype = option_dtype(dtype, dt.get_default_dtype())
    _check_not_implemented(dtype is not dt.complex32, "\"eye\" not implemented for 'ComplexHalf'")
    return xp.eye(n, m, dtype=dtype._np)


@register_frontend(method=False)
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
        requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(eye, locals())
    _check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    dtype = dtype or (out._dtype if out is not None else dt.get_default_dtype())
    if out is not None:
        device = out._device
    return run_factory_op(OPS["eye.m"], (n, m, dtype, layout, device, pin_memory),
                          requires_grad, out)


@register_frontend(method=False)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    if _state.entry and _wants(locals()):
        return _handle(empty_strided, locals())
    shape = normalize_shape((size,))
    strides = normalize_shape((stride,))
    _check(len(shape) == len(strides), lambda: (
        f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
        f"({len(strides)})"))
    check_sizes(shape)
    return run_factory_op(OPS["empty_strided"], (shape, strides, dtype, layout, device, pin_memory),
                          requires_grad, None)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       pin_memory=False, requires_grad=False):
    """Tensor.new_empty_strided(size, stride, ...) -> Tensor: uninitialised memory with the
    given strides, in this tensor's dtype and device unless given."""
    if _state.entry and _wants(locals()):
        return _handle(_new_empty_strided, locals())
    return empty_strided(size, stride, dtype=dtype or self._dtype,
                         device=device or self._device, requires_grad=requires_grad)


register_frontend("new_empty_strided", function=False)(_new_empty_strided)


# --------------------------------------------------------------------------- fft frequencies

def _frequencies_dtype(name, dtype):
    dtype = option_dtype(dtype, dt.get_default_dtype())
    _check(dtype.is_floating_point or dtype.is_complex,
           f"{name} requires a floating point or complex dtype")
    # PyTorch fills the frequencies with arange, which has no complex kernel.
    _check_not_implemented(not dtype.is_complex, lambda: (
        f'"arange_cpu" not implemented for \'{dtype._cpp_name}\''))
    return dtype


def _frequencies(xp, name, n, d, dtype, device):
    """[0, 1, ..., count - 1] (fftfreq's second half counting -(n // 2) ... -1) / (n * d), in
    `dtype` as PyTorch's arange then mul_ compute it (1 / 0 is inf: rfftfreq(0) is [nan])."""
    dtype = _frequencies_dtype(name, dtype)
    values = np.arange(_count(name, n), dtype=np.float64)
    if name == "fftfreq":
        values[(n + 1) // 2:] = np.arange(-(n // 2), 0)
    values = values.astype(dtype._np)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scale = values.dtype.type(1.0 / (n * d) if n * d != 0 else math.inf)
        values = values * scale
    return on_device(xp, values, device)


def _count(name, n):
    """fftfreq's n values, rfftfreq's n / 2 + 1 in C++'s division (towards zero: one for n = -1)."""
    count = (n // 2 if n >= 0 else -(-n // 2)) + 1 if name == "rfftfreq" else n
    _check(count >= 0, lambda: f"Trying to create tensor with negative dimension {count}: [{count}]")
    return count


def _frequencies_meta(name):
    def meta(n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
        return ((_count(name, n),), _frequencies_dtype(name, dtype))
    return meta


@register_op(f"fft_fftfreq(int n, float d=1.0, *, {_OPTIONS}) -> Tensor", **_FACTORY,
             meta=_frequencies_meta("fftfreq"))
def _fft_fftfreq(xp, n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
    """fft.fftfreq's values (a factory op, as PyTorch's modes see it)."""
    return _frequencies(xp, "fftfreq", n, d, dtype, device)


@register_op(f"fft_rfftfreq(int n, float d=1.0, *, {_OPTIONS}) -> Tensor", **_FACTORY,
             meta=_frequencies_meta("rfftfreq"))
def _fft_rfftfreq(xp, n, d=1.0, dtype=None, layout=None, device=None, pin_memory=None):
    """fft.rfftfreq's values (a factory op, as PyTorch's modes see it)."""
    return _frequencies(xp, "rfftfreq", n, d, dtype, device)
