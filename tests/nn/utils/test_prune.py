"""ember.nn.utils.prune against torch.nn.utils.prune: masks, state_dict keys (weight_orig,
weight_mask), forward values and gradients, composition, remove, global pruning, errors."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.utils.prune

import ember
from nn.utils.hand_modules import affine_pair, filter_pair, same_state


def _check_forward(e_module, t_module, in_features):
    x = np.random.default_rng(0).standard_normal((2, in_features))
    t_out, e_out = t_module(torch.from_numpy(x)), e_module(ember.from_numpy(x))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    t_out.sum().backward()
    e_out.sum().backward()
    t_params = dict(t_module.named_parameters())
    for name, param in e_module.named_parameters():
        np.testing.assert_allclose(param.grad.numpy(), t_params[name].grad.numpy(),
                                   rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("amount", [0.3, 5, 0, 1.0])
def test_l1_unstructured(amount):
    t_module, e_module = affine_pair(torch, ember)
    torch.nn.utils.prune.l1_unstructured(t_module, "weight", amount)
    ember.nn.utils.prune.l1_unstructured(e_module, "weight", amount)
    same_state(e_module, t_module)
    assert list(e_module.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    np.testing.assert_array_equal(e_module.weight.detach().numpy(),
                                  t_module.weight.detach().numpy())
    _check_forward(e_module, t_module, 3)
    assert ember.nn.utils.prune.is_pruned(e_module)
    torch.nn.utils.prune.remove(t_module, "weight")
    ember.nn.utils.prune.remove(e_module, "weight")
    same_state(e_module, t_module)
    assert not ember.nn.utils.prune.is_pruned(e_module)
    assert isinstance(e_module.weight, ember.nn.Parameter)


@pytest.mark.parametrize("n,dim", [(2, 0), (1, 1), (float("inf"), -1)])
def test_ln_structured_and_composition(n, dim):
    t_module, e_module = filter_pair(torch, ember)
    torch.nn.utils.prune.ln_structured(t_module, "weight", 1, n, dim)
    ember.nn.utils.prune.ln_structured(e_module, "weight", 1, n, dim)
    same_state(e_module, t_module)
    # A second method prunes only what the first kept (a PruningContainer).
    torch.nn.utils.prune.l1_unstructured(t_module, "weight", 0.25)
    ember.nn.utils.prune.l1_unstructured(e_module, "weight", 0.25)
    same_state(e_module, t_module)
    hooks = list(e_module._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], ember.nn.utils.prune.PruningContainer)
    assert len(hooks[0]) == 2
    _check_forward(e_module, t_module, 8)


def test_importance_scores_and_custom_mask():
    t_module, e_module = affine_pair(torch, ember)
    scores = np.arange(12.0).reshape(4, 3)[::-1].copy()
    torch.nn.utils.prune.l1_unstructured(t_module, "weight", 4,
                                         importance_scores=torch.from_numpy(scores))
    ember.nn.utils.prune.l1_unstructured(e_module, "weight", 4,
                                         importance_scores=ember.from_numpy(scores))
    same_state(e_module, t_module)
    mask = (np.arange(4) % 2).astype(np.float64)
    torch.nn.utils.prune.custom_from_mask(t_module, "bias", torch.from_numpy(mask))
    ember.nn.utils.prune.custom_from_mask(e_module, "bias", ember.from_numpy(mask))
    same_state(e_module, t_module)
    _check_forward(e_module, t_module, 3)
    torch.nn.utils.prune.identity(t_module, "bias")
    ember.nn.utils.prune.identity(e_module, "bias")
    same_state(e_module, t_module)


def test_global_unstructured():
    t_a, e_a = affine_pair(torch, ember, seed=3)
    t_b, e_b = affine_pair(torch, ember, 2, 5, seed=4)
    torch.nn.utils.prune.global_unstructured(
        [(t_a, "weight"), (t_b, "weight"), (t_b, "bias")],
        pruning_method=torch.nn.utils.prune.L1Unstructured, amount=0.4)
    ember.nn.utils.prune.global_unstructured(
        [(e_a, "weight"), (e_b, "weight"), (e_b, "bias")],
        pruning_method=ember.nn.utils.prune.L1Unstructured, amount=0.4)
    same_state(e_a, t_a)
    same_state(e_b, t_b)
    for lib in (torch, ember):
        with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
            lib.nn.utils.prune.global_unstructured(
                [(e_a if lib is ember else t_a, "bias")],
                pruning_method=lib.nn.utils.prune.RandomStructured, amount=1)


def test_random_methods_prune_the_asked_amount():
    _, e_module = filter_pair(torch, ember)
    ember.nn.utils.prune.random_unstructured(e_module, "weight", 5)
    assert int((e_module.weight_mask == 0).sum()) == 5
    ember.nn.utils.prune.random_structured(e_module, "weight", 1, 0)
    mask = e_module.weight_mask.numpy()
    assert (mask.reshape(3, -1).sum(1) == 0).sum() == 1
    np.testing.assert_array_equal(e_module.weight.detach().numpy(),
                                  e_module.weight_orig.detach().numpy() * mask)


def test_errors():
    for lib in (torch, ember):
        t_module, e_module = affine_pair(torch, ember)
        module = t_module if lib is torch else e_module
        prune = lib.nn.utils.prune
        with pytest.raises(ValueError, match="should either be a float in the range"):
            prune.l1_unstructured(module, "weight", 1.5)
        with pytest.raises(TypeError, match="Invalid type for amount"):
            prune.l1_unstructured(module, "weight", "all")
        with pytest.raises(ValueError, match="should be smaller than the number of parameters"):
            prune.l1_unstructured(module, "weight", 20)
        # Restored after the error (re-registered: after bias, in both libraries).
        assert list(module.state_dict()) == ["bias", "weight"]
        with pytest.raises(ValueError, match="Structured pruning can only be applied"):
            prune.ln_structured(module, "bias", 1, 2, 0)
        with pytest.raises(IndexError, match="Invalid index 2 for tensor of size"):
            prune.ln_structured(module, "weight", 1, 2, 2)
        with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
            prune.remove(module, "weight")
