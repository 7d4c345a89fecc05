"""Quantized convolutions (`Conv1d`, `Conv2d`, `Conv3d`): quint8 in and out, int8 weights per
tensor or per output channel, a float bias (NOTE [int8 products and requantization])."""
from __future__ import annotations

import ember
from ember import nn
from ember.ao.nn.quantized import _kernels
from ember.ao.nn.quantized.linear import observed_parts, quantize_weight
from ember.nn import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d"]


def _tuple(value, dims: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class _ConvNd(Module):
    _dims = 2
    _relu = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None) -> None:
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode {padding_mode!r} is not supported by "
                                      "quantized convolution")
        dims = self._dims
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, dims)
        self.stride, self.padding = _tuple(stride, dims), _tuple(padding, dims)
        self.dilation = _tuple(dilation, dims)
        self.transposed, self.output_padding = False, (0,) * dims
        self.groups, self.padding_mode = groups, padding_mode
        weight = ember.quantize_per_tensor(
            ember.zeros(out_channels, in_channels // groups, *self.kernel_size), 1.0, 0,
            ember.qint8)
        self.set_weight_bias(weight, ember.zeros(out_channels) if bias else None)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self) -> str:
        return f"QuantizedConv{self._dims}d"

    def set_weight_bias(self, w, b) -> None:
        self._weight, self._bias = w, b

    def _weight_bias(self):
        return self._weight, self._bias

    def weight(self):
        return self._weight

    def bias(self):
        return self._bias

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, scale={self.scale}, zero_point={self.zero_point}")
        if self.padding != (0,) * self._dims:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self._dims:
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self._bias is None:
            text += ", bias=False"
        return text

    def forward(self, x):
        if not x.is_quantized:
            raise NotImplementedError(
                f"Could not run 'quantized::conv{self._dims}d.new' with arguments from the "
                "'CPU' backend.")
        if x.dim() != self._dims + 2:
            raise ValueError(f"Input shape must be `(N, C, {', '.join('DHW'[-self._dims:])})`!")
        acc = _kernels.conv_accumulate(x, self._weight, self.stride, self.padding,
                                       self.dilation, self.groups)
        return _kernels.requantize(acc, x, self._weight, self._bias, self.scale,
                                   self.zero_point, self._relu, 1, self._dims == 3)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight"] = self._weight
        destination[prefix + "bias"] = self._bias
        destination[prefix + "scale"] = ember.tensor(self.scale)
        destination[prefix + "zero_point"] = ember.tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.set_weight_bias(state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias"))
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    @classmethod
    def _float_types(cls) -> tuple:
        return (getattr(nn, f"Conv{cls._dims}d"),)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        """From an observed float convolution (or conv + ReLU, or QAT conv) after calibration."""
        inner, observer, activation = observed_parts(
            cls, mod, use_precomputed_fake_quant,
            ("Input float module must have qconfig defined.",
             "Weight observer must have a dtype of qint8"))
        layer = cls(inner.in_channels, inner.out_channels, inner.kernel_size, inner.stride,
                    inner.padding, inner.dilation, inner.groups, inner.bias is not None,
                    inner.padding_mode)
        bias = None if inner.bias is None else inner.bias.detach().clone()
        layer.set_weight_bias(quantize_weight(inner.weight, observer), bias)
        scale, zero_point = activation.calculate_qparams()
        layer.scale, layer.zero_point = float(scale), int(zero_point)
        return layer


class Conv1d(_ConvNd):
    """A quantized 1-d convolution."""

    _dims = 1


class Conv2d(_ConvNd):
    """A quantized 2-d convolution."""

    _dims = 2


class Conv3d(_ConvNd):
    """A quantized 3-d convolution."""

    _dims = 3
