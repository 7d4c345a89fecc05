"""`ember.quantization`: PyTorch's old spelling of `ember.ao.quantization` (NOTE [quantization
without quantized tensors] there)."""
from ember.ao.quantization import *
from ember.ao.quantization import __all__  # noqa: F401
