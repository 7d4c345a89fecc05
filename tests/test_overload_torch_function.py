"""`ember.ops.aten` overloads and packets called under a TorchFunctionMode, or with an argument
whose class overrides `__torch_function__`, reach it as PyTorch's OpOverload calls do (NOTE
[overloads reach __torch_function__], _core/dispatch/stack.py): the function is the overload
(or packet) itself, and the calls its body makes are not seen again."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch

import ember


def _function_log(T, run):
    base = importlib.import_module(f"{T.__name__}.overrides").TorchFunctionMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.names.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))
    x = T.tensor([1.0, -2.0, 3.0])
    mode = Log()
    with mode:
        out = run(T, x)
    return mode.names, out


CALLS = {
    "overload": lambda T, x: T.ops.aten.add.Tensor(x, x),
    "overload keyword": lambda T, x: T.ops.aten.add.Tensor(x, x, alpha=2),
    "scalar overload": lambda T, x: T.ops.aten.mul.Scalar(x, 2),
    "form": lambda T, x: T.ops.aten.eq.Scalar(x, 1.0),
    "default overload": lambda T, x: T.ops.aten.relu.default(x),
    "packet": lambda T, x: T.ops.aten.add(x, x),
    "packet keyword": lambda T, x: T.ops.aten.sum(x, dim=[0]),
    "composite": lambda T, x: T.ops.aten.linear.default(x.reshape(1, 3), T.ones(2, 3)),
    "public and overload": lambda T, x: T.ops.aten.neg.default(T.exp(x)),
    "list argument": lambda T, x: T.ops.aten.cat.default([x, x]),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_an_overload_call_reaches_a_function_mode_as_pytorchs(name):
    t_names, t_out = _function_log(torch, CALLS[name])
    e_names, e_out = _function_log(ember, CALLS[name])
    assert e_names == t_names
    np.testing.assert_allclose(e_out.numpy(), t_out.numpy(), rtol=1e-6)


def _subclass(T):
    class Seen(T.Tensor):
        seen: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.seen.append(getattr(func, "__name__", str(func)))
            return super().__torch_function__(func, types, args, kwargs or {})
    return Seen


def test_an_overload_call_reaches_a_subclass_as_pytorchs():
    found = {}
    for T in (torch, ember):
        Seen = _subclass(T)
        s = T.tensor([1.0, 2.0]).as_subclass(Seen)
        Seen.seen = []
        out = T.ops.aten.mul.Tensor(s, s)
        T.ops.aten.add(s, 1.0)
        found[T] = [n for n in Seen.seen], type(out).__name__
    assert found[ember] == found[torch]
