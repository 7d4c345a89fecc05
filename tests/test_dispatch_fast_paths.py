"""The pointwise and generic fast paths against PyTorch where their shortcuts could go wrong:
Python scalars whose NumPy form is kept per op and dtype (NOTE [pointwise fast path]), signed
zeros and NaN among them, the same scalar met again after a dtype change, ops with one to four
schema arguments, and quiet kernels under the user's np.seterr(all="raise")."""
from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from opinfo.core import assert_same

import ember

torch = pytest.importorskip("torch")

SCALARS = [2.0, 0.0, -0.0, 3, -3, 0, 1e39, -1e39, float("inf"), float("nan"), 0.5, 2.0, -0.0]
OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
       "truediv": operator.truediv, "radd": lambda a, s: s + a, "rmul": lambda a, s: s * a,
       "rtruediv": lambda a, s: s / a}
VALUES = np.array([1.5, -2.0, 0.0, -0.0, 3e38], dtype=np.float64)


def _same_bits(e, t, where, rtol=0):
    """Values equal, NaN where torch has NaN, and the sign of every zero as torch's."""
    assert_same(e, t, 0, rtol, where)
    got, expected = e.numpy(), t.numpy()
    assert np.array_equal(np.signbit(got), np.signbit(expected)), where


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_python_scalars_twice(name, dtype):
    fn = OPS[name]
    data = {"int64": np.array([1, -2, 0, 7, 9]),
            "float16": np.array([1.5, -2.0, 0.0, -0.0, 6e4], dtype=np.float16),
            "float32": VALUES.astype(np.float32), "float64": VALUES}[dtype]
    # PyTorch divides a number by a tensor through the reciprocal: a rounding apart.
    rtol = (2e-3 if dtype == "float16" else 1e-6) if name == "rtruediv" else 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rounds in range(2):         # the second round finds every scalar kept already
            for s in SCALARS:
                if dtype == "int64" and isinstance(s, float) and name.startswith("r") \
                        and not np.isfinite(s):
                    continue
                e = fn(ember.tensor(data), s)
                t = fn(torch.tensor(data), s)
                _same_bits(e, t, f"{name} {dtype} {s!r} round {rounds}", rtol)


def test_kept_scalar_follows_the_dtype():
    """The same Python number with tensors of different dtypes: each its own conversion."""
    for dtype in ["float64", "float32", "float16", "bfloat16", "float32", "int32", "float64"]:
        e = ember.tensor([1.0, 2.0, 3.0], dtype=getattr(ember, dtype)) * 0.1
        t = torch.tensor([1.0, 2.0, 3.0], dtype=getattr(torch, dtype)) * 0.1
        assert_same(e, t, 0, 0, dtype)


def test_many_scalars():
    """More distinct scalars than are kept: all still right."""
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    for k in range(200):
        s = k / 7.0
        assert_same(ember.tensor(x) * s, torch.tensor(x) * s, 0, 0, str(s))


@pytest.mark.parametrize("case", [
    ("exp", lambda lib, a: lib.exp(a)),                          # one argument
    ("clamp_min", lambda lib, a: a.clamp_min(0.5)),              # two
    ("add alpha", lambda lib, a: lib.add(a, a, alpha=2)),        # three
    ("sum", lambda lib, a: a.sum()),                             # four (generic)
    ("sum dim", lambda lib, a: a.sum(0, keepdim=True)),
    ("matmul", lambda lib, a: a @ a),
    ("softmax", lambda lib, a: lib.softmax(a, 0)),
    ("where", lambda lib, a: lib.where(a > 0, a, a * 2)),
])
def test_arities_and_quiet_kernels_under_raise(case):
    """Kernels of every arity, overflowing, with np.seterr(all="raise") set by the user: no
    warning, no FloatingPointError, the user's state untouched."""
    name, fn = case
    data = np.array([[1.0, 100.0], [-0.0, 3e38]], dtype=np.float32)
    old = np.seterr(all="raise")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            e = fn(ember, ember.tensor(data))
            again = fn(ember, ember.tensor(data))
        assert np.geterr() == {"divide": "raise", "over": "raise", "under": "raise",
                               "invalid": "raise"}
    finally:
        np.seterr(**old)
    t = fn(torch, torch.tensor(data))
    assert_same(e, t, 1e-6, 1e-6, name)
    assert_same(again, t, 1e-6, 1e-6, name)


def test_recorded_ops_keep_their_graph():
    """The recording shortcut: edges, saved inputs, AccumulateGrad identity and gradients."""
    data = np.array([0.5, -1.5, 2.0], dtype=np.float32)
    ex = ember.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    ey, ty = ex * ex + ex.exp(), tx * tx + tx.exp()
    e_acc = ey.grad_fn.next_functions[0][0].next_functions[0][0]
    t_acc = ty.grad_fn.next_functions[0][0].next_functions[0][0]
    assert e_acc.name() == t_acc.name()
    assert e_acc is ey.grad_fn.next_functions[1][0].next_functions[0][0]
    assert e_acc.variable is ex
    assert ey.grad_fn.name() == ty.grad_fn.name()
    ey.sum().backward()
    ty.sum().backward()
    assert_same(ex.grad, tx.grad, 1e-6, 1e-6, "grad")
    for lib, x in ((ember, ex), (torch, tx)):
        w = x * x
        with lib.no_grad():
            x.mul_(1.0)                 # bumps the version the node saved
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.sum().backward()
