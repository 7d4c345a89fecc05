"""`ember.nn.qat`: the quantization-aware-training modules (float modules that fake-quantize their
weights); an alias of `ember.ao.nn.qat` (NOTE [nn's quantization namespaces are aliases],
nn/_ao_alias.py)."""
from ember.nn._ao_alias import alias

__getattr__, __dir__, __all__ = alias(__name__, "ember.ao.nn.qat")
