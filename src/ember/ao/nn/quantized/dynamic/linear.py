"""The dynamically quantized `Linear`: float in and out, int8 weights; each call quantizes its
input to quint8 with parameters chosen from that input's range (NOTE [dynamic input
quantization]) and multiplies in integers (NOTE [int8 products and requantization]). With
float16 weights it is a float layer whose weights were rounded to float16."""
from __future__ import annotations

import numpy as np

import ember
from ember import nn
from ember._core.dispatch.quantized import QuantizedData, make_quantized
from ember._ops.quantize import choose_qparams, quantize_array
from ember.ao.nn.quantized import _kernels
from ember.ao.nn.quantized import linear as static

__all__ = ["Linear", "choose_input_qparams"]

def choose_input_qparams(low: float, high: float, reduce_range: bool) -> tuple:
    """The (scale, zero_point) a dynamic layer quantizes its input with (quint8), the scale as
    the float32 the kernel uses (NOTE [dynamic input quantization] in _ops/quantize.py)."""
    scale, zero_point = choose_qparams(low, high, 0, 255, reduce_range)
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
