"""The public face of quantized tensors (NOTE [quantized tensors]): `ember.quantize_per_tensor`,
`quantize_per_channel`, `dequantize`, and the accessors that are also Tensor methods
(`int_repr`, `q_scale`, `q_zero_point`, `q_per_channel_scales` / `_zero_points` / `_axis`,
`qscheme`). The arithmetic is NOTE [quantization arithmetic] (_ops/quantize.py)."""
from __future__ import annotations

import numpy as np

from ember import _dtypes_unsupported as qdtypes
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.dispatch.quantized import STORED, QuantizedData, make_quantized
from ember._ops import quantize as qops

qops.install()

__all__ = ["dequantize", "empty_quantized", "int_repr", "q_per_channel_axis",
           "q_per_channel_scales", "q_per_channel_zero_points", "q_scale", "q_zero_point",
           "qscheme", "quantize_per_channel", "quantize_per_tensor",
           "quantize_per_tensor_dynamic", "quantized_max_pool1d", "quantized_max_pool2d"]

_NAMES = {"Float": dt.float32, "Double": dt.float64, "Half": dt.float16,
          "BFloat16": dt.bfloat16}


def _quantized_dtype(dtype, where: str):
    _check(dtype is not None and getattr(dtype, "_name", None) in STORED, lambda: (
        f"ScalarType {getattr(dtype, '_cpp_name', dtype)} is not supported in {where}."))
    return dtype


def _float_input(t) -> np.ndarray:
    _check(t._dtype is dt.float32, lambda: (
        f"Quantize only works on Float Tensor, got {t._dtype._cpp_name}"))
    return np.asarray(t._host())


def _scalar(t, kind):
    _check(t.numel() == 1, "quantize_per_tensor: scale and zero_point must be one element")
    return kind(t.item())


@checked("quantize_per_tensor(Tensor self, float scale, int zero_point, ScalarType dtype)",
         "quantize_per_tensor.tensor_qparams(Tensor self, Tensor scale, Tensor zero_point, "
         "ScalarType dtype)",
         "quantize_per_tensor.tensors(Tensor[] tensors, Tensor scales, Tensor zero_points, "
         "ScalarType dtype)")
def quantize_per_tensor(input, scale, zero_point, dtype):
    """`input` (float32) as a quantized tensor of `dtype` with one scale and zero point."""
    if _state.entry and _wants(locals()):
        return _handle(quantize_per_tensor, locals())
    if isinstance(input, (list, tuple)):
        scales, zeros = scale.tolist(), zero_point.tolist()
        return tuple(quantize_per_tensor(t, float(s), int(z), dtype)
                     for t, s, z in zip(input, scales, zeros))
    if isinstance(scale, dispatch.Tensor):
        scale = _scalar(scale, float)
        zero_point = _scalar(zero_point, int)
    dtype = _quantized_dtype(dtype, "new_qtensor")
    values = _float_input(input)
    qops.check_zero_point(zero_point, dtype, "quantize_tensor_per_tensor_affine")
    array = qops.quantize_array(values, scale, zero_point, dtype)
    return make_quantized(QuantizedData(array, "per_tensor_affine", float(scale),
                                        int(zero_point)), dtype)


@checked("quantize_per_channel(Tensor self, Tensor scales, Tensor zero_points, int axis, "
         "ScalarType dtype)")
def quantize_per_channel(input, scales, zero_points, axis, dtype):
    """`input` (float32) as a quantized tensor of `dtype` with a scale and zero point for each
    slice along `axis`."""
    if _state.entry and _wants(locals()):
        return _handle(quantize_per_channel, locals())
    dtype = _quantized_dtype(dtype, "new_qtensor")
    values = _float_input(input)
    _check(0 <= axis < max(values.ndim, 1), lambda: (
        f"Channel axis out of range in per channel affine quantization. Got: {axis}Expected: "
        f"< {values.ndim}"))
    scale = np.asarray(scales.to(dt.float64)._host(), dtype=np.float64).reshape(-1)
    zero = np.asarray(zero_points.to(dt.int64)._host(), dtype=np.int64).reshape(-1)
    channels = values.shape[axis]
    _check(scale.size == channels, "length of scales must equal to channel, expected "
           f"{channels} got, {scale.size}")
    _check(zero.size == channels, "length of zero_points must equal to channel expected "
           f"{channels} got, {zero.size}")
    float_qparams = zero_points.is_floating_point()
    array = qops.quantize_array(values, scale, zero, dtype, axis)
    scheme = "per_channel_affine_float_qparams" if float_qparams else "per_channel_affine"
    return make_quantized(QuantizedData(array, scheme, scale, zero, axis), dtype)


