"""Refit the coefficients of ember's float32 erf (src/ember/_ops/special_fast_erf.py).

erf(x) = x / sqrt(x**2 + g(x**2)) with g(t) = t (1 - erf**2) / erf**2 approximated by
P(t) / Q(t), P of degree 6, Q of degree 5 with Q(0) = 1. The fit is a linearised least-squares
problem (P - g Q ~ 0, divided by the previous Q), reweighted (Lawson) towards the smallest
largest relative error of erf itself; a relative error e of g moves erf by e * g / (2 (t + g)).
Needs SciPy. Prints the coefficients (powers of t) and the largest relative error of erf.
"""
import numpy as np
from scipy.special import erf

DEGREES = (6, 5)
LIMIT = 4.0


def fit(m=DEGREES[0], n=DEGREES[1], limit=LIMIT, rounds=300):
    x = np.sort(np.concatenate([np.linspace(1e-3, limit, 40000), np.geomspace(1e-8, 1e-3, 100)]))
    t = x * x
    scale = limit * limit
    u = t / scale                       # fit in u = t / limit**2 in [0, 1]: better conditioned
    f = erf(x)
    g = t * (1 - f * f) / (f * f)
    sensitivity = 0.5 * g / (t + g)
    weights, previous_q, best = np.ones_like(x), np.ones_like(x), None
    for step in range(rounds):
        a = np.concatenate([np.stack([u ** k for k in range(m + 1)], 1),
                            np.stack([-g * u ** k for k in range(1, n + 1)], 1)], 1)
        s = np.sqrt(weights) * sensitivity / (g * previous_q)
        c, *_ = np.linalg.lstsq(a * s[:, None], g * s, rcond=None)
        p, q = c[:m + 1], np.concatenate([[1.0], c[m + 1:]])
        previous_q = np.polyval(q[::-1], u)
        error = (np.polyval(p[::-1], u) / previous_q / g - 1) * sensitivity
        largest = np.abs(error).max()
        if (previous_q > 0).all() and (best is None or largest < best[0]):
            best = (largest, p / scale ** np.arange(m + 1), q / scale ** np.arange(n + 1))
        if step >= 20:
            weights = weights * (np.abs(error) / largest) ** 0.3 + 1e-30
            weights /= weights.sum()
    return best


if __name__ == "__main__":
    largest, p, q = fit()
    print("largest relative error of erf:", largest)
    print("P:", [float(v) for v in p])
    print("Q:", [float(v) for v in q])
