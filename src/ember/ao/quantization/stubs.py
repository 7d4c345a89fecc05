"""Where a model's float region starts and ends (`QuantStub`, `DeQuantStub`, `QuantWrapper`):
identities until conversion would swap them for quantize / dequantize ops."""
from __future__ import annotations

from ember.nn import Module

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper"]


class QuantStub(Module):
    """Marks where quantization would start (an identity in float)."""

    def __init__(self, qconfig=None) -> None:
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(Module):
    """Marks where quantization would end (an identity in float)."""

    def __init__(self, qconfig=None) -> None:
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantWrapper(Module):
    """`module` between a QuantStub and a DeQuantStub."""

    def __init__(self, module) -> None:
        super().__init__()
        qconfig = getattr(module, "qconfig", None)
        self.add_module("quant", QuantStub(qconfig))
        self.add_module("dequant", DeQuantStub(qconfig))
        self.add_module("module", module)
        self.train(module.training)

    def forward(self, x):
        return self.dequant(self.module(self.quant(x)))
