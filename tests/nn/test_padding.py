"""Padding layers and F.pad against PyTorch."""
from __future__ import annotations

import pytest
import torch

import ember
from nn.compare import check_module, to_ember

LAYERS = [
    ("ZeroPad1d", ((1, 2),)), ("ZeroPad2d", (1,)), ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),)),
    ("ConstantPad1d", (2, 3.5)), ("ConstantPad2d", ((1, -1, 2, 0), -1.0)),
    ("ConstantPad3d", (1, 0.5)),
    ("ReflectionPad1d", ((2, 1),)), ("ReflectionPad2d", ((1, 2, 0, 1),)),
    ("ReflectionPad3d", (1,)),
    ("ReplicationPad1d", ((3, 5),)), ("ReplicationPad2d", ((1, 2, -1, 1),)),
    ("ReplicationPad3d", (1,)),
    ("CircularPad1d", ((2, 1),)), ("CircularPad2d", ((1, 2, 0, 1),)), ("CircularPad3d", (1,)),
]
SHAPES = {1: (2, 3, 4), 2: (2, 3, 4, 5), 3: (1, 2, 3, 4, 3)}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,args", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_padding_layer_matches_torch(name, args, dtype):
    x = torch.randn(SHAPES[int(name[-2])], dtype=dtype)
    check_module(getattr(torch.nn, name)(*args), getattr(ember.nn, name)(*args), x)
    check_module(getattr(torch.nn, name)(*args), getattr(ember.nn, name)(*args), x[0])


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_double_backward_matches_torch(mode):
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    ex = to_ember(x)
    t_out = torch.nn.functional.pad(x, (2, 1), mode=mode)
    e_out = ember.nn.functional.pad(ex, (2, 1), mode=mode)
    (t_grad,) = torch.autograd.grad((t_out ** 3).sum(), x, create_graph=True)
    (e_grad,) = ember.autograd.grad((e_out ** 3).sum(), ex, create_graph=True)
    (t_second,) = torch.autograd.grad(t_grad.sum(), x)
    (e_second,) = ember.autograd.grad(e_grad.sum(), ex)
    assert torch.allclose(torch.from_numpy(e_second.numpy()), t_second)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.CircularPad2d(1)(x[0, 0]),
    lambda lib, x: lib.nn.ReflectionPad2d(1)(x[0, 0]),
    lambda lib, x: lib.nn.ReflectionPad1d(5)(x[0]),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1), mode="replicate"),
    lambda lib, x: lib.nn.functional.pad(x, (1, 1, 1), mode="constant"),
    lambda lib, x: lib.nn.functional.pad(x, (0, 0, -3, -3)),
])
def test_errors_match_torch(call):
    x = torch.randn(2, 3, 4, 5)
    with pytest.raises(Exception) as expected:
        call(torch, x)
    with pytest.raises(type(expected.value)):
        call(ember, to_ember(x))
