"""Layer norm's forward and backward on a large float32/float64 input, cut into runs of rows
on the intra-op threads (NOTE [kernels split over the intra-op threads]); `nn_norm.py` keeps
the arithmetic, this file only the cutting."""
from __future__ import annotations

import numpy as np

from ember._core.threads import one_blas_thread, parts, run_parts

# NOTE [layer norm rows on the intra-op threads]: from this many elements the rows are split
# (below, the GIL hand-overs after each NumPy pass cost more than the halved passes save:
# measured at 2 threads, (16, 64, 128) 0.22 -> 0.52 ms, (64, 64, 512) 2.9 -> 1.7 ms), runs starting on multiples of ALIGN
# rows, with BLAS on one thread while they run: each row's statistics are one BLAS product
# with a ones vector, whose rows BLAS groups in blocks, so on these boundaries each row gets
# the whole array's bits (as NOTE [softmax rows on the intra-op threads]). The gradients of
# weight and bias sum over the rows: they are computed whole, as without threads.
SPLIT_ELEMENTS = 1 << 20
ALIGN = 64


def row_ranges(xp, rows):
    """The runs of the (R, F) `rows` to split layer norm into, or None (run whole)."""
    if xp is not np or rows.size < SPLIT_ELEMENTS or rows.dtype.kind != "f" or \
            rows.dtype.itemsize < 4:
        return None
    ranges = parts(rows.shape[0], 2, ALIGN)
    return ranges if len(ranges) > 1 else None


def layer_norm(rows, weight, bias, eps, replay, ranges, rows_fn):
    """(output, mean, rstd) of the (R, F) rows, each run by `rows_fn` (nn_norm's
    _layer_norm_rows) into its slice of the results."""
    out = np.empty_like(rows)
    mean = np.empty(rows.shape[0], rows.dtype)
    rstd = np.empty(rows.shape[0], rows.dtype)

    def run(start, stop):
        _, mean[start:stop], rstd[start:stop] = rows_fn(
            np, rows[start:stop], weight, bias, eps, False, replay, out=out[start:stop])
    with one_blas_thread():
        run_parts(run, ranges)
    return out, mean, rstd


def layer_norm_backward(rows, grads, mean, rstd, weight, inv_features, ranges, x_hat_fn,
                        sums_fn, grad_input_fn):
    """(grad_input, grad_weight, grad_bias) of layer norm's (R, F) rows, by nn_norm's
    functions: x_hat's rows, the two sums over all rows (whole), the input gradient's rows."""
    x_hat = np.empty_like(rows)
    grad_input = np.empty(rows.shape, np.result_type(rows, grads))

    def normalised(start, stop):
        x_hat_fn(np, rows[start:stop], mean[start:stop], rstd[start:stop],
                 out=x_hat[start:stop])

    def input_grad(start, stop):
        grad_input_fn(np, grads[start:stop], x_hat[start:stop], rstd[start:stop], weight,
                      inv_features, out=grad_input[start:stop])
    with one_blas_thread():
        run_parts(normalised, ranges)
        grad_weight, grad_bias = sums_fn(np, grads, x_hat)
        run_parts(input_grad, ranges)
    return grad_input, grad_weight, grad_bias
