"""grid_sample and affine_grid against PyTorch: every mode, padding mode and align_corners in
2-d and 3-d, gradients for input, grid and theta, warnings and errors."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember.nn.functional as F
from nn.compare import assert_close, to_ember

CASES = [(spatial, mode, padding, align)
         for spatial in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
         for padding in ("zeros", "border", "reflection") for align in (False, True)
         if not (spatial == 3 and mode == "bicubic")]


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64))
@pytest.mark.parametrize("spatial,mode,padding,align", CASES)
def test_grid_sample_matches_torch(spatial, mode, padding, align, dtype):
    rng = np.random.default_rng(0)
    input_shape = (2, 3, 4, 5) if spatial == 2 else (2, 3, 3, 4, 5)
    grid_shape = (2, 3, 4, 2) if spatial == 2 else (2, 2, 3, 4, 3)
    x = torch.tensor(rng.standard_normal(input_shape), dtype=dtype, requires_grad=True)
    # Positions past [-1, 1] exercise the padding modes.
    grid = torch.tensor(rng.uniform(-1.4, 1.4, grid_shape), dtype=dtype, requires_grad=True)
    e_x, e_grid = to_ember(x, True), to_ember(grid, True)
    t_out = TF.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
    e_out = F.grid_sample(e_x, e_grid, mode=mode, padding_mode=padding, align_corners=align)
    assert_close(e_out, t_out)
    weights = torch.tensor(rng.standard_normal(tuple(t_out.shape)), dtype=dtype)
    (t_out * weights).sum().backward()
    (e_out * to_ember(weights)).sum().backward()
    assert_close(e_x.grad, x.grad, what="input grad")
    assert_close(e_grid.grad, grid.grad, what="grid grad")


@pytest.mark.parametrize("size", ((2, 3, 4, 5), (2, 1, 2, 3, 4), (1, 1, 1, 3)))
@pytest.mark.parametrize("align", (False, True))
def test_affine_grid_matches_torch(size, align):
    rng = np.random.default_rng(1)
    shape = (size[0],) + ((2, 3) if len(size) == 4 else (3, 4))
    theta = torch.tensor(rng.standard_normal(shape), requires_grad=True)
    e_theta = to_ember(theta, True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the unit-size warning; compared below
        t_grid = TF.affine_grid(theta, size, align_corners=align)
        e_grid = F.affine_grid(e_theta, size, align_corners=align)
    assert_close(e_grid, t_grid)
    weights = torch.tensor(rng.standard_normal(tuple(t_grid.shape)))
    (t_grid * weights).sum().backward()
    (e_grid * to_ember(weights)).sum().backward()
    assert_close(e_theta.grad, theta.grad)


def test_default_align_corners_warns_like_torch():
    x, grid = torch.zeros(1, 1, 2, 2), torch.zeros(1, 1, 1, 2)
    for t_call, e_call in (
            (lambda: TF.grid_sample(x, grid), lambda: F.grid_sample(to_ember(x), to_ember(grid))),
            (lambda: TF.affine_grid(torch.zeros(1, 2, 3), (1, 1, 2, 2)),
             lambda: F.affine_grid(to_ember(torch.zeros(1, 2, 3)), (1, 1, 2, 2)))):
        with warnings.catch_warnings(record=True) as t_caught:
            warnings.simplefilter("always")
            t_call()
        with warnings.catch_warnings(record=True) as e_caught:
            warnings.simplefilter("always")
            e_call()
        assert [str(w.message) for w in e_caught] == [str(w.message) for w in t_caught]


def _error_of(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as error:   # noqa: BLE001 - the class is what the test compares
        return type(error)
    return None


def test_bad_arguments_raise_torch_exception_class():
    x, grid = torch.randn(1, 1, 3, 3), torch.rand(1, 2, 2, 2) * 2 - 1
    bad_calls = [
        ((x, grid), {"mode": "foo", "align_corners": False}),
        ((x, grid), {"padding_mode": "foo", "align_corners": False}),
        ((x, grid[..., :1]), {"align_corners": False}),
        ((x[0], grid), {"align_corners": False}),
        ((x.expand(2, 1, 3, 3), grid), {"align_corners": False}),
        ((x.unsqueeze(2), torch.rand(1, 1, 2, 2, 3)), {"mode": "bicubic", "align_corners": False}),
        ((x, grid.double()), {"align_corners": False}),
    ]
    for args, kwargs in bad_calls:
        expected = _error_of(TF.grid_sample, *args, **kwargs)
        assert expected is not None
        assert _error_of(F.grid_sample, *(to_ember(a) for a in args), **kwargs) is expected
    theta = torch.randn(1, 2, 3)
    for th, size in ((theta, (1, 1, 2, 2, 2)), (theta, (1, 1, 2)), (theta, (1, 1, 0, 2)),
                     (theta.long(), (1, 1, 2, 2))):
        expected = _error_of(TF.affine_grid, th, size, align_corners=False)
        assert expected is not None
        assert _error_of(F.affine_grid, to_ember(th), size, align_corners=False) is expected
