"""`ember._inductor`: the compiler back-end for CPU: an fx graph of ATen ops lowered to a
loop IR, fused, written as C with OpenMP, compiled and cached on disk (`compile_fx`)."""
from ember._inductor.compile_fx import compile_fx

__all__ = ["compile_fx"]
