"""The integer arithmetic of quantized linear and convolution layers, as PyTorch's x86 kernels
(FBGEMM) compute it.

NOTE [int8 products and requantization]: a quantized layer multiplies the input's integers minus
its zero point by the weight's integers minus theirs, summing in int32 (exactly: here in int64,
which never rounds). The result becomes the output's integers in float32: the float bias is
divided by `input_scale * weight_scale` (per output channel) and added, the sum multiplied by
`input_scale * weight_scale / output_scale` (for a 3-d convolution: multiplied first, then the
bias divided by the output scale added), rounded half to even, the output zero point added
and the result clamped to the output dtype (from the zero point up when a ReLU is fused). The
dynamic layers instead give `acc * (input_scale * weight_scale) + bias` as one fused
multiply-add in float32. A convolution
is the same product over each output position's patch; padding is the input's zero point, so
it adds nothing.
"""
from __future__ import annotations

import numpy as np

import ember
from ember._core import dispatch
from ember._core.dispatch.quantized import QuantizedData, make_quantized

__all__ = ["conv_accumulate", "linear_accumulate", "requantize", "weight_qparams"]


def _centered(t) -> np.ndarray:
    """A quantized tensor's integers minus its zero point(s), as int64."""
    data: QuantizedData = t._data
    values = data.array.astype(np.int64)
    if data.per_tensor:
        return values - data.zero_point
    shape = [1] * values.ndim
    shape[data.axis] = -1
    return values - np.asarray(data.zero_point, dtype=np.int64).reshape(shape)


def weight_qparams(weight) -> np.ndarray:
    """A quantized weight's scale per output channel (axis 0), float32."""
    data: QuantizedData = weight._data
    channels = data.shape[0]
    if data.per_tensor:
        return np.full(channels, data.scale, dtype=np.float32)
    if data.axis != 0:
        raise RuntimeError("quantized weights must be quantized per output channel (axis 0)")
    return np.asarray(data.scale, dtype=np.float32)


def linear_accumulate(x, weight) -> np.ndarray:
    """The int32 sums of a quantized linear layer: (..., in) x (out, in) -> (..., out)."""
    return np.matmul(_centered(x), _centered(weight).T)


def conv_accumulate(x, weight, stride, padding, dilation, groups: int) -> np.ndarray:
    """The int32 sums of a quantized convolution over N spatial dims (N, C, *spatial)."""
    values = _centered(x)
    kernel = _centered(weight)
    dims = values.ndim - 2
    values = np.pad(values, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    reach = [dilation[i] * (kernel.shape[2 + i] - 1) + 1 for i in range(dims)]
    windows = np.lib.stride_tricks.sliding_window_view(values, reach, axis=tuple(range(2,
                                                                                  2 + dims)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + \
        tuple(slice(None, None, d) for d in dilation)
    windows = windows[index]            # (N, C, *out, *kernel)
    out_channels = kernel.shape[0]
    per_group_in = kernel.shape[1]
    per_group_out = out_channels // groups
    spatial = "".join("xyz"[i] for i in range(dims))
    taps = "".join("ijk"[i] for i in range(dims))
    results = []
    for g in range(groups):
        patch = windows[:, g * per_group_in:(g + 1) * per_group_in]
        filters = kernel[g * per_group_out:(g + 1) * per_group_out]
        results.append(np.einsum(f"nc{spatial}{taps},oc{taps}->no{spatial}", patch, filters,
                                 optimize=True))
    return np.concatenate(results, axis=1)


def requantize(acc, x, weight, bias, scale: float, zero_point: int, relu: bool, channel_axis,
               bias_in_output_units: bool = False):
    """The output's quint8 tensor from int32 sums (NOTE [int8 products and requantization]);
    the output channels lie along `channel_axis` of `acc`. `bias_in_output_units`: the bias
    divided by the output scale is added after the multiplication (PyTorch's 3-d
    convolution)."""
    input_scale = np.float32(x._data.scale)
    product_scale = input_scale * weight_qparams(weight)           # float32 per channel
    multiplier = product_scale / np.float32(scale)
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    values = acc.astype(np.float32)
    bias_values = None if bias is None else np.asarray(bias.detach()._host(), dtype=np.float32)
    if bias_values is not None and not bias_in_output_units:
        values = values + (bias_values / product_scale).reshape(shape)
    values = values * multiplier.reshape(shape)
    if bias_values is not None and bias_in_output_units:
        values = values + (bias_values / np.float32(scale)).reshape(shape)
    values = np.rint(values)
    low = zero_point if relu else 0
    out = np.clip(values.astype(np.float64) + zero_point, low, 255).astype(np.uint8)
    return make_quantized(QuantizedData(out, "per_tensor_affine", float(scale),
                                        int(zero_point)), ember.quint8)


def float_output(acc, x_scale: float, weight, bias, channel_axis):
    """A dynamic layer's float32 output: float32(acc) * (input scale * weight scale) + bias,
    one fused multiply-add (rounded once)."""
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    multiplier = (np.float32(x_scale) * weight_qparams(weight)).reshape(shape)
    values = acc.astype(np.float32).astype(np.float64) * multiplier.astype(np.float64)
    if bias is not None:
        bias_values = np.asarray(bias.detach()._host(), dtype=np.float32).reshape(shape)
        values = values + bias_values.astype(np.float64)
    return dispatch.wrap(values.astype(np.float32), ember.float32, dispatch.CPU)
