"""A logging TorchDispatchMode over optimizer steps, gradient clipping and whole training steps
(zero_grad, forward, loss, backward twice so the gradients accumulate, clip_grad_norm_, step,
loss.item()) lists the same ATen ops, overloads included, in ember as in PyTorch: the step
counts read through `_local_scalar_dense` (NOTE [item is an op under modes]), in-place calls
reach the mode as their overload form's in-place (`lerp_.Scalar`, `clamp_.default`,
`pow_.Scalar`), norms as `linalg_vector_norm` (their backward's ops are not PyTorch's yet),
a later gradient accumulates with
`add_.Tensor`, `where`'s numbers become `scalar_tensor`s (NOTE [where's numbers under
modes]), and isclose decomposes as PyTorch's composite.

Adam's amsgrad and Adamax's single-tensor forms write `maximum(..., out=)`, which reaches
the mode as `maximum.out` (NOTE [out forms]); `Optimizer.step` and `zero_grad` run inside
PyTorch's `record_function` ranges, whose `profiler._record_function_enter_new` /
`_record_function_exit` ops a mode sees (NOTE [record_function is an op])."""
from __future__ import annotations

import numpy as np
import pytest
from decomp.test_modes import _logger

import ember
from ember.utils._python_dispatch import TorchDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchTDMode



def _names(mode):
    return list(mode.names)


def _modes(lib):
    return _logger(TorchDispatchMode if lib is ember else TorchTDMode)


OPTIMIZERS = {
    "sgd": lambda O, p: O.SGD(p, lr=0.1),
    "sgd momentum": lambda O, p: O.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
    "sgd nesterov": lambda O, p: O.SGD(p, lr=0.1, momentum=0.9, nesterov=True, dampening=0),
    "adam": lambda O, p: O.Adam(p, lr=0.1),
    "adam weight decay": lambda O, p: O.Adam(p, lr=0.1, weight_decay=0.1),
    "adamw": lambda O, p: O.AdamW(p, lr=0.1),
    "rmsprop": lambda O, p: O.RMSprop(p, lr=0.1),
    "rmsprop centered": lambda O, p: O.RMSprop(p, lr=0.1, momentum=0.9, centered=True,
                                               weight_decay=0.1),
    "adagrad": lambda O, p: O.Adagrad(p, lr=0.1),
    "adagrad decays": lambda O, p: O.Adagrad(p, lr=0.1, weight_decay=0.1, lr_decay=0.01),
    "adadelta": lambda O, p: O.Adadelta(p, lr=0.1),
    "nadam": lambda O, p: O.NAdam(p, lr=0.1),
    "nadam decays": lambda O, p: O.NAdam(p, lr=0.1, weight_decay=0.1, decoupled_weight_decay=True),
    "radam": lambda O, p: O.RAdam(p, lr=0.1),
    "radam decays": lambda O, p: O.RAdam(p, lr=0.1, weight_decay=0.1),
    "asgd": lambda O, p: O.ASGD(p, lr=0.1),
    "asgd decays": lambda O, p: O.ASGD(p, lr=0.1, weight_decay=0.1, t0=0),
    # (PyTorch's single-tensor forms write `maximum(..., out=)`: NOTE [out forms])
    "adam amsgrad": lambda O, p: O.Adam(p, lr=0.1, amsgrad=True),
    "adamw amsgrad": lambda O, p: O.AdamW(p, lr=0.1, amsgrad=True),
    "adamax": lambda O, p: O.Adamax(p, lr=0.1),
}


def _optimizer_step(lib, case, foreach):
    rng = np.random.default_rng(0)
    params = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s), dtype=lib.float32))
              for s in ((3, 2), (2,))]
    for p in params:
        p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=lib.float32)
    optimizer = OPTIMIZERS[case](lib.optim, params)
    for group in optimizer.param_groups:
        group["foreach"] = foreach
    optimizer.step()                        # (the state exists: a later step is logged)
    mode = _modes(lib)()
    with mode:
        optimizer.step()
    return _names(mode), [p.detach().numpy().copy() for p in params]


