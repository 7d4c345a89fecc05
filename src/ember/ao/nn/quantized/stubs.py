"""`Quantize` and `DeQuantize`: where a converted model's quantized region starts (float in,
quint8 out, with the scale and zero point its QuantStub observed) and ends."""
from __future__ import annotations

import ember
from ember.nn import Module

__all__ = ["DeQuantize", "Quantize"]


class Quantize(Module):
    """Quantizes its input per tensor with a fixed scale and zero point."""

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None) -> None:
        super().__init__()
        self.register_buffer("scale", ember.tensor([float(scale)]))
        self.register_buffer("zero_point", ember.tensor([int(zero_point)], dtype=ember.int64))
        self.dtype = dtype

    def forward(self, x):
        return ember.quantize_per_tensor(x, float(self.scale), int(self.zero_point), self.dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant: bool = False):
        """From a QuantStub whose observer has seen the calibration data."""
        observer = mod.activation_post_process
        scale, zero_point = observer.calculate_qparams()
        return Quantize(scale.float().item(), zero_point.long().item(), observer.dtype)

    def extra_repr(self) -> str:
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(Module):
    """Dequantizes its input (to float32)."""

    def forward(self, x):
        return x.dequantize()

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant: bool = False):
        return DeQuantize()
