"""Comparisons with PyTorch that depend on its CPU capability (NOTE [kernels by CPU capability]).

NOTE [kernels by CPU capability]: PyTorch builds its CPU kernels once per capability (portable
"DEFAULT", AVX2, AVX512) and picks one at start-up (ATEN_CPU_CAPABILITY overrides it). The
AVX2 and AVX-512 builds fuse multiply-adds (the compiler contracts `x * scale + shift`) and
fill float32 normals with Cephes polynomials; the DEFAULT build rounds the product first and
calls libm. ember computes one way on every machine, the vectorised builds' way, so its
numbers equal PyTorch's bit for bit under AVX2 and AVX512 only. Elsewhere a test states how
far the other kernel may be: a bound in units in the last place of a stated magnitude, tight
enough that a wrong formula still fails.
"""
from __future__ import annotations

import numpy as np
import torch

CAPABILITY = torch.backends.cpu.get_cpu_capability()
# The capabilities whose kernels ember's numbers were matched against, bit for bit.
MATCHED = CAPABILITY in ("AVX2", "AVX512")


def spacing(magnitude, dtype: str):
    """The gap from |magnitude| to the next number of `dtype` (a float32 array stands in for
    bfloat16: same exponents, 16 fewer bits)."""
    magnitude = np.abs(np.asarray(magnitude, np.float64))
    if dtype == "bfloat16":
        return np.spacing(magnitude.astype(np.float32)).astype(np.float64) * 2.0 ** 16
    return np.spacing(magnitude.astype(dtype)).astype(np.float64)


def assert_matches_vectorised_kernel(got, expected, ulps, scale, dtype: str | None = None):
    """got == expected bit for bit where PyTorch runs the AVX2 or AVX-512 kernels; on other
    capabilities the same special values and |got - expected| <= ulps units in the last place
    of `scale` (a magnitude, elementwise or one for all) in `dtype` (default expected's)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if MATCHED or expected.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected)
        return
    dtype = dtype or expected.dtype.name
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(got[~finite], expected[~finite])
    difference = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    bound = ulps * np.broadcast_to(spacing(scale, dtype), expected.shape)
    outside = finite & ~(difference <= bound)
    assert not outside.any(), (
        f"{int(outside.sum())} of {expected.size} values more than {ulps} ulp of their scale "
        f"from PyTorch's ({CAPABILITY}): got {got[outside][:5]}, expected {expected[outside][:5]}")


# How far the DEFAULT build's draws may lie, in ulps of the largest |value| drawn:
# uniform_(low, high) rounds x * (high - low) + low twice there, one ulp of the width (at most
# twice the largest |value|); the float32 normal fill takes libm's logf/sinf/cosf, a few ulps
# of the radius (11 of the largest |value| seen over 300 seeds).
UNIFORM_ULPS = 2
NORMAL_FILL_ULPS = 16


def assert_same_draws(got, expected, ulps, scale=None):
    """Seeded random values (or values computed from them): bit for bit under AVX2/AVX-512,
    elsewhere within `ulps` of `scale` (default the largest finite |expected|); complex
    values part by part."""
    got, expected = np.asarray(got), np.asarray(expected)
    if np.iscomplexobj(expected):
        got, expected = (np.stack([a.real, a.imag], -1) for a in (got, expected))
    if scale is None:
        finite = np.abs(expected[np.isfinite(expected)]) if expected.dtype.kind == "f" else []
        scale = finite.max() if len(finite) else 0.0
    assert_matches_vectorised_kernel(got, expected, ulps, scale)
