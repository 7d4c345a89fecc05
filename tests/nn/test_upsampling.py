"""interpolate / Upsample against PyTorch: every mode, size and scale_factor, align_corners,
recompute_scale_factor, antialias; gradients, warnings and errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember._ops import nn_windows
from nn.compare import assert_close, check_module, to_ember


def _input(shape, dtype=torch.float64, seed=0):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype)


SHAPES = {3: (2, 3, 5), 4: (2, 2, 5, 7), 5: (1, 2, 3, 4, 5)}
CASES = [
    ("nearest", 3, {"scale_factor": 2.5}),
    ("nearest", 4, {"size": (9, 4)}),
    ("nearest", 4, {"scale_factor": (2.0, 0.7)}),   # PyTorch's doubling shortcut
    ("nearest", 5, {"scale_factor": 1.7}),
    ("nearest-exact", 3, {"size": 8}),
    ("nearest-exact", 4, {"scale_factor": (1.5, 0.6)}),
    ("nearest-exact", 5, {"size": (5, 3, 7)}),
    ("linear", 3, {"scale_factor": 1.7}),
    ("linear", 3, {"size": 4, "align_corners": True}),
    ("bilinear", 4, {"size": (9, 4)}),
    ("bilinear", 4, {"scale_factor": (2.3, 0.6), "align_corners": True}),
    ("bilinear", 4, {"scale_factor": 1.5, "recompute_scale_factor": True}),
    ("bilinear", 4, {"size": (3, 11), "antialias": True}),
    ("bilinear", 4, {"scale_factor": 0.45, "antialias": True, "align_corners": True}),
    ("bicubic", 4, {"size": (9, 4)}),
    ("bicubic", 4, {"scale_factor": 1.3, "align_corners": True}),
    ("bicubic", 4, {"size": (2, 3), "antialias": True}),
    ("trilinear", 5, {"size": (5, 3, 7)}),
    ("trilinear", 5, {"scale_factor": (1.5, 0.5, 2.0), "align_corners": True}),
    ("area", 3, {"size": 3}),
    ("area", 4, {"scale_factor": 0.5}),
    ("area", 5, {"size": (2, 3, 2)}),
]


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64))
@pytest.mark.parametrize("mode,ndim,kwargs", CASES)
def test_upsample_module_matches_torch(mode, ndim, kwargs, dtype):
    kwargs = dict(kwargs)
    antialias = kwargs.pop("antialias", False)
    x = _input(SHAPES[ndim], dtype)
    if antialias:
        # Upsample has no antialias argument: compare the function, forward and backward.
        t_x = x.clone().requires_grad_()
        e_x = to_ember(t_x, requires_grad=True)
        t_out = TF.interpolate(t_x, mode=mode, antialias=True, **kwargs)
        e_out = F.interpolate(e_x, mode=mode, antialias=True, **kwargs)
        assert_close(e_out, t_out)
        weights = _input(tuple(t_out.shape), dtype, seed=1)
        (t_out * weights).sum().backward()
        (e_out * to_ember(weights)).sum().backward()
        assert_close(e_x.grad, t_x.grad)
        return
    t_module = torch.nn.Upsample(mode=mode, **kwargs)
    e_module = ember.nn.Upsample(mode=mode, **kwargs)
    check_module(t_module, e_module, x)


def test_fixed_mode_upsampling_modules():
    x = _input((2, 2, 4, 5))
    check_module(torch.nn.UpsamplingNearest2d(scale_factor=2),
                 ember.nn.UpsamplingNearest2d(scale_factor=2), x)
    check_module(torch.nn.UpsamplingBilinear2d(size=(7, 3)),
                 ember.nn.UpsamplingBilinear2d(size=(7, 3)), x)


def test_upsample_unbatched_is_refused_like_torch():
    # interpolate reads (N, C, *spatial); a 2-d input is an error in both.
    assert _error_of(TF.interpolate, _input((3, 5)), 2) is _error_of(
        F.interpolate, to_ember(_input((3, 5))), 2)


def test_half_types_are_computed_in_float32():
    for dtype in (torch.float16, torch.bfloat16):
        x = _input((1, 2, 4, 5)).to(dtype)
        got = F.interpolate(to_ember(x), scale_factor=2, mode="bilinear")
        assert str(got.dtype) == str(dtype).replace("torch", "ember")
        assert_close(got.float(), TF.interpolate(x, scale_factor=2, mode="bilinear").float(),
                     rtol=1e-2, atol=1e-2)


def test_double_backward_matches_torch():
    x = _input((1, 2, 3, 4)).requires_grad_()
    e = to_ember(x, requires_grad=True)
    (g_t,) = torch.autograd.grad((TF.interpolate(x, size=(5, 3), mode="bicubic") ** 2).sum(),
                                 x, create_graph=True)
    (g_e,) = ember.autograd.grad((F.interpolate(e, size=(5, 3), mode="bicubic") ** 2).sum(),
                                 e, create_graph=True)
    assert_close(g_e, g_t)
    assert_close(ember.autograd.grad(g_e.pow(2).sum(), e)[0],
                 torch.autograd.grad(g_t.pow(2).sum(), x)[0])


def test_deprecated_forms_warn_like_torch():
    x = _input((1, 1, 3, 3))
    for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
        with warnings.catch_warnings(record=True) as t_caught:
            warnings.simplefilter("always")
            expected = getattr(TF, name)(x, scale_factor=2)
        with warnings.catch_warnings(record=True) as e_caught:
            warnings.simplefilter("always")
            got = getattr(F, name)(to_ember(x), scale_factor=2)
        assert [str(w.message) for w in e_caught] == [str(w.message) for w in t_caught]
        assert_close(got, expected)


def _error_of(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as error:   # noqa: BLE001 - the class is what the test compares
        return type(error)
    return None


ERRORS = [
    ((2, 2, 4, 4), {"size": (2, 2), "mode": "linear"}),
    ((2, 2, 4, 4), {"size": (0, 2)}),
    ((2, 2, 4, 4), {"size": (2, 2), "scale_factor": 2}),
    ((2, 2, 4, 4), {}),
    ((2, 2, 4, 4), {"size": 2, "align_corners": True}),
    ((2, 2, 4, 4), {"size": 2, "mode": "foo"}),
    ((2, 2, 4, 4), {"size": (2, 2, 2)}),
    ((2, 2, 4, 4), {"scale_factor": (2, 2, 2)}),
    ((2, 2, 4, 4), {"size": 2, "recompute_scale_factor": True}),
    ((2, 2, 4), {"size": 2, "mode": "linear", "antialias": True}),
    ((2, 2, 4), {"size": 2, "mode": "bicubic"}),
    ((2, 2, 4, 4, 4), {"size": 2, "mode": "bilinear"}),
]


@pytest.mark.parametrize("shape,kwargs", ERRORS)
def test_bad_arguments_raise_torch_exception_class(shape, kwargs):
    x = _input(shape)
    expected = _error_of(TF.interpolate, x, **kwargs)
    assert expected is not None
    assert _error_of(F.interpolate, to_ember(x), **kwargs) is expected


def test_integer_input_is_refused_like_torch():
    x = torch.arange(16).reshape(1, 1, 4, 4)
    expected = _error_of(TF.interpolate, x, scale_factor=2, mode="bilinear")
    assert expected is not None
    assert _error_of(F.interpolate, to_ember(x), scale_factor=2, mode="bilinear") is expected


@pytest.mark.parametrize("mode,kwargs", [
    ("nearest", {"scale_factor": 2.0}), ("nearest-exact", {"size": (37, 61)}),
    ("bilinear", {"scale_factor": 2.0}), ("bilinear", {"size": (21, 13), "align_corners": True}),
    ("bicubic", {"size": (47, 29)}), ("bilinear", {"size": (11, 12), "antialias": True}),
    ("bicubic", {"scale_factor": 0.3, "antialias": True}), ("area", {"size": (7, 9)}),
])
def test_gathered_taps_match_torch(mode, kwargs, monkeypatch):
    # Sparse axes apply their few taps per output by gathering (not a dense matmul).
    # Every axis here gathers (large images take that path by size; see _DENSE_WORK).
    monkeypatch.setattr(nn_windows, "_DENSE_WORK", 0)
    x = _input((1, 2, 40, 36)).requires_grad_()
    e = to_ember(x, requires_grad=True)
    t_out = TF.interpolate(x, mode=mode, **kwargs)
    e_out = F.interpolate(e, mode=mode, **kwargs)
    assert_close(e_out, t_out)
    weights = _input(tuple(t_out.shape), seed=2)
    (t_out * weights).sum().backward()
    (e_out * to_ember(weights)).sum().backward()
    assert_close(e.grad, x.grad)
