"""From generator words to numbers, the way PyTorch's CPU kernels do it (flat, in the order the
kernel visits elements).

NOTE [ember draws PyTorch's CPU stream]: for one seed ember's CPU random ops give PyTorch's
numbers bit for bit. The rules, each checked against torch in tests/test_random_torch_stream.py:
- uniform: float32, float16 and bfloat16 take the low 24 bits of a 32-bit word times 2**-24;
  float64 the low 53 bits of a 64-bit draw (two words, the first high) times 2**-53. A range
  [from, to) is fma(x, to - from, from) in float32 (float64 for float64), rounded to the dtype;
  a value that rounds to `to` becomes `from`.
- normal, size >= 16 and contiguous: fill with uniforms, then each block of 16 turns its first 8
  (u1) and last 8 (u2) into r*cos, r*sin with r = sqrt(-2 log(1 - u1)), theta = 2 pi u2; a size
  that isn't a multiple of 16 redraws 16 fresh uniforms for the last 16 elements.
  Otherwise the scalar sampler: double uniforms u1, u2, r = sqrt(-2 log1p(-u2)), theta = 2 pi
  u1, gives r cos theta and caches r sin theta for the next element (the generator keeps it).
  float16 and bfloat16 fill only whole blocks of 16 before that redraw.
- integers in [from, to): (draw % (to - from)) + from, a 64-bit draw for ranges of 2**28 and
  more; random_() without bounds: a 64-bit draw for int64 and float64 only.
- randperm: Fisher-Yates swapping i with i + word % (n - i).
- transcendental functions of doubles are glibc's (PyTorch's kernels call libm), through
  Python's math module where NumPy's SIMD versions round differently.
  The float32 fill's log and sin/cos are PyTorch's own float32 polynomials
  (random_float32_math.py, NOTE [float32 normal fill]); the float64 fill's are glibc's.
- the double-valued samplers (exponential, cauchy, log-normal, geometric, bernoulli_(p) and
  bernoulli with float64 probabilities, multinomial) use 53-bit double uniforms; bernoulli with
  other probabilities uses float uniforms.
- gamma, Dirichlet, poisson and binomial run PyTorch's rejection loops on blocks of the stream
  (NOTE [rejection samplers on PyTorch's stream], random_chain.py).
Not PyTorch's numbers: those four samplers for parameters too varied to tabulate (NOTE
[gamma's stream], random_distributions.py), the order of tied
multinomial draws (NOTE [multinomial ties]), random_ on float dtypes with bounds beyond what
the dtype holds exactly (PyTorch moves the bounds, with a warning). The float32 fill and the
glibc calls were matched on x86-64 Linux, where the tests run, against PyTorch's AVX2 and
AVX-512 kernels (which agree). Its portable DEFAULT-capability kernels (ATEN_CPU_CAPABILITY=
default, or a CPU without AVX2) round `x * scale + shift` twice and fill float32 normals with
libm's logf/sinf/cosf: a few ulps away. ember cannot see which kernel a PyTorch would pick, and
computes the one way everywhere (tests/_capability.py, NOTE [kernels by CPU capability]).
"""
from __future__ import annotations

import math

import numpy as np

from ember._core import dtype as dt
from ember._ops import random_float32_math as f32_math

_F32, _F64 = np.float32, np.float64
_LOW24, _LOW53 = np.uint32((1 << 24) - 1), np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi

# glibc's double functions, element by element: PyTorch's CPU kernels call them, and NumPy's
# own SIMD log, log1p, exp and tan differ from them in the last bit now and then.
_glibc_log = math.log
_glibc_log1p = math.log1p
_glibc_tan = math.tan


def glibc(function, values):
    """`function` (a math-module function: glibc's) of each double in `values`."""
    return np.fromiter(map(function, values.ravel().tolist()), _F64,
                       values.size).reshape(values.shape)


def _nearest_or_glibc(precise, values, function):
    """The doubles nearest the long double results `precise` where those lie within 0.45 ulp
    of a double (glibc's result there, for functions within 0.52 ulp), glibc's `function`
    elsewhere (near a midpoint, at a power of two, not finite)."""
    nearest = precise.astype(_F64)
    with np.errstate(invalid="ignore"):
        offset = np.abs((precise - nearest).astype(_F64)) / np.spacing(np.abs(nearest))
    risky = ~(offset <= 0.45) | (np.frexp(nearest)[0] == 0.5)
    if risky.any():
        nearest[risky] = glibc(function, values[risky])
    return nearest


