"""`ember.ao.nn.quantized.functional`: functions on quantized tensors. Those with an output
scale and zero point compute as PyTorch's reference does: the input dequantized, the float
function, the result quantized with the output's parameters (NOTE [quantization arithmetic])."""
from __future__ import annotations

import ember
from ember.nn import functional as F

__all__ = ["dropout", "elu", "hardswish", "layer_norm", "leaky_relu"]


def _requantized(result, like, scale, zero_point):
    return ember.quantize_per_tensor(result, float(scale), int(zero_point), like.dtype)


def elu(input, scale, zero_point, alpha: float = 1.0):
    """ELU of a quantized tensor, quantized with (scale, zero_point)."""
    return _requantized(F.elu(input.dequantize(), alpha), input, scale, zero_point)


def hardswish(input, scale, zero_point):
    """Hardswish of a quantized tensor, quantized with (scale, zero_point)."""
    return _requantized(F.hardswish(input.dequantize()), input, scale, zero_point)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False, scale=None,
               zero_point=None):
    """Leaky ReLU of a quantized tensor (with the input's parameters unless given)."""
    if scale is None:
        scale, zero_point = input.q_scale(), input.q_zero_point()
    return _requantized(F.leaky_relu(input.dequantize(), negative_slope), input, scale,
                        zero_point)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5,
               output_scale=1.0, output_zero_point=0):
    """Layer norm of a quantized tensor, quantized with the output's parameters."""
    result = F.layer_norm(input.dequantize(), normalized_shape, weight, bias, eps)
    return _requantized(result, input, output_scale, output_zero_point)


def dropout(input, p: float = 0.5, training: bool = False, inplace: bool = False):
    """Dropout on a quantized tensor: the input (quantized models run evaluation)."""
    return input


FLOAT_TO_QUANTIZED = {F.elu: elu, F.hardswish: hardswish, F.layer_norm: layer_norm,
                      F.leaky_relu: leaky_relu, F.dropout: dropout}
