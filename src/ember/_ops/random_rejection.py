"""The loops of PyTorch's CPU gamma, poisson and binomial samplers, run in NumPy from every
state of a block of the stream at once (NOTE [rejection samplers on PyTorch's stream],
random_chain.py). For one parameter row, `table(block, row)` gives for every start state (slot,
and for gamma whether a normal is cached) the state after the element, whether the element
stayed inside the block and a record; `values(block, row, states, record)` the numbers of the
elements that start at the given states (gamma makes them only for the path, from glibc's
normals).

Comparisons go through NumPy's log and SciPy's gammaln, which may differ from glibc's in the
last bit: a comparison closer than that could tip is redone with glibc's functions (Python's
math.log; lgamma from the C library, as CPython's math.lgamma is its own).
"""
from __future__ import annotations

import math

import numpy as np

_F32, _F64 = np.float32, np.float64
# Marsaglia and Tsang's constants as PyTorch writes them: float literals.
_THIRD = _F32(1.0) / _F32(3.0)
_SQUEEZE = float(_F32(0.0331))
_TIE = 1e-12
# Room for the block's normals being an ulp or two off glibc's in the sure acceptances.
_SQUEEZE_ROOM, _Y_ROOM = 1e-12, 1e-9


def _near(left, right, size):
    """Where `left` and `right` are close enough that last-bit differences could swap them."""
    return np.abs(left - right) <= _TIE * size + 1e-300


def _glibc_pow(base, exponent):
    """glibc's pow (within 0.52 ulp) of doubles: the long double result rounded, math.pow where
    it lies near a midpoint (NOTE on glibc_log, random_transforms.py)."""
    precise = np.power(base.astype(np.longdouble), np.longdouble(exponent))
    nearest = precise.astype(_F64)
    with np.errstate(all="ignore"):
        offset = np.abs((precise - nearest).astype(_F64)) / np.spacing(np.abs(nearest))
    risky = ~(offset <= 0.45) | (np.frexp(nearest)[0] == 0.5) | ~np.isfinite(nearest)
    if risky.any():
        nearest[risky] = [math.pow(b, exponent) for b in base[risky].tolist()]
    return nearest


_libm = None


def _glibc_lgamma(value):
    global _libm
    if _libm is None:
        import ctypes    # (on first use: ctypes.util brings subprocess and tempfile with it)
        import ctypes.util
        _libm = ctypes.CDLL(ctypes.util.find_library("m"))
        _libm.lgamma.restype = ctypes.c_double
        _libm.lgamma.argtypes = [ctypes.c_double]
    return _libm.lgamma(value)


def _log(values):
    with np.errstate(divide="ignore"):
        return np.log(values)


