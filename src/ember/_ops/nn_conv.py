"""Convolutions: `convolution` (every conv1d..conv_transpose3d lands here) and
`convolution_backward` (its gradients, itself differentiable for double backward).

NOTE [convolution as one matmul per group]: a convolution is lowered onto BLAS. The padded
input is seen through a strided window view (N, C, *out, *kernel) and copied once into a
column matrix (groups, C/g * prod(kernel), N * prod(out)) whose rows are long runs of output
positions; one batched matmul with the weight (groups, O/g, C/g * prod(kernel)) gives every
output. The way back (the input's gradient, and the forward of a transposed convolution)
multiplies by the weight's transpose and folds the columns back by looping over the kernel
offsets only (prod(kernel) strided slice additions), so no Python loop runs over pixels,
channels or batch, and no unbuffered scatter (np.add.at) is needed. The weight's gradient is
one more batched matmul against the same column matrix. float16/bfloat16 are computed in
float32 and rounded once, as PyTorch's CPU kernels do.

NOTE [ungrouped convolution image by image]: with one group the column matrix is laid out
(N, C * prod(kernel), prod(out)) instead: one image's columns per matrix, so the window view
is copied without moving the batch axis, the products (O, C k) @ (C k, out) land directly in
the (N, O, *out) result (no transpose back), the weight's gradient is a sum of per-image
products whose inner dimension is the image's positions, and the input's gradient folds each
image's columns while they are in the cache. BLAS runs skinny products (16 or 32 output
channels) several times faster this way than as one (O, C k) @ (C k, N * out) product
(measured in benchmarks/bench_conv.py and the ResNet and LeNet training steps).
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import device_hint, suggested_strides
from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import call
from ember._core.fp_errors import run_quietly
from ember._core.layout import strided_window
from ember._core.registry import OPS, register_op
from ember._core.threads import blas_threads, intra_op_threads, parallel_map
from ember._ops import nn_conv_winograd as winograd
from ember._ops.linalg import cxx

_HALF = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


# --------------------------------------------------------------------------- array kernels

def _compute_dtype(np_dtype):
    return np.dtype(np.float32) if np_dtype in _HALF else np_dtype


def _zero_padded(xp, x, padding):
    """x (N, C, *spatial) with `padding` zeros on both sides of each spatial dim."""
    if not any(padding):
        return x
    shape = x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding))
    out = xp.zeros(shape, x.dtype)
    out[(Ellipsis,) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))] = x
    return out


def _columns(xp, x_padded, kernel, stride, dilation, out_size, groups):
    """The column matrix (groups, C/g * prod(kernel), N * prod(out)) of a padded input
    (NOTE [convolution as one matmul per group])."""
    n, c = x_padded.shape[:2]
    strides = x_padded.strides
    spatial = strides[2:]
    window = strided_window(
        xp, x_padded,
        (n, groups, c // groups) + tuple(kernel) + tuple(out_size),
        (strides[0], strides[1] * (c // groups), strides[1])
        + tuple(s * d for s, d in zip(spatial, dilation))
        + tuple(s * st for s, st in zip(spatial, stride)))
    d = len(kernel)
    # (g, C/g, *kernel, N, *out): rows are (channel, offset), columns (image, position).
    order = (1, 2) + tuple(range(3, 3 + d)) + (0,) + tuple(range(3 + d, 3 + 2 * d))
    cols = xp.ascontiguousarray(window.transpose(order))
    return cols.reshape(groups, (c // groups) * math.prod(kernel), n * math.prod(out_size))


def _by_group(xp, t, groups):
    """(N, C, *spatial) -> (groups, C/g, N * prod(spatial)), contiguous."""
    n, c = t.shape[:2]
    size = math.prod(t.shape[2:])
    t = t.reshape(n, groups, c // groups, size).transpose(1, 2, 0, 3)
    return xp.ascontiguousarray(t).reshape(groups, c // groups, n * size)


def _from_groups(xp, t, n, out_size):
    """(groups, C/g, N * prod(out)) -> (N, C, *out), contiguous."""
    g, cg = t.shape[:2]
    t = t.reshape(g * cg, n, math.prod(out_size)).transpose(1, 0, 2)
    return xp.ascontiguousarray(t).reshape((n, g * cg) + tuple(out_size))


def _weight_matrices(weight, groups):
    """(O, C/g, *kernel) -> (groups, O/g, C/g * prod(kernel))."""
    return weight.reshape(groups, weight.shape[0] // groups, math.prod(weight.shape[1:]))


def _out_size(in_size, kernel, stride, padding, dilation):
    return tuple((i + 2 * p - d * (k - 1) - 1) // s + 1
                 for i, k, s, p, d in zip(in_size, kernel, stride, padding, dilation))


def _transposed_size(in_size, kernel, stride, padding, dilation, output_padding):
    return tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, k, s, p, d, op in
                 zip(in_size, kernel, stride, padding, dilation, output_padding))


def _use_winograd(weight_shape, stride, dilation, groups, batch, out_size):
    """NOTE [Winograd F(2x2, 3x3)] pays off once the products are large: enough channels
    and output tiles for the transforms to cost less than the multiplications they save.
    Only with one BLAS thread: its 16 smaller products each synchronise the BLAS threads,
    which cost more than the saved work when cores are shared (measured in
    benchmarks/bench_conv.py at 2 threads)."""
    return (intra_op_threads() == 1
            and winograd.applicable(weight_shape, stride, dilation, groups)
            and weight_shape[0] * weight_shape[1] >= winograd.MIN_CHANNEL_PRODUCT
            and batch * ((out_size[0] + 1) // 2) * ((out_size[1] + 1) // 2)
            >= winograd.MIN_TILES)


def _transform_safe(xp, x):
    """NOTE [Winograd F(2x2, 3x3)]'s input transform adds and subtracts four neighbours of a
    tile: an infinity or NaN there, or a sum that overflows, would reach every output of the
    tile, read or not. The products' way is taken for such inputs (two reductions over the
    input, no temporary; NaN fails the comparisons)."""
    bound = np.finfo(x.dtype).max / 16
    return bool(x.max() < bound) and bool(x.min() > -bound)


def conv_forward(xp, x, weight, stride, padding, dilation, groups):
    """y[n, o] = sum over c in o's group and kernel offsets of x_pad * weight (no bias)."""
    kernel = weight.shape[2:]
    out_size = _out_size(x.shape[2:], kernel, stride, padding, dilation)
    if x.ndim == 4 and x.dtype.kind == "f" and _use_winograd(
            weight.shape, stride, dilation, groups, x.shape[0], out_size) and \
            _transform_safe(xp, x):
        return winograd.conv3x3(xp, x, weight, padding)
    padded = _zero_padded(xp, x, padding)
    if groups == 1 and _by_image():
        return _forward_by_image(xp, padded, weight, stride, dilation, out_size)
    w = _weight_matrices(weight, groups)
    n, positions = x.shape[0], math.prod(out_size)
    parts = _batch_chunks(n, w.shape[0] * w.shape[2] * positions * x.itemsize)
    if len(parts) == 1:
        cols = _columns(xp, padded, kernel, stride, dilation, out_size, groups)
        return _from_groups(xp, xp.matmul(w, cols), n, out_size)
    out = xp.empty(w.shape[:2] + (n, positions), w.dtype)
    for part in parts:
        cols = _columns(xp, padded[part], kernel, stride, dilation, out_size, groups)
        out[:, :, part] = xp.matmul(w, cols).reshape(w.shape[:2] + (-1, positions))
    return _from_groups(xp, out.reshape(w.shape[:2] + (n * positions,)), n, out_size)


