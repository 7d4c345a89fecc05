"""`ember.ao.nn`: the modules quantization builds (intrinsic/: fused float modules)."""
