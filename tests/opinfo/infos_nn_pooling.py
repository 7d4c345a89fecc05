"""OpInfo entries for ember.nn.functional pooling and resampling (src/ember/_ops/nn_pooling.py,
nn_sampling.py, nn_grid.py, nn_fractional.py): values, meta, gradients and float64
gradcheck / gradgradcheck against PyTorch on small samples."""
import numpy as np

from opinfo.core import ALL_FLOAT, HALF, HALF_INTERMEDIATES, ErrorSample, OpInfo, Sample, T

FLOATS = ALL_FLOAT + HALF
# Small first: gradcheck takes the first samples. Random uniform values have no ties.


def max_pool1d_samples(make, dtype):
    yield Sample((T(make((1, 2, 7), dtype)), 3), {"stride": 2, "padding": 1}, name="pad")
    yield Sample((T(make((2, 6), dtype)), 2), name="unbatched")
    yield Sample((T(make((1, 2, 8), dtype)), 2), {"dilation": 2, "ceil_mode": True,
                                                  "return_indices": True}, name="indices")


def max_pool2d_samples(make, dtype):
    yield Sample((T(make((1, 2, 5, 4), dtype)), 2), name="2x2")
    yield Sample((T(make((2, 5, 4), dtype)), (3, 2)), {"stride": 1, "padding": 1},
                 name="unbatched pad")
    yield Sample((T(make((1, 1, 7, 6), dtype)), 3), {"stride": 2, "dilation": 2,
                                                     "ceil_mode": True}, name="dilated ceil")
    yield Sample((T(make((2, 2, 4, 4), dtype)), 2), {"return_indices": True}, name="indices")
    yield Sample((T(make((0, 2, 4, 4), dtype)), 2), name="empty batch")


def max_pool3d_samples(make, dtype):
    yield Sample((T(make((1, 1, 2, 2, 3), dtype)), 2), {"stride": 1}, name="tiny")
    yield Sample((T(make((1, 1, 3, 4, 4), dtype)), 2), {"stride": 1, "padding": 1},
                 name="pad")
    yield Sample((T(make((2, 3, 4, 5), dtype)), (1, 2, 2)), {"ceil_mode": True,
                                                            "return_indices": True},
                 name="unbatched indices")


def max_pool_errors(make):
    yield ErrorSample(Sample((T(make((1, 1, 3, 3), "float32")), 4), name="kernel too large"),
                      RuntimeError, "Output size is too small")
    yield ErrorSample(Sample((T(make((1, 1, 4, 4), "float32")), 2), {"padding": 2},
                             name="padding too large"), RuntimeError, "pad should be")


def avg_pool1d_samples(make, dtype):
    yield Sample((T(make((1, 2, 7), dtype)), 3), {"stride": 2, "padding": 1,
                                                  "count_include_pad": False}, name="pad")
    yield Sample((T(make((2, 6), dtype)), 2), {"ceil_mode": True}, name="unbatched ceil")


def avg_pool2d_samples(make, dtype):
    yield Sample((T(make((1, 1, 3, 4), dtype)), 2), name="tiny")
    yield Sample((T(make((1, 2, 5, 4), dtype)), 2), name="2x2")
    yield Sample((T(make((2, 5, 4), dtype)), (3, 2)), {"stride": 1, "padding": 1},
                 name="unbatched pad")
    yield Sample((T(make((1, 1, 7, 6), dtype)), 3), {"stride": 2, "padding": 1,
                                                     "ceil_mode": True,
                                                     "count_include_pad": False},
                 name="ceil no pad count")
    yield Sample((T(make((1, 2, 4, 4), dtype)), 3), {"padding": 1, "divisor_override": 2},
                 name="divisor")


def avg_pool3d_samples(make, dtype):
    yield Sample((T(make((1, 1, 2, 2, 3), dtype)), 2), {"stride": 1}, name="tiny")
    yield Sample((T(make((1, 1, 3, 4, 4), dtype)), 2), {"stride": 1, "padding": 1},
                 name="pad")
    yield Sample((T(make((2, 3, 4, 5), dtype)), (1, 2, 2)), {"ceil_mode": True,
                                                            "divisor_override": 3},
                 name="unbatched divisor")


def adaptive_samples(spatial):
    def samples(make, dtype):
        yield Sample((T(make((1, 1) + (2, 2, 3)[3 - spatial:], dtype)), (1, 2, 2)[3 - spatial:]),
                     name="tiny")
        shape = (1, 2, 7, 6, 5)[: spatial + 2]
        yield Sample((T(make(shape, dtype)), 3), name="shrink")
        yield Sample((T(make(shape[1:], dtype)), (4, 5, 3)[:spatial]), name="unbatched")
        yield Sample((T(make(shape, dtype)), tuple(shape[2:])), name="same size")
        yield Sample((T(make((1, 1) + (2,) * spatial, dtype)), 3), name="grow")
    return samples


