"""The dynamically quantized `Linear`: float in and out, int8 weights; each call quantizes its
input to quint8 with parameters chosen from that input's range (NOTE [dynamic input
quantization]) and multiplies in integers (NOTE [int8 products and requantization]). With
float16 weights it is a float layer whose weights were rounded to float16."""
from __future__ import annotations

import numpy as np

import ember
from ember import nn
from ember._core.dispatch.quantized import QuantizedData, make_quantized
from ember._ops.quantize import quantize_array
from ember.ao.nn.quantized import _kernels
from ember.ao.nn.quantized import linear as static

__all__ = ["Linear", "choose_input_qparams"]

_SMALL_SCALE = np.float32(6.1e-5)


def choose_input_qparams(low: float, high: float, reduce_range: bool) -> tuple:
    """NOTE [dynamic input quantization]: the (scale, zero_point) a dynamic layer quantizes its
    input with (quint8, halved to 0..127 with reduce_range): the range widened to hold 0, scale
    = range / levels in float64 then float32 (0.1 when it would be 0; at least 6.1e-5, the
    range stretched to match), the zero point taken from whichever end loses less, rounded
    half to even and clamped."""
    qmin, qmax = (0, 127) if reduce_range else (0, 255)
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
    return float(np.float32(scale)), zero_point


class Linear(static.Linear):
    """y = x W^T + b with x quantized per call and W stored as int8 (or float16)."""

    _version = 4

    def __init__(self, in_features: int, out_features: int, bias_: bool = True,
                 dtype=None) -> None:
        super().__init__(in_features, out_features, bias_,
                         dtype=ember.qint8 if dtype is ember.float16 else dtype)
        if dtype is ember.float16:
            self._packed_params.dtype = dtype
            self._packed_params.set_weight_bias(ember.zeros(out_features, in_features,
                                                            dtype=ember.float16),
                                                ember.zeros(out_features) if bias_ else None)

    def _get_name(self) -> str:
        return "DynamicQuantizedLinear"

    def extra_repr(self) -> str:
        text = (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._packed_params.dtype}")
        if self._packed_params.dtype is ember.qint8:
            text += f", qscheme={self.weight().qscheme()}"
        return text

    def forward(self, x):
        weight, bias = self._weight_bias()
        if self._packed_params.dtype is ember.float16:
            return nn.functional.linear(x, weight.float(), bias)
        values = np.asarray(x.detach().float()._host())
        low, high = (values.min(), values.max()) if values.size else (0.0, 0.0)
        scale, zero_point = choose_input_qparams(low, high, reduce_range=True)
        array = quantize_array(values, scale, zero_point, ember.quint8)
        quantized = make_quantized(QuantizedData(array, "per_tensor_affine", scale,
                                                 zero_point), ember.quint8)
        acc = _kernels.linear_accumulate(quantized, weight)
        return _kernels.float_output(acc, scale, weight, bias, acc.ndim - 1)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        """From a float Linear with a dynamic qconfig (its weight observed here)."""
        if not isinstance(mod, nn.Linear):
            raise AssertionError(  # noqa: TRY004 (PyTorch's class)
                "nn.quantized.dynamic.Linear.from_float only works for Linear")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        observer = getattr(mod, "weight_fake_quant", None) or mod.qconfig.weight()
        dtype = observer.dtype
        if dtype not in (ember.qint8, ember.float16):
            raise AssertionError("The only supported dtypes for dynamic quantized linear are "
                                 f"qint8 and float16 got: {dtype}")
        layer = cls(mod.in_features, mod.out_features, dtype=dtype)
        bias = None if mod.bias is None else mod.bias.detach().clone()
        if dtype is ember.float16:
            weight = mod.weight.detach().to(ember.float16)
        else:
            observer(mod.weight)
            weight = static.quantize_weight(mod.weight, observer)
        layer.set_weight_bias(weight, bias)
        return layer
