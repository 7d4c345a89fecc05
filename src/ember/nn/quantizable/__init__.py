"""`ember.nn.quantizable`: the float modules built from observable parts (LSTM, MultiheadAttention)
so they can be quantized; an alias of `ember.ao.nn.quantizable` (NOTE [nn's quantization
namespaces are aliases], nn/_ao_alias.py)."""
from ember.nn._ao_alias import alias

__getattr__, __dir__, __all__ = alias(__name__, "ember.ao.nn.quantizable")
