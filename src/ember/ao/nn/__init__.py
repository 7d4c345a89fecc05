"""`ember.ao.nn`: the modules quantization builds: intrinsic/ (fused float modules, and their
quantized forms in intrinsic/quantized/), quantized/ (layers on quantized tensors, dynamic/ for
per-call input quantization), qat/ (float layers with fake-quantized weights)."""


def __getattr__(name: str):
    if name in ("intrinsic", "quantized", "qat"):
        import importlib
        return importlib.import_module(f"ember.ao.nn.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
