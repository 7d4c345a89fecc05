"""`ember.quantization`: PyTorch's old spelling of `ember.ao.quantization` (NOTE [quantization
without quantized tensors] there)."""
from ember.ao.quantization import *  # noqa: F403
from ember.ao.quantization import __all__  # noqa: F401