def adaptive_max_samples(spatial):
    base = adaptive_samples(spatial)

    def samples(make, dtype):
        yield from base(make, dtype)
        shape = (2, 2, 5, 4, 6)[: spatial + 2]
        yield Sample((T(make(shape, dtype)), 2), {"return_indices": True}, name="indices")
    return samples


def lp_pool_samples(make, dtype):
    yield Sample((T(make((1, 1, 3, 4), dtype, 0.5, 2.0)), 2.0, 2), name="tiny")
    yield Sample((T(make((1, 2, 4, 4), dtype, 0.5, 2.0)), 2.0, 2), name="p=2")
    yield Sample((T(make((1, 2, 5, 4), dtype, 0.5, 2.0)), 3.0, (2, 3)), {"stride": 1},
                 name="p=3 stride 1")


def max_unpool2d_samples(make, dtype):
    yield Sample((T(make((1, 1, 1, 2), dtype)), T(np.array([[[[4, 3]]]], np.int64)), 2),
                 name="tiny")
    values = make((1, 2, 2, 3), dtype)
    # The indices max_pool2d(kernel 2) would give on a (4, 6) input: one per window.
    rng = np.random.default_rng(0)
    rows = np.arange(2).reshape(2, 1) * 2 + rng.integers(0, 2, (1, 2, 2, 3))
    cols = np.arange(3).reshape(1, 3) * 2 + rng.integers(0, 2, (1, 2, 2, 3))
    indices = (rows * 6 + cols).astype(np.int64)
    yield Sample((T(values), T(indices), 2), name="kernel 2")
    yield Sample((T(values), T(indices), 2), {"output_size": (5, 7)}, name="output size")


def interpolate_samples(make, dtype):
    x3, x4, x5 = make((1, 2, 4), dtype), make((1, 2, 3, 4), dtype), make((1, 1, 2, 3, 3), dtype)
    yield Sample((T(x4),), {"size": (5, 3), "mode": "bilinear"}, name="bilinear")
    yield Sample((T(x4),), {"scale_factor": 1.5, "mode": "bicubic", "align_corners": True},
                 name="bicubic aligned")
    yield Sample((T(x3),), {"scale_factor": 2.5, "mode": "linear"}, name="linear")
    yield Sample((T(x5),), {"size": (3, 2, 4), "mode": "trilinear"}, name="trilinear")
    yield Sample((T(x4),), {"size": (2, 3), "mode": "bilinear", "antialias": True},
                 name="bilinear antialias")
    yield Sample((T(x4),), {"size": (2, 3), "mode": "bicubic", "antialias": True},
                 name="bicubic antialias")
    yield Sample((T(x4),), {"scale_factor": (2.0, 0.7)}, name="nearest")
    yield Sample((T(x3),), {"size": 7, "mode": "nearest-exact"}, name="nearest-exact")
    yield Sample((T(x5),), {"size": (3, 2, 4), "mode": "nearest"}, name="nearest 3d")
    yield Sample((T(x4),), {"size": (2, 3), "mode": "area"}, name="area")


def interpolate_errors(make):
    x = make((1, 1, 3, 3), "float32")
    yield ErrorSample(Sample((T(x),), {"size": 2, "mode": "linear"}, name="linear on 4-d"),
                      NotImplementedError, "linear mode needs 3D input")
    yield ErrorSample(Sample((T(x),), {"size": (0, 2)}, name="empty output"), RuntimeError,
                      "Input and output sizes should be greater than 0")
    yield ErrorSample(Sample((T(x),), name="no size"), ValueError, "either size or")


def pixel_shuffle_samples(make, dtype):
    yield Sample((T(make((1, 4, 1, 2), dtype)), 2), name="tiny")
    yield Sample((T(make((1, 8, 2, 3), dtype)), 2), name="4-d")
    yield Sample((T(make((9, 2, 2), dtype)), 3), name="unbatched")


def pixel_unshuffle_samples(make, dtype):
    yield Sample((T(make((1, 1, 2, 4), dtype)), 2), name="tiny")
    yield Sample((T(make((1, 2, 4, 6), dtype)), 2), name="4-d")
    yield Sample((T(make((1, 6, 6), dtype)), 3), name="unbatched")


def channel_shuffle_samples(make, dtype):
    yield Sample((T(make((2, 6, 2, 2), dtype)), 3), name="4-d")
    yield Sample((T(make((1, 4, 3), dtype)), 2), name="3-d")


def pixel_shuffle_errors(make):
    yield ErrorSample(Sample((T(make((1, 3, 2, 2), "float32")), 2), name="channels"),
                      RuntimeError, "divisible by the square of upscale_factor")


