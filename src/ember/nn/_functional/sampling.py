"""Resampling functions of `ember.nn.functional`: interpolate (and the deprecated upsample
forms), pixel_shuffle, pixel_unshuffle and channel_shuffle, over the registry ops of
`ember._ops.nn_sampling`."""
from __future__ import annotations

import warnings

import numpy as np

from ember._core import arguments
from ember._core.checks import _check_not_implemented, _check_type, _check_value
from ember._core.dispatch import Tensor, call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS
from ember.nn._functional.pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
)

__all__ = [
    "affine_grid",
    "channel_shuffle",
    "grid_sample",
    "interpolate",
    "native_channel_shuffle",
    "pixel_shuffle",
    "pixel_unshuffle",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

# mode -> {input ndim: registry op} (the interpolating modes take align_corners)
_OPS = {
    "nearest": {3: "upsample_nearest1d", 4: "upsample_nearest2d", 5: "upsample_nearest3d"},
    "nearest-exact": {3: "_upsample_nearest_exact1d", 4: "_upsample_nearest_exact2d",
                      5: "_upsample_nearest_exact3d"},
    "linear": {3: "upsample_linear1d"},
    "bilinear": {4: "upsample_bilinear2d"},
    "bicubic": {4: "upsample_bicubic2d"},
    "trilinear": {5: "upsample_trilinear3d"},
}
_ANTIALIASED = {"bilinear": "_upsample_bilinear2d_aa", "bicubic": "_upsample_bicubic2d_aa"}
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
_AREA = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) or isinstance(value, Tensor) and \
        not value.dtype.is_floating_point and not value.dtype.is_complex and value.numel() == 1


def _integer(value):
    """A size as the resampling ops' parser takes it (an int; TypeError for anything else)."""
    return arguments.int_list((value,), ("upsample", "output_size", 2))[0]


def _floating(value):
    """A scale as the resampling ops' parser takes it (a float; TypeError otherwise, for a
    tensor too: the ops take a list of floats)."""
    if isinstance(value, Tensor):
        arguments.refuse(("upsample", "scale_factors", 3), "tuple of floats", value)
    return arguments.float_(value, ("upsample", "scale_factors", 3))


