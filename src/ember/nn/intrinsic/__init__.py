"""`ember.nn.intrinsic`: the fused modules (ConvReLU2d ...), what fuse_modules builds; an alias of
`ember.ao.nn.intrinsic` (NOTE [nn's quantization namespaces are aliases], nn/_ao_alias.py)."""
from ember.nn._ao_alias import alias

__getattr__, __dir__, __all__ = alias(__name__, "ember.ao.nn.intrinsic")
