"""Quantized activations that keep their input's quantizer: `ReLU6` (clamped to the integers of
0 and 6). The float `nn.ReLU` runs on quantized tensors as it is (NOTE [quantized tensors])."""
from __future__ import annotations

import numpy as np

from ember._core.dispatch.quantized import make_quantized
from ember.nn import Module, ReLU

__all__ = ["Dropout", "ReLU6"]


class ReLU6(ReLU):
    """min(max(x, 0), 6) on a quantized tensor, in its own integers."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(inplace)

    def _get_name(self) -> str:
        return "QuantizedReLU6"

    def forward(self, x):
        data = x._data
        if not x.is_quantized or not data.per_tensor:
            raise NotImplementedError("Could not run 'quantized::relu6' with arguments from "
                                      "the 'CPU' backend.")
        info = np.iinfo(data.array.dtype)
        six = data.zero_point + np.rint(np.float32(6.0) / np.float32(data.scale))
        high = min(int(six), int(info.max))
        values = np.clip(data.array, max(data.zero_point, int(info.min)), high)
        if self.inplace:
            np.copyto(data.array, values.astype(data.array.dtype))
            return x
        return make_quantized(data.with_array(values.astype(data.array.dtype)), x._dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant: bool = False):
        return ReLU6(mod.inplace)


class Dropout(Module):
    """Dropout in a converted model: the input as it is (quantized models run evaluation)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p, self.inplace = p, inplace

    def _get_name(self) -> str:
        return "QuantizedDropout"

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"

    def forward(self, x):
        return x

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        return cls(mod.p, mod.inplace)