def glibc_log(values):
    """glibc's log of positive doubles (within 0.52 ulp), fast: only the few long double
    results near a midpoint go through math.log."""
    return _nearest_or_glibc(np.log(values.astype(np.longdouble)), values, math.log)


def glibc_exp(values):
    """glibc's exp (within 0.52 ulp) of doubles below exp's overflow, as glibc_log."""
    return _nearest_or_glibc(np.exp(values.astype(np.longdouble)), values, math.exp)


def fma(a, b, c):
    """a * b + c with one rounding (float64), PyTorch's compiled `x * scale + shift`: the
    product's error comes from splitting (Dekker), the sum's from TwoSum."""
    product = a * b
    split = 134217729.0                                    # 2**27 + 1
    a_big = split * a
    a_hi = a_big - (a_big - a)
    b_big = split * b
    b_hi = b_big - (b_big - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (sum_error + product_error)


def to_dtype(values, dtype):
    """C++'s static_cast of doubles (or floats) to `dtype`: 2-byte floats go through float."""
    if dtype.is_floating_point and dtype.itemsize <= 2:
        values = values.astype(_F32, copy=False)
    return values.astype(dtype._np, copy=False)


# --------------------------------------------------------------------------- uniform

def uniform_float(generator, count):
    """`count` float32 uniforms in [0, 1) (24 bits each)."""
    return (generator.random32(count) & _LOW24).astype(_F32) * _F32(2.0 ** -24)


def uniform_double(generator, count):
    """`count` float64 uniforms in [0, 1) (53 bits of a 64-bit draw each)."""
    return (generator.random64(count) & _LOW53).astype(_F64) * (2.0 ** -53)


def uniform(generator, count, dtype, low=0.0, high=1.0):
    """uniform_(low, high) on `count` elements of a floating dtype."""
    if dtype is dt.float64:
        values = uniform_double(generator, count)
        if (low, high) != (0.0, 1.0):
            values = fma(values, float(high) - float(low), float(low))
        out = values
    else:
        values = uniform_float(generator, count)
        low32, high32 = _F32(low), _F32(high)
        if (low, high) != (0.0, 1.0):
            values = f32_math.fma32(values, high32 - low32, low32, grid=-24)
        out = to_dtype(values, dtype)
    if (low, high) == (0.0, 1.0) and dtype.itemsize >= 4:
        return out                          # (at most 1 - 2**-24: never rounds up to 1)
    # A value that rounds up to `to` would leave the half-open interval: it becomes `from`.
    bound = _F64 if dtype is dt.float64 else _F32
    top = to_dtype(np.asarray(high, bound), dtype)
    hit = out == top
    if hit.any():
        out = np.where(hit, to_dtype(np.asarray(low, bound), dtype), out)
    return out


# --------------------------------------------------------------------------- normal

# Blocks per pass of the float32 transform: its ~60 array operations stay in cache.
_BLOCKS_PER_PASS = 4096


def _box_muller_16(data, dtype_np):
    """The vectorised fill's transform on whole blocks of 16 (data's length divides by 16)."""
    step = 16 * _BLOCKS_PER_PASS
    if dtype_np is _F32 and data.size > step:
        return np.concatenate([_box_muller_16(data[at:at + step], dtype_np)
                               for at in range(0, data.size, step)])
    blocks = data.reshape(-1, 2, 8)
    u1 = dtype_np(1) - blocks[:, 0]
    u2 = blocks[:, 1]
    if dtype_np is _F64:
        radius = np.sqrt(-2.0 * glibc_log(u1))
        theta = _TWO_PI * u2
        sine, cosine = np.sin(theta), np.cos(theta)
    else:
        radius = np.sqrt(_F32(-2.0) * f32_math.log(u1))
        sine, cosine = f32_math.sincos(_F32(_TWO_PI) * u2)
    out = np.empty_like(blocks)
    np.multiply(radius, cosine, out=out[:, 0])
    np.multiply(radius, sine, out=out[:, 1])
    return out.reshape(-1)


def _normal_fill(generator, count, dtype):
    """Standard normals by the vectorised fill (count >= 16)."""
    compute = _F64 if dtype is dt.float64 else _F32
    draw = uniform_double if compute is _F64 else uniform_float
    whole = count - count % 16
    # float32 and float64 fill every element with a uniform first; float16 and bfloat16 only
    # the whole blocks (the last partial block is redrawn either way).
    data = draw(generator, count if dtype.itemsize > 2 else whole)
    data = np.concatenate([data, np.zeros(count - data.size, compute)]) \
        if data.size < count else data
    data[:whole] = _box_muller_16(data[:whole], compute)
    if count % 16:
        data[count - 16:] = _box_muller_16(draw(generator, 16), compute)
    return data


_FEW_PAIRS = 16


def normal_scalar(generator, count):
    """`count` standard normals (float64) from the scalar sampler, using and leaving the
    generator's cached second sample."""
    out = np.empty(count, _F64)
    start = 0
    if count and generator.next_double_normal is not None:
        out[0] = generator.next_double_normal
        generator.next_double_normal = None
        start = 1
    pairs = (count - start + 1) // 2
    if pairs:
        u = uniform_double(generator, 2 * pairs)
        if pairs <= _FEW_PAIRS:
            # (plain floats: a few math calls cost less than a dozen small array operations)
            listed = u.tolist()
            values = []
            for u1, u2 in zip(listed[0::2], listed[1::2]):
                radius = math.sqrt(-2.0 * math.log1p(-u2))
                values += (radius * math.cos(_TWO_PI * u1), radius * math.sin(_TWO_PI * u1))
            both = np.array(values, _F64)
        else:
            u1, u2 = u[0::2], u[1::2]
            radius = np.sqrt(-2.0 * glibc(_glibc_log1p, -u2))
            theta = _TWO_PI * u1
            both = np.empty(2 * pairs, _F64)
            both[0::2] = radius * np.cos(theta)
            both[1::2] = radius * np.sin(theta)
        out[start:] = both[:count - start]
        if (count - start) % 2:
            generator.next_double_normal = float(both[-1])
    return out


def normal(generator, count, dtype, mean=0.0, std=1.0, contiguous=True):
    """normal_(mean, std) on `count` elements of a floating dtype."""
    standard = mean == 0.0 and std == 1.0
    if count >= 16 and contiguous:
        values = _normal_fill(generator, count, dtype)
        if dtype is dt.float64:
            return values if standard else fma(values, float(std), float(mean))
        if not standard:
            values = f32_math.fma32(values, _F32(std), _F32(mean))
        return to_dtype(values, dtype)
    values = normal_scalar(generator, count)
    if not standard:
        values = fma(values, float(std), float(mean))
    return to_dtype(values, dtype)


# --------------------------------------------------------------------------- integers

# PyTorch draws 64 bits for a range of 2**28 or more (less modulo bias), 32 bits below.
_WIDE_RANGE = 1 << 28


def integers(generator, count, dtype, low, high):
    """random_(low, high): (draw % (high - low)) + low, cast to dtype; a range of 2**64 is the
    whole 64-bit draw."""
    span = high - low
    if span >= 1 << 64:
        values = generator.random64(count).view(np.int64)
    else:
        words = generator.random64(count) if span >= _WIDE_RANGE else generator.random32(count)
        values = (_remainder(words, span).astype(np.uint64) +
                  np.uint64(low & ((1 << 64) - 1))).view(np.int64)
    return _cast_integers(values, dtype)


def _remainder(words, modulus):
    """words % modulus for unsigned words, as words - (words // modulus) * modulus: NumPy
    divides by a scalar with multiplications (libdivide), its % divides element by element
    (~15x slower)."""
    if words.dtype == np.uint32 and modulus >= 1 << 32:
        words = words.astype(np.uint64)
    modulus = words.dtype.type(modulus)
    return words - (words // modulus) * modulus


def _cast_integers(values, dtype):
    if dtype is dt.bool_:
        return values != 0
    if dtype.is_floating_point:
        return to_dtype(values, dtype)
    return values.astype(dtype._np)


# random_() with no bounds: every integer the dtype holds (floats: exactly), 64-bit draws for
# int64 and float64 only.
_DEFAULT_MODULUS = {dt.float16: (1 << 11) + 1, dt.bfloat16: (1 << 8) + 1,
                    dt.float32: (1 << 24) + 1, dt.float64: (1 << 53) + 1, dt.bool_: 2}


def integers_default(generator, count, dtype):
    modulus = _DEFAULT_MODULUS.get(dtype) or int(np.iinfo(dtype._np).max) + 1
    words = generator.random64(count) if dtype in (dt.int64, dt.float64) else \
        generator.random32(count)
    return _cast_integers(_remainder(words, modulus).astype(np.uint64).view(np.int64), dtype)


def permutation(generator, n):
    """randperm(n): PyTorch's Fisher-Yates, swapping i with i + word % (n - i)."""
    if n < (1 << 32) // 20:
        targets = (generator.random32(max(n - 1, 0)).astype(np.int64) %
                   np.arange(n, 1, -1, dtype=np.int64) + np.arange(n - 1))
        return _swapped(targets, n)
    # Huge n: the inside-out variant with 64-bit draws.
    picks = (generator.random64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
    order = [0] * n
    for i, j in enumerate(picks):
        order[i] = order[j]
        order[j] = i
    return np.array(order, dtype=np.int64)


def _swapped(targets, n):
    """range(n) after swapping i with targets[i] (>= i) for i = 0, 1, ..., n - 2, in order,
    without running the swaps one by one.

    NOTE [Fisher-Yates without a loop]: position i is final once step i has run (later steps
    touch only positions above i). Call v[k] the value at position k when step k comes (for
    k = n - 1: its final value). The last step m < k that targeted position k left v[m] there,
    so v[k] = v[m], or k itself when no earlier step targeted k: a chain of ever earlier
    steps, followed to its end by pointer doubling. Step i then puts at position i the value
    at targets[i]: v[i] when it targets itself, else v of the previous step with the same
    target, or targets[i] when it is the first one."""
    from ember._ops.sparse_arrays import stable_order
    steps = n - 1
    if steps <= 0:
        return np.arange(n, dtype=np.int64)
    by_target = stable_order(targets)                  # grouped by target, in step order
    grouped = targets[by_target]
    repeat = grouped[1:] == grouped[:-1]
    earlier = np.full(steps, -1, np.int64)             # the previous step with that target
    earlier[by_target[1:][repeat]] = by_target[:-1][repeat]
    last = np.full(n, -1, np.int64)                    # the last step targeting a position
    group_ends = np.append(~repeat, True)
    last[grouped[group_ends]] = by_target[group_ends]
    own = np.flatnonzero(last[:steps] == np.arange(steps))
    last[own] = earlier[own]                           # (a step k targeting k comes too late)
    source = np.where(last >= 0, last, np.arange(n))   # chains end where source[k] == k
    pending = np.flatnonzero(last >= 0)
    while pending.size:
        hop = source[pending]
        further = source[hop]
        source[pending] = further
        pending = pending[further != hop]
    out = np.empty(n, np.int64)
    previous = np.where(earlier >= 0, source[np.maximum(earlier, 0)], targets)
    out[:steps] = np.where(targets == np.arange(steps), source[:steps], previous)
    out[steps] = source[steps]
    return out


# --------------------------------------------------------------------------- others

def bernoulli_tensor(generator, probs):
    """1 where a uniform falls below p (p flat): float64 p draws double uniforms, other
    floating p float uniforms."""
    if probs.dtype == _F64:
        return uniform_double(generator, probs.size) < probs
    return uniform_float(generator, probs.size) < probs.astype(_F32)


def bernoulli_scalar(generator, count, p):
    """bernoulli_(p) by the generic kernel: double uniforms below p."""
    return uniform_double(generator, count) < p


def exponential(generator, count, lambd):
    u = uniform_double(generator, count)
    return (-1.0 / lambd) * glibc(_glibc_log1p, -u)


def cauchy(generator, count, median, sigma):
    u = uniform_double(generator, count)
    tangents = glibc(_glibc_tan, math.pi * (u - 0.5))
    median, sigma = float(median), float(sigma)
    # fma(sigma, t, median) rounds once: with sigma 1 that is the sum, with median 0 the
    # product (+ 0.0 for fma's +0 where the product is -0).
    if sigma == 1.0:
        return tangents + median
    if median == 0.0:
        return sigma * tangents + 0.0
    return fma(np.full(count, sigma), tangents, median)


_EXP_OVERFLOWS = 709.782712893384        # math.exp raises above this; C's exp gives inf


def log_normal(generator, count, mean, std):
    values = fma(normal_scalar(generator, count), float(std), float(mean))
    big = values > _EXP_OVERFLOWS
    return np.where(big, np.inf, glibc_exp(np.where(big, 0.0, values)))


def geometric(generator, count, p):
    u = uniform_double(generator, count)
    # Only ceil(log u / log1p(-p)) is kept, so NumPy's log (within an ulp or two of glibc's)
    # does, but where the ratio lies that close to a whole number: there glibc's.
    # (u == 0, chance 2**-53: C's log gives -inf where math.log raises.)
    scale = math.log1p(-p)
    with np.errstate(divide="ignore"):
        ratios = np.log(u) / scale
    near = np.flatnonzero(np.abs(ratios - np.round(ratios)) <= 1e-12 * np.abs(ratios))
    if near.size:
        ratios[near] = [math.log(value) / scale if value > 0 else math.inf
                        for value in u[near].tolist()]
    return np.ceil(ratios)
