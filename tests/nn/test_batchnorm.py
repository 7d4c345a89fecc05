"""BatchNorm1d/2d/3d, SyncBatchNorm and InstanceNorm1d/2d/3d against PyTorch: outputs,
gradients, running statistics after several steps (momentum and cumulative average), eval."""
import numpy as np
import pytest
import torch
from tests.nn.compare import assert_close, check_module, copy_state, to_ember

import ember


def _randn(*shape, dtype=torch.float32, seed=0):
    values = np.random.default_rng(seed).standard_normal(shape) * 2 + 0.5
    return torch.tensor(values, dtype=dtype)


def _edtype(dtype):
    return getattr(ember, str(dtype).split(".")[1])


def _steps(t_module, e_module, shape, dtype, steps=3):
    """Train both for a few steps (fresh inputs each), then compare state and an eval pass."""
    copy_state(t_module, e_module)
    for step in range(steps):
        x = _randn(*shape, dtype=dtype, seed=step)
        t_module.train()
        e_module.train()
        check_module(t_module, e_module, x)
    for key, value in t_module.state_dict().items():
        assert_close(e_module.state_dict()[key], value, what=key)
    t_module.eval()
    e_module.eval()
    check_module(t_module, e_module, _randn(*shape, dtype=dtype, seed=9))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (2, 3, 4, 4)),
                                        ("BatchNorm3d", (2, 3, 2, 3, 2))])
def test_batchnorm_train_then_eval(cls, shape, dtype):
    t = getattr(torch.nn, cls)(3).to(dtype)
    e = getattr(ember.nn, cls)(3).to(_edtype(dtype))
    with torch.no_grad():
        t.weight.uniform_(0.5, 1.5)
        t.bias.uniform_(-0.5, 0.5)
    _steps(t, e, shape, dtype)


@pytest.mark.parametrize("kwargs", [{"momentum": None}, {"affine": False},
                                    {"track_running_stats": False}, {"momentum": 0.3,
                                                                     "eps": 1e-3}])
def test_batchnorm_options(kwargs):
    t = torch.nn.BatchNorm2d(3, **kwargs).double()
    e = ember.nn.BatchNorm2d(3, **kwargs).double()
    _steps(t, e, (3, 3, 2, 2), torch.float64)
    assert e.state_dict().get("num_batches_tracked") is None or \
        e.num_batches_tracked.dtype == ember.int64


def test_sync_batchnorm_and_conversion():
    t = torch.nn.SyncBatchNorm(3)
    e = ember.nn.SyncBatchNorm(3)
    _steps(t, e, (4, 3, 2), torch.float32)
    t_model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(
        torch.nn.Sequential(torch.nn.BatchNorm1d(3)) if hasattr(ember.nn, "Sequential")
        else torch.nn.BatchNorm1d(3))
    e_model = ember.nn.SyncBatchNorm.convert_sync_batchnorm(
        ember.nn.Sequential(ember.nn.BatchNorm1d(3)) if hasattr(ember.nn, "Sequential")
        else ember.nn.BatchNorm1d(3))
    assert repr(e_model) == repr(t_model)


def test_batchnorm_errors_match_torch():
    for cls, shape in (("BatchNorm1d", (2, 3, 4, 5)), ("BatchNorm2d", (2, 3)),
                       ("BatchNorm3d", (2, 3, 4))):
        with pytest.raises(ValueError):
            getattr(torch.nn, cls)(3)(torch.zeros(shape))
        with pytest.raises(ValueError):
            getattr(ember.nn, cls)(3)(ember.zeros(shape))
    # One value per channel in training.
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        torch.nn.BatchNorm1d(3)(torch.zeros(1, 3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        ember.nn.BatchNorm1d(3)(ember.zeros(1, 3))
    with pytest.raises(RuntimeError):
        torch.nn.functional.batch_norm(torch.zeros(2, 3), torch.zeros(4), torch.ones(4))
    with pytest.raises(RuntimeError):
        ember.nn.functional.batch_norm(ember.zeros(2, 3), ember.zeros(4), ember.ones(4))


def test_native_batch_norm_outputs_match_torch():
    x = _randn(4, 3, 5, dtype=torch.float64)
    for training in (True, False):
        t_stats = (torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))
        e_stats = tuple(to_ember(s) for s in t_stats)
        t_out = torch.native_batch_norm(x, None, None, *t_stats, training, 0.1, 1e-5)
        e_out = ember.native_batch_norm(to_ember(x), None, None, *e_stats, training, 0.1, 1e-5)
        for e, t in zip(e_out, t_out):
            assert_close(e, t)
        for e, t in zip(e_stats, t_stats):
            assert_close(e, t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("cls, shape", [("InstanceNorm1d", (2, 3, 5)), ("InstanceNorm1d", (3, 5)),
                                        ("InstanceNorm2d", (2, 3, 3, 4)),
                                        ("InstanceNorm3d", (3, 2, 3, 2))])
def test_instance_norm(cls, shape, dtype):
    for kwargs in ({}, {"affine": True, "track_running_stats": True}):
        t = getattr(torch.nn, cls)(3, **kwargs).to(dtype)
        e = getattr(ember.nn, cls)(3, **kwargs).to(_edtype(dtype))
        if kwargs:
            with torch.no_grad():
                t.weight.uniform_(0.5, 1.5)
                t.bias.uniform_(-0.5, 0.5)
        _steps(t, e, shape, dtype, steps=2)


def test_instance_norm_errors():
    with pytest.raises(ValueError):
        torch.nn.InstanceNorm2d(3, affine=True)(torch.zeros(2, 4, 3, 3))
    with pytest.raises(ValueError):
        ember.nn.InstanceNorm2d(3, affine=True)(ember.zeros(2, 4, 3, 3))
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        ember.nn.functional.instance_norm(ember.zeros(2, 3, 1))
    with pytest.warns(UserWarning):
        ember.nn.InstanceNorm1d(3)(ember.zeros(2, 4, 3))
