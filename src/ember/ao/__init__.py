"""`ember.ao`: PyTorch's architecture-optimization namespace: eager-mode quantization's model
preparation (quantization/: stubs, observers, fake quantization, qconfigs, module fusion) and
the modules it builds (nn/: fused, quantized, dynamic, QAT), on quantized tensors (NOTE
[quantized tensors])."""


def __getattr__(name: str):
    if name in ("nn", "quantization"):
        import importlib
        return importlib.import_module(f"ember.ao.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
