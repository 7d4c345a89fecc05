"""`repr(tensor)` against PyTorch's, over a table of tensors and print options."""
import math

import numpy as np
import pytest
import torch

import ember


def _values(rng, shape, kind):
    if kind == "int":
        return rng.integers(-1000, 1000, size=shape) * 10 ** rng.integers(0, 12, size=shape)
    if kind == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if kind == "intlike":
        return rng.integers(-50, 50, size=shape).astype(np.float64)
    if kind == "small":
        return rng.standard_normal(shape) * 1e-6
    if kind == "large":
        return rng.standard_normal(shape) * 1e9
    if kind == "spread":
        return rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, size=shape)
    if kind == "complex":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if kind == "negzero":
        return np.array([-0.0, 0.0, -0.0, 1.0])[: int(np.prod(shape))].reshape(shape)
    if kind == "special":
        base = rng.standard_normal(shape)
        flat = base.reshape(-1)
        flat[::3] = math.nan
        flat[1::4] = math.inf
        flat[2::5] = -math.inf
        return base
    return rng.standard_normal(shape) * 3


CASES = [
    # (shape, kind, dtype name)
    ((), "normal", "float32"), ((), "int", "int64"), ((), "bool", "bool"),
    ((), "complex", "complex64"), ((), "intlike", "float32"), ((), "special", "float32"),
    ((3,), "normal", "float32"), ((3,), "intlike", "float32"), ((5,), "int", "int64"),
    ((5,), "int", "int32"), ((5,), "int", "int16"), ((4,), "bool", "bool"),
    ((6,), "small", "float32"), ((6,), "large", "float64"), ((6,), "spread", "float32"),
    ((7,), "special", "float32"), ((7,), "special", "float64"), ((4,), "complex", "complex64"),
    ((4,), "complex", "complex128"), ((5,), "normal", "float16"), ((5,), "normal", "bfloat16"),
    ((5,), "intlike", "bfloat16"), ((3,), "intlike", "uint8"), ((4,), "intlike", "int8"),
    ((2, 3), "normal", "float32"), ((2, 3, 4), "normal", "float64"), ((2, 1, 3, 2), "int", "int64"),
    ((30,), "normal", "float32"), ((40,), "int", "int64"), ((3, 25), "complex", "complex64"),
    ((1001,), "normal", "float32"), ((2000,), "int", "int64"), ((40, 40), "normal", "float32"),
    ((11, 11, 11), "intlike", "float32"), ((1200,), "complex", "complex64"),
    ((1100,), "bool", "bool"), ((0,), "normal", "float32"), ((0, 3), "normal", "float32"),
    ((2, 0), "int", "int64"), ((0,), "int", "int64"), ((0,), "bool", "bool"),
    ((3, 0, 2), "normal", "float64"),
    ((4,), "negzero", "float32"), ((4,), "intlike", "float8_e4m3fn"),
    ((4,), "normal", "float8_e5m2"), ((3,), "intlike", "uint16"), ((3,), "intlike", "uint32"),
    ((3,), "intlike", "uint64"), ((5,), "special", "complex64"), ((3,), "int", "int64"),
]


def _pair(values, dtype_name):
    t = torch.tensor(values)
    e = ember.tensor(values)
    dtype = getattr(torch, dtype_name)
    return t.to(dtype), e.to(getattr(ember, dtype_name))


def _expected(t):
    return repr(t).replace("torch.", "ember.")


@pytest.mark.parametrize("shape, kind, dtype_name", CASES)
def test_repr_matches_torch(shape, kind, dtype_name, rng):
    t, e = _pair(_values(rng, shape, kind), dtype_name)
    assert repr(e) == _expected(t)
    assert str(e) == str(t).replace("torch.", "ember.")


OPTIONS = [
    {"precision": 2}, {"precision": 8}, {"threshold": 5}, {"edgeitems": 1, "threshold": 10},
    {"linewidth": 30}, {"linewidth": 200}, {"sci_mode": True}, {"sci_mode": False},
    {"profile": "short"}, {"profile": "full"}, {"profile": "short", "precision": 6},
    {"edgeitems": 0, "threshold": 3},
]


@pytest.fixture
def restore_printoptions():
    yield
    torch.set_printoptions(profile="default")
    ember.set_printoptions(profile="default")


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("shape, kind, dtype_name", [
    ((12,), "normal", "float32"), ((4, 6), "spread", "float64"), ((3, 4, 5), "int", "int64"),
    ((1500,), "intlike", "float32"), ((8,), "complex", "complex64"), ((6,), "large", "float32"),
])
def test_repr_with_printoptions(options, shape, kind, dtype_name, rng, restore_printoptions):
    t, e = _pair(_values(rng, shape, kind), dtype_name)
    torch.set_printoptions(**options)
    ember.set_printoptions(**options)
    assert repr(e) == _expected(t)


def test_printoptions_context_restores():
    from ember._tensor_str import get_printoptions, printoptions
    before = get_printoptions()
    with printoptions(precision=1):
        assert repr(ember.tensor([1.25])) == "tensor([1.2])"
    assert get_printoptions() == before


def test_default_dtype_float64_changes_suffixes():
    values = [1.5, 2.0]
    for name in ("float32", "float64", "complex64", "complex128"):
        torch.set_default_dtype(torch.float64)
        ember.set_default_dtype(ember.float64)
        try:
            t, e = _pair(values, name)
            assert repr(e) == _expected(t)
            assert repr(ember.tensor([], dtype=ember.float32)) == _expected(
                torch.tensor([], dtype=torch.float32))
        finally:
            torch.set_default_dtype(torch.float32)


def test_meta_repr():
    for shape, name in [((2, 3), "float32"), ((), "float64"), ((4,), "int64"), ((0,), "bool")]:
        t = torch.empty(shape, device="meta", dtype=getattr(torch, name))
        e = ember.empty(shape, device="meta", dtype=getattr(ember, name))
        assert repr(e) == _expected(t)


def test_requires_grad_and_grad_fn_suffixes():
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    e = ember.tensor([1.0, 2.0], requires_grad=True)
    assert repr(e) == _expected(t)
    assert repr(e * 2) == _expected(t * 2)
    assert repr(e + 1) == _expected(t + 1)
    t64 = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    e64 = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    assert repr(e64.sum()) == _expected(t64.sum())


def test_long_suffixes_wrap_to_next_line():
    values = np.linspace(-1, 1, 14)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    e = ember.tensor(values, dtype=ember.float64, requires_grad=True)
    assert repr(e * 3) == _expected(t * 3)
    assert repr(e) == _expected(t)


def test_format_of_zero_dim_and_vectors():
    t, e = torch.tensor(2.5), ember.tensor(2.5)
    assert f"{e:.3f}" == f"{t:.3f}"
    assert f"{ember.tensor([1.0, 2.0])}" == f"{torch.tensor([1.0, 2.0])}"