def _image_columns(xp, x_padded, kernel, stride, dilation, out_size):
    """The column matrices (N, C * prod(kernel), prod(out)) of a padded input, one per image
    (NOTE [ungrouped convolution image by image])."""
    n, c = x_padded.shape[:2]
    strides = x_padded.strides
    spatial = strides[2:]
    window = strided_window(
        xp, x_padded, (n, c) + tuple(kernel) + tuple(out_size),
        strides[:2] + tuple(s * d for s, d in zip(spatial, dilation))
        + tuple(s * st for s, st in zip(spatial, stride)))
    return xp.ascontiguousarray(window).reshape(n, c * math.prod(kernel), math.prod(out_size))


def _forward_by_image(xp, padded, weight, stride, dilation, out_size):
    """conv_forward with one group: (O, C k) @ each image's columns, into (N, O, *out)."""
    n, positions = padded.shape[0], math.prod(out_size)
    w = weight.reshape(weight.shape[0], -1)
    out = xp.empty((n, w.shape[0], positions), xp.result_type(w, padded))

    def chunk(part):
        xp.matmul(w, _image_columns(xp, padded[part], weight.shape[2:], stride, dilation,
                                    out_size), out=out[part])
    _each_chunk(xp, chunk, _batch_chunks(n, w.shape[1] * positions * padded.itemsize,
                                         _IMAGE_CHUNK_BYTES))
    return out.reshape((n, w.shape[0]) + tuple(out_size))


