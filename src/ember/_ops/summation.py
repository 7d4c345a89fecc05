"""Sums as accurate as PyTorch's: every float sum ember computes on NumPy is pairwise.

NOTE [pairwise sums]: PyTorch sums floats by cascade (partial sums of a few elements, then sums
of those, and so on), so the rounding error grows like log(n), not n: a float32 sum of 2**24
values of 0.1 is off by about 1e-7 relative. NumPy is pairwise only along the one axis its
reduction loop runs over, and only when that axis is contiguous in memory; over every other
reduced axis (dim 0 of a row-major matrix, say) it adds the rows one after another, which is
off by about 1e-5 at a million rows; np.einsum's vectorised sum is sequential too. So:

- the reduced elements of each output are one contiguous run in memory (a full sum of a
  contiguous tensor, a sum over the last dims): blocks of 128 elements summed by np.einsum's
  vectorised loop, the block sums by NumPy's pairwise loop; split into one run per intra-op
  thread when the sum is large (a few pairwise partial sums, added);
- otherwise the reduced dims become one leading axis, summed as a cascade. With many outputs
  side by side (a wide matrix's dim 0), NumPy adds groups of _GROUP rows (its loop then runs
  along the contiguous outputs, as fast as its plain sum), then groups of those sums, and so on.
  With few outputs NumPy's loop over them is slow, so the axis is added up by halves instead
  (the first half plus the second, again and again): a pairwise tree in which every step is
  one vectorised add over all the rows of the remaining half.

A reduction of at most _SEQUENTIAL_OK elements per output keeps NumPy's plain sum: at that
length the sequential error is as small as the cascade's, and tiny sums stay cheap. Integer
sums are exact and always take NumPy's sum.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import complex_half
from ember._core.fp_errors import run_quietly
from ember._core.threads import intra_op_threads, parallel_map

_SEQUENTIAL_OK = 32
_BLOCK = 128
_GROUP = 16
# From this many outputs on, NumPy's loop over them is fast: groups of rows, not halves.
_WIDE = 1024
# Below this many elements one thread sums faster than handing chunks to the pool.
THREADED_SUM = 1 << 20


def accurate_sum(xp, x, dims, keepdims=False):
    """x summed over `dims` (a tuple of non-negative dims) in x's own dtype, pairwise."""
    if x.dtype.kind not in "fc" or x.size <= _SEQUENTIAL_OK or not backend_helpers(xp).host:
        return x.sum(axis=dims, keepdims=keepdims)
    shape = x.shape
    count = math.prod(shape[d] for d in dims)
    if count <= _SEQUENTIAL_OK:
        return x.sum(axis=dims, keepdims=keepdims)
    kept = tuple(d for d in range(x.ndim) if d not in dims)
    if _one_run(x, dims):
        rows = x.transpose(kept + _by_stride(x, dims)).reshape(
            tuple(shape[d] for d in kept) + (count,))
        out = _sum_runs(rows)
    else:
        leading = x.transpose(dims + kept).reshape((count,) + tuple(shape[d] for d in kept))
        out = _sum_groups(leading) if leading[0].size >= _WIDE else _sum_by_halves(leading)
    if keepdims:
        out = np.reshape(out, tuple(1 if d in dims else s for d, s in enumerate(shape)))
    return np.asarray(out)


def cast_for_sum(x, np_dtype):
    """x in the dtype to sum in; a complex input summed as a real dtype drops its imaginary
    part (quietly: PyTorch does not warn there)."""
    if x.dtype == np_dtype:
        return x
    if x.dtype.names is not None:
        # complex32 summed in a dtype asked for (NOTE [complex32 storage]); without one, the
        # sum finds no NumPy loop and raises PyTorch's NotImplementedError (arguments.explain)
        x = complex_half.widen(x)
    if x.dtype.kind == "c" and np_dtype.kind != "c":
        x = x.real
    if x.dtype == np.float16 and np_dtype == np.float32:
        return widen_half(x)
    return x.astype(np_dtype)


# NumPy converts float16 to float32 one element at a time (~3 ns each); by bits in chunks that
# stay in cache it is several times faster. Below this size the plain cast is as quick.
_WIDEN_BY_BITS = 1 << 14
_WIDEN_CHUNK = 1 << 16
_HALF_EXPONENT = 0x7C00


