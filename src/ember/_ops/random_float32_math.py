"""float32 log and sin/cos the way PyTorch's vectorised float32 normal fill computes them.

PyTorch's x86 build fills float32 normals eight lanes at a time with the classic Cephes
single-precision polynomials (range reduction by 4/pi in three parts, a degree-8 log
polynomial around 1), compiled with fused multiply-adds. NumPy's float32 log/sin/cos round
differently in the last bit, so ember evaluates the same polynomials step by step.

NOTE [float32 normal fill]: the fused steps were matched against torch 2.13 on x86 by
experiment (tests/test_random_torch_stream.py compares millions of values exactly), against
its AVX2 and AVX-512 kernels; its DEFAULT-capability kernel calls libm's float32 functions
instead, a few ulps away (tests/_capability.py). A fused step a * b + c runs in float64
(the product of two floats is exact there) and is rounded to float32 once more; that second
rounding could differ from one fused rounding only where the float64 sum lands exactly
halfway between two floats. The fill's inputs are few: 1 - u and
2 pi u for the 2**24 uniforms u = k / 2**24, and on every one of them `log` and `sincos` give
what the halfway-checked `fma32` gives (tests/test_random_fast_paths.py walks all of them),
so they skip the check. The steps the compiled code does not fuse, or where fusing makes no
difference on those inputs (the range reduction's first two parts, log's `- z / 2`), are
plain float32 arithmetic. Outside the fill (other inputs) use `fma32`.
"""
from __future__ import annotations

import math
import threading

import numpy as np

_F32, _F64 = np.float32, np.float64

