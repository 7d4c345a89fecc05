"""The hook-based weight_norm and spectral_norm of ember.nn.utils against PyTorch's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember
from nn.utils.hand_modules import affine_pair, filter_pair, same_state


def _forward_backward(e_module, t_module, in_features, seed=0):
    x = np.random.default_rng(seed).standard_normal((2, in_features))
    t_out = t_module(torch.from_numpy(x))
    e_out = e_module(ember.from_numpy(x))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10)
    t_out.square().sum().backward()
    e_out.square().sum().backward()
    t_params = dict(t_module.named_parameters())
    for name, param in e_module.named_parameters():
        np.testing.assert_allclose(param.grad.numpy(), t_params[name].grad.numpy(), rtol=1e-9,
                                   err_msg=name)


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm(dim):
    t_module, e_module = affine_pair(torch, ember)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        ember.nn.utils.weight_norm(e_module, dim=dim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(t_module, dim=dim)
    same_state(e_module, t_module)
    _forward_backward(e_module, t_module, 3)
    torch.nn.utils.remove_weight_norm(t_module)
    ember.nn.utils.remove_weight_norm(e_module)
    same_state(e_module, t_module)
    assert isinstance(e_module.weight, ember.nn.Parameter)


def test_weight_norm_4d_and_errors():
    t_module, e_module = filter_pair(torch, ember)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(t_module, dim=1)
        ember.nn.utils.weight_norm(e_module, dim=1)
        same_state(e_module, t_module)
        _forward_backward(e_module, t_module, 8)
        for lib, module in ((torch, t_module), (ember, e_module)):
            with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
                lib.nn.utils.weight_norm(module, dim=1)
            with pytest.raises(ValueError, match="weight_norm of 'bias' not found in"):
                lib.nn.utils.remove_weight_norm(module, "bias")


@pytest.mark.parametrize("n_power_iterations", [1, 3])
def test_spectral_norm(n_power_iterations):
    t_module, e_module = affine_pair(torch, ember)
    torch.nn.utils.spectral_norm(t_module, n_power_iterations=n_power_iterations)
    ember.nn.utils.spectral_norm(e_module, n_power_iterations=n_power_iterations)
    assert list(e_module.state_dict()) == list(t_module.state_dict())
    # u and v start random: take PyTorch's so that the power iterations agree.
    e_module.load_state_dict({k: ember.from_numpy(v.numpy().copy())
                              for k, v in t_module.state_dict().items()})
    for _ in range(2):                            # training: u, v refined each call
        _forward_backward(e_module, t_module, 3)
        same_state(e_module, t_module, rtol=1e-9)
    t_module.eval()
    e_module.eval()
    _forward_backward(e_module, t_module, 3, seed=1)
    same_state(e_module, t_module, rtol=1e-9)
    torch.nn.utils.remove_spectral_norm(t_module)
    ember.nn.utils.remove_spectral_norm(e_module)
    same_state(e_module, t_module, rtol=1e-9)


def test_spectral_norm_dim_and_errors():
    t_module, e_module = filter_pair(torch, ember)
    torch.nn.utils.spectral_norm(t_module, dim=1)
    ember.nn.utils.spectral_norm(e_module, dim=1)
    e_module.load_state_dict({k: ember.from_numpy(v.numpy().copy())
                              for k, v in t_module.state_dict().items()})
    _forward_backward(e_module, t_module, 8)
    same_state(e_module, t_module, rtol=1e-9)
    for lib, module in ((torch, t_module), (ember, e_module)):
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            lib.nn.utils.spectral_norm(module, dim=1)
        with pytest.raises(ValueError, match="spectral_norm of 'bias' not found in"):
            lib.nn.utils.remove_spectral_norm(module, "bias")
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.spectral_norm(affine_pair(torch, ember)[lib is ember], "weight", 0)


def test_spectral_norm_state_dict_metadata_and_reload():
    t_module, e_module = affine_pair(torch, ember)
    torch.nn.utils.spectral_norm(t_module)
    ember.nn.utils.spectral_norm(e_module)
    t_state, e_state = t_module.state_dict(), e_module.state_dict()
    assert e_state._metadata[""]["spectral_norm"] == t_state._metadata[""]["spectral_norm"]
    _, fresh = affine_pair(torch, ember, seed=9)
    ember.nn.utils.spectral_norm(fresh)
    fresh.load_state_dict(e_state)
    same_state(fresh, e_module)
    assert repr(e_module) == repr(t_module)
