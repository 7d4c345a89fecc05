"""a * b + c rounded once, as the fused multiply-adds of PyTorch's vectorised CPU kernels
round it (lerp), for float32 and float64 NumPy arrays. (Its portable DEFAULT-capability kernel
rounds the product first; ember rounds once on every machine, the nearer value.)

NOTE [fused multiply-add]: NumPy has no fma. float32 runs in float64, where the product is
exact, with the halfway check of `fma32` (random_float32_math.py). float64 splits the product
into an exact sum of two doubles (Dekker's product, Veltkamp's split) and adds c with the
error of that sum carried (Knuth's two-sum): the result is the correctly rounded one except
when the exact value lies within a few units of 2**-106 of a rounding midpoint. Where a split
would overflow (magnitudes past about 1e300) or a value is not finite, the plain a * b + c
stands.
"""
from __future__ import annotations

import numpy as np

from ember._ops.random_float32_math import fma32

_SPLITTER = 134217729.0      # 2**27 + 1


def _split(a):
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def fma64(a, b, c):
    """a * b + c for float64 arrays (or scalars), rounded once (see the NOTE)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + \
        a_low * b_low
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    fused = total + (sum_error + product_error)
    plain = np.isfinite(fused)
    if plain.all():
        return fused
    return np.where(plain, fused, product + c)


def fma(a, b, c, out=None):
    """a * b + c rounded once, for float32 or float64 operands (a's dtype); with `out`, written
    there (once every operand is read: `out` may be one of them)."""
    if a.dtype == np.float32:
        return fma32(a, np.float32(b) if np.ndim(b) == 0 else b, c, out=out)
    if out is None:
        return fma64(a, b, c)
    np.copyto(out, fma64(a, b, c))
    return out