@checked("dequantize.self(Tensor self)", "dequantize.tensors(Tensor[] tensors)")
def dequantize(input):
    """The real values of a quantized tensor as float32 (a float tensor: itself as float32)."""
    if _state.entry and _wants(locals()):
        return _handle(dequantize, locals())
    if isinstance(input, (list, tuple)):
        return tuple(dequantize(t) for t in input)
    if type(input._data) is not QuantizedData:
        return input.to(dt.float32)
    return dispatch.wrap(qops.dequantize_data(input._data), dt.float32, dispatch.CPU)


def _quantized(t, name: str) -> QuantizedData:
    if type(getattr(t, "_data", None)) is not QuantizedData:
        raise NotImplementedError(
            f"Could not run 'aten::{name}' with arguments from the 'CPU' backend. This could be "
            "because the operator doesn't exist for this backend, or was omitted during the "
            "selective/custom build process (if using custom build).")
    return t._data


def _per_tensor(data: QuantizedData) -> None:
    _check(data.qscheme == "per_tensor_affine", "Expected quantizer->qscheme() == "
           "kPerTensorAffine to be true, but got false.  (Could this error message be "
           "improved?  If so, please report an enhancement request to PyTorch.)")


def _per_channel(data: QuantizedData) -> None:
    _check(not data.per_tensor, "Expected quantizer->qscheme() == kPerChannelAffine || "
           "quantizer->qscheme() == kPerChannelAffineFloatQParams to be true, but got false.  "
           "(Could this error message be improved?  If so, please report an enhancement "
           "request to PyTorch.)")


@checked("int_repr(Tensor self)")
def int_repr(input):
    """The stored integers of a quantized tensor (uint8 for quint8, int8, int32)."""
    data = _quantized(input, "int_repr")
    array = data.array.copy()
    return dispatch.wrap(array, dt.from_numpy_dtype(array.dtype), dispatch.CPU)


@checked("q_scale(Tensor self)")
def q_scale(input) -> float:
    """The scale of a per-tensor quantized tensor."""
    data = _quantized(input, "q_scale")
    _per_tensor(data)
    return data.scale


@checked("q_zero_point(Tensor self)")
def q_zero_point(input) -> int:
    """The zero point of a per-tensor quantized tensor."""
    data = _quantized(input, "q_zero_point")
    _per_tensor(data)
    return data.zero_point


@checked("q_per_channel_scales(Tensor self)")
def q_per_channel_scales(input):
    """The float64 scales of a per-channel quantized tensor, one per channel."""
    data = _quantized(input, "q_per_channel_scales")
    _per_channel(data)
    return dispatch.wrap(np.array(data.scale, dtype=np.float64), dt.float64, dispatch.CPU)


@checked("q_per_channel_zero_points(Tensor self)")
def q_per_channel_zero_points(input):
    """The zero points of a per-channel quantized tensor, one per channel."""
    data = _quantized(input, "q_per_channel_zero_points")
    _per_channel(data)
    zero = np.array(data.zero_point)
    return dispatch.wrap(zero, dt.from_numpy_dtype(zero.dtype), dispatch.CPU)


@checked("q_per_channel_axis(Tensor self)")
def q_per_channel_axis(input) -> int:
    """The dimension along which a per-channel quantized tensor has its channels."""
    data = _quantized(input, "q_per_channel_axis")
    _per_channel(data)
    return data.axis


@checked("qscheme(Tensor self)")
def qscheme(input):
    """The quantization scheme of a quantized tensor (`torch.per_tensor_affine`, ...)."""
    return qdtypes.QSCHEMES[_quantized(input, "qscheme").qscheme]


