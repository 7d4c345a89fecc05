"""`ember.ao.nn.quantized`: the layers a converted model runs, on quantized tensors (quint8
activations, int8 weights): Linear, convolutions, ReLU6, Quantize / DeQuantize; `dynamic/` has
the layers that quantize their float input on the fly."""
from __future__ import annotations

from ember.ao.nn.quantized.activation import Dropout, ReLU6
from ember.ao.nn.quantized.conv import Conv1d, Conv2d, Conv3d
from ember.ao.nn.quantized.linear import Linear
from ember.ao.nn.quantized.stubs import DeQuantize, Quantize

__all__ = ["Conv1d", "Conv2d", "Conv3d", "DeQuantize", "Dropout", "Linear",
           "Quantize", "ReLU6", "dynamic", "functional"]


def __getattr__(name: str):
    if name in ("dynamic", "functional"):
        import importlib
        return importlib.import_module(f"ember.ao.nn.quantized.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
