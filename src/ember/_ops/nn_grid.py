"""Grid sampling: grid_sampler_2d / grid_sampler_3d (bilinear, nearest, bicubic; zeros, border,
reflection padding; align_corners), their backward ops, and affine_grid_generator.

A sample reads the input at a handful of taps around its source position: per spatial axis a
list of (integer position, weight, d weight / d position), and every combination of one tap
per axis (2 per axis for bilinear, 1 for nearest, 4 for bicubic). The forward gathers each
combination over the whole batch at once; the backward scatters the output gradient back
through the same taps with one bincount (input) and sums value * d weight (grid). As in
PyTorch, the backward op itself has no derivative.
"""
from __future__ import annotations

import itertools

import numpy as np

from ember._core.checks import _check, _check_index, _check_not_implemented
from ember._core.dispatch import call
from ember._core.host_kernels import host_kernel
from ember._core.registry import OPS, register_op
from ember._ops.indexing import cpp_name
from ember._ops.nn_windows import compute_dtype

_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER, _REFLECTION = 0, 1, 2
_CUBIC_A = -0.75


# --------------------------------------------------------------------------- coordinates

def _clip(coord, size):
    """Clamp into [0, size - 1]; the gradient is 0 where it clamped (at 0 included)."""
    grad = ((coord > 0) & (coord < size - 1)).astype(coord.dtype)
    return np.clip(coord, 0, size - 1), grad


def _reflect(coord, twice_low, twice_high):
    """Reflect into [twice_low / 2, twice_high / 2] and the gradient's sign."""
    if twice_low == twice_high:
        return np.zeros_like(coord), np.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = coord - low
    sign = np.where(shifted < 0, -1.0, 1.0).astype(coord.dtype)
    shifted = np.abs(shifted)
    extra = np.fmod(shifted, span)
    even = np.floor(shifted / span) % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _padded(coord, size, padding, align_corners):
    """PyTorch's compute_coordinates: the padding mode applied to a position, and its
    gradient factor."""
    if padding == _BORDER:
        return _clip(coord, size)
    if padding == _REFLECTION:
        if align_corners:
            coord, grad = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord, grad = _reflect(coord, -1, 2 * size - 1)
        coord, clip_grad = _clip(coord, size)
        return coord, grad * clip_grad
    return coord, np.ones_like(coord)