def _input_grad_by_image(xp, grad, weight, in_size, stride, padding, dilation, fold_dtype):
    """conv_input_grad with one group: each image's columns w^T @ grad, folded back while
    they are in the cache (kernel offsets in order, as the other ways)."""
    kernel = tuple(weight.shape[2:])
    n, o = grad.shape[:2]
    out_size = tuple(grad.shape[2:])
    channels = weight.shape[1]
    w_t = weight.reshape(o, -1).T
    g = grad.reshape(n, o, math.prod(out_size))
    padded = tuple(i + 2 * p for i, p in zip(in_size, padding))
    acc = xp.zeros((n, channels) + padded, fold_dtype or xp.result_type(w_t, g))

    def chunk(part):
        cols = xp.matmul(w_t, g[part]).reshape((-1, channels) + kernel + out_size)
        if fold_dtype is not None:
            cols = cols.astype(fold_dtype)
        images = acc[part]
        for offset in np.ndindex(*kernel):
            target = (slice(None), slice(None)) + tuple(
                slice(k * d, k * d + s * (m - 1) + 1, s)
                for k, d, s, m in zip(offset, dilation, stride, out_size))
            images[target] += cols[(slice(None), slice(None)) + offset]
    _each_chunk(xp, chunk, _batch_chunks(n, w_t.shape[0] * g.shape[2] * grad.itemsize,
                                         _IMAGE_CHUNK_BYTES))
    crop = (slice(None), slice(None)) + tuple(slice(p, p + i) for p, i in zip(padding, in_size))
    return xp.ascontiguousarray(acc[crop])


# Fewer input channels than this make the product's rows too few for BLAS (LeNet's and
# the ResNet stem's 1 to 6 channels): there the columns are folded back instead.
_FULL_CONV_CHANNELS = 16


def _input_grad_as_forward(xp, grad, weight, padding, dilation):
    """NOTE [stride-1 input gradient as a convolution]: with stride 1 every input position
    sums grad * weight over the output positions whose window covers it, which is the
    convolution of the output's gradient, padded by dilation * (kernel - 1) - padding, with
    the kernel flipped and its channel axes swapped: a forward (NOTE [ungrouped convolution
    image by image]), with no column matrix to fold back."""
    d = weight.ndim - 2
    flipped = weight[(slice(None), slice(None)) + (slice(None, None, -1),) * d].swapaxes(0, 1)
    full = tuple(dl * (k - 1) - p for dl, k, p in zip(dilation, weight.shape[2:], padding))
    padded = _zero_padded(xp, grad, full)
    out_size = _out_size(grad.shape[2:], flipped.shape[2:], (1,) * d, full, dilation)
    return _forward_by_image(xp, padded, xp.ascontiguousarray(flipped), (1,) * d, dilation,
                             out_size)


