"""Identity, Linear, Bilinear, Flatten and Unflatten against PyTorch."""
import numpy as np
import pytest
import torch
from tests._capability import UNIFORM_ULPS, assert_same_draws
from tests.nn.compare import assert_close, check_module, to_ember

import ember


def _randn(*shape, dtype=torch.float32):
    return torch.tensor(np.random.default_rng(sum(shape)).standard_normal(shape), dtype=dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 3, 5)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(dtype, shape, bias):
    t = torch.nn.Linear(5, 3, bias=bias).to(dtype)
    e = ember.nn.Linear(5, 3, bias=bias).to(getattr(ember, str(dtype).split(".")[1]))
    check_module(t, e, _randn(*shape, dtype=dtype))


def test_linear_node_names_follow_torch():
    for shape, bias in (((4, 5), True), ((4, 5), False)):
        t_w, t_b = _randn(3, 5).requires_grad_(), _randn(3).requires_grad_()
        e_w, e_b = to_ember(t_w), to_ember(t_b)
        x = _randn(*shape)
        t_out = torch.nn.functional.linear(x, t_w, t_b if bias else None)
        e_out = ember.nn.functional.linear(to_ember(x), e_w, e_b if bias else None)
        assert type(e_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_linear_double_backward():
    x = _randn(4, 5, dtype=torch.float64).requires_grad_()
    w = _randn(3, 5, dtype=torch.float64).requires_grad_()
    ex, ew = to_ember(x), to_ember(w)
    (gx,) = torch.autograd.grad(torch.nn.functional.linear(x, w).pow(2).sum(), x,
                                create_graph=True)
    (egx,) = ember.autograd.grad(ember.nn.functional.linear(ex, ew).pow(2).sum(), ex,
                                 create_graph=True)
    gx.sum().backward()
    egx.sum().backward()
    assert_close(ew.grad, w.grad)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.linear(x, x.new_ones(3, 4)),
    lambda lib, x: lib.nn.functional.linear(x, x.new_ones(3, 5).double()),
    lambda lib, x: lib.nn.functional.linear(x, x.new_ones(3, 5), x.new_ones(4)),
])
def test_linear_errors_match_torch(call):
    x = _randn(2, 5)
    with pytest.raises(Exception) as t_error:
        call(torch, x)
    with pytest.raises(t_error.type):
        call(ember, to_ember(x))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("batch", [(4,), (), (2, 3)])
def test_bilinear_matches_torch(dtype, batch):
    t = torch.nn.Bilinear(3, 4, 2).to(dtype)
    e = ember.nn.Bilinear(3, 4, 2).to(getattr(ember, str(dtype).split(".")[1]))
    check_module(t, e, _randn(*batch, 3, dtype=dtype), _randn(*batch, 4, dtype=dtype))


def test_bilinear_without_bias():
    check_module(torch.nn.Bilinear(3, 4, 2, bias=False), ember.nn.Bilinear(3, 4, 2, bias=False),
                 _randn(5, 3), _randn(5, 4))


def test_identity_flatten_unflatten():
    x = _randn(2, 3, 4, 5)
    check_module(torch.nn.Identity(3, k=1), ember.nn.Identity(3, k=1), x)
    check_module(torch.nn.Flatten(), ember.nn.Flatten(), x)
    check_module(torch.nn.Flatten(0, 2), ember.nn.Flatten(0, 2), x)
    check_module(torch.nn.Unflatten(1, (3, 1)), ember.nn.Unflatten(1, (3, 1)), x)
    check_module(torch.nn.Unflatten(-1, [5, 1]), ember.nn.Unflatten(-1, [5, 1]), x)
    for bad in ((3.0, 1), 3):
        with pytest.raises(TypeError):
            torch.nn.Unflatten(1, bad)
        with pytest.raises(TypeError):
            ember.nn.Unflatten(1, bad)


def test_linear_default_init_bounds():
    layer = ember.nn.Linear(16, 8)
    bound = 1 / np.sqrt(16)
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    assert layer.weight.detach().numpy().std() > bound / 4


@pytest.mark.parametrize("ctor", ["Linear(3, 4)", "Linear(5, 2, bias=False)", "Bilinear(2, 3, 4)",
                                  "LayerNorm(4)", "BatchNorm1d(3)", "PReLU(3)",
                                  "Embedding(5, 3, padding_idx=1)", "EmbeddingBag(5, 3)"])
def test_default_init_is_pytorchs_under_the_same_seed(ctor):
    torch.manual_seed(0)
    t = eval(f"torch.nn.{ctor}")
    ember.manual_seed(0)
    e = eval(f"ember.nn.{ctor}")
    for t_value, e_value in zip(t.state_dict().values(), e.state_dict().values()):
        assert_same_draws(e_value.detach().numpy(), t_value.detach().numpy(), UNIFORM_ULPS)