# Cephes logf: log(1 + x) ~ x - x^2/2 + x^3 * P(x), with log 2 split in two parts.
_LOG_POLY = tuple(_F32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG2_LOW, _LOG2_HIGH = _F32(-2.12194440e-4), _F32(0.693359375)
_SQRT_HALF = _F32(0.707106781186547524)
# Cephes sinf/cosf on [-pi/4, pi/4], with pi/4 split in three parts for the reduction.
_SIN_POLY = tuple(_F32(c) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
_COS_POLY = tuple(_F32(c) for c in (2.443315711809948e-5, -1.388731625493765e-3,
                                    4.166664568298827e-2))
_PI_4_PARTS = tuple(_F32(c) for c in (-0.78515625, -2.4187564849853515625e-4,
                                      -3.77489497744594108e-8))
_FOUR_OVER_PI = _F32(1.27323954473516)
_ONE, _HALF = _F32(1.0), _F32(0.5)


def fma32(a, b, c, grid=None, out=None):
    """a * b + c rounded once to float32, for any float32 inputs. The float32 product is exact
    in float64, so the float64 sum is one rounding; a second rounding to float32 can only go
    wrong when that sum lands exactly halfway between two floats and was itself rounded, and
    there the exact remainder decides. With `grid`, every a is a multiple of 2**grid below 1
    in magnitude and b, c are numbers: when such sums all fit in float64's 53 bits, the
    float64 sum is exact and there is nothing to check. (The float64 work runs in this
    thread's reusable buffers, converting each operand once: same numbers, no fresh
    temporaries.) With `out` (float32, of the result's shape; it may be one of the operands)
    the result is written there, after every operand has been read."""
    shape = np.shape(c)
    if np.shape(a) not in ((), shape) or np.shape(b) not in ((), shape):
        shape = np.broadcast_shapes(np.shape(a), np.shape(b), shape)
    size = math.prod(shape)
    total = _buffer(0, size, _F64).reshape(shape)
    first, second = (b, a) if np.ndim(a) == 0 else (a, b)    # (the exact product commutes)
    np.copyto(total, first)
    if np.ndim(second) == 0:
        np.multiply(total, _F64(second), out=total)
    else:
        other = _buffer(1, size, _F64).reshape(shape)
        np.copyto(other, second)
        np.multiply(total, other, out=total)
    np.add(total, c, out=total)
    fixes = None
    if grid is None or not _sums_are_exact(grid, float(b), float(c)):
        # halfway: the 29 bits float32 drops are 1 followed by zeros
        low = np.bitwise_and(total.view(np.int64), 0x1FFFFFFF,
                             out=_buffer(1, size, _F64).view(np.int64).reshape(shape))
        if np.equal(low, 0x10000000, out=_buffer(2, size, np.bool_).reshape(shape)).any():
            fixes = _halfway_fixes(a, b, c, total, np.flatnonzero(low == 0x10000000))
    rounded = np.empty(shape, _F32) if out is None else out
    np.copyto(rounded, total, casting="unsafe")
    if fixes is not None:
        rounded.reshape(-1)[fixes[0]] = fixes[1]
    return rounded


def _halfway_fixes(a, b, c, total, halfway):
    """(positions, float32 values) where the float64 sum `total` lies halfway between two
    floats and was rounded there: the sum stepped off the midpoint towards the exact value."""
    def at_halfway(value):
        value = np.asarray(value, _F64)
        return value.reshape(-1)[halfway] if value.size > 1 else value.reshape(-1)
    product, addend = at_halfway(a) * at_halfway(b), at_halfway(c)
    near = total.reshape(-1)[halfway]
    back = near - product
    error = (product - (near - back)) + (addend - back)
    inexact = error != 0
    nudged = np.nextafter(near, np.where(error > 0, np.inf, -np.inf))
    return halfway[inexact], nudged[inexact].astype(_F32)


class _Buffers(threading.local):
    def __init__(self):
        self.arrays = {}        # (slot, dtype) -> this thread's reusable 1-D buffer


_BUFFERS = _Buffers()


# Calls larger than this (elements) get fresh buffers rather than keeping ones this large.
KEEP = 1 << 18


def _buffer(slot, size, dtype):
    """The first `size` elements of this thread's reusable buffer `slot` of `dtype` (contents
    left over from earlier calls: write before reading)."""
    if size > KEEP:
        return np.empty(size, dtype)
    arrays = _BUFFERS.arrays
    found = arrays.get((slot, dtype))
    if found is None or found.size < size:
        found = arrays[(slot, dtype)] = np.empty(size, dtype)
    return found[:size]


def _sums_are_exact(grid, b, c):
    """Whether k * 2**grid * b + c is exact in float64 for every integer k < 2**-grid."""
    lowest, top = [], abs(b) + abs(c)
    if b:
        lowest.append(grid + math.frexp(b)[1] - 24)     # (b has 24 significant bits)
    if c:
        lowest.append(math.frexp(c)[1] - 24)
    return not lowest or math.frexp(top)[1] - min(lowest) <= 53


class _Fused:
    """Fused float32 multiply-adds in preallocated float64 scratch (NOTE [float32 normal fill]:
    no halfway check; only for the fill's inputs)."""

    def __init__(self, shape):
        self.wide = np.empty(shape, _F64)

    def __call__(self, a, b, c, out=None):
        np.multiply(a, b, out=self.wide, dtype=_F64)       # (not a float32 product)
        self.wide += c
        if out is None:
            return self.wide.astype(_F32)
        np.copyto(out, self.wide, casting="same_kind")
        return out


def log(x):
    """Natural log of float32 values 1 - k / 2**24 (k < 2**24), as the fill computes it."""
    bits = x.view(np.int32)
    mantissa = ((bits & 0x007FFFFF) | 0x3F000000).view(_F32)             # in [0.5, 1)
    low = mantissa < _SQRT_HALF
    exponent = ((bits >> 23) - 126 - low).astype(_F32)
    # x = 2m - 1 below sqrt(1/2), else m - 1 (both exact).
    x = mantissa - _ONE
    x += np.where(low, mantissa, _F32(0))
    fused = _Fused(x.shape)
    z = x * x
    y = fused(x, _LOG_POLY[0], _LOG_POLY[1])
    for coefficient in _LOG_POLY[2:]:
        fused(y, x, coefficient, out=y)
    y *= x
    fused(y, z, exponent * _LOG2_LOW, out=y)
    y -= z * _HALF
    y += x
    return fused(exponent, _LOG2_HIGH, y, out=y)


def sincos(x):
    """(sin x, cos x) of float32 angles 2 pi k / 2**24 (k < 2**24), as the fill computes
    them."""
    octant = (x * _FOUR_OVER_PI).astype(np.int32)
    octant += 1
    octant &= ~1
    y = octant.astype(_F32)
    fused = _Fused(x.shape)
    x = x + y * _PI_4_PARTS[0]
    x += y * _PI_4_PARTS[1]
    fused(y, _PI_4_PARTS[2], x, out=x)
    z = x * x
    cos_poly = fused(z, _COS_POLY[0], _COS_POLY[1])
    fused(cos_poly, z, _COS_POLY[2], out=cos_poly)
    cos_poly *= z
    fused(cos_poly, z, -(z * _HALF), out=cos_poly)
    cos_poly += _ONE
    sin_poly = fused(z, _SIN_POLY[0], _SIN_POLY[1])
    fused(sin_poly, z, _SIN_POLY[2], out=sin_poly)
    sin_poly *= z
    fused(sin_poly, x, x, out=sin_poly)
    # Octants 2 and 6 (mod 8) swap the polynomials; the signs flip by the octant's bit 4.
    swap = (octant & 2) != 0
    sine = np.where(swap, cos_poly, sin_poly)
    cosine = np.where(swap, sin_poly, cos_poly)
    sine.view(np.int32)[...] ^= (octant & 4) << 29
    cosine.view(np.int32)[...] ^= (~(octant - 2) & 4) << 29
    return sine, cosine