def _sizes_and_scales(input, size, scale_factor, recompute_scale_factor, mode):
    dim = input.dim() - 2     # (input.dim(), as PyTorch: a NumPy array's AttributeError)
    spatial = list(input.shape[2:])
    _check_value(size is None or scale_factor is None,
                 "only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            _check_value(len(size) == dim, lambda: (
                f"Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {spatial} and output size of {size}. Please "
                "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, "
                "o2, ...,oK) format."))
            _check_type(all(_is_integer(s) for s in size), lambda: (
                f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"))
            output_size = [int(s) for s in size]
        else:
            output_size = [size] * dim      # (the op's parser reads it, after the rank check)
        scales = None
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            _check_value(len(scale_factor) == dim, lambda: (
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {spatial} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                "and scale_factor in (s1, s2, ...,sK) format."))
            scales = list(scale_factor)
        else:
            scales = [scale_factor] * dim
        output_size = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    _check_value(not (recompute_scale_factor and size is not None),
                 "recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        # (PyTorch's sym_int of the product: truncated; its ValueError for a str scale)
        output_size = [int(n * s) for n, s in zip(spatial, scales)]
        scales = None
    return output_size, scales


def _parsed(input, output_size, scales):
    """The sizes and scales as the resampling ops' parser takes them (past the rank check)."""
    if scales is not None:
        scales = [_floating(s) for s in scales]
    if output_size is None:
        # As PyTorch's .vec overloads: the size is the truncated product, the scales go on.
        output_size = [int(n * s) for n, s in zip(input.shape[2:], scales)]
    else:
        output_size = [_integer(n) for n in output_size]
    return tuple(output_size), tuple(scales) if scales is not None else \
        (None,) * len(output_size)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of (N, C, *spatial) to `size` or by `scale_factor`."""
    if _state.entry and _wants(locals()):
        return _handle(interpolate, locals())
    if mode in ("nearest", "area", "nearest-exact"):
        _check_value(align_corners is None, (
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"))
    elif align_corners is None:
        align_corners = False
    # (PyTorch reads the sizes and the antialias flag before it looks at the rank and mode.)
    output_size, scales = _sizes_and_scales(input, size, scale_factor, recompute_scale_factor,
                                            mode)
    _check_value(not antialias or (mode in _ANTIALIASED and input.ndim == 4), (
        "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
        "a 4-D tensor as input"))
    known = mode in _OPS or mode == "area"
    _check_not_implemented(known and input.ndim in (3, 4, 5), lambda: (
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
        "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})"))
    output_size, scales = _parsed(input, output_size, scales)
    if mode == "area":
        return _AREA[input.ndim](input, output_size)
    if mode in _NEEDS:
        _check_not_implemented(input.ndim == _NEEDS[mode], lambda: (
            f"Got {input.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input"))
        name = _ANTIALIASED[mode] if antialias else _OPS[mode][input.ndim]
        return call(OPS[name], (input, output_size, bool(align_corners)) + scales)
    return call(OPS[_OPS[mode][input.ndim]], (input, output_size) + scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate."""
    if _state.entry and _wants(locals()):
        return _handle(upsample, locals())
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='nearest')."""
    if _state.entry and _wants(locals()):
        return _handle(upsample_nearest, locals())
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True)."""
    if _state.entry and _wants(locals()):
        return _handle(upsample_bilinear, locals())
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    if _state.entry and _wants(locals()):
        return _handle(pixel_shuffle, locals())
    return call(OPS["pixel_shuffle"], (input, upscale_factor))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    if _state.entry and _wants(locals()):
        return _handle(pixel_unshuffle, locals())
    return call(OPS["pixel_unshuffle"], (input, downscale_factor))


def channel_shuffle(input, groups):
    """Interleave `groups` groups of channels of (N, C, *)."""
    if _state.entry and _wants(locals()):
        return _handle(channel_shuffle, locals())
    return call(OPS["channel_shuffle"], (input, groups))


def native_channel_shuffle(input, groups):
    """channel_shuffle's kernel, as torch.nn.functional.native_channel_shuffle."""
    if _state.entry and _wants(locals()):
        return _handle(native_channel_shuffle, locals())
    return call(OPS["native_channel_shuffle"], (input, groups))


# --------------------------------------------------------------------------- grids

_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}
_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, *spatial) read at grid's normalised positions (N, *out, k)."""
    if _state.entry and _wants(locals()):
        return _handle(grid_sample, locals())
    _check_value(mode in _GRID_MODES, lambda: (
        "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
        f"'bicubic', but got: '{mode}'"))
    _check_value(padding_mode in _GRID_PADDING, lambda: (
        "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
        f"'reflection', but got: '{padding_mode}'"))
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    arguments.tensor_(input, ("grid_sampler", "input", 1))
    arguments.tensor_(grid, ("grid_sampler", "grid", 2))
    if align_corners is not True and align_corners is not False:
        arguments.bool_(align_corners, ("grid_sampler", "align_corners", 5))
    name = "grid_sampler_3d" if input.ndim == 5 else "grid_sampler_2d"
    return call(OPS[name], (input, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode],
                            bool(align_corners)))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, *spatial, k) of the affine maps theta (N, k, k + 1)."""
    if _state.entry and _wants(locals()):
        return _handle(affine_grid, locals())
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_value(theta.is_floating_point(), lambda: (
        f"Expected theta to have floating point type, but got {theta.dtype}"))
    size = list(size)
    if len(size) == 4:
        _check_value(theta.ndim == 3 and tuple(theta.shape[-2:]) == (2, 3), lambda: (
            f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {tuple(size)}. "
            f"Got {theta.shape}."))
        spatial = size[-2:]
    elif len(size) == 5:
        _check_value(theta.ndim == 3 and tuple(theta.shape[-2:]) == (3, 4), lambda: (
            f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {tuple(size)}. "
            f"Got {theta.shape}."))
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {tuple(size)}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an issue for standard "
                      "square grids, but may be an issue for rectangular ones.", stacklevel=2)
    _check_value(min(size) > 0, lambda: f"Expected non-zero, positive output size. Got {tuple(size)}")
    return call(OPS["affine_grid_generator"], (theta, size, bool(align_corners)))