class Gamma:
    """sample_gamma with double accumulation; alpha's own arithmetic in `own` (the tensor's
    dtype for _standard_gamma, double for Dirichlet). Decisions are taken on the block's
    close-to-glibc normals wherever they hold with room to spare for an ulp or two, else
    again on glibc's normals; the numbers on the path are made from glibc's normals."""
    normals = True

    def __init__(self, own):
        self.own = own

    def draws_per_element(self, distinct):
        return float(np.where(distinct[:, 0] < 1, 3.3, 2.3).max())

    def _constants(self, row):
        own = self.own
        alpha = own(row[0])
        boost = bool(alpha < 1)
        exponent = float(own(1) / alpha) if boost else 1.0
        if boost:
            alpha = own(alpha + own(1))
        d = float(alpha - own(_THIRD))
        return boost, exponent, d, 1.0 / math.sqrt(9.0 * d)

    def _first_attempts(self, block, row):
        """Whether the first attempt from each state surely accepts (by slot: states without
        and with a cached normal), with the constants. From no cached normal the attempt
        takes the pair at k (+1 after the boost uniform) and the uniform after it, ending at
        k + 3 (+1) with the pair's sin cached; from a cached one (the sin of the pair at k - 3)
        that normal and the uniform at k (+1), ending at k + 1 (+1)."""
        size = block.size
        boost, _, d, c = self._constants(row)
        shift = int(boost)
        sure = []
        for normal, uniform in ((block.cos[shift:shift + size],
                                 block.uniform[shift + 2:shift + 2 + size]),
                                (np.concatenate([np.zeros(3), block.sin[:size - 3]]),
                                 block.uniform[shift:shift + size])):
            y = 1.0 + c * normal
            xx = normal * normal
            sure.append((1 - uniform < (1.0 - _SQUEEZE * xx * xx) - _SQUEEZE_ROOM)
                        & (y > _Y_ROOM))
        ends = np.arange(size)
        sure[0] &= ends + shift + 3 <= size
        sure[1] &= ends + shift + 1 <= size
        sure[1][:3] = False                         # (no cached normal before slot 3)
        return sure, shift, d, c

    def _loop(self, block, nodes, shift, d, c):
        """Whole elements from `nodes`, by the loop (exactly where NumPy's normals leave a
        decision in doubt): end slot, end cached, stayed inside, pair and half accepted."""
        start_slot, start_lag = nodes // 2, np.where(nodes % 2 == 1, 1, -1)
        result = self._run(block, start_slot, start_lag, shift, d, c, exact=False)
        redo = np.flatnonzero(result[-1])
        if redo.size:
            exact = self._run(block, start_slot[redo], start_lag[redo], shift, d, c,
                              exact=True)
            for part, fixed in zip(result, exact):
                part[redo] = fixed
        end_slot, end_lag, pair, half, inside, _ = result
        return end_slot, end_lag == 1, inside & (end_slot <= block.size), pair, half

    def table(self, block, row):
        size = block.size
        nodes = np.arange(2 * size)
        if self.own(row[0]) == 0:                    # nothing drawn
            return nodes // 2, nodes % 2 == 1, np.ones(2 * size, bool), None
        sure, shift, d, c = self._first_attempts(block, row)
        slot = nodes // 2 + np.tile([shift + 3, shift + 1], size)
        cached = nodes % 2 == 0
        inside = np.stack(sure, 1).reshape(-1)
        again = np.flatnonzero(~inside)
        end_slot, end_cached, end_inside, pair, half = self._loop(block, again, shift, d, c)
        slot[again], cached[again], inside[again] = end_slot, end_cached, end_inside
        return slot, cached, inside, (again, pair, half)

    def _numbers(self, block, slots, pairs, halves, row):
        own = self.own
        boost, exponent, d, c = self._constants(row)
        x = block.exact(pairs, halves)
        y = 1.0 + c * x
        v = y * y * y
        if boost:
            values = _glibc_pow(1 - block.uniform[slots], exponent) * d * v
        else:
            values = d * v
        # (std::max(min, value): a NaN gives min)
        return np.fmax(values.astype(own), np.finfo(own).tiny)

    @staticmethod
    def _run(block, slot, lag, shift, d, c, exact):
        """Whole elements from states (slot, lag: draws since the cached normal's pair + 2,
        -1 for none): (end slot, end lag, pair and half of the accepted normal, stayed in the
        block, fragile: a decision too close to call on the block's normals)."""
        size = block.size
        inside = slot + shift <= size
        slot = slot + shift
        lag = np.where(lag >= 0, lag + shift, lag)
        pair_of = np.zeros(slot.size, np.int64)
        half_of = np.zeros(slot.size, np.int64)
        fragile = np.zeros(slot.size, bool)
        pending = np.flatnonzero(inside)
        while pending.size:
            at, state = slot[pending], lag[pending]
            x, y = np.empty(pending.size), np.empty(pending.size)
            pair, half = np.empty(pending.size, np.int64), np.empty(pending.size, np.int64)
            redraw = np.arange(pending.size)
            while redraw.size:              # normals until y > 0
                now, now_lag = at[redraw], state[redraw]
                from_cache = now_lag >= 0
                pair[redraw] = np.clip(np.where(from_cache, now - 2 - now_lag, now), 0,
                                       size - 1)
                half[redraw] = from_cache
                x[redraw] = block.exact(pair[redraw], half[redraw]) if exact else np.where(
                    from_cache, block.sin[pair[redraw]], block.cos[pair[redraw]])
                at[redraw] = np.where(from_cache, now, now + 2)
                state[redraw] = np.where(from_cache, -1, 0)
                y[redraw] = 1.0 + c * x[redraw]
                redraw = redraw[y[redraw] <= 0]
            ok = at < size
            u = 1 - block.uniform[np.minimum(at, size - 1)]
            at = at + 1
            state = np.where(state >= 0, state + 1, state)
            accept, unsure = _marsaglia_tsang(x, y, u, c, d, exact)
            slot[pending], lag[pending] = at, state
            inside[pending[~ok]] = False
            fragile[pending[unsure]] = True
            chosen = accept & ok
            pair_of[pending[chosen]], half_of[pending[chosen]] = pair[chosen], half[chosen]
            pending = pending[~accept & ok & ~unsure]
        return slot, lag, pair_of, half_of, inside, fragile

    def values(self, block, row, nodes, record):
        own = self.own
        if own(row[0]) == 0:
            return np.full(nodes.size, np.finfo(own).tiny, own)
        # The accepted normal: the first one drawn from the state unless the state ran the
        # whole loop (`again`, with its pair and half).
        again, again_pair, again_half = record
        slot, cached = nodes // 2, nodes % 2
        pair = np.where(cached == 1, slot - 3, slot + int(self.own(row[0]) < 1))
        half = cached.copy()
        at = np.minimum(np.searchsorted(again, nodes), max(again.size - 1, 0))
        looped = again[at] == nodes if again.size else np.zeros(nodes.size, bool)
        pair[looped], half[looped] = again_pair[at[looped]], again_half[at[looped]]
        return self._numbers(block, slot, pair, half, row)


