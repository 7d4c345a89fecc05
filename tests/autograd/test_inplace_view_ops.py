"""In-place view ops (t_, transpose_, squeeze_, unsqueeze_, swapaxes_, swapdims_,
as_strided_) change a tensor's own shape and, under autograd, its history, as in PyTorch."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

CALLS = {
    "t_": ((2, 3), lambda t: t.t_()),
    "transpose_": ((2, 3, 4), lambda t: t.transpose_(0, 2)),
    "swapaxes_": ((2, 3), lambda t: t.swapaxes_(0, 1)),
    "swapdims_": ((2, 3), lambda t: t.swapdims_(1, 0)),
    "squeeze_()": ((1, 3, 1), lambda t: t.squeeze_()),
    "squeeze_(dim)": ((1, 3, 1), lambda t: t.squeeze_(2)),
    "squeeze_(dims)": ((1, 3, 1), lambda t: t.squeeze_((0, 2))),
    "unsqueeze_": ((2, 3), lambda t: t.unsqueeze_(1)),
    "as_strided_": ((2, 3), lambda t: t.as_strided_((3, 2), (1, 3))),
}


def both(fn):
    return fn(ember), fn(torch)


@pytest.mark.parametrize("name", CALLS, ids=list(CALLS))
def test_inplace_view_op_history_and_gradient(name):
    shape, call = CALLS[name]

    def run(lib):
        x = lib.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        y = x * 1
        returned = call(y)
        weight = lib.arange(float(y.numel())).reshape(y.shape)
        (y * weight).sum().backward()
        return (returned is y, list(y.shape), y.stride(), y._version,
                type(y.grad_fn).__name__, x.grad.tolist())
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("name", CALLS, ids=list(CALLS))
def test_inplace_view_op_without_grad(name):
    shape, call = CALLS[name]

    def run(lib):
        x = lib.arange(float(np.prod(shape))).reshape(shape)
        call(x)
        return list(x.shape), x.stride(), x._version, x.tolist()
    ours, theirs = both(run)
    assert ours == theirs


def test_on_a_leaf_that_requires_grad():
    def run(lib):
        w = lib.ones(2, 3, requires_grad=True)
        try:
            w.t_()
            error = None
        except RuntimeError as e:
            error = str(e)
        with lib.no_grad():
            w.t_()
        return error, list(w.shape), w.requires_grad, w.is_leaf
    ours, theirs = both(run)
    assert ours[0] is not None
    assert ours == theirs


def test_on_a_view_keeps_its_base():
    def run(lib):
        w = lib.arange(6., requires_grad=True)
        b = w * 1
        v = b[1:4]
        v.unsqueeze_(0)
        (v * lib.arange(3.)).sum().backward()
        return type(v.grad_fn).__name__, v._base is b, list(v.shape), w.grad.tolist()
    ours, theirs = both(run)
    assert ours == theirs