def quantized_repr(t, prefix: str) -> str:
    """PyTorch's text for a quantized tensor: its real values, then the quantizer."""
    from ember import _tensor_str
    data = t._data
    values = dispatch.wrap(qops.dequantize_data(data), dt.float32, dispatch.CPU)
    indent = len(prefix)
    text = _tensor_str._data_text(values, indent) if data.size else "[]"
    suffixes = [f"size={tuple(data.shape)}", f"dtype={t._dtype}",
                f"quantization_scheme={qdtypes.QSCHEMES[data.qscheme]}"]
    if data.per_tensor:
        suffixes += [f"scale={data.scale}", f"zero_point={data.zero_point}"]
    else:
        suffixes += [f"scale={q_per_channel_scales(t)!r}",
                     f"zero_point={q_per_channel_zero_points(t)!r}", f"axis={data.axis}"]
    if t._requires_grad:
        suffixes.append("requires_grad=True")
    return _tensor_str._with_suffixes(prefix + text, suffixes, indent)


def quantized_parts(t) -> tuple:
    """What pickles a quantized tensor: its integers, dtype and quantizer."""
    data = t._data
    return (data.array.copy(), t._dtype._name, data.qscheme, data.scale, data.zero_point,
            data.axis, t._requires_grad)


def rebuild_quantized(array, dtype_name, scheme, scale, zero_point, axis, requires_grad):
    """A quantized tensor from `quantized_parts`."""
    return make_quantized(QuantizedData(np.asarray(array), scheme, scale, zero_point, axis),
                          qdtypes.DTYPES[dtype_name], requires_grad)


@checked("quantize_per_tensor_dynamic(Tensor self, ScalarType dtype, bool reduce_range)")
def quantize_per_tensor_dynamic(input, dtype, reduce_range):
    """`input` quantized with a scale and zero point chosen from its own range (NOTE [dynamic
    input quantization]); quint8 or qint8."""
    if _state.entry and _wants(locals()):
        return _handle(quantize_per_tensor_dynamic, locals())
    _check(dtype in (qdtypes.quint8, qdtypes.qint8), lambda: (
        f"dtype must be either quint8 or qint8, got {dtype}"))
    values = _float_input(input)
    low, high = (values.min(), values.max()) if values.size else (0.0, 0.0)
    qmin, qmax = qops.stored_range(dtype)
    scale, zero_point = qops.choose_qparams(low, high, qmin, qmax, bool(reduce_range))
    return quantize_per_tensor(input, scale, zero_point, dtype)


@checked("empty_quantized(int[] size, Tensor qtensor, *, ScalarType? dtype=None, "
         "Layout? layout=None, Device? device=None, bool? pin_memory=None, "
         "MemoryFormat? memory_format=None)")
def empty_quantized(size, qtensor, *, dtype=None, layout=None, device=None, pin_memory=None,
                    memory_format=None):
    """A quantized tensor of `size` with `qtensor`'s quantizer (its integers zero: PyTorch
    leaves them unset)."""
    data = _quantized(qtensor, "empty_quantized")
    dtype = qtensor.dtype if dtype is None else _quantized_dtype(dtype, "new_qtensor")
    array = np.zeros(tuple(size), dtype=STORED[dtype._name])
    return make_quantized(QuantizedData(array, data.qscheme, data.scale, data.zero_point,
                                        data.axis), dtype)


@checked("quantized_max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], "
         "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)")
def quantized_max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1,
                         ceil_mode=False):
    """Max pooling of a quantized (N, C, H, W) or (C, H, W) tensor, its quantizer kept."""
    from ember._core.registry import OPS
    _quantized(input, "quantized_max_pool2d")

    def pair(value):
        return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)] * 2
    stride = pair(stride) if stride not in ((), []) else pair(kernel_size)
    args = (input, pair(kernel_size), stride, pair(padding), pair(dilation), bool(ceil_mode))
    return dispatch.call(OPS["max_pool2d_with_indices"], args)[0]


def _one(value) -> int:
    return int(value[0]) if isinstance(value, (list, tuple)) else int(value)


@checked("quantized_max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], "
         "int[1] padding=0, int[1] dilation=1, bool ceil_mode=False)")
def quantized_max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1,
                         ceil_mode=False):
    """Max pooling of a quantized (N, C, L) or (C, L) tensor, its quantizer kept."""
    _quantized(input, "quantized_max_pool1d")
    kernel, stride = _one(kernel_size), _one(stride or kernel_size)
    pooled = quantized_max_pool2d(input.unsqueeze(-2), [1, kernel], [1, stride],
                                  [0, _one(padding)], [1, _one(dilation)], ceil_mode)
    return pooled.squeeze(-2)
