"""`ember.nn.quantized`: the quantized modules (int8 Linear, Conv, ... that hold quantized
weights); an alias of `ember.ao.nn.quantized` (NOTE [nn's quantization namespaces are aliases],
nn/_ao_alias.py)."""
from ember.nn._ao_alias import alias

__getattr__, __dir__, __all__ = alias(__name__, "ember.ao.nn.quantized")
