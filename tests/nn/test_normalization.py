"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d against PyTorch."""
import numpy as np
import pytest
import torch
from tests.nn.compare import assert_close, check_module, to_ember

import ember


def _randn(*shape, dtype=torch.float32, seed=0):
    values = np.random.default_rng(seed).standard_normal(shape) * 2 + 0.3
    return torch.tensor(values, dtype=dtype)


def _edtype(dtype):
    return getattr(ember, str(dtype).split(".")[1])


def _randomize(module):
    with torch.no_grad():
        for p in module.parameters():
            p.uniform_(0.5, 1.5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("spec, shape", [
    ("LayerNorm(4)", (3, 4)), ("LayerNorm(4)", (4,)), ("LayerNorm([3, 4])", (2, 3, 4)),
    ("LayerNorm(4, elementwise_affine=False)", (2, 4)), ("LayerNorm(4, bias=False)", (2, 4)),
    ("GroupNorm(2, 4)", (3, 4, 5)), ("GroupNorm(1, 4, affine=False)", (2, 4, 2, 3)),
    ("GroupNorm(4, 4, eps=1e-3)", (2, 4)), ("GroupNorm(2, 4, bias=False)", (2, 4, 3)),
    ("RMSNorm(4)", (3, 4)), ("RMSNorm([2, 4], eps=1e-3)", (3, 2, 4)),
    ("RMSNorm(4, elementwise_affine=False)", (4,)),
    ("LocalResponseNorm(3)", (2, 5, 4)), ("LocalResponseNorm(2, alpha=0.5, k=2.0)", (2, 4, 3, 3)),
    ("LocalResponseNorm(4, beta=0.5)", (1, 6, 2, 2, 2)),
    ("CrossMapLRN2d(3, alpha=0.5)", (2, 5, 3, 3)), ("CrossMapLRN2d(5, alpha=0.3)", (1, 7, 2, 2)),
])
def test_module_matches_torch(spec, shape, dtype):
    t = eval(f"torch.nn.{spec}").to(dtype)
    e = eval(f"ember.nn.{spec}").to(_edtype(dtype))
    _randomize(t)
    check_module(t, e, _randn(*shape, dtype=dtype))


def test_layer_norm_node_and_statistics():
    x = _randn(3, 4, dtype=torch.float64)
    t_out = torch.native_layer_norm(x, [4], None, None, 1e-5)
    e_out = ember.native_layer_norm(to_ember(x), [4], None, None, 1e-5)
    for e, t in zip(e_out, t_out):
        assert_close(e, t)
    t_out = torch.native_group_norm(x.reshape(3, 4, 1), None, None, 3, 4, 1, 2, 1e-5)
    e_out = ember.native_group_norm(to_ember(x).reshape(3, 4, 1), None, None, 3, 4, 1, 2, 1e-5)
    for e, t in zip(e_out, t_out):
        assert_close(e, t)


def test_rms_norm_functional_default_eps():
    x = _randn(2, 3, dtype=torch.float32) * 1e-4
    assert_close(ember.nn.functional.rms_norm(to_ember(x), [3]),
                 torch.nn.functional.rms_norm(x, [3]))


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.layer_norm(x, [5]),
    lambda lib, x: lib.nn.functional.layer_norm(x, [4], weight=x.new_ones(3)),
    lambda lib, x: lib.nn.functional.group_norm(x, 3),
    lambda lib, x: lib.nn.functional.group_norm(x.reshape(-1), 1),
    lambda lib, x: lib.nn.functional.rms_norm(x, [5]),
    lambda lib, x: lib.nn.functional.local_response_norm(x, 2),
    lambda lib, x: lib.nn.GroupNorm(3, 4),
    lambda lib, x: lib.nn.CrossMapLRN2d(3)(x),
])
def test_errors_match_torch(call):
    x = _randn(2, 4)
    with pytest.raises(Exception) as t_error:
        call(torch, x)
    with pytest.raises(t_error.type):
        call(ember, to_ember(x))


@pytest.mark.parametrize("spec, shape", [
    ("LayerNorm(4)", (3, 4)), ("LayerNorm([3, 4], bias=False)", (2, 3, 4)),
    ("GroupNorm(2, 4)", (3, 4, 5)), ("BatchNorm1d(4)", (5, 4)), ("BatchNorm2d(3)", (2, 3, 2, 2)),
    ("BatchNorm1d(4, affine=False)", (3, 4, 2)), ("InstanceNorm1d(3, affine=True)", (2, 3, 5)),
])
@pytest.mark.parametrize("train", [True, False])
def test_second_derivatives_match_torch(spec, shape, train):
    """A gradient penalty (the gradient of |d loss / d x|^2) through the layer, as WGAN-GP
    trains: needs the derivatives of the backward ops (NOTE [normalisation double backward])."""
    def penalty(lib, module, x):
        module.train(train)
        loss = (module(x) ** 3).sum()
        (grad_x,) = lib.autograd.grad(loss, x, create_graph=True)
        (grad_x ** 2).sum().backward()
        return [x.grad] + [p.grad for p in module.parameters()]

    t = eval(f"torch.nn.{spec}").double()
    e = eval(f"ember.nn.{spec}").double()
    _randomize(t)
    e.load_state_dict({k: to_ember(v) for k, v in t.state_dict().items()})
    x = _randn(*shape, dtype=torch.float64).requires_grad_()
    expected = penalty(torch, t, x)
    got = penalty(ember, e, to_ember(x.detach()).requires_grad_())
    assert len(got) == len(expected)
    for g, want in zip(got, expected):
        assert_close(g, want, rtol=1e-7, atol=1e-9)