def _unnormalize(coord, size, align_corners):
    """[-1, 1] to pixel positions, and d position / d coordinate."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _cubic(t):
    """Cubic-convolution weights of the taps at -1, 0, 1, 2 and their derivatives in t."""
    a = _CUBIC_A

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    def near_d(x):
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far_d(x):
        return (3 * a * x - 10 * a) * x + 8 * a
    weights = (far(t + 1), near(t), near(1 - t), far(2 - t))
    derivatives = (far_d(t + 1), near_d(t), -near_d(1 - t), -far_d(2 - t))
    return weights, derivatives


def _axis_taps(coord, size, mode, padding, align_corners):
    """[(position as int64, weight, d weight / d grid coordinate)] for one spatial axis."""
    position, scale = _unnormalize(coord, size, align_corners)
    if mode == _BICUBIC:
        base = np.floor(position)
        weights, derivatives = _cubic(position - base)
        taps = []
        for offset, weight, derivative in zip(range(-1, 3), weights, derivatives):
            tap, _ = _padded(base + offset, size, padding, align_corners)
            taps.append((tap.astype(np.int64), weight, derivative * scale))
        return taps
    position, grad = _padded(position, size, padding, align_corners)
    if mode == _NEAREST:
        zero = np.zeros_like(position)
        return [(np.rint(position).astype(np.int64), np.ones_like(position), zero)]
    low = np.floor(position)
    t = position - low
    low = low.astype(np.int64)
    return [(low, 1 - t, -grad * scale), (low + 1, t, grad * scale)]


# --------------------------------------------------------------------------- kernels

def _check_grid(input, grid, spatial, mode):
    # PyTorch's order: the common checks (batch sizes, which read size(0) and so refuse a
    # 0-d tensor with an IndexError; the grid's last size against input's dims; non-empty
    # spatial dims), then the ones of the 2-d or 3-d sampler.
    for tensor in (input, grid):
        _check_index(tensor.ndim > 0, "Dimension specified as 0 but tensor has no dimensions")
    _check(input.shape[0] == grid.shape[0], lambda: (
        f"grid_sampler(): expected grid and input to have same batch size, but got input "
        f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"))
    _check(grid.shape[-1] == input.ndim - 2, lambda: (
        f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but "
        f"got grid with sizes {list(grid.shape)}"))
    for d in range(2, input.ndim):
        _check(input.shape[d] > 0, lambda d=d: (
            f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
            f"has sizes {list(input.shape)} with dimension {d} being empty"))
    _check(input.ndim == spatial + 2 and grid.ndim == spatial + 2, lambda: (
        f"grid_sampler(): expected {spatial + 2}D input and grid with same number of "
        f"dimensions, but got input with sizes {list(input.shape)} and grid with sizes "
        f"{list(grid.shape)}"))
    _check(mode != _BICUBIC or spatial == 2,
           "grid_sampler(): bicubic interpolation only supports 4D input")
    _check(input.dtype == grid.dtype, lambda: (
        f"expected scalar type {_cpp(input)} but found {_cpp(grid)}"))
    kernel = "grid_sampler_2d_cpu_kernel_impl" if spatial == 2 else "grid_sampler3d_cpu"
    _check_not_implemented(_cpp(input) in _FLOATING, lambda: (
        f'"{kernel}" not implemented for \'{_cpp(input)}\''))


_FLOATING = ("Float", "Double", "Half", "BFloat16")


def _cpp(array_or_tensor):
    """The C++ dtype name of a kernel's array or a meta rule's tensor."""
    dtype = getattr(array_or_tensor, "_dtype", None)
    return dtype._cpp_name if dtype is not None else cpp_name(array_or_tensor)


def _taps(input, grid, mode, padding, align_corners):
    """Per axis (slowest first) the taps of every sample; grid's last dim lists x (the last
    axis) first."""
    spatial = grid.shape[-1]
    n = grid.shape[0]
    coords = grid.reshape(n, -1, spatial)
    sizes = input.shape[2:]
    return [_axis_taps(coords[..., spatial - 1 - axis], sizes[axis], mode, padding,
                       align_corners) for axis in range(spatial)]


def _combinations(taps, sizes):
    """(flat position, in bounds, per-axis weights, per-axis derivatives) per tap combo."""
    for combo in itertools.product(*taps):
        flat = np.zeros(combo[0][0].shape, np.int64)
        valid = np.ones(combo[0][0].shape, bool)
        for (position, _, _), size in zip(combo, sizes):
            valid &= (position >= 0) & (position < size)
            flat = flat * size + np.clip(position, 0, size - 1)
        yield flat, valid, [w for _, w, _ in combo], [d for _, _, d in combo]


@host_kernel
def _grid_sample(xp, input, grid, mode, padding, align_corners, spatial):
    _check_grid(input, grid, spatial, mode)
    # NOTE [half grid sampling rounds each step]: PyTorch's sampler runs on vectors of the
    # input's own type, so for float16 and bfloat16 each step (the unnormalised position, the
    # floor, the weights, each product and sum) is rounded to that type: a position rounds to
    # another pixel than float32's would pick. ember computes in the input's dtype alike.
    dtype = input.dtype
    x, g = input, grid
    n, c = x.shape[:2]
    out_shape = (n, c) + tuple(grid.shape[1:-1])
    if x.size == 0 or g.size == 0:
        return xp.zeros(out_shape, input.dtype)
    flat_input = x.reshape(n, c, -1)
    with np.errstate(all="ignore"):
        return _sample(flat_input, x, g, mode, padding, align_corners, out_shape, dtype)


def _sample(flat_input, x, g, mode, padding, align_corners, out_shape, dtype):
    taps = _taps(x, g, mode, padding, align_corners)
    if mode == _BICUBIC:
        return _bicubic(flat_input, taps, x.shape[2:], dtype).reshape(out_shape)
    out = np.zeros(flat_input.shape[:2] + (int(np.prod(g.shape[1:-1])),), dtype)
    for flat, valid, weights, _ in _combinations(taps, x.shape[2:]):
        # A tap outside the input reads nothing (0, as PyTorch's masked gather), rather than
        # a clamped neighbour times 0, which is NaN where that neighbour is NaN or infinite.
        weight = np.prod(weights, axis=0)
        values = np.take_along_axis(flat_input, flat[:, None, :], axis=2)
        out += np.where(valid[:, None, :], values, dtype.type(0)) * weight[:, None, :]
    return out.reshape(out_shape)


def _bicubic(flat_input, taps, sizes, dtype):
    """Bicubic samples in PyTorch's order: each of the 4 rows interpolated along x first, then
    the 4 row values along y (near the dtype's largest value the order decides which sums
    overflow)."""
    rows_taps, columns_taps = taps
    height, width = sizes
    out = None
    for row, row_weight, _ in rows_taps:
        line = None
        for column, column_weight, _ in columns_taps:
            valid = (row >= 0) & (row < height) & (column >= 0) & (column < width)
            flat = np.clip(row, 0, height - 1) * width + np.clip(column, 0, width - 1)
            values = np.take_along_axis(flat_input, flat[:, None, :], axis=2)
            term = np.where(valid[:, None, :], values, dtype.type(0)) * \
                column_weight.astype(dtype, copy=False)[:, None, :]
            line = term if line is None else line + term
        term = line * row_weight.astype(dtype, copy=False)[:, None, :]
        out = term if out is None else out + term
    return out


@host_kernel
def _grid_sample_backward(xp, grad_output, input, grid, mode, padding, align_corners,
                          output_mask, spatial):
    dtype = compute_dtype(input)
    x = input.astype(dtype, copy=False)
    g = grid.astype(dtype, copy=False)
    n, c = x.shape[:2]
    planes = int(np.prod(x.shape[2:]))
    grad = grad_output.astype(dtype, copy=False).reshape(n, c, -1)
    flat_input = x.reshape(n, c, -1)
    positions, contributions = [], []
    grad_grid = np.zeros(g.shape, dtype)
    grid_view = grad_grid.reshape(n, -1, spatial)
    # Each (sample, channel) plane starts at (n * C + c) * planes in the flat input.
    plane_start = (np.arange(n * c) * planes).reshape(n, c, 1)
    for flat, valid, weights, derivatives in _combinations(
            _taps(x, g, mode, padding, align_corners), x.shape[2:]):
        if output_mask[0]:
            weight = np.prod(weights, axis=0) * valid
            positions.append((plane_start + flat[:, None, :]).ravel())
            contributions.append((grad * weight[:, None, :]).ravel())
        if output_mask[1] and mode != _NEAREST:
            values = np.take_along_axis(flat_input, flat[:, None, :], axis=2)
            along = (grad * values).sum(axis=1) * valid
            for axis in range(spatial):
                others = [w for k, w in enumerate(weights) if k != axis]
                factor = derivatives[axis] * (np.prod(others, axis=0) if others else 1)
                grid_view[..., spatial - 1 - axis] += along * factor
    grad_input = None
    if output_mask[0]:
        total = np.bincount(np.concatenate(positions), np.concatenate(contributions)
                            .astype(np.float64, copy=False), n * c * planes)
        grad_input = total.astype(input.dtype).reshape(input.shape)
    else:
        grad_input = xp.zeros(input.shape, input.dtype)
    return grad_input, grad_grid.astype(grid.dtype, copy=False)


def _grid_meta(spatial):
    def meta(input, grid, interpolation_mode, padding_mode, align_corners):
        _check_grid(input, grid, spatial, interpolation_mode)
        return (tuple(input.shape[:2]) + tuple(grid.shape[1:-1]), input._dtype)
    return meta


def _grid_grads(op_name):
    def both(c):
        if c.memo is None:
            c.memo = call(OPS[op_name], (c.grad, c.input, c.grid, c.interpolation_mode,
                                         c.padding_mode, c.align_corners, [True, True]))
        return c.memo
    return {"input": lambda c: both(c)[0], "grid": lambda c: both(c)[1]}


for _d in (2, 3):
    _name = f"grid_sampler_{_d}d"

    def _forward(xp, input, grid, interpolation_mode, padding_mode, align_corners, _d=_d):
        return _grid_sample(xp, input, grid, interpolation_mode, padding_mode, align_corners,
                            _d)

    _forward.__doc__ = (
        f"{_name}(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor: "
        f"input read at the {_d}-d positions of grid (in [-1, 1]); modes 0 bilinear, "
        "1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.")
    register_op(
        f"{_name}(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
        "bool align_corners) -> Tensor", method=False, meta=_grid_meta(_d),
        node_name=f"GridSampler{_d}DBackward0", derivatives=_grid_grads(f"{_name}_backward"),
    )(_forward)

    def _backward(xp, grad_output, input, grid, interpolation_mode, padding_mode,
                  align_corners, output_mask, _d=_d):
        return _grid_sample_backward(xp, grad_output, input, grid, interpolation_mode,
                                     padding_mode, align_corners, output_mask, _d)

    _backward.__doc__ = f"The gradients of {_name} with respect to input and grid."
    register_op(
        f"{_name}_backward(Tensor grad_output, Tensor input, Tensor grid, "
        "int interpolation_mode, int padding_mode, bool align_corners, bool[2] output_mask) "
        "-> (Tensor, Tensor)", function=False, method=False,
        meta=lambda grad_output, input, grid, *rest: [
            (tuple(input.shape), input._dtype), (tuple(grid.shape), grid._dtype)],
    )(_backward)


# --------------------------------------------------------------------------- affine grids

def base_grid(size, align_corners, dtype):
    """(*spatial, k + 1): each output position's normalised (x, y[, z], 1)."""
    spatial = list(size[2:])
    axes = []
    for n in spatial:
        steps = np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        axes.append(steps if align_corners else steps * (n - 1) / n)
    mesh = np.meshgrid(*axes, indexing="ij")
    # x varies along the last axis and comes first.
    return np.stack(list(reversed(mesh)) + [np.ones(spatial)], axis=-1).astype(dtype)


