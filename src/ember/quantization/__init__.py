"""`ember.quantization`: PyTorch's old spelling of `ember.ao.quantization` (eager-mode
quantization: observers, qconfigs, prepare / convert, the recipes)."""
from ember.ao.quantization import *
from ember.ao.quantization import __all__  # noqa: F401
