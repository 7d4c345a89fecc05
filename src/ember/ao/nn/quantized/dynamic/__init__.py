"""`ember.ao.nn.quantized.dynamic`: layers with int8 (or float16) weights whose float input is
quantized per call from its own range: Linear."""
from __future__ import annotations

from ember.ao.nn.quantized.dynamic.linear import Linear

__all__ = ["Linear"]
