"""(Rename to test_with_layers.py once Linear, Conv2d and BatchNorm are on main: it needs them.)
nn.utils on the real layers (Linear, Conv2d, ConvTranspose2d, BatchNorm): fusion, the
weight-norm / spectral-norm / pruning state-dict layouts, skip_init, memory formats."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn.utils.prune

import ember
from nn.compare import copy_state
from nn.utils.hand_modules import same_state


def _pair(build, *args, **kwargs):
    t_module = build(torch)(*args, **kwargs)
    e_module = build(ember)(*args, **kwargs)
    copy_state(t_module, e_module)
    return t_module, e_module


def _bn_stats(t_bn, e_bn, channels, seed=0):
    rng = np.random.default_rng(seed)
    values = {"running_mean": rng.standard_normal(channels),
              "running_var": rng.uniform(0.5, 2, channels),
              "weight": rng.standard_normal(channels), "bias": rng.standard_normal(channels)}
    for name, value in values.items():
        with torch.no_grad():
            getattr(t_bn, name).copy_(torch.from_numpy(value).float())
    copy_state(t_bn, e_bn)


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(transpose):
    kind = "ConvTranspose2d" if transpose else "Conv2d"
    t_conv, e_conv = _pair(lambda lib: getattr(lib.nn, kind), 3, 4, 3)
    t_bn, e_bn = _pair(lambda lib: lib.nn.BatchNorm2d, 4)
    _bn_stats(t_bn, e_bn, 4)
    for m in (t_conv, e_conv, t_bn, e_bn):
        m.eval()
    t_fused = torch.nn.utils.fuse_conv_bn_eval(t_conv, t_bn, transpose)
    e_fused = ember.nn.utils.fuse_conv_bn_eval(e_conv, e_bn, transpose)
    same_state(e_fused, t_fused, rtol=1e-6)
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(e_fused(ember.from_numpy(x)).detach().numpy(),
                               t_fused(torch.from_numpy(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


def test_fuse_linear_bn_eval():
    t_linear, e_linear = _pair(lambda lib: lib.nn.Linear, 3, 4)
    t_bn, e_bn = _pair(lambda lib: lib.nn.BatchNorm1d, 4)
    _bn_stats(t_bn, e_bn, 4)
    for m in (t_linear, e_linear, t_bn, e_bn):
        m.eval()
    same_state(ember.nn.utils.fuse_linear_bn_eval(e_linear, e_bn),
               torch.nn.utils.fuse_linear_bn_eval(t_linear, t_bn), rtol=1e-6)


def test_norms_and_pruning_on_layers():
    t_linear, e_linear = _pair(lambda lib: lib.nn.Linear, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(t_linear)
        ember.nn.utils.weight_norm(e_linear)
    same_state(e_linear, t_linear, rtol=1e-6)
    t_conv, e_conv = _pair(lambda lib: lib.nn.ConvTranspose2d, 3, 4, 3)
    torch.nn.utils.parametrizations.spectral_norm(t_conv)
    ember.nn.utils.parametrizations.spectral_norm(e_conv)
    assert list(e_conv.state_dict()) == list(t_conv.state_dict())
    assert e_conv.parametrizations.weight[0].dim == t_conv.parametrizations.weight[0].dim == 1
    assert repr(e_conv) == repr(t_conv)
    t_conv, e_conv = _pair(lambda lib: lib.nn.Conv2d, 3, 4, 3)
    torch.nn.utils.prune.ln_structured(t_conv, "weight", 0.5, 2, 0)
    ember.nn.utils.prune.ln_structured(e_conv, "weight", 0.5, 2, 0)
    same_state(e_conv, t_conv, rtol=1e-6)


def test_skip_init_and_memory_format():
    module = ember.nn.utils.skip_init(ember.nn.Linear, 3, 4)
    assert tuple(module.weight.shape) == (4, 3) and module.weight.device.type == "cpu"
    model = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 3), ember.nn.ReLU())
    ember.nn.utils.convert_conv2d_weight_memory_format(model, ember.channels_last)
    assert model[0].weight.is_contiguous(memory_format=ember.channels_last)
