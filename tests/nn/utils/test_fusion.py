"""ember.nn.utils fuse_conv_bn_* / fuse_linear_bn_* against PyTorch (on weights, and on small
hand-made eval-mode modules that carry the attributes the fusers read)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def _stats(channels):
    return (RNG.standard_normal(channels), RNG.uniform(0.5, 2.0, channels),
            RNG.standard_normal(channels), RNG.standard_normal(channels))


def _lib_args(lib, arrays):
    return [None if a is None else lib.from_numpy(a.copy()) for a in arrays]


def _same(e, t):
    assert isinstance(e, ember.nn.Parameter)
    assert e.requires_grad == t.requires_grad
    assert str(e.dtype).replace("ember", "torch") == str(t.dtype)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("with_bias,with_affine", [(True, True), (False, False)])
def test_fuse_conv_bn_weights(transpose, with_bias, with_affine):
    weight = RNG.standard_normal((3, 4, 2, 2) if transpose else (4, 3, 2, 2))
    bias = RNG.standard_normal(4) if with_bias else None
    mean, var, gamma, beta = _stats(4)
    if not with_affine:
        gamma = beta = None
    arrays = [weight, bias, mean, var]
    results = []
    for lib in (torch, ember):
        w, b, rm, rv = _lib_args(lib, arrays)
        w.requires_grad_(True)
        g, bb = _lib_args(lib, [gamma, beta])
        results.append(lib.nn.utils.fuse_conv_bn_weights(w, b, rm, rv, 1e-5, g, bb, transpose))
    for e, t in zip(results[1], results[0], strict=True):
        _same(e, t)


@pytest.mark.parametrize("with_bias", [True, False])
def test_fuse_linear_bn_weights(with_bias):
    weight, bias = RNG.standard_normal((4, 3)), RNG.standard_normal(4) if with_bias else None
    mean, var, gamma, beta = _stats(4)
    results = []
    for lib in (torch, ember):
        args = _lib_args(lib, [weight, bias, mean, var])
        results.append(lib.nn.utils.fuse_linear_bn_weights(*args[:4], 1e-3,
                                                            *_lib_args(lib, [gamma, beta])))
    for e, t in zip(results[1], results[0], strict=True):
        _same(e, t)


def _modules(lib, weight, bias, stats, out_features=None):
    class Layer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.from_numpy(weight.copy()))
            self.bias = lib.nn.Parameter(lib.from_numpy(bias.copy()))
            self.out_features = out_features

    class Norm(lib.nn.Module):
        def __init__(self):
            super().__init__()
            mean, var, gamma, beta = stats
            self.weight = lib.nn.Parameter(lib.from_numpy(gamma.copy()))
            self.bias = lib.nn.Parameter(lib.from_numpy(beta.copy()))
            self.register_buffer("running_mean", lib.from_numpy(mean.copy()))
            self.register_buffer("running_var", lib.from_numpy(var.copy()))
            self.eps = 1e-5
            self.num_features = len(mean)

    return Layer().eval(), Norm().eval()


def test_fuse_eval_modules():
    weight, bias, stats = RNG.standard_normal((4, 3, 2)), RNG.standard_normal(4), _stats(4)
    fused = [lib.nn.utils.fuse_conv_bn_eval(*_modules(lib, weight, bias, stats))
             for lib in (torch, ember)]
    _same(fused[1].weight, fused[0].weight)
    _same(fused[1].bias, fused[0].bias)
    weight = RNG.standard_normal((4, 3))
    fused = [lib.nn.utils.fuse_linear_bn_eval(*_modules(lib, weight, bias, stats, 4))
             for lib in (torch, ember)]
    _same(fused[1].weight, fused[0].weight)
    _same(fused[1].bias, fused[0].bias)
    for lib in (torch, ember):
        layer, norm = _modules(lib, weight, bias, stats, 4)
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            lib.nn.utils.fuse_linear_bn_eval(layer.train(), norm)
        layer, norm = _modules(lib, weight, bias, stats, 5)
        with pytest.raises(AssertionError, match="To fuse, linear.out_features"):
            lib.nn.utils.fuse_linear_bn_eval(layer, norm)