def _affine_check(theta, size):
    _check(len(size) in (4, 5), lambda: (
        f"affine_grid_generator needs 4d (spatial) or 5d (volumetric) inputs, got {len(size)}"))


@register_op("affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor",
             method=False, saves=(),
             meta=lambda theta, size, align_corners: (
                 (size[0],) + tuple(size[2:]) + (len(size) - 2,), theta._dtype),
             derivatives={"theta": lambda c: _affine_grad(c)})
@host_kernel
def affine_grid_generator(xp, theta, size, align_corners):
    """affine_grid_generator(theta, size, align_corners) -> Tensor: the sampling grid of
    the affine maps theta (N, k, k + 1) over an output of size (N, C, *spatial)."""
    _affine_check(theta, size)
    dtype = compute_dtype(theta)
    base = base_grid(size, align_corners, dtype)
    k = len(size) - 2
    flat = base.reshape(-1, k + 1)
    out = np.matmul(flat, theta.astype(dtype).transpose(0, 2, 1))
    return out.reshape((size[0],) + tuple(size[2:]) + (k,)).astype(theta.dtype, copy=False)


def _affine_grad(c):
    """theta's gradient: grad (N, P, k) against the base grid (P, k + 1)."""
    size = list(c.size)
    k = len(size) - 2
    base = c.grad.new_tensor(base_grid(size, c.align_corners, np.float64).reshape(-1, k + 1))
    grad = c.grad.reshape(size[0], -1, k)
    return grad.transpose(1, 2).matmul(base)