def _marsaglia_tsang(x, y, u, c, d, exact):
    """The acceptance test of an attempt (y > 0 where it matters), and where it is too close
    to call on normals an ulp or two off glibc's (exact=False)."""
    v = y * y * y
    xx = x * x
    squeeze = 1.0 - _SQUEEZE * xx * xx
    accept = u < squeeze
    unsure = np.zeros(x.size, bool)
    if not exact:
        unsure = (np.abs(y) <= _Y_ROOM) | (np.abs(u - squeeze) <= _SQUEEZE_ROOM)
    test = np.flatnonzero(~accept & (y > 0))
    if test.size:
        ut, xxt, vt, yt = u[test], xx[test], v[test], y[test]
        log_u, log_v = _log(ut), _log(vt)
        right = 0.5 * xxt + d * (1.0 - vt + log_v)
        accept[test] = log_u < right
        size = np.abs(log_u) + 0.5 * xxt + d * (np.abs(1.0 - vt) + np.abs(log_v))
        if exact:
            for i in np.flatnonzero(_near(log_u, right, size)).tolist():
                accept[test[i]] = math.log(ut[i]) < 0.5 * xxt[i] + d * (
                    1.0 - vt[i] + math.log(vt[i]))
        else:
            swing = 1.0 + np.abs(c * x[test]) / np.abs(yt)
            unsure[test] |= np.abs(log_u - right) <= 1e-11 * size * swing
    return accept, unsure


