"""Resampling: the upsample_* entries (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, and the antialiased bilinear / bicubic), their backward ops, pixel_shuffle,
pixel_unshuffle and channel_shuffle. Grid sampling lives in nn_grid.py.

Every upsample mode is a separable linear map (NOTE [separable linear maps] in nn_windows.py):
each axis gets the taps PyTorch's loops read, with their interpolation weights, built from its
source-index rules (NOTE [taps, not matrices]), and the backward op applies the transposed
taps. The entries are generated from one
table (`_MODES`) so that every one of them reads the same.
"""
from __future__ import annotations

import functools

import numpy as np

from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._ops.nn_windows import LOW_PRECISION, Taps, check_float, run_separable

_AXES = {1: ("",), 2: ("_h", "_w"), 3: ("_d", "_h", "_w")}
_CUBIC_A = -0.75        # PyTorch's bicubic kernel coefficient
_CUBIC_AA_A = -0.5      # ... and its antialiased filter's


# --------------------------------------------------------------------------- source indices

def _scale(size_in, size_out, align_corners, scale):
    """PyTorch's area_pixel_compute_scale: the source step per output step."""
    if align_corners:
        return (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else size_in / size_out


def _source(size_in, size_out, align_corners, scale, cubic):
    step = _scale(size_in, size_out, align_corners, scale)
    o = np.arange(size_out, dtype=np.float64)
    if align_corners:
        return o * step
    src = step * (o + 0.5) - 0.5
    return src if cubic else np.maximum(src, 0.0)


def _nearest(size_in, size_out, scale, exact):
    # PyTorch computes the nearest index in float32; so do we, to pick the same pixel.
    step = np.float32(1.0 / scale) if scale is not None and scale > 0 else \
        np.float32(size_in) / np.float32(size_out)
    o = np.arange(size_out, dtype=np.float32)
    if exact:
        o = o + np.float32(0.5)
    index = np.minimum(np.floor(o * step).astype(np.int64), size_in - 1)
    return Taps(index[:, None], np.ones((size_out, 1)), size_in)


def _linear(size_in, size_out, align_corners, scale):
    src = _source(size_in, size_out, align_corners, scale, cubic=False)
    low = np.minimum(np.floor(src).astype(np.int64), size_in - 1)
    high = np.minimum(low + 1, size_in - 1)
    weight_high = src - low
    return Taps(np.stack([low, high], axis=1), np.stack([1.0 - weight_high, weight_high], axis=1),
                size_in)


def _cubic_weights(t, a):
    """The four cubic-convolution weights for taps at -1, 0, 1, 2 around fraction t."""
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return (far(t + 1), near(t), near(1 - t), far(2 - t))


def _cubic(size_in, size_out, align_corners, scale):
    src = _source(size_in, size_out, align_corners, scale, cubic=True)
    base = np.floor(src).astype(np.int64)
    weights = _cubic_weights(src - base, _CUBIC_A)
    index = np.clip(base[:, None] + np.arange(-1, 3), 0, size_in - 1)
    return Taps(index, np.stack(weights, axis=1), size_in)


def _aa_filter(x, cubic):
    x = np.abs(x)
    if not cubic:
        return np.where(x < 1.0, 1.0 - x, 0.0)
    a = _CUBIC_AA_A
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def _antialiased(size_in, size_out, align_corners, scale, cubic):
    """The antialiased filters: when shrinking, the filter widens by the scale so every input
    pixel contributes (PyTorch's _upsample_*_aa; weights normalised to sum 1 per output)."""
    step = _scale(size_in, size_out, align_corners, scale)
    support = (2.0 if cubic else 1.0) * max(step, 1.0)
    inverse = 1.0 / step if step >= 1.0 else 1.0
    o = np.arange(size_out, dtype=np.float64)
    center = step * (o + 0.5)
    low = np.maximum(np.trunc(center - support + 0.5).astype(np.int64), 0)
    high = np.minimum(np.trunc(center + support + 0.5).astype(np.int64), size_in)
    taps = Taps.ranges(low, np.maximum(high, low), size_in)
    weights = _aa_filter((taps.index - center[:, None] + 0.5) * inverse, cubic)
    if taps.valid is not None:
        weights *= taps.valid
    total = weights.sum(axis=1, keepdims=True)
    taps.weight = np.divide(weights, total, out=np.zeros_like(weights), where=total != 0)
    return taps


@functools.lru_cache(maxsize=256)
def _taps(mode, size_in, size_out, align_corners, scale, spatial):
    # PyTorch's 2-d nearest kernel ignores the scale where an axis keeps its size or doubles
    # it; its linear and antialiased kernels copy an axis that keeps its size.
    if size_in == size_out and (mode in ("linear", "linear_aa", "cubic_aa")
                                or (mode == "nearest" and spatial == 2)):
        return None
    if mode == "nearest" and spatial == 2 and size_out == 2 * size_in:
        scale = None
    if mode == "nearest":
        return _nearest(size_in, size_out, scale, exact=False)
    if mode == "nearest_exact":
        return _nearest(size_in, size_out, scale, exact=True)
    if mode == "linear":
        return _linear(size_in, size_out, align_corners, scale)
    if mode == "cubic":
        return _cubic(size_in, size_out, align_corners, scale)
    return _antialiased(size_in, size_out, align_corners, scale, cubic=mode == "cubic_aa")


# --------------------------------------------------------------------------- entries

def _check_sizes(input_shape, output_size, spatial):
    _check(len(output_size) == spatial, lambda: (
        f"It is expected output_size equals to {spatial}, but got size {len(output_size)}"))
    _check(len(input_shape) == spatial + 2, lambda: (
        f"It is expected input_size equals to {spatial + 2}, but got size {len(input_shape)}"))
    sizes_in = tuple(input_shape[2:])
    names = ("D", "H", "W")[3 - spatial:] if spatial > 1 else ("W",)
    _check(all(s > 0 for s in sizes_in) and all(s > 0 for s in output_size), lambda: (
        "Input and output sizes should be greater than 0, but got input ("
        + ", ".join(f"{n}: {s}" for n, s in zip(names, sizes_in)) + ") output ("
        + ", ".join(f"{n}: {s}" for n, s in zip(names, output_size)) + ")"))


def _resample(xp, x, mode, spatial, output_size, align_corners, scales, name,
              input_size=None):
    """The forward (input_size None) or backward (x is the gradient) kernel of one mode."""
    output_size = tuple(int(s) for s in output_size)
    forward = input_size is None
    shape_in = tuple(x.shape) if forward else tuple(int(s) for s in input_size)
    _check(forward or len(shape_in) == spatial + 2, lambda: (
        f"It is expected input_size equals to {spatial + 2}, but got size {len(shape_in)}"))
    _check(forward or tuple(x.shape) == shape_in[:2] + output_size, lambda: (
        f"Expected grad_output to have the same shape as output; output.size() = "
        f"{list(shape_in[:2] + output_size)} but got grad_output.size() = {list(x.shape)}"))
    _check_sizes(shape_in, output_size, spatial)
    check_float(x, name, {np.dtype(np.int64): "Long", np.dtype(np.int32): "Int",
                          np.dtype(np.uint8): "Byte"}.get(x.dtype, str(x.dtype)))
    _check_not_implemented(not mode.endswith("_aa") or x.dtype not in LOW_PRECISION, lambda: (
        "\"compute_index_ranges_weights\" not implemented for "
        f"'{'Half' if x.dtype == np.float16 else 'BFloat16'}'"))
    maps = [_taps(mode, n, o, align_corners, s, spatial)
                for n, o, s in zip(shape_in[2:], output_size, scales)]
    return run_separable(xp, x, maps, transpose=not forward)


# (aten name, spatial dims, mode, takes align_corners, node name)
_MODES = (
    ("upsample_nearest1d", 1, "nearest", False, "UpsampleNearest1DBackward0"),
    ("upsample_nearest2d", 2, "nearest", False, "UpsampleNearest2DBackward0"),
    ("upsample_nearest3d", 3, "nearest", False, "UpsampleNearest3DBackward0"),
    ("_upsample_nearest_exact1d", 1, "nearest_exact", False, "UpsampleNearestExact1DBackward0"),
    ("_upsample_nearest_exact2d", 2, "nearest_exact", False, "UpsampleNearestExact2DBackward0"),
    ("_upsample_nearest_exact3d", 3, "nearest_exact", False, "UpsampleNearestExact3DBackward0"),
    ("upsample_linear1d", 1, "linear", True, "UpsampleLinear1DBackward0"),
    ("upsample_bilinear2d", 2, "linear", True, "UpsampleBilinear2DBackward0"),
    ("upsample_trilinear3d", 3, "linear", True, "UpsampleTrilinear3DBackward0"),
    ("upsample_bicubic2d", 2, "cubic", True, "UpsampleBicubic2DBackward0"),
    ("_upsample_bilinear2d_aa", 2, "linear_aa", True, "UpsampleBilinear2DAaBackward0"),
    ("_upsample_bicubic2d_aa", 2, "cubic_aa", True, "UpsampleBicubic2DAaBackward0"),
)


def _register(name, spatial, mode, aligns, node):
    scales = ", ".join(f"float? scales{axis}=None" for axis in _AXES[spatial])
    corners = "bool align_corners, " if aligns else ""
    sizes = f"SymInt[{spatial}] output_size"
    scale_names = [f"scales{axis}" for axis in _AXES[spatial]]

    def split(args):
        """(align_corners, scales) from the arguments after output_size."""
        return (args[0], args[1:]) if aligns else (False, args)

    def forward(xp, self, output_size, *rest):
        align_corners, scale_values = split(rest)
        return _resample(xp, self, mode, spatial, output_size, align_corners,
                         scale_values, name)

    def backward(xp, grad_output, output_size, input_size, *rest):
        align_corners, scale_values = split(rest)
        return _resample(xp, grad_output, mode, spatial, output_size, align_corners,
                         scale_values, name, input_size=input_size)

    def forward_meta(self, output_size, *rest):
        _check_sizes(tuple(self.shape), tuple(output_size), spatial)
        return tuple(self.shape[:2]) + tuple(int(s) for s in output_size), self._dtype

    def backward_meta(grad_output, output_size, input_size, *rest):
        return tuple(int(s) for s in input_size), grad_output._dtype

    def rest_of(c):
        return ((c.align_corners,) if aligns else ()) + tuple(
            getattr(c, n) for n in scale_names)

    def forward_grad(c):
        return call(OPS[f"{name}_backward"], (c.grad, c.output_size, tuple(c.self.shape))
                    + rest_of(c))

    def backward_grad(c):
        return call(OPS[name], (c.grad, c.output_size) + rest_of(c))

    forward.__doc__ = (
        f"{name}(input, output_size, {corners}{', '.join(scale_names)}) -> Tensor: "
        f"{mode.replace('_', ' ')} resampling of the last {spatial} dims to output_size.")
    backward.__doc__ = f"The gradient of {name} with respect to its input."
    register_op(f"{name}(Tensor self, {sizes}, {corners}{scales}) -> Tensor", function=False,
                method=False, meta=forward_meta, saves=(), node_name=node,
                derivatives={"self": forward_grad}, tags=("fp_errors",))(forward)
    register_op(f"{name}_backward(Tensor grad_output, {sizes}, SymInt[{spatial}] input_size, "
                f"{corners}{scales}) -> Tensor", function=False, method=False,
                meta=backward_meta, saves=(), node_name=node.replace("Backward0",
                                                                     "BackwardBackward0"),
                derivatives={"grad_output": backward_grad},
                tags=("fp_errors",))(backward)


for _entry in _MODES:
    _register(*_entry)


# --------------------------------------------------------------------------- shuffles

def _pixel_shuffle_shape(shape, factor):
    _check(len(shape) >= 3, lambda: (
        f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
        f"{len(shape)} dimension(s)"))
    _check(factor > 0, lambda: f"pixel_shuffle expects a positive upscale_factor, but got {factor}")
    channels = shape[-3]
    _check(channels % (factor * factor) == 0, lambda: (
        f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
        f"of upscale_factor, but input.size(-3)={channels} is not divisible by "
        f"{factor * factor}"))
    return tuple(shape[:-3]) + (channels // (factor * factor), shape[-2] * factor,
                                shape[-1] * factor)


def _pixel_unshuffle_shape(shape, factor):
    _check(len(shape) >= 3, lambda: (
        f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
        f"{len(shape)} dimension(s)"))
    _check(factor > 0, lambda: (
        f"pixel_unshuffle expects a positive downscale_factor, but got {factor}"))
    for axis, what in ((-2, "height"), (-1, "width")):
        _check(shape[axis] % factor == 0, lambda axis=axis, what=what: (
            f"pixel_unshuffle expects {what} to be divisible by downscale_factor, but "
            f"input.size({axis})={shape[axis]} is not divisible by {factor}"))
    return tuple(shape[:-3]) + (shape[-3] * factor * factor, shape[-2] // factor,
                                shape[-1] // factor)


@register_op("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor", method=False,
             meta=lambda self, upscale_factor: (
                 _pixel_shuffle_shape(tuple(self.shape), upscale_factor), self._dtype),
             saves=(), derivatives={"self": lambda c: call(
                 OPS["pixel_unshuffle"], (c.grad, c.upscale_factor))})
def pixel_shuffle(xp, self, upscale_factor):
    """pixel_shuffle(input, upscale_factor) -> Tensor: (*, C*r*r, H, W) rearranged to
    (*, C, H*r, W*r), each group of r*r channels becoming an r x r block of pixels."""
    r = upscale_factor
    out = _pixel_shuffle_shape(self.shape, r)
    lead = self.shape[:-3]
    c, h, w = out[-3], self.shape[-2], self.shape[-1]
    blocks = self.reshape(lead + (c, r, r, h, w))
    n = len(lead)
    order = tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2)
    return xp.ascontiguousarray(blocks.transpose(order)).reshape(out)


@register_op("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor", method=False,
             meta=lambda self, downscale_factor: (
                 _pixel_unshuffle_shape(tuple(self.shape), downscale_factor), self._dtype),
             saves=(), derivatives={"self": lambda c: call(
                 OPS["pixel_shuffle"], (c.grad, c.downscale_factor))})
def pixel_unshuffle(xp, self, downscale_factor):
    """pixel_unshuffle(input, downscale_factor) -> Tensor: pixel_shuffle's inverse, (*, C,
    H*r, W*r) to (*, C*r*r, H, W)."""
    r = downscale_factor
    out = _pixel_unshuffle_shape(self.shape, r)
    lead = self.shape[:-3]
    c, h, w = self.shape[-3], out[-2], out[-1]
    blocks = self.reshape(lead + (c, h, r, w, r))
    n = len(lead)
    order = tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3)
    return xp.ascontiguousarray(blocks.transpose(order)).reshape(out)


