"""Pooling layers and functions against PyTorch: MaxPool, AvgPool, MaxUnpool, adaptive and
power-average pooling (values, indices, gradients, repr, errors)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember._ops import nn_windows
from nn.compare import assert_close, check_module, to_ember

DTYPES = (torch.float32, torch.float64)


def _input(shape, dtype=torch.float64, ties=False, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if ties:
        # Few distinct values: windows hold several equal maxima (PyTorch keeps the first).
        values = np.round(values)
    return torch.tensor(values, dtype=dtype)


def _pair_modules(name, *args, **kwargs):
    return getattr(torch.nn, name)(*args, **kwargs), getattr(ember.nn, name)(*args, **kwargs)


MAX_CASES = [
    ("MaxPool1d", (2, 3, 9), {"kernel_size": 3}),
    ("MaxPool1d", (3, 9), {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True}),
    ("MaxPool2d", (2, 3, 7, 6), {"kernel_size": 2}),
    ("MaxPool2d", (3, 7, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": 1}),
    ("MaxPool2d", (2, 2, 7, 8), {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2,
                                      "ceil_mode": True}),
    ("MaxPool2d", (1, 2, 5, 5), {"kernel_size": 2, "ceil_mode": True, "return_indices": True}),
    ("MaxPool3d", (2, 2, 4, 5, 6), {"kernel_size": 2, "stride": (1, 2, 2), "padding": (0, 1, 1)}),
    ("MaxPool3d", (2, 5, 4, 6), {"kernel_size": (2, 3, 2), "ceil_mode": True,
                                     "return_indices": True}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,shape,kwargs", MAX_CASES)
def test_max_pool_modules_match_torch(name, shape, kwargs, dtype):
    t_module, e_module = _pair_modules(name, **kwargs)
    check_module(t_module, e_module, _input(shape, dtype, ties=True))


AVG_CASES = [
    ("AvgPool1d", (2, 3, 9), {"kernel_size": 3}),
    ("AvgPool1d", (3, 9), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                               "count_include_pad": False}),
    ("AvgPool2d", (2, 3, 7, 6), {"kernel_size": 2}),
    ("AvgPool2d", (3, 7, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": 1}),
    ("AvgPool2d", (2, 2, 7, 8), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                                     "count_include_pad": False}),
    ("AvgPool2d", (2, 2, 7, 8), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                                     "divisor_override": 4}),
    ("AvgPool3d", (2, 2, 4, 5, 6), {"kernel_size": 2, "stride": (1, 2, 2), "padding": (0, 1, 1)}),
    ("AvgPool3d", (2, 5, 4, 6), {"kernel_size": (2, 3, 2), "ceil_mode": True,
                                     "count_include_pad": False}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,shape,kwargs", AVG_CASES)
def test_avg_pool_modules_match_torch(name, shape, kwargs, dtype):
    t_module, e_module = _pair_modules(name, **kwargs)
    check_module(t_module, e_module, _input(shape, dtype))


ADAPTIVE_CASES = [
    ("AdaptiveAvgPool1d", (2, 3, 9), (4,)),
    ("AdaptiveAvgPool2d", (2, 3, 7, 6), ((3, 4),)),
    ("AdaptiveAvgPool2d", (3, 7, 6), ((None, 4),)),
    ("AdaptiveAvgPool3d", (2, 2, 4, 5, 6), ((2, 3, 4),)),
    ("AdaptiveMaxPool1d", (3, 9), (4,)),
    ("AdaptiveMaxPool2d", (2, 3, 7, 6), ((3, 4), True)),
    ("AdaptiveMaxPool2d", (3, 5, 6), (1,)),
    ("AdaptiveMaxPool3d", (2, 2, 4, 5, 6), ((3, 2, 5), True)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,shape,args", ADAPTIVE_CASES)
def test_adaptive_pool_modules_match_torch(name, shape, args, dtype):
    t_module, e_module = _pair_modules(name, *args)
    check_module(t_module, e_module, _input(shape, dtype, ties="Max" in name))


@pytest.mark.parametrize("name,shape,args", [
    ("LPPool1d", (2, 3, 9), (2, 3)),
    ("LPPool2d", (2, 3, 7, 6), (3, (2, 3), 2)),
    ("LPPool3d", (1, 2, 4, 5, 6), (1.5, 2)),
])
def test_lp_pool_modules_match_torch(name, shape, args):
    t_module, e_module = _pair_modules(name, *args)
    x = _input(shape).abs() + 0.1   # fractional powers of negative numbers are NaN in both
    check_module(t_module, e_module, x)


@pytest.mark.parametrize("spatial", (1, 2, 3))
def test_max_unpool_inverts_max_pool_like_torch(spatial):
    shape = (2, 3) + (4, 6, 4)[:spatial]
    x = _input(shape)
    t_pool, e_pool = _pair_modules(f"MaxPool{spatial}d", 2, return_indices=True)
    t_unpool, e_unpool = _pair_modules(f"MaxUnpool{spatial}d", 2)
    assert repr(e_unpool) == repr(t_unpool)
    values, indices = t_pool(x)
    check_module(t_unpool, e_unpool, values, indices)
    _e_values, e_indices = e_pool(to_ember(x))
    assert_close(e_indices, indices)
    bigger = tuple(s + 1 for s in shape[2:])
    expected = t_unpool(values, indices, output_size=bigger)
    assert_close(e_unpool(to_ember(values), to_ember(indices), output_size=bigger), expected)


def test_max_pool_first_maximum_of_a_window_wins():
    x = torch.zeros(1, 1, 4, 4, dtype=torch.float64)
    x[0, 0, 1, 1] = x[0, 0, 2, 0] = 1.0
    for kwargs in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 1, "padding": 1}):
        _, t_idx = TF.max_pool2d(x, return_indices=True, **kwargs)
        _, e_idx = F.max_pool2d(to_ember(x), return_indices=True, **kwargs)
        np.testing.assert_array_equal(e_idx.numpy(), t_idx.numpy())


def test_max_pool_nan_and_all_negative_infinity_windows():
    x = torch.full((1, 1, 4, 4), -torch.inf, dtype=torch.float64)
    x[0, 0, 0, 1] = torch.nan
    x[0, 0, 3, 3] = 2.0
    t_out, t_idx = TF.max_pool2d(x, 3, stride=1, padding=1, return_indices=True)
    e_out, e_idx = F.max_pool2d(to_ember(x), 3, stride=1, padding=1, return_indices=True)
    np.testing.assert_array_equal(e_out.numpy(), t_out.numpy())
    np.testing.assert_array_equal(e_idx.numpy(), t_idx.numpy())


@pytest.mark.parametrize("dtype", (torch.float16, torch.bfloat16, torch.int64))
def test_pooling_other_dtypes(dtype):
    x = (_input((2, 3, 6, 6)) * 10).to(dtype)
    e = to_ember(x)
    assert_close(F.max_pool2d(e, 2).float(), TF.max_pool2d(x, 2).float())
    assert_close(F.avg_pool2d(e, 3, 1, 1).float(), TF.avg_pool2d(x, 3, 1, 1).float(),
                 rtol=1e-2, atol=1e-2)
    if dtype != torch.int64:
        assert_close(F.adaptive_avg_pool2d(e, 4).float(), TF.adaptive_avg_pool2d(x, 4).float(),
                     rtol=1e-2, atol=1e-2)


def test_pooling_double_backward_matches_torch():
    x = _input((1, 2, 5, 6)).requires_grad_()
    e = to_ember(x, requires_grad=True)
    for fn_t, fn_e in ((lambda a: TF.max_pool2d(a, 2, 1), lambda a: F.max_pool2d(a, 2, 1)),
                       (lambda a: TF.avg_pool2d(a, 3, 2, 1), lambda a: F.avg_pool2d(a, 3, 2, 1)),
                       (lambda a: TF.adaptive_max_pool2d(a, 3),
                        lambda a: F.adaptive_max_pool2d(a, 3))):
        (g_t,) = torch.autograd.grad((fn_t(x) ** 2).sum(), x, create_graph=True)
        (g_e,) = ember.autograd.grad((fn_e(e) ** 2).sum(), e, create_graph=True)
        (gg_t,) = torch.autograd.grad((g_t ** 2).sum(), x)
        (gg_e,) = ember.autograd.grad((g_e ** 2).sum(), e)
        assert_close(g_e, g_t)
        assert_close(gg_e, gg_t)


def _error_of(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as error:   # noqa: BLE001 - the class is what the test compares
        return type(error)
    return None


ERROR_CASES = [
    ("max_pool2d", (2, 3, 4, 4), (5,), {}),                     # kernel larger than input
    ("max_pool2d", (2, 3, 4, 4), (2,), {"padding": 2}),        # padding over half a kernel
    ("max_pool2d", (2, 3, 4, 4), (0,), {}),
    ("max_pool2d", (4, 4), (2,), {}),
    ("max_pool1d", (1, 2, 3, 4), (2,), {}),
    ("max_pool3d", (2, 3, 4, 4), (5,), {}),
    ("avg_pool2d", (2, 3, 4, 4), (5,), {}),
    ("avg_pool2d", (2, 3, 4, 4), (2,), {"padding": 2}),
    ("avg_pool2d", (2, 3, 4, 4), (2,), {"divisor_override": 0}),
    ("avg_pool1d", (1, 2, 3, 4), (2,), {}),
    ("adaptive_avg_pool2d", (4, 4), (2,), {}),
    ("adaptive_max_pool2d", (2, 3, 4, 4), ((-1, 2),), {}),
    ("adaptive_avg_pool1d", (1, 2, 3, 4), (2,), {}),
]


@pytest.mark.parametrize("name,shape,args,kwargs", ERROR_CASES)
def test_bad_arguments_raise_torch_exception_class(name, shape, args, kwargs):
    x = _input(shape)
    expected = _error_of(getattr(TF, name), x, *args, **kwargs)
    assert expected is not None
    assert _error_of(getattr(F, name), to_ember(x), *args, **kwargs) is expected


def test_max_unpool_bad_output_size_raises_like_torch():
    values, indices = TF.max_pool2d(_input((1, 1, 4, 4)), 2, return_indices=True)
    for size in ((9, 9), (1, 2, 3)):
        expected = _error_of(TF.max_unpool2d, values, indices, 2, output_size=size)
        got = _error_of(F.max_unpool2d, to_ember(values), to_ember(indices), 2,
                        output_size=size)
        assert expected is not None and got is expected


def test_pool_meta_shapes_match_torch():
    for fn, args in ((F.max_pool2d, (3, 2, 1, 1, True)), (F.avg_pool3d, (2, 1, 1, True)),
                     (F.adaptive_max_pool2d, ((3, 2),)), (F.adaptive_avg_pool3d, (2,))):
        shape = (2, 3, 7, 6, 5) if "3d" in fn.__name__ else (2, 3, 7, 6)
        expected = getattr(TF, fn.__name__)(torch.empty(shape), *args)
        got = fn(ember.empty(shape, device="meta"), *args)
        assert tuple(got.shape) == tuple(expected.shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("spatial,shape,kwargs", [
    (2, (2, 3, 9, 8), {"kernel_size": 2, "output_size": (5, 4)}),
    (2, (3, 9, 8), {"kernel_size": (3, 2), "output_ratio": 0.5, "return_indices": True}),
    (3, (2, 2, 6, 7, 8), {"kernel_size": 2, "output_size": (3, 4, 5)}),
    (3, (2, 6, 7, 8), {"kernel_size": (1, 2, 3), "output_ratio": (0.5, 0.6, 0.7),
                           "return_indices": True}),
])
def test_fractional_max_pool_modules_match_torch(spatial, shape, kwargs, dtype):
    batch = shape[0] if len(shape) == spatial + 2 else 1
    samples = torch.rand(batch, shape[-spatial - 1], spatial, dtype=dtype,
                         generator=torch.Generator().manual_seed(0))
    name = f"FractionalMaxPool{spatial}d"
    t_module = getattr(torch.nn, name)(_random_samples=samples, **kwargs)
    e_module = getattr(ember.nn, name)(_random_samples=to_ember(samples), **kwargs)
    check_module(t_module, e_module, _input(shape, dtype, ties=True))


def test_fractional_max_pool_errors_like_torch():
    x = _input((1, 2, 5, 5))
    samples = torch.rand(1, 2, 2, dtype=torch.float64)
    for kwargs in ({"kernel_size": 3, "output_size": 4, "_random_samples": samples},
                   {"kernel_size": 2, "output_size": 4, "_random_samples": torch.rand(1, 3, 2)},
                   {"kernel_size": 2}):
        expected = _error_of(TF.fractional_max_pool2d, x, **kwargs)
        assert expected is not None
        e_kwargs = {k: to_ember(v) if isinstance(v, torch.Tensor) else v
                    for k, v in kwargs.items()}
        assert _error_of(F.fractional_max_pool2d, to_ember(x), **e_kwargs) is expected
    for module_kwargs in ({"kernel_size": 2}, {"kernel_size": 2, "output_size": 2,
                                                     "output_ratio": 0.5},
                          {"kernel_size": 2, "output_ratio": 1.5}):
        expected = _error_of(torch.nn.FractionalMaxPool2d, **module_kwargs)
        assert expected is not None
        assert _error_of(ember.nn.FractionalMaxPool2d, **module_kwargs) is expected


@pytest.mark.parametrize("fn,args", [
    ("avg_pool2d", (2,)), ("avg_pool2d", (5, 3, 2, True, False)), ("adaptive_avg_pool2d", (7,)),
    ("adaptive_avg_pool2d", ((30, 17),)), ("max_pool2d", (3, 2, 1)),
    ("adaptive_max_pool2d", ((7, 30),)),
])
def test_gathered_windows_match_torch(fn, args, monkeypatch):
    # Sparse axes: the average pools gather their windows (not a dense matmul).
    # Every axis here gathers (large images take that path by size; see _DENSE_WORK).
    monkeypatch.setattr(nn_windows, "_DENSE_WORK", 0)
    x = _input((1, 2, 40, 36)).requires_grad_()
    e = to_ember(x, requires_grad=True)
    t_out, e_out = getattr(TF, fn)(x, *args), getattr(F, fn)(e, *args)
    assert_close(e_out, t_out)
    weights = _input(tuple(t_out.shape), seed=2)
    (t_out * weights).sum().backward()
    (e_out * to_ember(weights)).sum().backward()
    assert_close(e.grad, x.grad)