class Poisson:
    """sample_poisson: a product of uniforms below exp(-rate) for rates under 10, Hoermann's
    transformed rejection from 10 on (double arithmetic)."""
    normals = False

    def draws_per_element(self, distinct):
        rates = distinct[:, 0]
        return float(np.where(rates >= 10, 2.6, rates + 1.2).max())

    def table(self, block, row):
        rate, slots = float(row[0]), np.arange(block.size)
        cached = np.zeros(slots.size, bool)
        if rate == 0:
            return slots, cached, np.ones(slots.size, bool), np.zeros(slots.size, np.int64)
        if rate >= 10:
            values, slot, _, inside = self._rejection(block, slots, cached, rate)
        else:
            values, slot, _, inside = self._product(block, slots, cached, rate)
        return slot, cached, inside, values

    @staticmethod
    def values(block, row, nodes, record):
        return record[nodes]

    @staticmethod
    def _product(block, slots, cached, rate):
        """From every slot k at once: multiply U[k], U[k+1], ... until the product drops to
        exp(-rate) or below; the count of factors before that is the number. While most
        states are still multiplying, whole shifted slices; then only those left."""
        size, uniform = block.size, block.uniform
        limit = math.exp(-rate)
        product = np.ones(size)
        values = np.zeros(size, np.int64)
        active = np.ones(size, bool)
        factor = 0
        while active.any() and factor < size:
            if 4 * np.count_nonzero(active) < size:
                break
            product *= np.concatenate([uniform[factor:factor + size],
                                       np.zeros(max(0, factor + size - uniform.size))])
            ended = active & ~(product > limit)
            values[ended] = factor
            active &= ~ended
            factor += 1
        pending = np.flatnonzero(active)
        values[pending] = factor
        while pending.size:
            at = pending + factor
            product[pending] *= uniform[np.minimum(at, size)]
            more = product[pending] > limit
            pending = pending[more]
            factor += 1
            values[pending] = factor
        slot = slots + values + 1
        return values, slot, cached, slot <= size

    @staticmethod
    def _rejection(block, slots, cached, rate):
        size, uniform = block.size, block.uniform
        root, log_rate = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        log_inv_alpha = math.log(1.1239 + 1.1328 / (b - 3.4))
        vr = 0.9277 - 3.6224 / (b - 2)
        values = np.zeros(slots.size, np.int64)
        slot = slots.copy()
        inside = np.ones(slots.size, bool)
        pending = np.arange(slots.size)
        while pending.size:
            at = slot[pending]
            ok = at + 1 < size
            u = uniform[np.minimum(at, size - 2)] - 0.5
            v = uniform[np.minimum(at + 1, size - 1)]
            slot[pending] = at + 2
            us = 0.5 - np.abs(u)
            with np.errstate(divide="ignore"):
                k = np.floor((2 * a / us + b) * u + rate + 0.43)
            accept = (us >= 0.07) & (v <= vr)
            test = np.flatnonzero(~accept & (k >= 0) & ~((us < 0.013) & (v > us)))
            if test.size:
                vt, ust, kt = v[test], us[test], k[test]
                with np.errstate(divide="ignore"):
                    left = _log(vt) + log_inv_alpha - np.log(a / (ust * ust) + b)
                from scipy.special import gammaln
                right = -rate + kt * log_rate - gammaln(kt + 1)
                passed = left <= right
                near = np.flatnonzero(_near(left, right, np.abs(left) + rate + np.abs(
                    kt * log_rate) + np.abs(right) + 10))
                for i in near.tolist():
                    exact_left = (math.log(vt[i]) if vt[i] > 0 else -math.inf) \
                        + log_inv_alpha - math.log(a / (ust[i] * ust[i]) + b)
                    passed[i] = exact_left <= (-rate + kt[i] * log_rate
                                               - _glibc_lgamma(kt[i] + 1))
                accept[test] = passed
            done = accept & ok
            values[pending[done]] = k[done].astype(np.int64)
            inside[pending[~ok]] = False
            pending = pending[~accept & ok]
        return values, slot, cached, inside


# stirling_approx_tail's table (PyTorch's constants).
_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    k = np.asarray(k, _F64)
    small = k < 10
    kp1sq = (k + 1) * (k + 1)
    with np.errstate(all="ignore"):
        formula = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return np.where(small, np.array(_TAIL)[np.clip(k, 0, 9).astype(np.int64)], formula)


