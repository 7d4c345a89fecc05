"""Resampling and window pooling with inf, NaN, -0.0 and values near float32's largest against
PyTorch: an output takes NaN or inf only from the inputs PyTorch's loops read for it (NOTE
[taps, not matrices] in ember/_ops/nn_windows.py), forward and backward."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F

INF, NAN = math.inf, math.nan


def _assert_same(got, want, atol=1e-6):
    """Same shape and dtype, NaN and inf exactly where PyTorch has them, finite values close."""
    got, want = got.detach().numpy(), want.detach().numpy()
    assert got.shape == want.shape and str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite].astype(np.float64), want[finite].astype(np.float64),
                               rtol=1e-5, atol=atol)


def _row(values, spatial):
    """(1, 2, *spatial shape) float32: channel 0 holds `values` (reshaped), channel 1 a ramp."""
    values = np.asarray(values, np.float32)
    ramp = np.arange(values.size, dtype=np.float32)
    return np.stack([values, ramp]).reshape((1, 2) + spatial)


SPECIAL_1D = _row([1.0, INF, 2.0, 3.0, 4.0, 5.0, NAN, 7.0, -INF, 9.0, 10.0, 11.0], (12,))
SPECIAL_2D = _row(np.where(np.arange(36) == 8, INF, np.where(np.arange(36) == 27, NAN,
                                                             np.arange(36.0))), (6, 6))
SPECIAL_3D = _row(np.where(np.arange(64) == 21, -INF, np.where(np.arange(64) == 50, NAN,
                                                               np.arange(64.0))), (4, 4, 4))

INTERPOLATIONS = [
    (SPECIAL_1D, {"size": 5, "mode": "nearest"}),
    (SPECIAL_1D, {"size": 29, "mode": "nearest"}),
    (SPECIAL_1D, {"scale_factor": 2, "mode": "nearest"}),
    (SPECIAL_1D, {"size": 7, "mode": "nearest-exact"}),
    (SPECIAL_1D, {"size": 30, "mode": "nearest-exact"}),
    (SPECIAL_1D, {"size": 5, "mode": "linear"}),
    (SPECIAL_1D, {"size": 25, "mode": "linear"}),
    (SPECIAL_1D, {"size": 23, "mode": "linear", "align_corners": True}),
    (SPECIAL_2D, {"size": (3, 4), "mode": "nearest"}),
    (SPECIAL_2D, {"scale_factor": 2, "mode": "nearest"}),
    (SPECIAL_2D, {"size": (13, 5), "mode": "nearest-exact"}),
    (SPECIAL_2D, {"size": (5, 7), "mode": "bilinear"}),
    (SPECIAL_2D, {"size": (12, 12), "mode": "bilinear", "align_corners": True}),
    (SPECIAL_2D, {"size": (4, 9), "mode": "bicubic"}),
    (SPECIAL_2D, {"size": (3, 3), "mode": "bilinear", "antialias": True}),
    (SPECIAL_2D, {"size": (4, 9), "mode": "bicubic", "antialias": True}),
    (SPECIAL_3D, {"size": (3, 5, 8), "mode": "nearest"}),
    (SPECIAL_3D, {"size": (3, 5, 8), "mode": "nearest-exact"}),
    (SPECIAL_3D, {"size": (3, 5, 8), "mode": "trilinear"}),
]


@pytest.mark.parametrize("values, kwargs", INTERPOLATIONS)
def test_interpolate_keeps_non_finite_values_in_the_outputs_that_read_them(values, kwargs):
    _assert_same(F.interpolate(ember.tensor(values), **kwargs),
                 TF.interpolate(torch.tensor(values), **kwargs))


def test_nearest_reads_one_element_in_a_row_with_the_largest_float32():
    values = [[[2.9, 3.4e38], [1.5, NAN]]]
    _assert_same(F.interpolate(ember.tensor(values), scale_factor=2, mode="nearest"),
                 TF.interpolate(torch.tensor(values), scale_factor=2, mode="nearest"))


def test_nearest_copies_negative_zero():
    values = [[[-0.0, 1.0, -0.0]]]
    got = F.interpolate(ember.tensor(values), size=7, mode="nearest").numpy()
    want = TF.interpolate(torch.tensor(values), size=7, mode="nearest").numpy()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_wide_axes_gather_their_windows():
    # Axes too wide for the dense product: the taps are gathered, padded rows included.
    # (PyTorch computes the antialiasing weights in float32: agreement to ~1e-4 there.)
    values = np.random.default_rng(0).standard_normal((1, 2, 301)).astype(np.float32)
    values[0, 0, [3, 150]] = INF
    values[0, 1, 200] = NAN
    for op in (lambda f, x: f.adaptive_avg_pool1d(x, 7),
               lambda f, x: f.interpolate(x, size=97, mode="linear"),
               lambda f, x: f.interpolate(x[:, :, None], size=(2, 44), mode="bilinear",
                                          antialias=True)):
        _assert_same(op(F, ember.tensor(values)), op(TF, torch.tensor(values)), atol=1e-4)


POOLS = [
    (SPECIAL_1D, lambda f, x: f.adaptive_avg_pool1d(x, 5)),
    (SPECIAL_1D, lambda f, x: f.adaptive_avg_pool1d(x, 3)),
    (SPECIAL_1D, lambda f, x: f.avg_pool1d(x, 2)),
    (SPECIAL_1D, lambda f, x: f.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
    (SPECIAL_1D, lambda f, x: f.avg_pool1d(x, 4, 3, 2, ceil_mode=True)),
    (SPECIAL_1D, lambda f, x: f.lp_pool1d(x, 2.0, 2)),
    (SPECIAL_2D, lambda f, x: f.adaptive_avg_pool2d(x, (4, 5))),
    (SPECIAL_2D, lambda f, x: f.avg_pool2d(x, 2)),
    (SPECIAL_2D, lambda f, x: f.avg_pool2d(x, 3, 1, 1, divisor_override=5)),
    (SPECIAL_2D, lambda f, x: f.lp_pool2d(x, 3.0, 2)),
    (SPECIAL_3D, lambda f, x: f.adaptive_avg_pool3d(x, (3, 2, 3))),
    (SPECIAL_3D, lambda f, x: f.avg_pool3d(x, 2, 1)),
]


@pytest.mark.parametrize("values, op", POOLS)
def test_window_means_mix_only_the_elements_of_their_window(values, op):
    _assert_same(op(F, ember.tensor(values)), op(TF, torch.tensor(values)))


def test_window_sums_overflow_before_the_division_as_in_torch():
    values = [[[3e38, 3e38, 1.0, 2.0]]]
    for op in (lambda f, x: f.avg_pool1d(x, 2), lambda f, x: f.adaptive_avg_pool1d(x, 2),
               lambda f, x: f.avg_pool2d(x[None], (1, 2)),
               lambda f, x: f.adaptive_avg_pool2d(x[None], (1, 2))):
        _assert_same(op(F, ember.tensor(values)), op(TF, torch.tensor(values)))


def test_non_contiguous_and_half_inputs():
    values = torch.tensor(SPECIAL_2D).transpose(-1, -2)
    got = F.interpolate(ember.tensor(SPECIAL_2D).transpose(-1, -2), size=(5, 7), mode="bilinear")
    _assert_same(got, TF.interpolate(values, size=(5, 7), mode="bilinear"))
    half = torch.tensor(SPECIAL_1D).half()
    _assert_same(F.adaptive_avg_pool1d(ember.tensor(SPECIAL_1D).half(), 4),
                 TF.adaptive_avg_pool1d(half, 4))


BACKWARDS = [
    lambda f, x: f.interpolate(x, size=29, mode="nearest"),
    lambda f, x: f.interpolate(x, size=5, mode="nearest"),
    lambda f, x: f.interpolate(x, size=25, mode="linear"),
    lambda f, x: f.adaptive_avg_pool1d(x, 5),
    lambda f, x: f.avg_pool1d(x, 3, 2, 1),
    lambda f, x: f.interpolate(x[:, :, None], size=(3, 17), mode="bicubic")[:, :, 1],
]


@pytest.mark.parametrize("op", BACKWARDS)
def test_gradients_carry_inf_only_to_the_inputs_read(op):
    values = np.linspace(1.0, 2.0, 24, dtype=np.float32).reshape(1, 2, 12)
    shape = op(TF, torch.tensor(values)).shape
    grad = np.linspace(-1.0, 1.0, math.prod(shape), dtype=np.float32).reshape(shape)
    grad.flat[1] = INF
    grad.flat[-2] = NAN
    results = []
    for lib, f in ((ember, F), (torch, TF)):
        x = lib.tensor(values, requires_grad=True)
        op(f, x).backward(lib.tensor(grad))
        results.append(x.grad)
    _assert_same(*results)


@pytest.mark.parametrize("norm_type", [INF, -INF])
def test_lp_pool_of_infinite_order_is_the_largest_or_smallest_magnitude(norm_type):
    values = [[[1.0, -3.0, 2.0, -0.5, NAN, 4.0]]]
    for op in (lambda f, x: f.lp_pool1d(x, norm_type, 1), lambda f, x: f.lp_pool1d(x, norm_type, 2),
               lambda f, x: f.lp_pool2d(x[None], norm_type, (1, 2)),
               lambda f, x: f.lp_pool3d(x[None, None], norm_type, (1, 1, 3)),
               lambda f, x: (ember.nn if f is F else torch.nn).LPPool1d(norm_type, 2)(x)):
        _assert_same(op(F, ember.tensor(values)), op(TF, torch.tensor(values)))
