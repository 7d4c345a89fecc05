"""`ember.ao`: PyTorch's architecture-optimization namespace: eager-mode quantization's model
preparation (quantization/: stubs, observers, fake quantization, qconfigs, module fusion) and
the fused modules it builds (nn/intrinsic/). ember has no quantized tensors (NOTE [quantization
without quantized tensors] in quantization/__init__.py)."""
