"""A logging TorchDispatchMode over small models' forward passes lists the same ATen ops
(overload included), in the same order, in ember as in PyTorch: CompositeImplicit ops reach it
as their decompositions (NOTE [composites decompose under modes]) and saved outputs as the
detach PyTorch's autograd makes (NOTE [saved outputs are detached under modes])."""
from __future__ import annotations

import pytest

import ember
from ember.utils._python_dispatch import TorchDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchTDMode


def _logger(base):
    class Log(base):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))
    return Log


def _logged(lib, mode_class, build, run):
    lib.manual_seed(0)
    model = build(lib)
    inputs = run(lib, model)
    mode = mode_class()
    with mode:
        inputs()
    return mode.names


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))


class _Attention:
    def __init__(self, lib):
        nn = lib.nn
        self.lib = lib
        self.embed = nn.Embedding(10, 8)
        self.norm = nn.LayerNorm(8)
        self.query = nn.Linear(8, 8)
        self.key = nn.Linear(8, 8, bias=False)

    def __call__(self, tokens):
        h = self.norm(self.embed(tokens))
        q, k = self.query(h), self.key(h)
        weights = self.lib.softmax(q @ k.transpose(-2, -1) / 8 ** 0.5, dim=-1)
        return weights @ h


def _forward(shape):
    def run(lib, model):
        x = lib.randn(*shape)
        return lambda: model(x)
    return run


def _tokens(lib, model):
    tokens = lib.tensor([[1, 2, 3], [4, 5, 6]])
    return lambda: model(tokens)


def _eval(build):
    def built(lib):
        return build(lib).eval()
    return built


def _with_loss(lib, model):
    x, target = lib.randn(5, 4), lib.tensor([0, 2, 1, 1, 0])
    return lambda: lib.nn.functional.cross_entropy(model(x), target)


def _with_summed_loss(lib, model):
    x, target = lib.randn(5, 4), lib.tensor([0, 2, 1, 1, 0])
    return lambda: lib.nn.functional.cross_entropy(model(x), target, reduction="sum")


CASES = {
    "mlp": (_mlp, _forward((2, 4))),
    "mlp on a batch of sequences": (_mlp, _forward((2, 5, 4))),
    "mlp on one vector": (_mlp, _forward((4,))),
    "cnn training": (_cnn, _forward((2, 3, 8, 8))),
    "cnn eval": (_eval(_cnn), _forward((2, 3, 8, 8))),
    "attention block": (_Attention, _tokens),
    "cross entropy": (_mlp, _with_loss),
    "cross entropy summed": (_mlp, _with_summed_loss),
}


@pytest.mark.parametrize("case", CASES)
def test_forward_lists_pytorchs_aten_ops(case):
    build, run = CASES[case]
    ours = _logged(ember, _logger(TorchDispatchMode), build, run)
    theirs = _logged(torch, _logger(TorchTDMode), build, run)
    assert ours == theirs


@pytest.mark.parametrize("case", ["mlp", "cnn training", "attention block", "cross entropy"])
def test_gradients_through_decompositions_equal_the_fast_path(case):
    build, run = CASES[case]

    def grads(mode_class):
        ember.manual_seed(0)
        model = build(ember)
        params = [p for p in _parameters(model)]
        call = run(ember, model)
        if mode_class is None:
            out = call()
        else:
            with mode_class():
                out = call()
        out.sum().backward()
        return [p.grad for p in params]

    plain = grads(None)
    under_mode = grads(_logger(TorchDispatchMode))
    assert len(plain) == len(under_mode) > 0
    for a, b in zip(plain, under_mode):
        ember.testing.assert_close(b, a)


def _parameters(model):
    if isinstance(model, _Attention):
        return [p for m in (model.embed, model.norm, model.query, model.key)
                for p in m.parameters()]
    return list(model.parameters())


def test_a_mode_that_sees_composites_gets_the_op():
    class Whole(_logger(TorchDispatchMode)):
        _sees_composites = True

    x, w = ember.randn(2, 4), ember.randn(3, 4)
    mode = Whole()
    with mode:
        ember.nn.functional.linear(x, w)
    assert mode.names == ["aten.linear.default"]


def _wrapped_linear(lib):
    """F.linear on a wrapper subclass whose __torch_dispatch__ logs and unwraps."""
    log = []

    class Wrapper(lib.Tensor):
        __torch_function__ = lib._C._disabled_torch_function_impl

        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                  device=elem.device,
                                                  requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append(str(func))
            args = [a.elem if isinstance(a, Wrapper) else a for a in args]
            out = func(*args, **(kwargs or {}))
            return Wrapper(out) if isinstance(out, lib.Tensor) else out

    x = Wrapper(lib.randn(2, 4, requires_grad=True))
    w, b = Wrapper(lib.randn(3, 4)), Wrapper(lib.randn(3))
    lib.nn.functional.relu(lib.nn.functional.linear(x, w, b))
    return log


def test_wrapper_subclass_sees_the_decomposition():
    assert _wrapped_linear(ember) == _wrapped_linear(torch)
