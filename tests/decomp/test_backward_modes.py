"""A logging TorchDispatchMode over a whole training step -- forward, loss, backward -- lists the
same ATen ops (overloads included), in the same order, in ember as in PyTorch: the backward
formulas call PyTorch's ops (t/mm in mm's layout order, `*_backward` kernels, div.Scalar), the
engine runs ready nodes in PyTorch's order (NOTE [ready order]), saved outputs unpack and leaves
take their gradients through the detaches PyTorch's autograd makes, and calls with numbers or
without a dim reach the mode as PyTorch's overloads (NOTE [overload forms])."""
from __future__ import annotations

import pytest
from decomp.test_modes import _logger

import ember
from ember.utils._python_dispatch import TorchDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchTDMode


def _mlp(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    return model, lib.randn(5, 4), lambda out: nn.functional.cross_entropy(
        out, lib.tensor([0, 2, 1, 1, 0]))


def _cnn(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))
    return model, lib.randn(5, 3, 8, 8), lambda out: nn.functional.cross_entropy(
        out, lib.tensor([0, 2, 1, 1, 0]))


def _lenet(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 5, padding=2), nn.ReLU(), nn.AvgPool2d(2),
                          nn.Conv2d(4, 6, 3), nn.Tanh(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(24, 10), nn.Dropout(0.5), nn.LogSoftmax(1))
    return model, lib.randn(2, 1, 12, 12), lambda out: nn.functional.nll_loss(
        out, lib.tensor([3, 7]))


def _gpt(lib):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(10, 8)
            self.pos = nn.Parameter(lib.randn(4, 8))
            self.ln1, self.ln2 = nn.LayerNorm(8), nn.LayerNorm(8)
            self.qkv, self.proj = nn.Linear(8, 24), nn.Linear(8, 8)
            self.fc, self.fc2 = nn.Linear(8, 32), nn.Linear(32, 8)
            self.head = nn.Linear(8, 10, bias=False)
            self.drop = nn.Dropout(0.1)
            self.register_buffer("mask", lib.tril(lib.ones(4, 4)).view(1, 1, 4, 4))

        def forward(self, t):
            B, T = t.shape
            x = self.drop(self.tok(t) + self.pos[:T])
            q, k, v = self.qkv(self.ln1(x)).split(8, dim=2)
            q, k, v = (z.view(B, T, 2, 4).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * 0.5
            att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
            att = self.drop(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, 8)
            x = x + self.proj(y)
            x = x + self.fc2(F.gelu(self.fc(self.ln2(x))))
            return self.head(x)

    targets = lib.tensor([[2, 3, 4, 5], [5, 6, 7, 8]])
    return Block(), lib.tensor([[1, 2, 3, 4], [4, 5, 6, 7]]), lambda out: F.cross_entropy(
        out.view(-1, 10), targets.view(-1))


def _activations(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Sigmoid(),
                          nn.Linear(8, 8), nn.SiLU(), nn.Linear(8, 8), nn.ELU(),
                          nn.Linear(8, 8), nn.LeakyReLU(0.1), nn.Linear(8, 8), nn.Hardtanh(),
                          nn.Linear(8, 8), nn.Softplus(), nn.Linear(8, 8), nn.Mish(),
                          nn.Linear(8, 8), nn.Hardswish(), nn.Linear(8, 8), nn.Hardsigmoid(),
                          nn.Linear(8, 8), nn.SELU(), nn.Linear(8, 8), nn.Softshrink(),
                          nn.Linear(8, 8), nn.Hardshrink(), nn.Linear(8, 2))
    return model, lib.randn(3, 4), lambda out: (out - 1).pow(2).mean() + out.sum()


def _regression_losses(lib):
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(4, 8), nn.Sigmoid(), nn.Linear(8, 2), nn.SiLU())
    target = lib.randn(3, 2)
    return model, lib.randn(3, 4), lambda out: (
        F.mse_loss(out, target) + F.l1_loss(out, target) + F.smooth_l1_loss(out, target, beta=0.5)
        + F.huber_loss(out, target, reduction="sum", delta=0.7)
        + F.mse_loss(out, target[:1], reduction="sum")
        + F.soft_margin_loss(out, target.sign()) + F.logsigmoid(out).sum())


