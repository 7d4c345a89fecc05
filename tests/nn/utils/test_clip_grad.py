"""ember.nn.utils clip_grad / convert_parameters / stateless / skip_init against PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember


def _grads(lib, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    params = []
    for shape in ((3, 4), (5,), (2, 2, 2), ()):
        p = lib.nn.Parameter(lib.from_numpy(np.asarray(rng.standard_normal(shape))))
        p.grad = lib.from_numpy(np.asarray(rng.standard_normal(shape) * scale))
        params.append(p)
    params.append(lib.nn.Parameter(lib.zeros(2, dtype=lib.float64)))   # no gradient
    return params


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    t_params, e_params = _grads(torch), _grads(ember)
    t_total = torch.nn.utils.clip_grad_norm_(t_params, max_norm, norm_type)
    e_total = ember.nn.utils.clip_grad_norm_(e_params, max_norm, norm_type)
    np.testing.assert_allclose(e_total.numpy(), t_total.numpy(), rtol=1e-12)
    assert str(e_total.dtype).replace("ember", "torch") == str(t_total.dtype)
    for e, t in zip(e_params, t_params, strict=True):
        assert (e.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_single_tensor_and_empty():
    t_param, e_param = _grads(torch)[0], _grads(ember)[0]
    t_total = torch.nn.utils.clip_grad_norm_(t_param, 1.0)
    e_total = ember.nn.utils.clip_grad_norm_(e_param, 1.0, foreach=True)
    np.testing.assert_allclose(e_total.numpy(), t_total.numpy(), rtol=1e-12)
    np.testing.assert_allclose(e_param.grad.numpy(), t_param.grad.numpy(), rtol=1e-12)
    t_empty = torch.nn.utils.clip_grad_norm_([], 1.0)
    e_empty = ember.nn.utils.clip_grad_norm_([], 1.0)
    assert e_empty.item() == t_empty.item() and str(e_empty.dtype) == "ember.float32"


def test_clip_grad_norm_nonfinite():
    for lib in (torch, ember):
        params = _grads(lib)
        params[0].grad[0, 0] = float("inf")
        with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
            lib.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    t_params, e_params = _grads(torch), _grads(ember)
    t_params[1].grad[0] = float("nan")
    e_params[1].grad[0] = float("nan")
    t_total = torch.nn.utils.clip_grad_norm_(t_params, 1.0)
    e_total = ember.nn.utils.clip_grad_norm_(e_params, 1.0)
    assert np.isnan(e_total.item()) and np.isnan(t_total.item())


def test_get_total_norm_and_clip_with_norm():
    t_params, e_params = _grads(torch, 1), _grads(ember, 1)
    t_total = torch.nn.utils.get_total_norm([p.grad for p in t_params if p.grad is not None], 3.0)
    e_total = ember.nn.utils.get_total_norm([p.grad for p in e_params if p.grad is not None], 3.0)
    np.testing.assert_allclose(e_total.numpy(), t_total.numpy(), rtol=1e-12)
    torch.nn.utils.clip_grads_with_norm_(t_params, 0.3, t_total)
    ember.nn.utils.clip_grads_with_norm_(e_params, 0.3, e_total)
    for e, t in zip(e_params[:4], t_params[:4], strict=True):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_deprecated_name():
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        ember.nn.utils.clip_grad_norm(_grads(ember), 1.0)


@pytest.mark.parametrize("clip_value", [0.3, 2])
def test_clip_grad_value(clip_value):
    t_params, e_params = _grads(torch, 2, 3.0), _grads(ember, 2, 3.0)
    torch.nn.utils.clip_grad_value_(t_params, clip_value)
    ember.nn.utils.clip_grad_value_(e_params, clip_value)
    for e, t in zip(e_params[:4], t_params[:4], strict=True):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_parameters_to_vector_and_back():
    t_params, e_params = _grads(torch), _grads(ember)
    t_vec = torch.nn.utils.parameters_to_vector(t_params)
    e_vec = ember.nn.utils.parameters_to_vector(e_params)
    np.testing.assert_array_equal(e_vec.detach().numpy(), t_vec.detach().numpy())
    new = np.arange(t_vec.numel(), dtype=np.float64)
    torch.nn.utils.vector_to_parameters(torch.from_numpy(new), t_params)
    ember.nn.utils.vector_to_parameters(ember.from_numpy(new), e_params)
    for e, t in zip(e_params, t_params, strict=True):
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())
        assert isinstance(e, ember.nn.Parameter)
    for lib in (torch, ember):
        with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
            lib.nn.utils.vector_to_parameters([1.0], t_params if lib is torch else e_params)


def test_stateless_functional_call():
    class Scale(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = ember.nn.Parameter(ember.ones(3))
            self.register_buffer("offset", ember.zeros(3))

        def forward(self, x):
            return x * self.weight + self.offset

    module = Scale()
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = ember.nn.utils.stateless.functional_call(
            module, {"weight": ember.full((3,), 2.0), "offset": ember.ones(3)},
            (ember.arange(3.0),))
    np.testing.assert_array_equal(out.numpy(), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(module.weight.detach().numpy(), np.ones(3))


def test_skip_init_needs_device_argument():
    class NoDevice(ember.nn.Module):
        def __init__(self, n):
            super().__init__()

    class TorchNoDevice(torch.nn.Module):
        def __init__(self, n):
            super().__init__()

    for lib, cls in ((torch, TorchNoDevice), (ember, NoDevice)):
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
            lib.nn.utils.skip_init(cls, 3)


def test_skip_init():
    class WithDevice(ember.nn.Module):
        def __init__(self, n, device=None):
            super().__init__()
            self.weight = ember.nn.Parameter(ember.ones(n, device=device))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = ember.nn.utils.skip_init(WithDevice, 4)
    assert module.weight.device.type == "cpu"
    assert tuple(module.weight.shape) == (4,)
    assert isinstance(module.weight, ember.nn.Parameter)