def _weight_grad_by_image(xp, padded, grad, kernel, stride, dilation):
    """conv_weight_grad with one group: the sum over images of grad (O, out) @ columns^T."""
    n, o = grad.shape[:2]
    out_size = grad.shape[2:]
    g = grad.reshape(n, o, math.prod(out_size))
    rows = padded.shape[1] * math.prod(kernel)

    # Each image's (C k, O) = columns @ grad^T: the long rows of the column matrix are the
    # product's rows, which BLAS runs faster than grad @ columns^T (measured at 6 to 64
    # channels, a third less time at 16).
    def chunk(part):
        cols = _image_columns(xp, padded[part], kernel, stride, dilation, out_size)
        return xp.matmul(cols, g[part].transpose(0, 2, 1)).sum(axis=0)
    # The chunks' products added in the chunks' order, whichever threads made them.
    products = _each_chunk(xp, chunk, _batch_chunks(n, rows * g.shape[2] * padded.itemsize,
                                                    _IMAGE_CHUNK_BYTES))
    out = products[0]
    for product in products[1:]:
        out += product
    return xp.ascontiguousarray(out.T).reshape((o, padded.shape[1]) + tuple(kernel))


def _by_image() -> bool:
    """Whether one-group convolutions take the image-by-image way: only while BLAS runs one
    thread (NOTE [convolution chunks on the intra-op threads])."""
    return blas_threads() == 1


def _each_chunk(xp, fn, parts):
    """[fn(part) for part in parts]: NOTE [convolution chunks on the intra-op threads]."""
    threads = min(intra_op_threads(), len(parts))
    if threads < 2 or not backend_helpers(xp).host:
        return [fn(part) for part in parts]
    # Contiguous runs of chunks, one per thread; each chunk's work is the same whichever
    # thread runs it, so results do not depend on the thread count.
    runs = [parts[len(parts) * i // threads:len(parts) * (i + 1) // threads]
            for i in range(threads)]
    done = parallel_map(lambda run: run_quietly(lambda: [fn(part) for part in run]), runs)
    return [result for results in done for result in results]


# NOTE [convolution chunks on the intra-op threads]: the image-by-image way (NOTE [ungrouped
# convolution image by image]) is taken only while BLAS runs one thread; with more than one
# intra-op thread then (OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1) its batch chunks run on
# ember's pool (NumPy and BLAS release the GIL), a contiguous run of chunks per thread. When
# BLAS runs threads of its own (`set_num_threads(n)` sets both) the batched products of the
# grouped way are left to it: its threads on many small per-image products, or beside the
# pool's, oversubscribe the cores (ResNet's 2-thread step 104-133 ms against 93-96 ms, LeNet's
# 9.2-11.7 against 7.1-8.4). The chunks are cut by size
# alone and each image's result is computed the same way on any thread; the weight's
# gradient adds the chunks' products in chunk order. So results are the same bits at any
# thread count.

# NOTE [convolution in batch chunks]: the column matrix is prod(kernel) times the input's
# size; built and multiplied a few images at a time it stays in the core's cache instead of
# going out to memory and back (measured in benchmarks/bench_conv.py: a quarter less time for
# 3x3 convolutions of 16 channels on 32x32 maps). The one-group way (NOTE [ungrouped
# convolution image by image]) takes about a megabyte a chunk, a core's L2 cache.
_CHUNK_BYTES = 8 << 20
_IMAGE_CHUNK_BYTES = 1 << 20


def _batch_chunks(n, bytes_per_image, budget=_CHUNK_BYTES):
    """Slices of the batch whose column matrices take about `budget` bytes each."""
    per = max(1, budget // max(1, bytes_per_image))
    return [slice(start, min(n, start + per)) for start in range(0, n, per)] or [slice(0, 0)]


def conv_input_grad(xp, grad, weight, in_size, stride, padding, dilation, groups,
                    fold_dtype=None):
    """The gradient of conv_forward with respect to its input of spatial size `in_size`
    (also the forward of the transposed convolution): weight^T @ grad, folded back.
    NOTE [half transposed convolution folds in half]: with `fold_dtype` (a float16
    transposed convolution) the column matrix is rounded to it and folded back in it, one
    rounding per addition in kernel-offset order, as PyTorch's col2im does: 60000 + 60000 -
    60000 is inf there, where a float32 fold rounded once gives 60000."""
    kernel = tuple(weight.shape[2:])
    n = grad.shape[0]
    out_size = grad.shape[2:]
    if grad.ndim == 4 and grad.dtype.kind == "f" and max(padding) <= 2 and _use_winograd(
            weight.shape, stride, dilation, groups, n, in_size) and _transform_safe(xp, grad):
        return winograd.conv3x3_input_grad(xp, grad, weight, in_size, padding)
    if groups == 1 and _by_image() and fold_dtype is None and \
            weight.shape[1] >= _FULL_CONV_CHANNELS and all(
            s == 1 for s in stride) and all(
            d * (k - 1) >= p for d, k, p in zip(dilation, kernel, padding)):
        return _input_grad_as_forward(xp, grad, weight, padding, dilation)
    w = _weight_matrices(weight, groups)
    if out_size[-1] <= _SHORT_ROWS:
        return _input_grad_batch_last(xp, grad, w, weight, in_size, stride, padding, dilation,
                                      groups, fold_dtype)
    if groups == 1 and _by_image():
        return _input_grad_by_image(xp, grad, weight, in_size, stride, padding, dilation,
                                    fold_dtype)
    cols = xp.matmul(w.transpose(0, 2, 1), _by_group(xp, grad, groups))
    if fold_dtype is not None:
        cols = cols.astype(fold_dtype)
    channels = weight.shape[1] * groups
    cols = cols.reshape((channels,) + kernel + (n,) + tuple(out_size))
    padded = tuple(i + 2 * p for i, p in zip(in_size, padding))
    # Channel-first accumulator so each addition reads its slice contiguously.
    acc = xp.zeros((channels, n) + padded, cols.dtype)
    for offset in np.ndindex(*kernel):
        target = (slice(None), slice(None)) + tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s)
            for k, d, s, o in zip(offset, dilation, stride, out_size))
        acc[target] += cols[(slice(None),) + offset]
    crop = (slice(None), slice(None)) + tuple(slice(p, p + i) for p, i in zip(padding, in_size))
    return xp.ascontiguousarray(acc[crop].swapaxes(0, 1))