def _channel_shuffle_check(shape, groups):
    _check(len(shape) > 2, lambda: (
        f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
        f"{len(shape)} dimension(s)"))
    _check(groups > 0, lambda: (
        f"Number of groups to divide channels in must be positive. Value of groups:{groups}"))
    _check(shape[1] % groups == 0, lambda: (
        f"Number of channels must be divisible by groups. Got {shape[1]} channels and "
        f"{groups} groups."))


def _channel_shuffle_grad(c):
    # Shuffling by g then by C/g is the identity: the inverse permutation.
    return call(OPS["native_channel_shuffle"], (c.grad, c.self.shape[1] // c.groups))


def _channel_shuffle_kernel(xp, self, groups):
    _channel_shuffle_check(self.shape, groups)
    n, channels = self.shape[0], self.shape[1]
    rest = self.shape[2:]
    grouped = self.reshape((n, groups, channels // groups) + rest)
    return xp.ascontiguousarray(grouped.swapaxes(1, 2)).reshape(self.shape)


def _channel_shuffle_meta(self, groups):
    _channel_shuffle_check(tuple(self.shape), groups)
    return tuple(self.shape), self._dtype


register_op("native_channel_shuffle(Tensor self, SymInt groups) -> Tensor", method=False,
            meta=_channel_shuffle_meta, saves=("self",), derivatives={"self": _channel_shuffle_grad},
            doc="native_channel_shuffle(input, groups) -> Tensor: channel_shuffle's kernel.",
            )(_channel_shuffle_kernel)


@register_op("channel_shuffle(Tensor self, SymInt groups) -> Tensor", method=False,
             meta=_channel_shuffle_meta, saves=("self",),
             derivatives={"self": _channel_shuffle_grad})
def channel_shuffle(xp, self, groups):
    """channel_shuffle(input, groups) -> Tensor: (N, g*k, *) with its channels reordered as
    the transpose of a (g, k) grid, interleaving the g groups."""
    return _channel_shuffle_kernel(xp, self, groups)
