"""ember.nn.utils.parametrize and parametrizations (weight_norm, spectral_norm) against
PyTorch: state-dict keys (parametrizations.weight.original ...), values, gradients, the
setter's right_inverse, caching, removal, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.utils.parametrize

import ember
from nn.utils.hand_modules import affine_pair, filter_pair, same_state


def symmetric_class(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()

    return Symmetric


def scale_class(lib):
    class Scale(lib.nn.Module):
        """No right_inverse: counts as the identity at registration."""

        def forward(self, x):
            return x * 2.0

    return Scale


def _forward_backward(e_module, t_module, in_features, seed=0):
    x = np.random.default_rng(seed).standard_normal((2, in_features))
    t_out, e_out = t_module(torch.from_numpy(x)), e_module(ember.from_numpy(x))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10)
    t_out.square().sum().backward()
    e_out.square().sum().backward()
    t_params = dict(t_module.named_parameters())
    for name, param in e_module.named_parameters():
        np.testing.assert_allclose(param.grad.numpy(), t_params[name].grad.numpy(), rtol=1e-9,
                                   err_msg=name)


def test_register_set_and_remove():
    t_module, e_module = affine_pair(torch, ember, 3, 3)
    for lib, module in ((torch, t_module), (ember, e_module)):
        lib.nn.utils.parametrize.register_parametrization(module, "weight",
                                                          symmetric_class(lib)())
        lib.nn.utils.parametrize.register_parametrization(module, "weight", scale_class(lib)())
    same_state(e_module, t_module)
    assert list(e_module.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert type(e_module).__name__ == type(t_module).__name__ == "ParametrizedAffine"
    assert repr(e_module) == repr(t_module)
    assert ember.nn.utils.parametrize.is_parametrized(e_module)
    assert ember.nn.utils.parametrize.is_parametrized(e_module, "weight")
    assert not ember.nn.utils.parametrize.is_parametrized(e_module, "bias")
    assert ember.nn.utils.parametrize.type_before_parametrizations(e_module).__name__ == "Affine"
    np.testing.assert_allclose(e_module.weight.detach().numpy(),
                               t_module.weight.detach().numpy(), rtol=1e-12)
    _forward_backward(e_module, t_module, 3)
    with ember.nn.utils.parametrize.cached():
        assert e_module.weight is e_module.weight
    assert e_module.weight is not e_module.weight
    for lib, module in ((torch, t_module), (ember, e_module)):
        with pytest.raises(RuntimeError, match="parametrization Scale does not implement "
                                               "right_inverse"):
            module.weight = lib.ones(3, 3, dtype=lib.float64)
        lib.nn.utils.parametrize.remove_parametrizations(module, "weight")
    same_state(e_module, t_module)
    assert type(e_module).__name__ == "Affine"
    assert isinstance(e_module.weight, ember.nn.Parameter)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_right_inverse_setter_and_remove_modes(leave_parametrized):
    t_module, e_module = affine_pair(torch, ember, 3, 3, seed=5)
    value = np.random.default_rng(6).standard_normal((3, 3))
    for lib, module in ((torch, t_module), (ember, e_module)):
        lib.nn.utils.parametrize.register_parametrization(module, "weight",
                                                          symmetric_class(lib)())
        original = module.parametrizations.weight.original
        module.weight = lib.from_numpy(value)
        assert module.parametrizations.weight.original is original     # set in place
    same_state(e_module, t_module)
    for lib, module in ((torch, t_module), (ember, e_module)):
        lib.nn.utils.parametrize.remove_parametrizations(module, "weight", leave_parametrized)
    same_state(e_module, t_module)


def test_errors():
    for lib in (torch, ember):
        module = affine_pair(torch, ember, 3, 3)[lib is ember]
        parametrize = lib.nn.utils.parametrize
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a "
                                             "parametrized element with name 'kernel'"):
            parametrize.register_parametrization(module, "kernel", symmetric_class(lib)())

        class Flatten(lib.nn.Module):
            def forward(self, x):
                return x.reshape(-1)

        with pytest.raises(ValueError, match="may not change the shape"):
            parametrize.register_parametrization(module, "weight", Flatten())
        parametrize.register_parametrization(module, "bias", Flatten(), unsafe=True)
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            parametrize.remove_parametrizations(module, "weight")
        with pytest.raises(ValueError, match="ParametrizationList requires one or more"):
            parametrize.ParametrizationList([], module.parametrizations.bias.original)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm(dim):
    t_module, e_module = affine_pair(torch, ember)
    torch.nn.utils.parametrizations.weight_norm(t_module, dim=dim)
    ember.nn.utils.parametrizations.weight_norm(e_module, dim=dim)
    same_state(e_module, t_module)
    assert list(e_module.state_dict()) == ["bias", "parametrizations.weight.original0",
                                           "parametrizations.weight.original1"]
    _forward_backward(e_module, t_module, 3)


def test_weight_norm_loads_the_older_form():
    _, e_module = affine_pair(torch, ember)
    ember.nn.utils.parametrizations.weight_norm(e_module)
    rng = np.random.default_rng(7)
    g, v = rng.standard_normal((4, 1)), rng.standard_normal((4, 3))
    e_module.load_state_dict({"bias": ember.zeros(4, dtype=ember.float64),
                              "weight_g": ember.from_numpy(g), "weight_v": ember.from_numpy(v)})
    expected = v * g / np.linalg.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(e_module.weight.detach().numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("n_power_iterations", [1, 2])
def test_spectral_norm(n_power_iterations):
    t_module, e_module = filter_pair(torch, ember)
    torch.nn.utils.parametrizations.spectral_norm(t_module,
                                                  n_power_iterations=n_power_iterations)
    ember.nn.utils.parametrizations.spectral_norm(e_module,
                                                  n_power_iterations=n_power_iterations)
    assert list(e_module.state_dict()) == list(t_module.state_dict()) == [
        "parametrizations.weight.original", "parametrizations.weight.0._u",
        "parametrizations.weight.0._v"]
    # _u and _v start random: take PyTorch's so that the power iterations agree.
    e_module.load_state_dict({k: ember.from_numpy(v.numpy().copy())
                              for k, v in t_module.state_dict().items()})
    for _ in range(2):
        _forward_backward(e_module, t_module, 8)
        same_state(e_module, t_module, rtol=1e-9)
    t_module.eval()
    e_module.eval()
    _forward_backward(e_module, t_module, 8, seed=2)
    same_state(e_module, t_module, rtol=1e-9)
    torch.nn.utils.parametrize.remove_parametrizations(t_module, "weight")
    ember.nn.utils.parametrize.remove_parametrizations(e_module, "weight")
    same_state(e_module, t_module, rtol=1e-9)


def test_spectral_norm_errors_and_vectors():
    for lib in (torch, ember):
        module = affine_pair(torch, ember)[lib is ember]
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
            lib.nn.utils.parametrizations.spectral_norm(module, "kernel")
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.nn.utils.parametrizations.spectral_norm(module, dim=2)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            lib.nn.utils.parametrizations.spectral_norm(module, n_power_iterations=0)
    t_module, e_module = affine_pair(torch, ember)
    torch.nn.utils.parametrizations.spectral_norm(t_module, "bias")
    ember.nn.utils.parametrizations.spectral_norm(e_module, "bias")
    same_state(e_module, t_module)
    _forward_backward(e_module, t_module, 3)


def test_deepcopy_and_state_dict_round_trip():
    import copy
    _, e_module = affine_pair(torch, ember)
    ember.nn.utils.parametrizations.weight_norm(e_module)
    replica = copy.deepcopy(e_module)
    assert type(replica).__name__ == "ParametrizedAffine"
    same_state(replica, e_module)
    _, fresh = affine_pair(torch, ember, seed=3)
    ember.nn.utils.parametrizations.weight_norm(fresh)
    fresh.load_state_dict(e_module.state_dict())
    x = ember.from_numpy(np.random.default_rng(8).standard_normal((2, 3)))
    np.testing.assert_array_equal(fresh(x).detach().numpy(), e_module(x).detach().numpy())
    t_module = torch.nn.utils.parametrizations.weight_norm(affine_pair(torch, ember)[0])
    for module in (t_module, e_module):
        with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only "
                                               "supported through state_dict"):
            module.__getstate__()


def test_transfer_parametrizations_and_params():
    t_from, e_from = affine_pair(torch, ember, 3, 3)
    t_to, e_to = affine_pair(torch, ember, 3, 3, seed=4)
    for lib, source, target in ((torch, t_from, t_to), (ember, e_from, e_to)):
        lib.nn.utils.parametrize.register_parametrization(source, "weight",
                                                          symmetric_class(lib)())
        lib.nn.utils.parametrize.transfer_parametrizations_and_params(source, target)
    same_state(e_to, t_to)
    np.testing.assert_allclose(e_to.weight.detach().numpy(), t_to.weight.detach().numpy(),
                               rtol=1e-12)
