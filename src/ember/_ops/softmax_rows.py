"""softmax and log_softmax along the last dimension of a large contiguous float input, and
their backwards, cut into runs of rows on the intra-op threads (NOTE [kernels split over the
intra-op threads]). Each row goes through the same NumPy passes as in `activation.py`."""
from __future__ import annotations

import numpy as np

from ember._core.threads import one_blas_thread, parts, run_parts
from ember._ops.summation import accurate_sum

# NOTE [softmax rows on the intra-op threads]: from SPLIT_ELEMENTS (the forwards) or
# SPLIT_BACKWARD elements on, the rows are split: below, the GIL hand-overs between the threads
# after each NumPy pass cost more than the halved passes save (measured at 2 threads: the
# forward of (16, 4, 64, 64) 0.62 -> 0.44 ms, its backward 0.30 -> 0.34 ms; from 1M
# elements both 1.4-2.2 times faster). Runs start on multiples of ALIGN rows:
# BLAS's row sums (softmax's short rows, one product with a ones vector) group rows in
# blocks, and a run starting inside a block could sum its rows in another order; on these
# boundaries, with BLAS on one thread while they run, each row's bits are the whole
# array's. Rows longer than LONGEST (activation's _SHORT_ROW) are left whole (they are
# few, and softmax sums them its own way).
SPLIT_ELEMENTS = 1 << 18
SPLIT_BACKWARD = 1 << 19
ALIGN = 64
LONGEST = 1024


def row_ranges(x, axis, threshold=SPLIT_ELEMENTS):
    """The runs of rows of `x` (a NumPy array) to split a last-axis softmax into, or None
    when it runs whole."""
    if axis != x.ndim - 1 or x.size < threshold or x.dtype.kind != "f" or \
            x.shape[-1] > LONGEST or not x.flags.c_contiguous:
        return None
    ranges = parts(x.size // x.shape[-1], 2, ALIGN)
    return ranges if len(ranges) > 1 else None


def _split(fn, ranges):
    with one_blas_thread():
        run_parts(fn, ranges)


def softmax(x, ranges):
    """exp(x - max) / sum, by rows, the sums by BLAS as `activation.softmax` sums rows up to
    LONGEST."""
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty_like(rows)
    ones = np.ones((rows.shape[1], 1), rows.dtype)

    def run(start, stop):
        block = out[start:stop]
        np.subtract(rows[start:stop], rows[start:stop].max(axis=1, keepdims=True), out=block)
        np.exp(block, out=block)
        block /= np.matmul(block, ones)
    _split(run, ranges)
    return out.reshape(x.shape)


def log_softmax(x, ranges):
    """x - max - log(sum(exp(x - max))) by rows."""
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty_like(rows)

    def run(start, stop):
        block = out[start:stop]
        np.subtract(rows[start:stop], rows[start:stop].max(axis=1, keepdims=True), out=block)
        block -= np.log(accurate_sum(np, np.exp(block), (1,), True))
    _split(run, ranges)
    return out.reshape(x.shape)


def softmax_backward(g, y, ranges):
    """y * (g - sum(g * y)) by rows."""
    g_rows, y_rows = g.reshape(-1, g.shape[-1]), y.reshape(-1, y.shape[-1])
    out = np.empty(y_rows.shape, np.result_type(g, y))

    def run(start, stop):
        block, y_block = out[start:stop], y_rows[start:stop]
        np.multiply(g_rows[start:stop], y_block, out=block)
        total = accurate_sum(np, block, (1,), True)
        np.subtract(g_rows[start:stop], total, out=block)
        block *= y_block
    _split(run, ranges)
    return out.reshape(y.shape)


def log_softmax_backward(g, y, ranges):
    """g - exp(y) * sum(g) by rows."""
    g_rows, y_rows = g.reshape(-1, g.shape[-1]), y.reshape(-1, y.shape[-1])
    out = np.empty(y_rows.shape, np.result_type(g, y))

    def run(start, stop):
        block = out[start:stop]
        np.exp(y_rows[start:stop], out=block)
        block *= accurate_sum(np, g_rows[start:stop], (1,), True)
        np.subtract(g_rows[start:stop], block, out=block)
    _split(run, ranges)
    return out.reshape(y.shape)
