"""Range and structured factories: arange, range, linspace, logspace, eye, empty_strided.

Hand-written frontends like the rest of creation.py (their arguments need PyTorch's parsing:
`arange(end)` vs `arange(start, end, step)`, dtype inferred from the Python numbers). Values
are computed in float64 (int64 for integer ranges) and cast once, as PyTorch's CPU kernels
compute in their accumulate type.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ember._backends.meta import MetaArray
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.backend import get_backend
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.device import META, as_device, get_default_device
from ember._core.fp_errors import cast
from ember._core.registry import register_frontend
from ember._core.shape import check_shape, normalize_shape
from ember._ops.creation import uninitialized_fill


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


def _place(values, dtype, device, requires_grad, out):
    """Finish a factory: the host array `values` as a tensor on `device`, or written to out."""
    if out is not None:
        made = dispatch.wrap(cast(values, out._dtype._np), out._dtype, dispatch.CPU)
        if out._device is not dispatch.CPU:
            made = made.to(out._device)
        dispatch.copy_into_out(out, made)
        return out
    if device is META:
        array = MetaArray(values.shape, dtype._np)
    elif device.type == "cpu":
        array = values
    else:
        array = get_backend(device.type).from_host(values, device)
    t = dispatch.wrap(array, dtype, device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _device(device):
    return get_default_device() if device is None else as_device(device)


def _cast(values, dtype):
    """float64/int64 host values in `dtype` (floats truncate toward zero for integer types)."""
    if dtype._category <= dt.INT and values.dtype.kind == "f":
        values = np.trunc(values)
    if dtype._category == dt.INT and values.dtype.kind == "f":
        values = cast(values, np.int64)   # wraps like a C cast for the narrow types
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


@register_frontend(method=False)
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    if end is None:
        start, end = 0, start
    (start, t1), (end, t2), (step, t3) = (_number(start, "start"), _number(end, "end"),
                                          _number(step, "step"))
    if dtype is None:
        dtype = out._dtype if out is not None else (
            dt.get_default_dtype() if any(_is_float(v, t) for v, t in
                                          ((start, t1), (end, t2), (step, t3))) else dt.int64)
    for v in (start, end, step):
        _real(v, dtype)
    _check_range(start, end, step)
    _check_not_implemented(dtype is not dt.bool_, "\"arange_cpu\" not implemented for 'Bool'")
    size = math.ceil((end - start) / step)
    values = _range_values(start, end, step, dtype, size)
    return _place(values, dtype, _device(device), requires_grad, out)


@register_frontend("range", method=False)
def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    start, end, step = (_number(start, "start")[0], _number(end, "end")[0],
                        _number(step, "step")[0])
    dtype = dtype or (out._dtype if out is not None else dt.get_default_dtype())
    _check_range(start, end, step)
    size = math.floor((end - start) / step) + 1
    values = _range_values(start, end, step, dtype, size)
    return _place(values, dtype, _device(device), requires_grad, out)


def _spaced(start, end, steps, dtype, out, kernel_name):
    """linspace's values in float64 (complex128), PyTorch's symmetric formula: the first half
    counts up from start, the second half down from end, so both ends are exact."""
    start, t1 = _number(start, "start")
    end, t2 = _number(end, "end")
    _check_type(isinstance(steps, (int, np.integer)) and not isinstance(steps, bool), lambda: (
        f"linspace(): argument 'steps' must be int, not {type(steps).__name__}"))
    _check(steps >= 0, "number of steps must be non-negative")
    if dtype is None:
        is_complex = any(isinstance(v, (complex, np.complexfloating)) or (
            t is not None and t.is_complex) for v, t in ((start, t1), (end, t2)))
        dtype = out._dtype if out is not None else (
            dt.default_complex_dtype() if is_complex else dt.get_default_dtype())
    _check_not_implemented(dtype is not dt.bool_, lambda: (
        f"\"{kernel_name}\" not implemented for 'Bool'"))
    work = np.complex128 if dtype.is_complex or isinstance(start, complex) or isinstance(
        end, complex) else np.float64
    if steps == 1:
        return np.array([start], dtype=work), dtype
    step = (end - start) / max(steps - 1, 1)
    index = np.arange(steps, dtype=np.float64)
    half = steps // 2
    values = np.where(index < half, start + index * step, end - (steps - 1 - index) * step)
    return cast(values, work), dtype


@register_frontend(method=False)
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    values, dtype = _spaced(start, end, steps, dtype, out, "linspace_cpu")
    return _place(_cast(values, dtype), dtype, _device(device), requires_grad, out)


@register_frontend(method=False)
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             pin_memory=False, requires_grad=False):
    values, dtype = _spaced(start, end, steps, dtype, out, "logspace_cpu")
    return _place(_cast(np.power(float(base), values), dtype), dtype, _device(device),
                  requires_grad, out)


@register_frontend(method=False)
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
        requires_grad=False):
    _check(n >= 0, lambda: f"n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    _check(m >= 0, lambda: f"m must be greater or equal to 0, got {m}")
    dtype = dtype or (out._dtype if out is not None else dt.get_default_dtype())
    return _place(np.eye(n, m, dtype=dtype._np), dtype, _device(device), requires_grad, out)


@register_frontend(method=False)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    shape = normalize_shape((size,))
    strides = normalize_shape((stride,))
    _check(len(shape) == len(strides), lambda: (
        f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides "
        f"({len(strides)})"))
    check_shape(shape)
    dtype = dtype or dt.get_default_dtype()
    device = _device(device)
    itemsize = dtype.itemsize
    byte_strides = tuple(s * itemsize for s in strides)
    if device is META:
        array = MetaArray(shape, dtype._np, byte_strides)
    else:
        xp = get_backend(device.type).xp
        extent = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides))
        buffer = xp.empty(max(extent, 1) if shape else 1, dtype._np)
        fill = uninitialized_fill(dtype)
        if fill is not None:
            buffer[...] = fill
        array = xp.lib.stride_tricks.as_strided(buffer, shape, byte_strides)
    t = dispatch.wrap(array, dtype, device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       pin_memory=False, requires_grad=False):
    return empty_strided(size, stride, dtype=dtype or self._dtype,
                         device=device or self._device, requires_grad=requires_grad)


register_frontend("new_empty_strided", function=False)(_new_empty_strided)
