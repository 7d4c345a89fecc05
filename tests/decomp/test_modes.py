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


def _matmul(a, b):
    def make(lib):
        x, y = lib.randn(*a), lib.randn(*b)
        return lambda: lib.matmul(x, y)
    return make


def _linear(shape, bias, transposed=False):
    def make(lib):
        x = lib.randn(*shape)
        if transposed:
            x = x.transpose(0, 1)
        w, b = lib.randn(3, shape[-1]), lib.randn(3) if bias else None
        return lambda: lib.nn.functional.linear(x, w, b)
    return make


def _on(shape, call):
    def make(lib):
        x = lib.randn(*shape)
        return lambda: call(lib, x)
    return make


# One call each of the composites whose decompositions run under modes; inputs are made
# before the mode opens.
CALLS = {
    # (Not a vector without bias: PyTorch's matmul squeezes its product in place there,
    # `squeeze_.dim`, and ember's in-place view ops reach a mode as their out-of-place op.)
    **{f"linear {s} bias={b}": _linear(s, b)
       for s in [(4,), (2, 4), (2, 5, 4), (2, 2, 5, 4)] for b in (True, False)
       if s != (4,) or b},
    "linear, non-contiguous 3-d": _linear((5, 2, 4), True, transposed=True),
    **{f"matmul {a} @ {b}": _matmul(a, b)
       for a, b in [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 2)), ((4, 2, 3), (3,)),
                    ((4, 2, 3), (3, 5)), ((5, 4, 2, 3), (3, 5)), ((3,), (4, 3, 2)),
                    ((2, 3), (4, 3, 2)), ((4, 2, 3), (4, 3, 5)), ((2, 1, 2, 3), (4, 3, 5))]},
    "reshape": _on((2, 3, 4), lambda lib, x: x.reshape(6, 4)),
    "reshape, non-contiguous": _on((2, 3, 4), lambda lib, x: x.transpose(0, 1).reshape(6, 4)),
    "flatten": _on((2, 3, 4), lambda lib, x: lib.flatten(x, 1)),
    "flatten, non-contiguous": _on((2, 3, 4), lambda lib, x: lib.flatten(x.transpose(0, 2), 1)),
    "flatten, one dim": _on((2, 3, 4), lambda lib, x: lib.flatten(x, 1, 1)),
    "ravel": _on((2, 3), lambda lib, x: x.ravel()),
    "view_as": _on((2, 3), lambda lib, x: x.view_as(x)),
    "reshape_as": _on((2, 3), lambda lib, x: x.reshape_as(x)),
    "expand_as": _on((3,), lambda lib, x: x.expand_as(lib.ones(2, 3))),
    "broadcast_to": _on((3,), lambda lib, x: lib.broadcast_to(x, (2, 3))),
    "narrow": _on((2, 5), lambda lib, x: x.narrow(1, 1, 3)),
    "chunk": _on((2, 5), lambda lib, x: x.chunk(2, 1)),
    "movedim": _on((2, 3, 4), lambda lib, x: x.movedim(0, 2)),
    "outer": _on((3,), lambda lib, x: lib.outer(x, x)),
    "softmax": _on((2, 3), lambda lib, x: lib.softmax(x, 1)),
    "softmax to float64": _on((2, 3), lambda lib, x: lib.softmax(x, 1, dtype=lib.float64)),
    "log_softmax": _on((2, 3), lambda lib, x: lib.log_softmax(x, -1)),
    "hstack": _on((2, 3), lambda lib, x: lib.hstack([x, x])),
    "vstack of vectors": _on((3,), lambda lib, x: lib.vstack([x, x])),
    "dstack": _on((2, 3), lambda lib, x: lib.dstack([x, x])),
    "column_stack": _on((3,), lambda lib, x: lib.column_stack([x, x])),
    "fliplr": _on((2, 3), lambda lib, x: x.fliplr()),
    "flipud": _on((2, 3), lambda lib, x: x.flipud()),
    "tile": _on((2, 3), lambda lib, x: x.tile((2,))),
    "nll_loss": _on((4, 3), lambda lib, x: lib.nn.functional.nll_loss(
        x, lib.tensor([0, 2, 1, 0]))),
}


@pytest.mark.parametrize("case", CALLS)
def test_composite_call_lists_pytorchs_aten_ops(case):
    logged = []
    for lib, base in ((ember, TorchDispatchMode), (torch, TorchTDMode)):
        lib.manual_seed(0)
        call = CALLS[case](lib)
        mode = _logger(base)()
        with mode:
            call()
        logged.append(mode.names)
    assert logged[0] == logged[1]
