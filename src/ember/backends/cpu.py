"""ember.backends.cpu: the SIMD level the CPU offers, named as PyTorch's CPU kernels name it."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """'AVX512', 'AVX2' or 'DEFAULT' on x86 ('SVE256' ... on Arm), read from NumPy's CPU
    feature detection (the ATEN_CPU_CAPABILITY environment variable caps it, as in PyTorch)."""
    import os

    from numpy._core._multiarray_umath import __cpu_features__ as features
    found = "DEFAULT"
    if all(features.get(f) for f in ("AVX2", "FMA3")):
        found = "AVX2"
    if all(features.get(f) for f in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        found = "AVX512"
    if features.get("SVE"):
        found = "SVE256"
    order = ("DEFAULT", "AVX2", "AVX512")
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if cap in order and found in order and order.index(cap) < order.index(found):
        found = cap
    return found
