"""Fractional max pooling: fractional_max_pool2d / 3d and their backward ops.

Each (sample, channel) plane gets its own pseudo-random window starts along each axis, drawn
from `random_samples` (N, C, spatial) in [0, 1) as PyTorch's generate_intervals does (in the
input's dtype, so the same samples pick the same windows). The windows are gathered per kernel
offset over the whole batch and reduced as in max pooling (NOTE [max pooling ties]).
"""
from __future__ import annotations

import itertools

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.host_kernels import host_kernel
from ember._core.registry import OPS, register_op
from ember._ops.nn_pooling import gather_planes, scatter_planes
from ember._ops.nn_windows import (
    compute_dtype,
    expand_arg,
    max_and_first_offset,
    select_by_code,
)

_AXIS_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _intervals(samples, size, out, pool):
    """Window starts (..., out) for samples (...): floor((i + u) * alpha) - floor(u * alpha)
    with alpha = (size - pool) / (out - 1), and the last window flush with the end."""
    samples = samples[..., None]
    starts = np.full(samples.shape[:-1] + (out,), size - pool, np.int64)
    if out > 1:
        dtype = samples.dtype
        alpha = dtype.type(size - pool) / dtype.type(out - 1)
        i = np.arange(out - 1, dtype=dtype)
        starts[..., :-1] = ((i + samples) * alpha).astype(np.int64) - \
            (samples * alpha).astype(np.int64)
    return starts


def _check_args(shape, samples_shape, spatial, kernel, out, name):
    ndim = len(shape)
    _check(ndim in (spatial + 1, spatial + 2) and all(s != 0 for s in shape[-spatial - 1:]),
           lambda: (f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got: "
                    f"{list(shape)}"))
    _check(all(o >= 0 for o in out), lambda: f"{name}(): output sizes must not be negative")
    _check(samples_shape[1:2] == (shape[-spatial - 1],),
           "Expect _random_samples.size(1) equals to input channel size.")
    sizes = shape[-spatial:]
    # PyTorch's 3-d check is strict where its 2-d check is not.
    for axis_name, o, k, n in zip(_AXIS_NAMES[spatial], out, kernel, sizes):
        fits = o + k - 1 <= n if spatial == 2 else o + k - 1 < n
        _check(fits, lambda axis_name=axis_name, k=k, n=n: (
            f"{name}{'_out' if spatial == 3 else ''}(): pool {axis_name} {k} too large "
            f"relative to input {axis_name} {n}"))


@host_kernel
def _fractional(xp, x, spatial, kernel_size, output_size, random_samples, name):
    kernel = expand_arg(kernel_size, spatial, "kernel_size", name)
    out = expand_arg(output_size, spatial, "output_size", name)
    _check_args(x.shape, random_samples.shape, spatial, kernel, out, name)
    batched = x.ndim == spatial + 2
    planes = x if batched else x[None]
    n, c = planes.shape[:2]
    sizes = planes.shape[2:]
    samples = random_samples.astype(compute_dtype(x), copy=False)
    # PyTorch's 2-d kernel reads a plane's samples as (width, height), its 3-d kernel as
    # (time, height, width).
    order = (1, 0) if spatial == 2 else (0, 1, 2)
    starts = [_intervals(samples[:n, :, order[axis]], size, o, k)
              for axis, (size, o, k) in enumerate(zip(sizes, out, kernel))]
    batch = np.arange(n).reshape((n,) + (1,) * (spatial + 1))
    channel = np.arange(c).reshape((1, c) + (1,) * spatial)
    views, indices = [], []
    for offset in itertools.product(*(range(k) for k in kernel)):
        positions = []
        for axis, (start, i) in enumerate(zip(starts, offset)):
            shape = [n, c] + [1] * spatial
            shape[2 + axis] = out[axis]
            positions.append((start + i).reshape(shape))
        views.append(planes[(batch, channel) + tuple(positions)])
        flat = np.zeros((1,) * (spatial + 2), np.int64)
        for position, size in zip(positions, sizes):
            flat = flat * size + position
        indices.append(flat)
    best, code = max_and_first_offset(xp, views)
    index = select_by_code(xp, code, indices)
    if not batched:
        best, index = best[0], index[0]
    return best, index


def _meta(spatial, name):
    def meta(self, kernel_size, output_size, random_samples):
        shape = tuple(self.shape)
        kernel = expand_arg(kernel_size, spatial, "kernel_size", name)
        out = expand_arg(output_size, spatial, "output_size", name)
        _check_args(shape, tuple(random_samples.shape), spatial, kernel, out, name)
        result = shape[:-spatial] + out
        return [(result, self._dtype), (result, dt.int64)]
    return meta


for _d in (2, 3):
    _name = f"fractional_max_pool{_d}d"

    def _forward(xp, self, kernel_size, output_size, random_samples, _d=_d, _name=_name):
        return _fractional(xp, self, _d, kernel_size, output_size, random_samples, _name)

    _forward.__doc__ = (
        f"{_name}(input, kernel_size, output_size, random_samples) -> (Tensor, Tensor): max "
        f"pooling over {_d}-d windows at pseudo-random starts, and the maxima's flat plane "
        "positions.")
    register_op(
        f"{_name}(Tensor self, int[{_d}] kernel_size, int[{_d}] output_size, "
        "Tensor random_samples) -> (Tensor, Tensor)", function=False, method=False,
        meta=_meta(_d, _name), saves=("self", "result1"),
        node_name=f"FractionalMaxPool{_d}DBackward0",
        derivatives={"self": lambda c, _name=_name: call(OPS[f"{_name}_backward"], (
            c.grad, c.self, c.kernel_size, c.output_size, c.results[1])),
            "random_samples": lambda c: None})(_forward)

    def _backward(xp, grad_output, self, kernel_size, output_size, indices, _d=_d):
        return scatter_planes(xp, grad_output, indices, self.shape, _d)

    _backward.__doc__ = f"The gradient of {_name} with respect to its input."
    register_op(
        f"{_name}_backward(Tensor grad_output, Tensor self, int[{_d}] kernel_size, "
        f"int[{_d}] output_size, Tensor indices) -> Tensor", function=False, method=False,
        meta=lambda grad_output, self, *rest: (tuple(self.shape), grad_output._dtype),
        saves=("indices",), node_name=f"FractionalMaxPool{_d}DBackwardBackward0",
        derivatives={"grad_output": lambda c, _d=_d: gather_planes(c.grad, c.indices, _d),
                     "self": lambda c: None})(_backward)
