"""`out=` calls reach TorchDispatchModes as PyTorch's out overloads (`aten.add.out`,
`aten.sum.IntList_out`), NOTE [out forms], against PyTorch: the names of every ember op's
out overload against PyTorch's schemas, what a logging mode sees, and fake tensors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from ember._core.dispatch.out_forms import offers, out_overload
from ember._core.registry import OPS, build_all

from .test_operator_modes import _modes


def _torch_out_overload(name, overload):
    """PyTorch's out overload of aten.<name>.<overload>: the one whose arguments are the
    functional overload's plus keyword-only outs (None where PyTorch has none)."""
    packet = getattr(torch.ops.aten, name, None)
    if packet is None or overload not in packet.overloads():
        return None
    arguments = [(a.name, str(a.type)) for a in getattr(packet, overload)._schema.arguments]
    for candidate in packet.overloads():
        schema = getattr(packet, candidate)._schema
        outs = [a for a in schema.arguments
                if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write]
        if len(outs) == 1 and [(a.name, str(a.type)) for a in schema.arguments
                               if a is not outs[0]] == arguments:
            return candidate
    return None


def _offered_ops():
    build_all()
    for key, op in sorted(OPS.items()):
        base = op.redirect[0] if op.redirect is not None else op
        if base.out and offers(base):
            yield key, op


def test_every_out_overload_is_named_as_pytorchs():
    checked, wrong = 0, []
    for key, op in _offered_ops():
        name, _, overload = key.partition(".")
        theirs = _torch_out_overload(name, overload or "default")
        if theirs is None:
            continue
        checked += 1
        if out_overload(op) != theirs:
            wrong.append((key, out_overload(op), theirs))
    assert not wrong
    assert checked > 250


def _programs(T):
    x, y = T.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]), T.tensor([[2.0, 1.0, 0.5]])
    i = T.tensor([3, 1, 2])
    yield lambda: T.add(x, y, out=T.empty(2, 3))
    yield lambda: T.add(x, y, alpha=2, out=T.empty(0))
    yield lambda: T.sum(x, 1, out=T.empty(2))
    yield lambda: T.mean(x, 0, keepdim=True, out=T.empty(1, 3))
    yield lambda: T.mul(x, 2, out=T.empty(2, 3))
    yield lambda: T.pow(x, 2, out=T.empty(2, 3))
    yield lambda: T.div(x, y, rounding_mode="floor", out=T.empty(2, 3))
    yield lambda: T.eq(x, y, out=T.empty(2, 3, dtype=T.bool))
    yield lambda: T.remainder(i, 2, out=T.empty(3, dtype=T.int64))
    yield lambda: T.mm(x, x.t(), out=T.empty(2, 2))
    yield lambda: T.exp(x, out=T.empty(2, 3))
    yield lambda: T.clamp(x, 0, 1, out=T.empty(2, 3))
    yield lambda: T.cat([x, y], out=T.empty(3, 3))
    yield lambda: T.cumsum(x, 1, out=T.empty(2, 3))


def _logs(T):
    logs = []
    for program in _programs(T):
        mode = _modes(T)[0]()
        with mode:
            program()
        logs.append(mode.log)
    return logs


def test_a_dispatch_mode_sees_pytorchs_out_overloads():
    theirs, ours = _logs(torch), _logs(ember)
    assert ours == theirs
    assert all(theirs)


@pytest.mark.parametrize("index", range(14))
def test_out_calls_on_fake_tensors_give_pytorchs_results(index):
    shapes = []
    for T in (torch, ember):
        fake = __import__(f"{T.__name__}._subclasses.fake_tensor",
                          fromlist=["FakeTensorMode"]).FakeTensorMode
        with fake():
            program = list(_programs(T))[index]
            out = program()
            shapes.append((tuple(out.shape), str(out.dtype).split(".")[-1], out.stride(),
                           type(out).__name__))
    assert shapes[1] == shapes[0]


def test_out_calls_under_a_mode_write_the_outs():
    values = []
    for T in (torch, ember):
        mode = _modes(T)[0]()
        with mode:
            results = [program() for program in _programs(T)]
        values.append([r.numpy() for r in results])
    for ours, theirs in zip(values[1], values[0]):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