def _binary_losses(lib):
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.1), nn.Linear(8, 2))
    target, weight = lib.rand(3, 2), lib.rand(2)
    return model, lib.randn(3, 4), lambda out: (
        F.binary_cross_entropy_with_logits(out, target)
        + F.binary_cross_entropy_with_logits(out, target, weight=weight, pos_weight=weight,
                                             reduction="sum")
        + F.binary_cross_entropy(lib.sigmoid(out), target, weight=weight)
        + F.multilabel_soft_margin_loss(out, target.round()))


MODELS = {"mlp": _mlp, "cnn": _cnn, "lenet": _lenet, "gpt block": _gpt,
          "activations": _activations, "regression losses": _regression_losses,
          "binary losses": _binary_losses}


def _training_step(lib, mode_class, build):
    lib.manual_seed(0)
    model, x, loss_fn = build(lib)
    mode = mode_class()
    with mode:
        loss_fn(model(x)).backward()
    return mode.names


@pytest.mark.parametrize("case", MODELS)
def test_training_step_lists_pytorchs_aten_ops(case):
    ours = _training_step(ember, _logger(TorchDispatchMode), MODELS[case])
    theirs = _training_step(torch, _logger(TorchTDMode), MODELS[case])
    assert ours == theirs


@pytest.mark.parametrize("case", ["mlp", "gpt block", "activations", "regression losses",
                                  "binary losses"])
def test_gradients_under_a_mode_equal_the_plain_ones(case):
    def grads(mode_class):
        ember.manual_seed(0)
        model, x, loss_fn = MODELS[case](ember)
        if mode_class is None:
            loss_fn(model(x)).backward()
        else:
            with mode_class():
                loss_fn(model(x)).backward()
        return [p.grad for p in model.parameters()]

    plain, observed = grads(None), grads(_logger(TorchDispatchMode))
    assert len(plain) == len(observed) > 0
    for a, b in zip(plain, observed):     # (composites decompose under the mode)
        ember.testing.assert_close(b, a)


def _calls(lib):
    x, i = lib.randn(3, 4), lib.arange(12).view(3, 4)
    m = x > 0
    return {
        "1 - x": lambda: 1 - x, "x == 0": lambda: x == 0, "x != 0": lambda: x != 0,
        "x < 0": lambda: x < 0, "x <= 0": lambda: x <= 0, "x >= 0": lambda: x >= 0,
        "x ** 2": lambda: x ** 2, "2 ** x": lambda: 2 ** x, "x % 2": lambda: x % 2,
        "i & 1": lambda: i & 1, "i | 1": lambda: i | 1, "i ^ 1": lambda: i ^ 1,
        "clamp": lambda: x.clamp(0, 1), "clamp_min": lambda: lib.clamp_min(x, 0),
        "pow": lambda: lib.pow(x, 3), "fmod": lambda: lib.fmod(x, 2),
        "remainder": lambda: lib.remainder(x, 2), "lerp": lambda: lib.lerp(x, x, 0.5),
        "xlogy": lambda: lib.xlogy(x, 2), "x.mean()": lambda: x.mean(),
        "x.sum()": lambda: x.sum(), "x.sum(0)": lambda: x.sum(0), "x[:2]": lambda: x[:2],
        "x[:]": lambda: x[:], "x[-2:]": lambda: x[-2:], "x[:, :2]": lambda: x[:, :2],
        "x[m]": lambda: x[m], "x / 2": lambda: x / 2, "x * 2": lambda: x * 2,
    }


@pytest.mark.parametrize("name", list(_calls(ember)))
def test_calls_reach_the_mode_as_pytorchs_overloads(name):
    def logged(lib, mode_class):
        call = _calls(lib)[name]
        mode = mode_class()
        with mode:
            call()
        return mode.names

    assert logged(ember, _logger(TorchDispatchMode)) == logged(torch, _logger(TorchTDMode))


def test_an_overload_form_runs_its_base_op():
    x = ember.randn(3, 4, requires_grad=True)
    aten = ember.ops.aten
    assert ember.equal(aten.eq.Scalar(x, 0.5), x == 0.5)
    assert ember.equal(aten.mean.default(x), x.mean())
    assert aten.sum.default(x, dtype=ember.float64).dtype == ember.float64
    aten.pow.Tensor_Scalar(x, 2).sum().backward()
    ember.testing.assert_close(x.grad, 2 * x.detach())
