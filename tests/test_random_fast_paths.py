"""ember's fast ways to PyTorch's random numbers, against the plain ways they replace: the
float32 normal fill's log and sin/cos (NOTE [float32 normal fill]) on every input the fill can
give them, against the same polynomials with a correctly rounded fused multiply-add at every
step (and that multiply-add against exact rational arithmetic); randperm's Fisher-Yates without
a loop against the loop. (The numbers themselves are compared with PyTorch's in
tests/test_random_torch_stream.py.)"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ember._ops import random_float32_math as m

_F32 = np.float32
_CHUNK = 1 << 20


def _exact_fma32(a, b, c):
    """a * b + c rounded once to float32, ties to even, by rational arithmetic."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    guess = _F32(float(exact))
    candidates = [np.nextafter(guess, _F32(-np.inf)), guess, np.nextafter(guess, _F32(np.inf))]
    distances = [abs(Fraction(float(v)) - exact) for v in candidates]
    best = min(distances)
    ties = [v for v, d in zip(candidates, distances) if d == best]
    return min(ties, key=lambda v: int(np.array(v).view(np.int32)) & 1)


def test_fma32_rounds_once():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 1 << 24, 3000).astype(_F32) * _F32(2.0 ** -24)
    b = rng.standard_normal(3000).astype(_F32)
    c = rng.standard_normal(3000).astype(_F32)
    # Sums just off a midpoint between two floats (c odd, a * b = half an ulp of c less
    # 2**-46 of that): float64 rounds them onto the midpoint, and a second rounding there
    # would go to the even neighbour instead of back to c.
    scale = (_F32(2.0) ** rng.integers(-20, 20, 200)).astype(_F32)
    c[:200] = (_F32(1) + (2 * rng.integers(0, 1 << 21, 200) + 1) * _F32(2.0 ** -23)) * scale
    a[:200] = (_F32(1) + _F32(2.0 ** -23)) * _F32(2.0 ** -24) * scale
    b[:200] = _F32(1) - _F32(2.0 ** -23)
    plain = (a[:200].astype(np.float64) * b[:200] + c[:200]).astype(_F32)
    assert (plain != c[:200]).all()           # (the cases the second rounding gets wrong)
    for scalar_b, scalar_c in ((None, None), (_F32(5.3), _F32(-2.0))):
        bb = b if scalar_b is None else scalar_b
        cc = c if scalar_c is None else scalar_c
        got = m.fma32(a, bb, cc)
        expected = [_exact_fma32(x, y, z) for x, y, z in
                    zip(a, np.broadcast_to(bb, a.shape), np.broadcast_to(cc, a.shape))]
        np.testing.assert_array_equal(got.view(np.int32),
                                      np.array(expected, _F32).view(np.int32))


def _log_step_by_step(x):
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 127).astype(_F32) + _F32(1)
    mantissa = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)
    low = mantissa < m._SQRT_HALF
    exponent = exponent - np.where(low, _F32(1), _F32(0))
    x = (mantissa - _F32(1)) + np.where(low, mantissa, _F32(0))
    z = x * x
    y = np.full_like(x, m._LOG_POLY[0])
    for coefficient in m._LOG_POLY[1:]:
        y = m.fma32(y, x, coefficient)
    y = m.fma32(y * x, z, exponent * m._LOG2_LOW)
    y = m.fma32(z, -m._HALF, y)
    return m.fma32(exponent, m._LOG2_HIGH, x + y)


def _sincos_step_by_step(x):
    octant = (x * m._FOUR_OVER_PI).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(_F32)
    for part in m._PI_4_PARTS:
        x = m.fma32(y, part, x)
    z = x * x
    cos_poly = m.fma32(m.fma32(np.full_like(x, m._COS_POLY[0]), z, m._COS_POLY[1]), z,
                       m._COS_POLY[2])
    cos_poly = m.fma32(cos_poly * z, z, -(z * m._HALF)) + _F32(1)
    sin_poly = m.fma32(m.fma32(np.full_like(x, m._SIN_POLY[0]), z, m._SIN_POLY[1]), z,
                       m._SIN_POLY[2])
    sin_poly = m.fma32(sin_poly * z, x, x)
    swap = (octant & 2) != 0
    sine = np.where(swap, cos_poly, sin_poly)
    cosine = np.where(swap, sin_poly, cos_poly)
    return (np.where((octant & 4) != 0, -sine, sine),
            np.where((~(octant - 2) & 4) != 0, -cosine, cosine))


def test_fill_log_on_every_input():
    """log(1 - u) for all 2**24 float32 uniforms u."""
    for start in range(0, 1 << 24, _CHUNK):
        u1 = np.arange(start + 1, start + _CHUNK + 1, dtype=_F32) * _F32(2.0 ** -24)
        np.testing.assert_array_equal(m.log(u1).view(np.int32),
                                      _log_step_by_step(u1).view(np.int32))


def test_fill_sincos_on_every_input():
    """sin and cos of 2 pi u for all 2**24 float32 uniforms u."""
    for start in range(0, 1 << 24, _CHUNK):
        theta = _F32(2 * np.pi) * (np.arange(start, start + _CHUNK, dtype=_F32) *
                                   _F32(2.0 ** -24))
        for got, expected in zip(m.sincos(theta), _sincos_step_by_step(theta)):
            np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))


def test_fisher_yates_without_a_loop_is_the_loop():
    """NOTE [Fisher-Yates without a loop]: the same permutation as running the swaps."""
    from ember._ops.random_transforms import _swapped
    rng = np.random.default_rng(1)
    for n in [1, 2, 3, 5, 17, 1000, 50000]:
        shapes = [rng.integers(0, 1 << 32, max(n - 1, 0)) % np.arange(n, 1, -1) +
                  np.arange(n - 1) for _ in range(20 if n < 5000 else 2)]
        shapes += [np.arange(n - 1), np.full(max(n - 1, 0), n - 1)]    # all fixed, all last
        for targets in shapes:
            order = list(range(n))
            for i, j in enumerate(targets.tolist()):
                order[i], order[j] = order[j], order[i]
            np.testing.assert_array_equal(_swapped(targets.astype(np.int64), n), order)
