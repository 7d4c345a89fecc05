"""PyTorch's CPU series for the Hurwitz zeta function and trigamma, vectorised: the kernels of
`special.zeta` and of `polygamma(n >= 1, x)`.

NOTE [zeta and trigamma follow PyTorch's series]: SciPy's zeta and polygamma are the limits
(zeta(s, inf) = 0, a pole of trigamma is inf); PyTorch's are Cephes' series as written, whose
arithmetic decides the edges: zeta sums q ** -s and adds an Euler-Maclaurin tail in double
(float inputs too) and gives NaN where a zero term meets an infinite step (q = inf, a huge s);
trigamma reflects x < 0.5 through pi**2 / sin(pi x)**2 in the input's own precision, so at a
pole sin(pi x) is a rounding-sized number and the result is huge but finite (1.29e15 at
x = -1 in float32), and its loop of six terms then the asymptotic series are float arithmetic
for float32. The same steps here, in the same precision, elementwise: each element stops where
PyTorch's loop returns for it (a `done` mask), so its NaN and infinity positions are PyTorch's
and its values lie within a few units of the last place (libm's sin and pow against NumPy's).
"""
from __future__ import annotations

import math

import numpy as np

# B_2j / (2j)! as the reciprocals Cephes' tail divides by (12, -720, 30240 ...).
_TAIL = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
         7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
         -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16
# A negative non-integer q walks up by ones until it passes 9: PyTorch's loop takes -q steps
# (for ever near -2**52); here at most this many, then NaN.
_MAX_STEPS = 1 << 20


def zeta(xp, x, q, dtype, acc=np.float64):
    """Hurwitz zeta(x, q) = sum over k >= 0 of (q + k) ** -x, by PyTorch's series in `acc`
    (double for float and double inputs: PyTorch's accumulate type), except its first term,
    q ** -x, which PyTorch takes in the inputs' `dtype`. Returns an `acc` array of the
    broadcast shape."""
    x, q = xp.broadcast_arrays(xp.asarray(x, dtype=dtype), xp.asarray(q, dtype=dtype))
    with np.errstate(all="ignore"):
        first = (q ** -x).astype(acc)
    x, q = x.astype(acc), q.astype(acc)
    out = xp.full(x.shape, np.nan, dtype=acc)
    with np.errstate(all="ignore"):
        done = x < 1                                          # NaN below 1 (and x = 1: inf)
        out[x == 1] = np.inf
        done |= x == 1
        nonpositive = ~done & (q <= 0)
        pole = nonpositive & (q == xp.floor(q))
        out[pole] = np.inf
        done |= pole | nonpositive & (x != xp.floor(x))
        live = xp.flatnonzero(~done)
        xs, qs = x.reshape(-1)[live], q.reshape(-1)[live]
        s = first.reshape(-1)[live]
        a = qs.copy()
        b = xp.zeros_like(s)
        finished = xp.zeros(s.shape, dtype=bool)
        steps = 0
        walking = ~finished
        while walking.any():
            if steps >= _MAX_STEPS:
                s = xp.where(walking, np.nan, s)
                finished |= walking
                break
            steps += 1
            a = xp.where(walking, a + 1, a)
            b = xp.where(walking, a ** -xs, b)
            s = xp.where(walking, s + b, s)
            finished |= walking & (-_MACHEP * s < b) & (b < _MACHEP * s)
            walking = ~finished & ((steps < 9) | (a <= 9))
        tail = ~finished
        w = a
        s = xp.where(tail, s + b * w / (xs - 1), s)
        s = xp.where(tail, s - 0.5 * b, s)
        a = xp.ones_like(s)
        k = xp.zeros_like(s)
        for divisor in _TAIL:
            a = a * (xs + k)
            b = b / w
            t = a * b / divisor
            s = xp.where(tail, s + t, s)
            tail &= ~(xp.abs(t / s) < _MACHEP)
            k = k + 1
            a = a * (xs + k)
            b = b / w
            k = k + 1
        flat = out.reshape(-1)
        flat[live] = s
    return flat.reshape(x.shape)


def trigamma(xp, x):
    """polygamma(1, x) by PyTorch's series, in x's precision (float32 for float32 and the half
    types, which arrive as float32; double for double)."""
    dtype = x.dtype.type
    one = dtype(1)
    pi = dtype(math.pi)
    with np.errstate(all="ignore"):
        reflect = x < dtype(0.5)
        sin_pi_x = xp.sin(pi * x)
        result = xp.where(reflect, -((pi * pi) / (sin_pi_x * sin_pi_x)), dtype(0))
        x = xp.where(reflect, one - x, x)
        for _ in range(6):
            result = result + one / (x * x)
            x = x + one
        ixx = one / (x * x)
        series = one + one / (dtype(2) * x) + ixx * (
            one / dtype(6) - ixx * (one / dtype(30) - ixx * (one / dtype(42))))
        result = result + series / x
        return xp.where(reflect, -result, result)