def grid_sample_samples(make, dtype):
    for mode in ("bilinear", "bicubic", "nearest"):
        for padding in ("zeros", "reflection"):
            yield Sample((T(make((1, 2, 3, 4), dtype)), T(make((1, 2, 3, 2), dtype, -1.2, 1.2))),
                         {"mode": mode, "padding_mode": padding,
                          "align_corners": padding == "zeros"}, name=f"{mode} {padding}")
    yield Sample((T(make((1, 1, 2, 3, 3), dtype)), T(make((1, 2, 2, 1, 3), dtype, -1.2, 1.2))),
                 {"padding_mode": "border", "align_corners": False}, name="3-d border")


def affine_grid_samples(make, dtype):
    yield Sample((T(make((1, 2, 3), dtype)), (1, 1, 2, 2)), {"align_corners": False},
                 name="tiny")
    yield Sample((T(make((2, 2, 3), dtype)), (2, 1, 3, 4)), {"align_corners": False},
                 name="2-d")
    yield Sample((T(make((1, 3, 4), dtype)), (1, 2, 2, 3, 2)), {"align_corners": True},
                 name="3-d aligned")


def fractional_samples(spatial):
    def samples(make, dtype):
        tiny = (1, 1, 4, 4) if spatial == 2 else (1, 1, 2, 2, 4)
        yield Sample((T(make(tiny, dtype)), (2,) * 2 if spatial == 2 else (1, 1, 2)),
                     {"output_size": (2, 2) if spatial == 2 else (1, 1, 2),
                      "_random_samples": T(make((1, 1, spatial), dtype, 0.0, 1.0))},
                     name="tiny")
        shape = (1, 2, 7, 6, 6)[: spatial + 2]
        draws = T(make((1, 2, spatial), dtype, 0.0, 1.0))
        out = (4, 3, 3)[:spatial]
        yield Sample((T(make(shape, dtype)), 2), {"output_size": out, "_random_samples": draws},
                     name="output size")
        yield Sample((T(make(shape, dtype)), 2), {"output_ratio": (0.5,) * spatial,
                                                  "return_indices": True,
                                                  "_random_samples": draws}, name="ratio")
        # PyTorch's functional form takes len() of the ratio: a bare number is a TypeError.
        yield Sample((T(make(shape, dtype)), 2), {"output_ratio": 0.5, "_random_samples": draws},
                     name="scalar ratio")
    return samples


def _entry(name, samples, **options):
    options.setdefault("dtypes", FLOATS)
    return OpInfo(f"nn.functional.{name}", samples, method=False, supports_out=False,
                  supports_autograd=True, **options)


# Random draws are arguments here (no gradient), as the first tensor is the only input.
FIRST = (0,)
OPINFOS = [
    _entry("max_pool1d", max_pool1d_samples),
    _entry("max_pool2d", max_pool2d_samples, errors=max_pool_errors),
    _entry("max_pool3d", max_pool3d_samples),
    _entry("avg_pool1d", avg_pool1d_samples),
    _entry("avg_pool2d", avg_pool2d_samples),
    _entry("avg_pool3d", avg_pool3d_samples),
    _entry("adaptive_avg_pool1d", adaptive_samples(1)),
    _entry("adaptive_avg_pool2d", adaptive_samples(2)),
    # PyTorch's half kernel sums a window in half.
    _entry("adaptive_avg_pool3d", adaptive_samples(3), tolerances=HALF_INTERMEDIATES),
    _entry("adaptive_max_pool1d", adaptive_max_samples(1)),
    _entry("adaptive_max_pool2d", adaptive_max_samples(2)),
    _entry("adaptive_max_pool3d", adaptive_max_samples(3)),
    _entry("lp_pool2d", lp_pool_samples, dtypes=ALL_FLOAT),
    # PyTorch's max_unpool2d backward views its indices (a strided copy fails there): the
    # indices go in contiguous, the values as the sample gives them.
    _entry("max_unpool2d", max_unpool2d_samples, grad_args=FIRST,
           call=lambda lib, values, indices, *args, **kwargs: lib.nn.functional.max_unpool2d(
               values, indices.contiguous(), *args, **kwargs)),
    # PyTorch's half bicubic kernel rounds its weights and partial sums to half.
    _entry("interpolate", interpolate_samples, errors=interpolate_errors,
           tolerances=HALF_INTERMEDIATES),
    _entry("pixel_shuffle", pixel_shuffle_samples, errors=pixel_shuffle_errors),
    _entry("pixel_unshuffle", pixel_unshuffle_samples),
    _entry("channel_shuffle", channel_shuffle_samples),
    # PyTorch has no second derivative of grid sampling either.
    _entry("grid_sample", grid_sample_samples, dtypes=ALL_FLOAT, gradgradcheck=False),
    _entry("affine_grid", affine_grid_samples, dtypes=ALL_FLOAT),
    _entry("fractional_max_pool2d", fractional_samples(2), grad_args=FIRST),
    _entry("fractional_max_pool3d", fractional_samples(3), grad_args=FIRST),
]