@pytest.mark.parametrize("foreach", [False, True], ids=["single", "foreach"])
@pytest.mark.parametrize("case", OPTIMIZERS)
def test_an_optimizer_step_lists_pytorchs_aten_ops(case, foreach):
    ours, our_params = _optimizer_step(ember, case, foreach)
    theirs, their_params = _optimizer_step(torch, case, foreach)
    assert ours == theirs
    assert len(ours) > 0
    for a, b in zip(our_params, their_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _calls(lib):
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((3, 4)), dtype=lib.float32, requires_grad=True)
    y = lib.tensor(rng.standard_normal((3, 4)), dtype=lib.float32)
    i = lib.arange(12).view(3, 4)
    return {
        "item": lambda: y.sum().item(), "float": lambda: float(y[0, 0]),
        "bool": lambda: bool(y[0, 0] > 0), "int": lambda: int(y.argmax()),
        "norm": lambda: x.norm(), "norm dim": lambda: x.norm(dim=1),
        "norm 1": lambda: lib.norm(x, p=1), "norm fro": lambda: lib.norm(x, "fro"),
        "vector_norm 3": lambda: lib.linalg.vector_norm(x, 3, dim=0),
        "vector_norm inf": lambda: lib.linalg.vector_norm(x, float("inf")),
        "lerp_": lambda: y.clone().lerp_(y, 0.5), "clamp_": lambda: y.clone().clamp_(0, 1),
        "clamp_min_": lambda: y.clone().clamp_min_(0), "pow_": lambda: y.clone().pow_(2),
        "pow_ tensor": lambda: y.clone().pow_(y),
        "accumulated": lambda: [(x * 2).sum().backward() for _ in range(2)],
        "where number": lambda: lib.where(y > 0, y, 0.0),
        "where number first": lambda: lib.where(y > 0, 1, y),
        "where numbers": lambda: lib.where(y > 0, 1.0, 0),
        "where int tensor": lambda: lib.where(y > 0, i, 0.5),
        "where half": lambda: lib.where(y > 0, y.half(), 2),
        "where method": lambda: y.where(y > 0, 0.0),
        "where tensors": lambda: lib.where(y > 0, y, -y),
        "isclose": lambda: lib.isclose(y, y * 1.000001),
        "isclose nan": lambda: lib.isclose(y, y.sqrt(), equal_nan=True),
        "isclose int": lambda: lib.isclose(i, i + (i > 5)),
        "isclose exact": lambda: lib.isclose(y, y, rtol=0, atol=0),
    }


@pytest.mark.parametrize("name", list(_calls(ember)))
def test_calls_list_pytorchs_aten_ops(name):
    def logged(lib):
        call = _calls(lib)[name]
        mode = _modes(lib)()
        with mode:
            result = call()
        return mode.names, result

    (ours, our_result), (theirs, their_result) = logged(ember), logged(torch)
    assert ours == theirs
    if isinstance(their_result, (int, float, bool)):
        assert type(our_result) is type(their_result)
        assert our_result == pytest.approx(their_result, rel=1e-5)
    if isinstance(their_result, torch.Tensor):
        assert str(our_result.dtype) == str(their_result.dtype).replace("torch", "ember")
        np.testing.assert_allclose(our_result.detach().float().numpy(),
                                   their_result.detach().float().numpy(), rtol=1e-6)


def _training_step(lib, optimizer_name, foreach):
    lib.manual_seed(0)
    nn, F = lib.nn, lib.nn.functional
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    optimizer = getattr(lib.optim, optimizer_name)(model.parameters(), lr=0.1, foreach=foreach)
    x, target = lib.randn(5, 4), lib.tensor([0, 2, 1, 1, 0])

    def step():
        optimizer.zero_grad()
        for half in (x[:3], x[3:]):         # two micro-batches: the gradients accumulate
            F.cross_entropy(model(half), target[:len(half)]).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return F.cross_entropy(model(x), target).item()

    step()
    mode = _modes(lib)()
    with mode:
        loss = step()
    return _names(mode), loss


@pytest.mark.parametrize("foreach", [False, True], ids=["single", "foreach"])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_a_training_step_lists_pytorchs_aten_ops(optimizer, foreach):
    (ours, our_loss), (theirs, their_loss) = (_training_step(ember, optimizer, foreach),
                                              _training_step(torch, optimizer, foreach))
    assert ours == theirs
    assert our_loss == pytest.approx(their_loss, rel=1e-4)
