"""`ember.ao.nn.intrinsic.quantized`: quantized layers with a ReLU fused into their
requantization (the output clamped from its zero point up): LinearReLU, ConvReLU1d/2d/3d."""
from __future__ import annotations

from ember.ao.nn import intrinsic as nni
from ember.ao.nn.quantized import conv, linear

__all__ = ["ConvReLU1d", "ConvReLU2d", "ConvReLU3d", "LinearReLU"]


class LinearReLU(linear.Linear):
    """relu(x W^T + b) on quantized tensors."""

    _relu = True

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype=None) -> None:
        super().__init__(in_features, out_features, bias, dtype)

    @staticmethod
    def _float_types() -> tuple:
        return (nni.LinearReLU,)

    def _get_name(self) -> str:
        return "QuantizedLinearReLU"


def _conv_relu(dims: int):
    base = getattr(conv, f"Conv{dims}d")
    fused = getattr(nni, f"ConvReLU{dims}d")
    return type(f"ConvReLU{dims}d", (base,), {
        "__doc__": f"relu(conv{dims}d(x)) on quantized tensors.", "__module__": __name__,
        "_relu": True, "_float_types": classmethod(lambda cls: (fused,)),
        "_get_name": lambda self: f"QuantizedConvReLU{dims}d"})


ConvReLU1d = _conv_relu(1)
ConvReLU2d = _conv_relu(2)
ConvReLU3d = _conv_relu(3)