class Binomial:
    """sample_binomial: inversion by geometric jumps below count * p = 10, BTRS above, on
    p <= 1/2 (count minus the draw for the complement otherwise); count and p arithmetic in the
    tensor's dtype `own`, the rest in double."""
    normals = False

    def __init__(self, own):
        self.own = own

    def draws_per_element(self, distinct):
        mean = np.nan_to_num(np.minimum(distinct[:, 1], 1 - distinct[:, 1]) * distinct[:, 0])
        return float(np.where(mean >= 10, 2.8, mean + 1.2).max())

    @staticmethod
    def values(block, row, nodes, record):
        return record[nodes]

    def table(self, block, row):
        slots, inside = np.arange(block.size), np.ones(block.size, bool)
        cached = np.zeros(block.size, bool)
        own = self.own
        count, prob = own(row[0]), own(row[1])
        if count <= 0 or prob <= 0 or prob >= 1 or math.isnan(prob):
            value = own(0) if count <= 0 or prob <= 0 else (
                count if prob >= 1 else own(np.nan))
            return slots, cached, inside, np.full(slots.size, value, own)
        small = prob <= 0.5
        p = prob if small else own(1.0 - float(prob))
        if count * p >= 10.0:
            values, slot, inside = self._btrs(block, slots, count, p)
        else:
            values, slot, inside = self._inversion(block, slots, count, p)
        values = values.astype(own)
        return slot, cached, inside, (values if small else count - values)

    def _inversion(self, block, slots, count, prob):
        """From every slot at once: the geometric jumps ceil(log U / log(1 - p)) of all
        slots, summed (integers: exact, as PyTorch's running sum), give where each start's sum
        first passes count; the number is the jumps before that one. (A jump past count ends
        the element whatever its size: clipped to count + 1 to keep the sums exact.)"""
        size, uniform, own = block.size, block.uniform, self.own
        log_prob = float(own(math.log1p(-float(prob)))) if own is _F64 else \
            float(_F32(math.log1p(-float(prob))))
        bound = float(count)
        u = uniform[:size]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = _log(u) / log_prob
            near = np.flatnonzero(np.abs(ratio - np.round(ratio)) <= 1e-12 * np.abs(ratio))
        jumps = np.ceil(ratio)
        for i in near.tolist():
            jumps[i] = math.ceil(math.log(u[i]) / log_prob) if u[i] > 0 else math.inf
        jumps = np.minimum(jumps, bound + 1)
        sums = np.cumsum(jumps)
        before = np.concatenate([[0.0], sums[:-1]])
        last = np.searchsorted(sums, before + bound, side="right")
        return last - slots, last + 1, last < size

    def _btrs(self, block, slots, count, prob):
        size, uniform, own = block.size, block.uniform, self.own
        stddev = float(np.sqrt(count * prob * (own(1) - prob)))
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
        c = float(count * prob) + 0.5
        v_r = 0.92 - 4.2 / b
        r = float(prob / (own(1) - prob))
        alpha = (2.83 + 5.1 / b) * stddev
        m = float(np.floor((count + own(1)) * prob))
        n = float(count)
        tails = (float(_stirling_tail(m)), float(_stirling_tail(n - m)))
        values = np.zeros(slots.size, np.int64)
        slot = slots.copy()
        inside = np.ones(slots.size, bool)
        pending = np.arange(slots.size)
        while pending.size:
            at = slot[pending]
            ok = at + 1 < size
            u = uniform[np.minimum(at, size - 2)] - 0.5
            v = uniform[np.minimum(at + 1, size - 1)]
            slot[pending] = at + 2
            us = 0.5 - np.abs(u)
            with np.errstate(divide="ignore", invalid="ignore"):
                k = np.floor((2 * a / us + b) * u + c).astype(own).astype(_F64)
            sensible = (k >= 0) & (k <= n)
            accept = sensible & (us >= 0.07) & (v <= v_r)
            test = np.flatnonzero(sensible & ~accept)
            if test.size:
                accept[test] = self._btrs_test(v[test], us[test], k[test], a, b, alpha, r, n,
                                               m, tails)
            done = accept & ok
            values[pending[done]] = k[done].astype(np.int64)
            inside[pending[~ok]] = False
            pending = pending[~accept & ok]
        return values, slot, inside

    @staticmethod
    def _btrs_test(v, us, k, a, b, alpha, r, n, m, tails):
        with np.errstate(divide="ignore"):
            left = np.log(v * alpha / (a / (us * us) + b))
        first = (m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
        second = (n + 1) * np.log((n - m + 1) / (n - k + 1))
        third = (k + 0.5) * np.log(r * (n - k + 1) / (k + 1))
        right = (first + second + third + tails[0] + tails[1] - _stirling_tail(k)
                 - _stirling_tail(n - k))
        accept = left <= right
        near = np.flatnonzero(_near(left, right, np.abs(left) + abs(first) + np.abs(second)
                                    + np.abs(third) + 1))
        for i in near.tolist():
            ki = float(k[i])
            left_i = math.log(v[i] * alpha / (a / (us[i] * us[i]) + b)) if v[i] > 0 \
                else -math.inf
            right_i = (first + (n + 1) * math.log((n - m + 1) / (n - ki + 1))
                       + (ki + 0.5) * math.log(r * (n - ki + 1) / (ki + 1))
                       + tails[0] + tails[1]
                       - float(_stirling_tail(ki)) - float(_stirling_tail(n - ki)))
            accept[i] = left_i <= right_i
        return accept