# Output rows this short make the fold's slice additions mostly per-row overhead (LeNet's
# 8-wide maps: 25 additions of 8-float runs); there the batch goes last instead, so each
# addition runs over rows of width * N floats (measured in benchmarks/bench_conv.py).
_SHORT_ROWS = 8


def _input_grad_batch_last(xp, grad, w, weight, in_size, stride, padding, dilation, groups,
                           fold_dtype=None):
    """conv_input_grad with the batch as the innermost axis of the column matrix and the
    accumulator (N moved last once on the way in, and back once on the way out)."""
    kernel = tuple(weight.shape[2:])
    n, out_size, d = grad.shape[0], tuple(grad.shape[2:]), len(kernel)
    g = grad.reshape((n, groups, grad.shape[1] // groups, math.prod(out_size)))
    g = xp.ascontiguousarray(g.transpose(1, 2, 3, 0)).reshape(groups, grad.shape[1] // groups,
                                                              -1)
    channels = weight.shape[1] * groups
    cols = xp.matmul(w.transpose(0, 2, 1), g).reshape((channels,) + kernel + out_size + (n,))
    if fold_dtype is not None:
        cols = cols.astype(fold_dtype)
    padded = tuple(i + 2 * p for i, p in zip(in_size, padding))
    acc = xp.zeros((channels,) + padded + (n,), cols.dtype)
    for offset in np.ndindex(*kernel):
        target = (slice(None),) + tuple(
            slice(k * dl, k * dl + s * (o - 1) + 1, s)
            for k, dl, s, o in zip(offset, dilation, stride, out_size)) + (slice(None),)
        acc[target] += cols[(slice(None),) + offset]
    crop = (slice(None),) + tuple(slice(p, p + i) for p, i in zip(padding, in_size))
    return xp.ascontiguousarray(acc[crop].transpose((d + 1,) + tuple(range(d + 1))))


def conv_weight_grad(xp, x, grad, kernel, stride, padding, dilation, groups):
    """The gradient of conv_forward with respect to its weight (O, C/g, *kernel)."""
    if x.ndim == 4 and x.dtype.kind == "f" and _use_winograd(
            (grad.shape[1], x.shape[1]) + tuple(kernel), stride, dilation, groups, x.shape[0],
            grad.shape[2:]) and _transform_safe(xp, x) and _transform_safe(xp, grad):
        return winograd.conv3x3_weight_grad(xp, x, grad, padding)
    padded = _zero_padded(xp, x, padding)
    if groups == 1 and _by_image():
        return _weight_grad_by_image(xp, padded, grad, kernel, stride, dilation)
    out_size = grad.shape[2:]
    rows = (x.shape[1] // groups) * math.prod(kernel)
    out = None
    for part in _batch_chunks(x.shape[0], groups * rows * math.prod(out_size) * x.itemsize):
        cols = _columns(xp, padded[part], kernel, stride, dilation, out_size, groups)
        product = xp.matmul(_by_group(xp, grad[part], groups), cols.transpose(0, 2, 1))
        if out is None:
            out = product
        else:
            out += product
    return out.reshape((grad.shape[1], x.shape[1] // groups) + tuple(kernel))


# --------------------------------------------------------------------------- checks

def _dims(shape):
    return "x".join(str(s) for s in shape)


def check_conv_args(input, weight, bias_shape, stride, padding, dilation, transposed,
                    output_padding, groups):
    """PyTorch's argument checks of a convolution over anything with shape/ndim/dtype."""
    d = weight.ndim - 2
    for name, values in (("stride", stride), ("padding", padding), ("dilation", dilation),
                         ("output_padding", output_padding)):
        _check(len(values) == d or len(values) == 1, lambda: (
            f"expected {name} to be a single integer value or a list of {d} values to match "
            f"the convolution dimensions, but got {name}={list(values)}"))
    stride, padding, dilation = _expand(stride, d), _expand(padding, d), _expand(dilation, d)
    output_padding = _expand(output_padding, d)
    _check(all(s > 0 for s in stride), "non-positive stride is not supported")
    _check(all(p >= 0 for p in padding), "negative padding is not supported")
    _check(all(p >= 0 for p in output_padding), "negative output_padding is not supported")
    _check(all(v > 0 for v in dilation), "non-positive dilation is not supported")
    _check(groups > 0, "non-positive groups is not supported")
    _check(input.ndim == weight.ndim, lambda: (
        f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
        f"{list(weight.shape)}, but got {input.ndim}-dimensional input of size "
        f"{list(input.shape)} instead"))
    _check(input.dtype == weight.dtype, lambda: (
        f"expected scalar type {dt.NP_TO_DTYPE[np.dtype(input.dtype)]._cpp_name} but found "
        f"{dt.NP_TO_DTYPE[np.dtype(weight.dtype)]._cpp_name}"))
    _check(weight.shape[0] % groups == 0, lambda: (
        f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
        f"but got weight of size [{list(weight.shape)}] instead"))
    if transposed:
        _check(input.shape[1] == weight.shape[0], lambda: (
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {weight.shape[0]} channels, but got "
            f"{input.shape[1]} channels instead"))
        out_channels = weight.shape[1] * groups
    else:
        _check(input.shape[1] == weight.shape[1] * groups, lambda: (
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{input.shape[1]} channels instead"))
        out_channels = weight.shape[0]
    if bias_shape is not None:
        _check(len(bias_shape) == 1 and bias_shape[0] == out_channels, lambda: (
            ("Given transposed=1, " if transposed else "Given ")
            + f"weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {list(bias_shape)} instead"))
    kernel = weight.shape[2:]
    if transposed:
        for op, s, dl in zip(output_padding, stride, dilation):
            _check(op < s or op < dl, lambda: (
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding={list(output_padding)} stride={list(stride)} "
                f"dilation={list(dilation)}"))
        return (input.shape[0], out_channels) + _transposed_size(
            input.shape[2:], kernel, stride, padding, dilation, output_padding)
    padded = tuple(i + 2 * p for i, p in zip(input.shape[2:], padding))
    dilated = tuple(dl * (k - 1) + 1 for k, dl in zip(kernel, dilation))
    _check(all(p >= k for p, k in zip(padded, dilated)), lambda: (
        f"Calculated padded input size per channel: ({_dims(padded)}). Kernel size: "
        f"({_dims(dilated)}). Kernel size can't be greater than actual input size"))
    return (input.shape[0], out_channels) + _out_size(input.shape[2:], kernel, stride,
                                                      padding, dilation)


def _expand(values, d):
    return tuple(values) * d if len(values) == 1 else tuple(values)


def _bias_check(input, bias):
    if bias is not None:
        _check(bias.dtype == input.dtype, lambda: (
            f"Input type ({cxx(input.dtype)}) and bias type ({cxx(bias.dtype)}) should be "
            "the same"))


# --------------------------------------------------------------------------- convolution

def _conv_meta(input, weight, bias, stride, padding, dilation, transposed, output_padding,
               groups):
    shape = check_conv_args(input._data, weight._data, None if bias is None else bias.shape,
                            stride, padding, dilation, transposed, output_padding, groups)
    _bias_check(input._data, None if bias is None else bias._data)
    # NOTE [meta memory format]: PyTorch's CPU and CUDA kernels give channels-last results
    # for a channels-last input or weight; its meta device computes row-major.
    strides = None
    if device_hint(input).type != "meta":
        itemsize = input._dtype.itemsize
        strides = suggested_strides(shape, input._data, itemsize) or \
            suggested_strides(shape, weight._data, itemsize)
    return shape, input._dtype, strides


def _conv_grads(ctx):
    """(grad_input, grad_weight, grad_bias), one convolution_backward for the node's inputs
    that need them."""
    if ctx.memo is None:
        node = ctx._node
        wanted = {meta[0] for meta, edge in zip(node._input_meta, node.next_functions)
                  if edge is not None}
        weight = ctx.weight
        out_channels = weight.shape[1] * ctx.groups if ctx.transposed else weight.shape[0]
        ctx.memo = call(OPS["convolution_backward"], (
            ctx.grad, ctx.input, weight, [out_channels], ctx.stride, ctx.padding,
            ctx.dilation, ctx.transposed, ctx.output_padding, ctx.groups,
            ["input" in wanted, "weight" in wanted, "bias" in wanted]))
    return ctx.memo


@register_op("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
             "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
             "SymInt groups) -> Tensor", method=False, meta=_conv_meta,
             saves=("input", "weight"), tags=("fp_errors",),
             derivatives={"input": lambda c: _conv_grads(c)[0],
                          "weight": lambda c: _conv_grads(c)[1],
                          "bias": lambda c: _conv_grads(c)[2]})
def convolution(xp, input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    groups) -> Tensor: the N-d (transposed) convolution every conv function reduces to."""
    check_conv_args(input, weight, None if bias is None else bias.shape, stride, padding,
                    dilation, transposed, output_padding, groups)
    _bias_check(input, bias)
    d = weight.ndim - 2
    _check_not_implemented(input.dtype.kind != "b", lambda: (
        f'"slow_conv{d}d_cpu" not implemented for \'Bool\''))
    stride, padding, dilation = _expand(stride, d), _expand(padding, d), _expand(dilation, d)
    result_dtype = input.dtype
    compute = _compute_dtype(result_dtype)
    x, w = input.astype(compute, copy=False), weight.astype(compute, copy=False)
    if transposed:
        in_size = _transposed_size(x.shape[2:], w.shape[2:], stride, padding, dilation,
                                   _expand(output_padding, d))
        out = conv_input_grad(xp, x, w, in_size, stride, padding, dilation, groups,
                              result_dtype if result_dtype == np.float16 else None)
    else:
        out = conv_forward(xp, x, w, stride, padding, dilation, groups)
    if bias is not None:
        out += bias.astype(compute, copy=False).reshape((-1,) + (1,) * d)
    return out.astype(result_dtype, copy=False)


# --------------------------------------------------------------------------- backward

def _backward_meta(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                   transposed, output_padding, groups, output_mask):
    return [(tuple(input.shape), input._dtype), (tuple(weight.shape), weight._dtype),
            (tuple(bias_sizes or (0,)), grad_output._dtype)]


def _double_backward_grad_output(ctx):
    """d(grad_output): the convolution of each incoming gradient with the other factor."""
    gg_input, gg_weight, gg_bias = ctx.grads
    args = (ctx.stride, ctx.padding, ctx.dilation, ctx.transposed, ctx.output_padding,
            ctx.groups)
    conv = OPS["convolution"]
    total = None
    if gg_input is not None:
        total = call(conv, (gg_input, ctx.weight, None) + args)
    if gg_weight is not None:
        term = call(conv, (ctx.input, gg_weight, None) + args)
        total = term if total is None else total + term
    if gg_bias is not None:
        term = gg_bias.reshape((-1,) + (1,) * (ctx.weight.ndim - 2))
        total = term if total is None else total + term
    return total


def _double_backward_other(ctx, which):
    """d(input) pairs the weight's incoming gradient with grad_output, d(weight) the input's."""
    incoming = ctx.grads[1 if which == 0 else 0]
    if incoming is None:
        return None
    mask = [which == 0, which == 1, False]
    input, weight = (ctx.input, incoming) if which == 0 else (incoming, ctx.weight)
    return call(OPS["convolution_backward"], (
        ctx.grad_output, input, weight, None, ctx.stride, ctx.padding, ctx.dilation,
        ctx.transposed, ctx.output_padding, ctx.groups, mask))[which]


@register_op("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, "
             "SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
             "bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) "
             "-> (Tensor, Tensor, Tensor)", method=False, function=False,
             meta=_backward_meta, tags=("fp_errors",),
             derivatives={"grad_output": _double_backward_grad_output,
                          "input": lambda c: _double_backward_other(c, 0),
                          "weight": lambda c: _double_backward_other(c, 1)})
def convolution_backward(xp, grad_output, input, weight, bias_sizes, stride, padding, dilation,
                         transposed, output_padding, groups, output_mask):
    """convolution_backward(grad_output, input, weight, bias_sizes, ...) -> (grad_input,
    grad_weight, grad_bias): the gradients `output_mask` asks for (None for the others)."""
    d = weight.ndim - 2
    stride, padding, dilation = _expand(stride, d), _expand(padding, d), _expand(dilation, d)
    compute = _compute_dtype(input.dtype)
    g = grad_output.astype(compute, copy=False)
    x, w = input.astype(compute, copy=False), weight.astype(compute, copy=False)
    kernel = w.shape[2:]
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if transposed:
            grad_input = conv_forward(xp, g, w, stride, padding, dilation, groups)
        else:
            grad_input = conv_input_grad(xp, g, w, x.shape[2:], stride, padding, dilation,
                                         groups)
        grad_input = grad_input.astype(input.dtype, copy=False)
    if output_mask[1]:
        if transposed:
            # The transposed convolution is the input-gradient of a convolution from its
            # output to its input: the weight's gradient swaps the two roles.
            grad_weight = conv_weight_grad(xp, g, x, kernel, stride, padding, dilation, groups)
        else:
            grad_weight = conv_weight_grad(xp, x, g, kernel, stride, padding, dilation, groups)
        grad_weight = grad_weight.astype(weight.dtype, copy=False)
    if output_mask[2]:
        axes = (0,) + tuple(range(2, g.ndim))
        grad_bias = g.sum(axis=axes).astype(grad_output.dtype, copy=False)
    return grad_input, grad_weight, grad_bias
