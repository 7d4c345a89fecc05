"""Calls whose names PyTorch's modes see differently from the op ember first computed them
with, against PyTorch: the shift operators (`x << 1` is `aten.__lshift__.Scalar`, NOTE [shift
operators are their own ops]), conj of a complex tensor (`aten._conj`), and the public fft
functions, which a TorchFunctionMode sees under PyTorch's names (`fft_fft`) and a
TorchDispatchMode as `_fft_r2c` and friends (the frequencies as the factory ops
`fft_fftfreq` / `fft_rfftfreq`)."""
from __future__ import annotations

import importlib

import numpy as np

import pytest
import torch

import ember


def _modes(T):
    dispatch = importlib.import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode
    function = importlib.import_module(f"{T.__name__}.overrides").TorchFunctionMode

    class Dispatch(dispatch):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.log.append(str(func))
            return func(*args, **(kwargs or {}))

    class Function(function):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.log.append(func.__name__)
            return func(*args, **(kwargs or {}))
    return Dispatch, Function


def _shifts(T):
    x, y = T.tensor([1, 2]), T.tensor([1, 1])
    yield lambda: (x << 1, x << y, 1 << x, x >> 1, x >> y, 1 >> x)
    yield lambda: (T.bitwise_left_shift(x, 1), T.bitwise_left_shift(x, y),
                   x.bitwise_right_shift(1), T.bitwise_left_shift(1, x))
    z = x.clone()

    def in_place():
        z.__ilshift__(1)
        z.__ilshift__(y)
        z.__irshift__(1)
        z.bitwise_left_shift_(1)
        z.bitwise_left_shift_(y)
        z.bitwise_right_shift_(y)
    yield in_place


def _conj(T):
    x = T.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    yield lambda: (x.conj(), T.conj(x), T.ones(2).conj())
    # (PyTorch's conj is a lazy view: an op on it first clones it, which ember, having no
    # conjugate bit, does not; so the programs hand the view to no other op.)
    yield lambda: x.detach().conj()


def _fft(T):
    x, c = T.arange(8.0), T.ones(8, dtype=T.complex64)
    yield lambda: (T.fft.fft(x), T.fft.ifft(x), T.fft.rfft(x), T.fft.irfft(c), T.fft.ihfft(x))
    m = T.ones(4, 4)
    yield lambda: (T.fft.fft2(m), T.fft.rfftn(m), T.fft.ifftn(m.to(T.complex64)),
                   T.fft.fftshift(x), T.fft.ifftshift(x))
    yield lambda: (T.fft.fftfreq(4), T.fft.rfftfreq(5, 0.5), T.fft.fftfreq(5, dtype=T.float64))


CASES = {"shifts": _shifts, "conj": _conj, "fft": _fft}


def _logs(T, case, mode_index):
    logs = []
    for program in CASES[case](T):
        mode = _modes(T)[mode_index]()
        with mode:
            program()
        logs.append(mode.log)
    return logs


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_dispatch_mode_sees_pytorchs_ops(case):
    theirs, ours = _logs(torch, case, 0), _logs(ember, case, 0)
    assert ours == theirs
    assert all(theirs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_function_mode_sees_pytorchs_public_names(case):
    theirs, ours = _logs(torch, case, 1), _logs(ember, case, 1)
    if case == "fft":
        logs = []
        for T in (torch, ember):
            mode = _modes(T)[1]()
            with mode:
                T.fft.fftfreq(4), T.fft.rfftfreq(5, 0.5)
            logs.append(mode.log)
        assert logs[1] == logs[0] == ["fft_fftfreq", "fft_rfftfreq"]
    assert ours == theirs
    assert all(theirs)


def test_shift_operators_compute_as_pytorch():
    a, b = [3, -8, 5], [1, 2, 0]
    for T in (torch, ember):
        x, y = T.tensor(a), T.tensor(b)
        z = x.clone()
        z <<= y
        z >>= 1
        yield_ = [(x << y).tolist(), (x >> 1).tolist(), (2 << y).tolist(), z.tolist()]
        if T is torch:
            expected = yield_
        else:
            assert yield_ == expected
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        ember.ones(2) << 1
    assert ember.ops.aten.__lshift__.Scalar is ember._core.registry.OPS["__lshift__.Scalar"]


def _norms(T):
    def backward(p, dim, keepdim):
        x = T.tensor([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], requires_grad=True)
        T.linalg.vector_norm(x, p, dim, keepdim).sum().backward()
    yield lambda: backward(2, None, False)
    yield lambda: backward(2, 1, False)
    yield lambda: backward(2, (0, 1), True)
    yield lambda: backward(3, 1, False)
    yield lambda: backward(1.5, 0, True)
    yield lambda: backward(0.5, 1, False)
    yield lambda: backward(1, 1, False)


CASES["norms"] = _norms


@pytest.mark.parametrize("p", [2, 3, 1.5, 0.5, 1, float("inf")])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), ((0, 1), False)])
def test_vector_norm_gradients_match(p, dim, keepdim):
    values = [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [3.0, 0.0, -3.0]]
    grads = []
    for T in (torch, ember):
        x = T.tensor(values, dtype=T.float64, requires_grad=True)
        out = T.linalg.vector_norm(x, p, dim, keepdim)
        (grad,) = T.autograd.grad((out * 1.5).sum(), x)
        grads.append(grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [2, 3, 1.5, 0.5])
def test_vector_norm_double_backward_is_the_derivative_of_the_gradient(p):
    # (PyTorch's formula fills a saved quotient in place and refuses this second backward;
    # ember fills a copy when the backward builds a graph, so the value is there.)
    x = ember.tensor([[0.0, 1.0], [2.0, -1.0]], dtype=ember.float64, requires_grad=True)
    (grad,) = ember.autograd.grad(ember.linalg.vector_norm(x, p, 1).sum(), x,
                                  create_graph=True)
    (second,) = ember.autograd.grad(grad.pow(2).sum(), x)
    # The oracle: PyTorch's own second derivative through a formula without the in-place fill.
    t = torch.tensor([[0.0, 1.0], [2.0, -1.0]], dtype=torch.float64, requires_grad=True)
    n = t.abs().pow(p).sum(1, keepdim=True).pow(1 / p)
    g = torch.where(n == 0, 0.0, t.sgn() * t.abs().pow(p - 1) / n.pow(p - 1).where(n != 0, 1))
    (expected,) = torch.autograd.grad(g.pow(2).sum(), t)
    np.testing.assert_allclose(second.numpy()[1], expected.numpy()[1], rtol=1e-10)