def widen_half(x):
    """A float16 NumPy array as float32, exactly (what x.astype(np.float32) gives): a float16's
    bits shifted up by 13 are the float32 with the same sign and mantissa and an exponent 112
    too small (subnormals included), so one multiply by 2**112 finishes the job; infinities
    and NaNs (the top exponent) take the plain cast."""
    if type(x) is not np.ndarray or x.size < _WIDEN_BY_BITS:
        return x.astype(np.float32)
    bits = np.ascontiguousarray(x).view(np.int16).reshape(-1)
    out = np.empty(x.shape, np.float32)
    words = out.view(np.int32).reshape(-1)
    flat = out.reshape(-1)
    for at in range(0, bits.size, _WIDEN_CHUNK):
        half = bits[at:at + _WIDEN_CHUNK]
        word = words[at:at + _WIDEN_CHUNK]
        np.copyto(word, half)                        # (sign-extended: bits 16-31 copy the sign)
        word <<= 13
        word &= np.int32(-0x70002000)                # 0x8FFFE000: sign, exponent, mantissa
        flat[at:at + _WIDEN_CHUNK] *= np.float32(2.0 ** 112)
        special = (half & _HALF_EXPONENT) == _HALF_EXPONENT
        if special.any():
            flat[at:at + _WIDEN_CHUNK][special] = half[special].view(np.float16)
    return out


def _by_stride(x, dims):
    """`dims` from the largest stride to the smallest (their order in memory)."""
    return tuple(sorted(dims, key=lambda d: -x.strides[d]))


def _one_run(x, dims) -> bool:
    """Whether the elements that `dims` reduce into one output lie side by side in memory."""
    step = x.itemsize
    for d in reversed(_by_stride(x, dims)):
        if x.shape[d] != 1 and x.strides[d] != step:
            return False
        step *= x.shape[d]
    return True


def _sum_runs(rows):
    """Each row (the last axis, contiguous) summed pairwise, on the intra-op threads when the
    sum is large (a few partial sums, one per thread, then added)."""
    threads = builtins.min(intra_op_threads(), 8)
    if threads < 2 or rows.size < THREADED_SUM:
        return _sum_run(rows)
    if rows.ndim == 1:
        # Chunk boundaries on multiples of _BLOCK keep the blocks whole.
        edges = [(len(rows) * i // threads) // _BLOCK * _BLOCK for i in range(threads)]
        chunks = [rows[start:stop] for start, stop in zip(edges, edges[1:] + [len(rows)])]
        parts = parallel_map(lambda chunk: run_quietly(_sum_run, chunk), chunks)
        return np.add.reduce(np.array(parts, dtype=rows.dtype))
    if rows.ndim > 2 or len(rows) < threads:
        return _sum_run(rows)
    blocks = np.array_split(rows, threads)
    return np.concatenate(parallel_map(lambda block: run_quietly(_sum_run, block), blocks))


def _sum_run(rows):
    """Each row (the last axis, contiguous) summed pairwise: blocks of _BLOCK elements by
    np.einsum's vectorised loop (faster than NumPy's pairwise loop, and as accurate over so
    few), then the block sums by NumPy's pairwise loop."""
    count = rows.shape[-1]
    whole = count - count % _BLOCK
    if whole < 8 * _BLOCK:
        return np.add.reduce(rows, axis=-1)
    blocks = rows[..., :whole].reshape(rows.shape[:-1] + (whole // _BLOCK, _BLOCK))
    total = np.add.reduce(np.einsum("...j->...", blocks), axis=-1)
    if whole < count:
        total += np.add.reduce(rows[..., whole:], axis=-1)
    return total


def _sum_groups(leading):
    """`leading` summed over axis 0 in levels: groups of _GROUP rows, then groups of those."""
    while len(leading) > _GROUP:
        n = len(leading)
        whole = n - n % _GROUP
        sums = leading[:whole].reshape((whole // _GROUP, _GROUP) + leading.shape[1:]).sum(1)
        if whole < n:
            sums[0] += leading[whole:].sum(0)
        leading = sums
    return leading.sum(0)


def _sum_by_halves(leading):
    """`leading` summed over axis 0 as a pairwise tree: the first half plus the second half,
    repeated on the result (an odd one out joins element 0, which keeps the depth log2(n))."""
    n = leading.shape[0]
    half = n // 2
    partial = leading[:half] + leading[half:2 * half]
    if n % 2:
        partial[0] += leading[-1]
    n = half
    while n > 1:
        half = n // 2
        np.add(partial[:half], partial[half:2 * half], out=partial[:half])
        if n % 2:
            partial[0] += partial[n - 1]
        n = half
    return partial[0]
