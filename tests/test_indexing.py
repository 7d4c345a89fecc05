"""Tensor.__getitem__ / __setitem__ against PyTorch over a table of index expressions: values,
shapes, dtypes, which results are views (a write through them reaches the base) and the
exception class on bad indices."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

SHAPE = (4, 5, 6)


def _base(lib, shape=SHAPE, dtype="float32"):
    array = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return lib.tensor(array)


def _long(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.int64))


def _mask(lib, shape, seed=0):
    return lib.tensor(np.random.default_rng(seed).random(shape) < 0.5)


# name -> builder(lib) -> index expression, applied to a (4, 5, 6) tensor.
INDEXES = {
    "int": lambda lib: 1,
    "negative int": lambda lib: -1,
    "int, int": lambda lib: (2, -3),
    "int x3": lambda lib: (1, 2, 3),
    "slice": lambda lib: slice(1, 3),
    "slice step": lambda lib: slice(None, None, 2),
    "slice clamped": lambda lib: slice(-10, 10),
    "slice empty": lambda lib: slice(3, 1),
    "colon, int": lambda lib: (slice(None), 2),
    "ellipsis": lambda lib: Ellipsis,
    "ellipsis, int": lambda lib: (Ellipsis, 1),
    "int, ellipsis, slice": lambda lib: (0, Ellipsis, slice(1, 4)),
    "None": lambda lib: None,
    "None, int, None": lambda lib: (None, 1, None),
    "slice, None, int": lambda lib: (slice(1, None), None, -2),
    "True": lambda lib: True,
    "False": lambda lib: False,
    "int, True": lambda lib: (0, True),
    "list": lambda lib: [0, 2, 2],
    "negative list": lambda lib: [-1, 0],
    "empty list": lambda lib: [],
    "bool list": lambda lib: [True, False, True, False],
    "long tensor": lambda lib: _long(lib, [3, 0, 1]),
    "int32 tensor": lambda lib: lib.tensor(np.array([1, 2], dtype=np.int32)),
    "2-d long tensor": lambda lib: _long(lib, [[0, 1], [2, 3]]),
    "0-d long tensor": lambda lib: _long(lib, 2),
    "0-d long tensors separated": lambda lib: (_long(lib, 1), slice(None), _long(lib, 2)),
    "0-d bool tensor": lambda lib: lib.tensor(True),
    "mask 1-d": lambda lib: _mask(lib, (4,)),
    "mask 2-d": lambda lib: _mask(lib, (4, 5)),
    "mask 3-d": lambda lib: _mask(lib, SHAPE),
    "colon, mask": lambda lib: (slice(None), _mask(lib, (5,), 1)),
    "adjacent tensors": lambda lib: (slice(None), _long(lib, [0, 4]), _long(lib, [1, 5])),
    "broadcast tensors": lambda lib: (_long(lib, [[0], [3]]), _long(lib, [1, 2, 4])),
    "separated tensors": lambda lib: (_long(lib, [0, 3]), slice(None), _long(lib, [1, 5])),
    "tensor, None, tensor": lambda lib: (_long(lib, [0, 3]), None, _long(lib, [1, 5])),
    "int, colon, list": lambda lib: (0, slice(None), [1, 2]),
    "list, int, list": lambda lib: ([0, 1], 1, [0, 1]),
    "slice, list, int": lambda lib: (slice(1, None), [0, 1], 1),
    "ellipsis, list": lambda lib: (Ellipsis, [0, 5]),
    "list, ellipsis, list": lambda lib: ([0, 1], Ellipsis, [0, 1]),
    "mask, list": lambda lib: (_mask(lib, (4,), 2), slice(None), [1]),
    "True, list": lambda lib: (True, [0, 1]),
    "colon, True, colon, list": lambda lib: (slice(None), True, slice(None), [0, 1]),
    "list holding slice": lambda lib: [0, slice(None)],
    "numpy int": lambda lib: np.int64(2),
    "numpy array": lambda lib: np.array([0, 3]),
    # Bad indices: the exception class must match PyTorch's.
    "int out of range": lambda lib: 4,
    "negative int out of range": lambda lib: (0, -6),
    "negative step": lambda lib: slice(None, None, -1),
    "zero step": lambda lib: slice(None, None, 0),
    "too many": lambda lib: (0, 0, 0, 0),
    "two ellipses": lambda lib: (Ellipsis, 0, Ellipsis),
    "int, ellipsis, int, ellipsis": lambda lib: (0, Ellipsis, 1, Ellipsis),
    "float": lambda lib: 1.0,
    "float tensor": lambda lib: lib.tensor([1.0]),
    "tensor out of range": lambda lib: _long(lib, [0, 4]),
    "list out of range": lambda lib: (slice(None), [-6]),
    "mask shape mismatch": lambda lib: _mask(lib, (3,)),
    "unbroadcastable tensors": lambda lib: (_long(lib, [0, 1]), _long(lib, [0, 1, 2])),
}


def _run(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as exc:  # noqa: BLE001 -- the class is what we compare
        return None, exc


def _assert_same(got, expected, where):
    assert tuple(got.shape) == tuple(expected.shape), (
        f"{where}: shape {tuple(got.shape)} != torch {tuple(expected.shape)}")
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], where
    np.testing.assert_array_equal(np.asarray(got.numpy()), expected.numpy(), err_msg=where)


def _same_error(ember_error, torch_error, where):
    assert ember_error is not None, f"{where}: torch raised {torch_error!r}; ember did not"
    assert isinstance(ember_error, type(torch_error)), (
        f"{where}: torch raised {type(torch_error).__name__}, ember "
        f"{type(ember_error).__name__}: {ember_error}")


@pytest.mark.parametrize("name", list(INDEXES))
def test_getitem_matches_torch(name):
    build = INDEXES[name]
    expected, torch_error = _run(lambda: _base(torch)[build(torch)])
    got, ember_error = _run(lambda: _base(ember)[build(ember)])
    if torch_error is not None:
        _same_error(ember_error, torch_error, name)
        return
    assert ember_error is None, f"{name}: ember raised {ember_error!r}"
    _assert_same(got, expected, name)


def _write_through(lib, build):
    """Index, write -1 into the result, and return the base: changed only for a view."""
    base = _base(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = base[build(lib)]
    result[...] = -1
    return base


@pytest.mark.parametrize("name", [n for n in INDEXES if _run(
    lambda n=n: _base(torch)[INDEXES[n](torch)])[1] is None])
def test_view_write_is_visible_in_base_only_for_basic_indexing(name):
    expected = _write_through(torch, INDEXES[name])
    got = _write_through(ember, INDEXES[name])
    _assert_same(got, expected, name)


def _values(lib, shape):
    """Values to assign into a result of `shape`: a number, a broadcast row, a full tensor."""
    yield "number", 7.5
    yield "int number", 3
    yield "0-d tensor", lib.tensor(-2.0)
    if shape:
        yield "row", lib.tensor(np.arange(shape[-1], dtype=np.float64))
        yield "full", lib.tensor(-np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))
        yield "leading ones", lib.tensor(np.ones((1, 1) + tuple(shape), dtype=np.float32))
        yield "wrong shape", lib.ones(shape[-1] + 1)


@pytest.mark.parametrize("name", list(INDEXES))
def test_setitem_matches_torch(name):
    build = INDEXES[name]
    shape_result, _ = _run(lambda: tuple(_base(torch)[build(torch)].shape))
    for (label, torch_value), (_, ember_value) in zip(_values(torch, shape_result or ()),
                                                      _values(ember, shape_result or ())):
        where = f"{name} = {label}"
        expected, torch_error = _run(lambda v=torch_value: _assign(torch, build, v))
        got, ember_error = _run(lambda v=ember_value: _assign(ember, build, v))
        if torch_error is not None:
            _same_error(ember_error, torch_error, where)
            continue
        assert ember_error is None, f"{where}: ember raised {ember_error!r}"
        if "tensor" in name and "0-d" not in name and shape_result and label != "number":
            # Repeated indices leave an unspecified winner in both libraries: shapes only.
            assert tuple(got.shape) == tuple(expected.shape), where
            continue
        _assert_same(got, expected, where)


def _assign(lib, build, value):
    base = _base(lib)
    base[build(lib)] = value
    return base


def test_setitem_bumps_version_shared_with_views():
    base = _base(ember)
    view = base[1]
    before = base._version
    view[0] = 5.0
    assert base._version > before and view._version == base._version
    assert base[1, 0, 0].item() == 5.0


def test_setitem_casts_and_rejects_bad_values():
    x = ember.zeros(3, dtype=ember.int64)
    x[0] = 2.7
    x[1:] = ember.tensor([1.9, -1.9])
    assert x.tolist() == torch.tensor([2.7, 1.9, -1.9]).long().tolist()
    with pytest.raises(TypeError):
        x[0] = "a"
    with pytest.raises(TypeError):
        x[0] = [1]
    with pytest.raises(RuntimeError):
        x[0] = 1 + 2j


@pytest.mark.parametrize("index", [Ellipsis, None, (None, Ellipsis, None), True, False])
def test_zero_dim_tensor_indexing(index):
    expected = torch.tensor(3.0)[index]
    got = ember.tensor(3.0)[index]
    _assert_same(got, expected, repr(index))


def test_zero_dim_tensor_rejects_int():
    with pytest.raises(IndexError):
        ember.tensor(3.0)[0]


@pytest.mark.parametrize("name", ["int", "slice step", "None, int, None", "ellipsis, int",
                                  "list", "separated tensors", "int, colon, list"])
def test_meta_getitem_gives_shape(name):
    expected = _base(torch)[INDEXES[name](torch)]
    got = ember.empty(SHAPE, device="meta")[INDEXES[name](ember)]
    assert got.device.type == "meta"
    assert tuple(got.shape) == tuple(expected.shape)


@pytest.mark.parametrize("dtype", ["float16", "int8", "bool"])
def test_getitem_keeps_dtype(dtype):
    array = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    for index in (1, (slice(None), [0, 2]), array.astype(bool) if dtype == "bool" else 0):
        index_t = torch.tensor(index) if isinstance(index, np.ndarray) else index
        index_e = ember.tensor(index) if isinstance(index, np.ndarray) else index
        _assert_same(ember.tensor(array)[index_e], torch.tensor(array)[index_t], dtype)
