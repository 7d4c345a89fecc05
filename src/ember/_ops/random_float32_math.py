"""float32 log and sin/cos the way PyTorch's vectorised float32 normal fill computes them.

PyTorch's x86 build fills float32 normals eight lanes at a time with the classic Cephes
single-precision polynomials (range reduction by 4/pi in three parts, a degree-8 log
polynomial around 1), compiled with fused multiply-adds. NumPy's float32 log/sin/cos round
differently in the last bit, so ember evaluates the same polynomials step by step: float32
products and sums, and `fma32` where the compiled code fuses a multiply into an add.
NOTE [float32 normal fill]: the fused steps were matched against torch 2.13 on x86 by
experiment (tests/test_random_torch_stream.py compares millions of values exactly).
"""
from __future__ import annotations

import numpy as np

_F32, _F64 = np.float32, np.float64

# Cephes logf: log(1 + x) ~ x - x^2/2 + x^3 * P(x), with log 2 split in two parts.
_LOG_POLY = tuple(_F32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG2_LOW, _LOG2_HIGH = _F32(-2.12194440e-4), _F32(0.693359375)
_SQRT_HALF = _F32(0.707106781186547524)
_SMALLEST_NORMAL = _F32(1.17549435e-38)
# Cephes sinf/cosf on [-pi/4, pi/4], with pi/4 split in three parts for the reduction.
_SIN_POLY = tuple(_F32(c) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
_COS_POLY = tuple(_F32(c) for c in (2.443315711809948e-5, -1.388731625493765e-3,
                                    4.166664568298827e-2))
_PI_4_PARTS = tuple(_F32(c) for c in (-0.78515625, -2.4187564849853515625e-4,
                                      -3.77489497744594108e-8))
_FOUR_OVER_PI = _F32(1.27323954473516)
_ONE, _HALF = _F32(1.0), _F32(0.5)


def fma32(a, b, c):
    """a * b + c rounded once to float32. The float32 product is exact in float64, so the
    float64 sum is one rounding; a second rounding to float32 can only go wrong when that sum
    lands exactly halfway between two floats, and there the exact remainder decides."""
    total = np.asarray(a).astype(_F64)
    total *= np.asarray(b, _F64)
    total += np.asarray(c, _F64)
    halfway = (total.view(np.int64) & 0x1FFFFFFF) == 0x10000000
    if halfway.any():
        def at_halfway(value):
            return np.broadcast_to(np.asarray(value, _F64), total.shape)[halfway]
        product, addend, rounded = at_halfway(a) * at_halfway(b), at_halfway(c), total[halfway]
        back = rounded - product
        error = (product - (rounded - back)) + (addend - back)
        total[halfway] = np.where(error == 0, rounded, np.nextafter(rounded, np.where(
            error > 0, np.inf, -np.inf)))
    return total.astype(_F32)


def log(x):
    """Natural log of positive float32 values (x <= 0 is not used by the fill)."""
    x = np.maximum(x, _SMALLEST_NORMAL)
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 127).astype(_F32) + _ONE
    mantissa = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)        # in [0.5, 1)
    low = mantissa < _SQRT_HALF
    exponent = exponent - np.where(low, _ONE, _F32(0))
    x = (mantissa - _ONE) + np.where(low, mantissa, _F32(0))
    z = x * x
    y = np.full_like(x, _LOG_POLY[0])
    for coefficient in _LOG_POLY[1:]:
        y = fma32(y, x, coefficient)
    y = fma32(y * x, z, exponent * _LOG2_LOW)
    y = fma32(z, -_HALF, y)
    return fma32(exponent, _LOG2_HIGH, x + y)


def sincos(x):
    """(sin x, cos x) of float32 values of moderate size (the fill's angles are in [0, 2 pi))."""
    negative = np.signbit(x)
    x = np.abs(x)
    octant = (x * _FOUR_OVER_PI).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    for part in _PI_4_PARTS:
        x = fma32(y, part, x)
    sin_negative = negative ^ ((octant & 4) != 0)
    cos_negative = (~(octant - 2) & 4) != 0
    use_sine_poly_for_sin = (octant & 2) == 0
    z = x * x
    cos_poly = fma32(fma32(np.full_like(x, _COS_POLY[0]), z, _COS_POLY[1]), z, _COS_POLY[2])
    cos_poly = fma32(cos_poly * z, z, -(z * _HALF)) + _ONE
    sin_poly = fma32(fma32(np.full_like(x, _SIN_POLY[0]), z, _SIN_POLY[1]), z, _SIN_POLY[2])
    sin_poly = fma32(sin_poly * z, x, x)
    sine = np.where(use_sine_poly_for_sin, sin_poly, cos_poly)
    cosine = np.where(use_sine_poly_for_sin, cos_poly, sin_poly)
    return np.where(sin_negative, -sine, sine), np.where(cos_negative, -cosine, cosine)
