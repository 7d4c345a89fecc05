"""Quantization arithmetic (real numbers to a quantized dtype's integers and back) and the ops
that run on quantized tensors (NOTE [quantized tensors] in _core/dispatch/quantized.py).

NOTE [quantization arithmetic]: as PyTorch's CPU kernels compute it. Quantizing multiplies the
float32 value by the float32 reciprocal of the scale and adds the zero point (per tensor one
fused multiply-add, per channel two float32 steps), rounds half to even (so a tie is decided
with the zero point added) and clamps to the stored type; per channel, each channel's scale and
zero point. Dequantizing is float32(scale) * (q - zero_point), one float32 product. The
quantized kernels below keep their input's quantizer: shape ops and selections move the integers; relu clamps at the zero point;
max pooling picks integers; average pooling averages integers and rounds half to even.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch.quantized import STORED, QuantizedData, make_quantized
from ember._core.kernel_table import DispatchKey
from ember._core.registry import OPS

QUANTIZED = DispatchKey("quantized", "cpu")


def stored_range(dtype) -> tuple:
    """The smallest and largest integer a quantized dtype stores."""
    info = np.iinfo(STORED[dtype._name])
    return int(info.min), int(info.max)


def quantize_array(values, scale, zero_point, dtype, axis=None):
    """float32 `values` as `dtype`'s integers (NOTE [quantization arithmetic]); per channel when
    `axis` is given (`scale`, `zero_point` arrays along it)."""
    low, high = stored_range(dtype)
    values = np.asarray(values, dtype=np.float32)
    if axis is None:
        inverse = np.float32(1.0) / np.float32(scale)
        zero = float(zero_point)
    else:
        shape = [1] * values.ndim
        shape[axis] = -1
        inverse = (np.float32(1.0) / np.asarray(scale, dtype=np.float32)).reshape(shape)
        zero = np.asarray(zero_point, dtype=np.float64).reshape(shape)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if axis is None:    # one fused multiply-add (exact in float64), rounded to float32
            fused = values.astype(np.float64) * np.float64(inverse) + zero
            rounded = np.rint(fused.astype(np.float32).astype(np.float64))
        else:
            rounded = np.rint((values * inverse + zero.astype(np.float32)).astype(np.float64))
    return np.clip(rounded, low, high).astype(STORED[dtype._name])


def dequantize_data(data: QuantizedData) -> np.ndarray:
    """The real values a quantized tensor's integers stand for: float32(scale) * (q - zero_point),
    one float32 product."""
    centered = data.array.astype(np.int64)
    if data.per_tensor:
        return np.float32(data.scale) * (centered - data.zero_point).astype(np.float32)
    shape = [1] * data.array.ndim
    shape[data.axis] = -1
    scale = np.asarray(data.scale, dtype=np.float32).reshape(shape)
    zero = np.asarray(data.zero_point).reshape(shape)
    if data.qscheme == "per_channel_affine_float_qparams":
        return ((data.array.astype(np.float32) - zero.astype(np.float32)) * scale).astype(
            np.float32)
    return scale * (centered - zero.astype(np.int64)).astype(np.float32)


_SMALL_SCALE = np.float32(6.1e-5)


def choose_qparams(low: float, high: float, qmin: int, qmax: int, reduce_range: bool) -> tuple:
    """NOTE [dynamic input quantization]: the (scale, zero_point) for values in [low, high]
    (quantize_per_tensor_dynamic, dynamic layers' inputs): the levels halved with
    reduce_range, the range widened to hold 0, scale = range / levels in float64 (0.1 when its
    float32 would be 0; at least 6.1e-5, the range stretched to match), the zero point taken
    from whichever end loses less, rounded half to even and clamped."""
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    low, high = min(np.float32(low), np.float32(0.0)), max(np.float32(high), np.float32(0.0))
    scale = (float(high) - float(low)) / (qmax - qmin)
    if np.float32(scale) == 0 or np.isinf(np.float32(1.0) / np.float32(scale)):
        scale = 0.1
    if scale < _SMALL_SCALE:
        original = scale
        scale = float(_SMALL_SCALE)
        if low == 0:
            high = _SMALL_SCALE * np.float32(qmax - qmin)
        elif high == 0:
            low = -_SMALL_SCALE * np.float32(qmax - qmin)
        else:
            amplifier = np.float32(_SMALL_SCALE / np.float32(original))
            low, high = low * amplifier, high * amplifier
    from_min = qmin - float(low) / scale
    from_max = qmax - float(high) / scale
    error_min = abs(qmin) - abs(float(low) / scale)
    error_max = abs(qmax) - abs(float(high) / scale)
    zero = from_min if error_min < error_max else from_max
    zero_point = qmin if zero < qmin else qmax if zero > qmax else int(np.rint(zero))
    return scale, zero_point


def check_zero_point(zero_point: int, dtype, where: str) -> None:
    low, high = stored_range(dtype)
    _check(zero_point <= high, lambda: f"{where} zero_point {zero_point} is above upper bound.")
    _check(zero_point >= low, lambda: f"{where} zero_point {zero_point} is below lower bound.")


# --------------------------------------------------------------------------- kernels

def _quantized_args(args):
    return [a for a in args if type(getattr(a, "_data", None)) is QuantizedData]


def _as_integers(t):
    """A plain tensor over a quantized tensor's integers (the same memory)."""
    stored = dt.from_numpy_dtype(t._data.array.dtype)
    return dispatch.wrap(t._data.array, stored, dispatch.CPU)


def _rewrap(result, like):
    return make_quantized(like._data.with_array(result._data), like._dtype)


def _moving_integers(op, args):
    """Shape ops, selections and copies: the op on the integers, the input's quantizer kept (a
    per-channel tensor only where its channels stay where they are)."""
    source = _quantized_args(args)[0]
    _check(source._data.per_tensor or op.name.split(".")[0] in _KEEP_CHANNELS, lambda: (
        f"{op.name.split('.')[0]} of a per-channel quantized tensor is not supported"))
    plain = [_as_integers(a) if type(getattr(a, "_data", None)) is QuantizedData else a
             for a in args]
    result = dispatch.call(op, tuple(plain))
    return _rewrap(result, source)


def _relu(op, args):
    source = args[0]
    data = source._data
    if data.per_tensor:
        floor = np.asarray(data.zero_point, dtype=data.array.dtype)
    else:
        shape = [1] * data.array.ndim
        shape[data.axis] = -1
        floor = np.asarray(data.zero_point).reshape(shape).astype(data.array.dtype)
    return make_quantized(data.with_array(np.maximum(data.array, floor)), source._dtype)


def _on_values(reduce_by_mean: bool):
    """Pooling: the op on the integers as float64 values, rounded back (half to even)."""
    def kernel(op, args):
        source = args[0]
        _check(source._data.per_tensor, lambda: (
            f"{op.name.split('.')[0]} of a per-channel quantized tensor is not supported"))
        values = dispatch.wrap(source._data.array.astype(np.float64), dt.float64, dispatch.CPU)
        result = dispatch.call(op, (values, *args[1:]))
        first = result[0] if isinstance(result, tuple) else result
        array = np.rint(first._data) if reduce_by_mean else first._data
        out = _rewrap(dispatch.wrap(array.astype(source._data.array.dtype), dt.int64,
                                    dispatch.CPU), source)
        return (out, *result[1:]) if isinstance(result, tuple) else out
    return kernel


_MOVING = ("view", "_unsafe_view", "reshape", "permute", "transpose.int", "t", "squeeze",
           "squeeze.dim", "squeeze.dims", "unsqueeze", "select.int", "slice.Tensor",
           "expand", "clone", "detach", "alias", "flatten.using_ints",
           "narrow", "index.Tensor", "as_strided", "unflatten.int",
           "movedim.int", "movedim.intlist", "split.Tensor", "chunk", "unbind.int",
           "view_as", "reshape_as", "flip", "roll", "lift_fresh")
_KEEP_CHANNELS = {"clone", "detach", "alias", "lift_fresh"}


def install() -> None:
    """Enter the quantized kernels (on the first quantized tensor: the ops are built then)."""
    if _installed:
        return
    _installed.append(True)
    for name in _MOVING:
        OPS[name].register_kernel(QUANTIZED, _moving_integers)
    OPS["relu"].register_kernel(QUANTIZED, _relu)
    for name in ("max_pool2d_with_indices", "adaptive_max_pool2d"):
        OPS[name].register_kernel(QUANTIZED, _on_values(False))
    for name in ("avg_pool2d", "_adaptive_avg_pool2d", "mean.dim"):
        OPS[name].register_kernel(QUANTIZED, _on_values(True))


_installed: list = []


def equal(a, b) -> bool:
    """`torch.equal` of two quantized tensors: same quantizer and integers."""
    x, y = a._data, b._data
    if a._dtype is not b._dtype or x.qscheme != y.qscheme or x.shape != y.shape:
        return False
    same_quantizer = (x.scale == y.scale and x.zero_point == y.zero_point) if x.per_tensor \
        else (x.axis == y.axis and np.array_equal(x.scale, y.scale)
              and np.array_equal(x.zero_point, y.zero_point))
    return bool(same_quantizer and np.array_equal(x.array, y.array))


__all__ = ["choose_qparams", "dequantize_data", "install", "quantize_array", "stored_range"]
