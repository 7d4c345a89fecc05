"""Tensor dunders against PyTorch: forward, reflected (number on the left) and in-place forms,
unary operators, comparisons with odd operands, and NumPy scalars on the left."""
from __future__ import annotations

import operator

import numpy as np
import pytest
from opinfo.core import assert_same, tolerance

import ember

torch = pytest.importorskip("torch")

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "lshift": operator.lshift, "rshift": operator.rshift,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge,
}
INPLACE = {
    "add": operator.iadd, "sub": operator.isub, "mul": operator.imul,
    "truediv": operator.itruediv, "floordiv": operator.ifloordiv, "mod": operator.imod,
    "pow": operator.ipow, "and": operator.iand, "or": operator.ior, "xor": operator.ixor,
    "lshift": operator.ilshift, "rshift": operator.irshift,
}
UNARY = {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs,
         "invert": operator.invert}

VALUES = {
    "float32": np.array([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]], dtype=np.float32),
    "int64": np.array([[5, -3, 7], [2, 4, -1]], dtype=np.int64),
    "bool": np.array([[True, False, True], [False, True, True]]),
}
# Right-hand operands: a tensor of each dtype, and Python numbers of each kind.
OTHERS = {
    "float32": np.array([2.0, -0.5, 1.5], dtype=np.float32),
    "int64": np.array([2, 3, 1], dtype=np.int64),
    "bool": np.array([True, True, False]),
    "int": 2, "float": 1.5, "pybool": True,
}


def _lib_operand(lib, value):
    return lib.tensor(value) if isinstance(value, np.ndarray) else value


def _outcome(fn, lib, *values):
    try:
        return fn(*(_lib_operand(lib, v) for v in values)), None
    except Exception as exc:  # noqa: BLE001 -- the exception class is what is compared
        return None, exc


def _check_same(fn, *values, where):
    expected, torch_error = _outcome(fn, torch, *values)
    got, ember_error = _outcome(fn, ember, *values)
    if torch_error is not None:
        assert ember_error is not None, f"{where}: torch raised {torch_error!r}; ember did not"
        assert isinstance(ember_error, type(torch_error)), (
            f"{where}: torch raised {type(torch_error).__name__}, ember {ember_error!r}")
        return
    assert ember_error is None, f"{where}: ember raised {ember_error!r}"
    assert_same(got, expected, where=where, tolerance=tolerance)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_forward_and_reflected(name, dtype):
    fn = BINARY[name]
    left = VALUES[dtype]
    for other_name, other in OTHERS.items():
        _check_same(fn, left, other, where=f"{dtype} {name} {other_name}")
        if not isinstance(other, np.ndarray):
            # The number on the left goes through the reflected dunder (2 - t, 2 ** t, 5 // t).
            _check_same(fn, other, left, where=f"{other_name} {name} {dtype} (reflected)")


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_inplace_keeps_identity_and_bumps_version(name, dtype):
    fn = INPLACE[name]
    for other_name, other in OTHERS.items():
        where = f"{dtype} {name}= {other_name}"
        expected, torch_error = _outcome(fn, torch, VALUES[dtype].copy(), other)
        target = ember.tensor(VALUES[dtype].copy())
        version = target._version
        try:
            result = fn(target, _lib_operand(ember, other))
        except Exception as exc:  # noqa: BLE001
            assert torch_error is not None, f"{where}: ember raised {exc!r}; torch did not"
            assert isinstance(exc, type(torch_error)), f"{where}: {exc!r} vs {torch_error!r}"
            continue
        assert torch_error is None, f"{where}: torch raised {torch_error!r}; ember did not"
        assert result is target, f"{where}: in-place dunder must return the same object"
        assert target._version > version, f"{where}: version counter not bumped"
        assert_same(result, expected, where=where, tolerance=tolerance)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_unary(name, dtype):
    _check_same(UNARY[name], VALUES[dtype], where=f"{name} {dtype}")


def test_pos_returns_the_tensor_itself():
    t = ember.tensor([1.0, -2.0])
    assert +t is t


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_reflected_division_and_power(dtype):
    values = np.array([[1, -2, 3], [4, -5, 2]]).astype(dtype)
    for fn, text in ((lambda t: 2 - t, "2 - t"), (lambda t: 2 ** t, "2 ** t"),
                     (lambda t: 5 // t, "5 // t"), (lambda t: 5 % t, "5 % t"),
                     (lambda t: 1 / t, "1 / t"), (lambda t: 2.5 ** t, "2.5 ** t"),
                     (lambda t: 1 << t.abs(), "1 << |t|"), (lambda t: 64 >> t.abs(), "64 >> |t|"),
                     (lambda t: 6 & t, "6 & t"), (lambda t: True | t, "True | t")):
        _check_same(fn, values, where=f"{text} [{dtype}]")


def test_integer_division_by_zero_raises():
    t = ember.tensor([4, 5])
    for fn in (lambda: t // 0, lambda: t % ember.tensor([1, 0]), lambda: 5 // ember.tensor([0]),
               lambda: ember.fmod(t, 0), lambda: ember.div(t, 0, rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn()
    assert (ember.tensor([1.0]) // 0).item() == float("inf")


def test_inplace_result_type_errors():
    t = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        t += 1.5
    b = ember.tensor([True, False])
    with pytest.raises(RuntimeError, match="can't be cast"):
        b += 1
    assert t.tolist() == [1, 2] and t._version == 0


def test_comparison_with_none_and_strings():
    t = ember.tensor([1.0, 2.0])
    assert (t == None) is False
    assert (t != None) is True
    assert (t == "a") is False
    assert (t != "a") is True
    for fn in (lambda: t < None, lambda: t + None, lambda: t + "a", lambda: "a" * t,
               lambda: t & None):
        with pytest.raises(TypeError):
            fn()


@pytest.mark.parametrize("scalar", [np.float32(2), np.float64(2.5), np.int64(3), np.int32(-2)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "int64"])
def test_numpy_scalar_on_the_left(scalar, dtype):
    values = np.array([1, 2, 4]).astype(dtype)
    for name in ("add", "sub", "mul", "truediv", "pow", "lt", "eq"):
        fn = BINARY[name]
        where = f"{type(scalar).__name__} {name} {dtype}"
        got = fn(scalar, ember.tensor(values))
        assert isinstance(got, ember.Tensor), f"{where}: got {type(got).__name__}"
        _check_same(fn, scalar, values, where=where)


def test_invert_is_a_type_error_on_floats():
    with pytest.raises(TypeError, match="integer and Boolean"):
        ~ember.tensor([1.0])
    with pytest.raises(NotImplementedError):
        ember.bitwise_not(ember.tensor([1.0]))


def test_numpy_keyword_names_for_dim_and_keepdim():
    import torch as _torch

    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        return (x.sum(axis=0).tolist(), tuple(lib.sum(x, axis=1, keepdims=True).shape),
                x.mean(axis=0).tolist(), tuple(x.amax(axis=1, keepdims=True).shape))
    assert run(ember) == run(_torch)
