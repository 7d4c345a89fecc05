"""Creation factories against PyTorch: the same call in both libraries gives the same dtype,
shape and values, or the same exception class."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from opinfo.core import assert_same, tolerance

import ember

torch = pytest.importorskip("torch")


def _run(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(lib), None
        except Exception as exc:  # noqa: BLE001 -- the class is what we compare
            return None, exc


def same(fn, compare_values=True):
    """Run fn(torch) and fn(ember); both raise the same class or give the same tensor."""
    expected, torch_error = _run(fn, torch)
    got, ember_error = _run(fn, ember)
    if torch_error is not None:
        assert ember_error is not None, f"torch raised {torch_error!r}; ember did not"
        assert isinstance(ember_error, type(torch_error)), (
            f"torch raised {type(torch_error).__name__}, ember {type(ember_error).__name__}: "
            f"{ember_error}")
        return
    assert ember_error is None, f"ember raised {ember_error!r}"
    # PyTorch's tolerances for the result's dtype (NOTE [tolerances by dtype]).
    assert_same(got, expected, where="", compare_values=compare_values, tolerance=tolerance)
    assert got.requires_grad == expected.requires_grad
    assert got.device.type == expected.device.type


RANGE_CASES = [
    lambda L: L.arange(5), lambda L: L.arange(0.5, 3), lambda L: L.arange(1, 2.5, 0.5),
    lambda L: L.arange(5, 0, -1), lambda L: L.arange(0, 1, 0.1), lambda L: L.arange(-1, 1, 0.3),
    lambda L: L.arange(5, dtype=L.float64), lambda L: L.arange(10, dtype=L.float16),
    lambda L: L.arange(-3, 2, dtype=L.uint8), lambda L: L.arange(3, 3), lambda L: L.arange(0),
    lambda L: L.arange(L.tensor(3)), lambda L: L.arange(L.tensor(3.0)),
    lambda L: L.arange(end=5), lambda L: L.arange(start=1, end=5), lambda L: L.arange(True),
    lambda L: L.arange(0, 5, 0), lambda L: L.arange(0, 5, -1), lambda L: L.arange(-3),
    lambda L: L.arange(0, float("inf")), lambda L: L.arange(2, dtype=L.bool),
    lambda L: L.arange(4, requires_grad=True, dtype=L.float32),
    lambda L: L.arange(2, 8, out=L.empty(0, dtype=L.int64)),
    lambda L: L.range(1, 4), lambda L: L.range(1, 4, 0.5), lambda L: L.range(1, 4, dtype=L.int64),
    lambda L: L.range(1, 4, 0), lambda L: L.range(4, 1),
    lambda L: L.linspace(0, 1, 5), lambda L: L.linspace(0, 1, 7),
    lambda L: L.linspace(0, 1, 7, dtype=L.float64), lambda L: L.linspace(0, 10, 4, dtype=L.int64),
    lambda L: L.linspace(3, 7, 1), lambda L: L.linspace(3, 7, 0), lambda L: L.linspace(3, 7, -1),
    lambda L: L.linspace(0, 1j, 3), lambda L: L.linspace(L.tensor(0.0), L.tensor(1.0), 3),
    lambda L: L.linspace(0, 2, 3, dtype=L.bool),
    lambda L: L.logspace(0, 2, 3), lambda L: L.logspace(0, 2, 3, base=2),
    lambda L: L.logspace(0, 2, 3, dtype=L.int64), lambda L: L.logspace(-1, 1, 4, 3.0),
    lambda L: L.eye(3), lambda L: L.eye(2, 3), lambda L: L.eye(2, dtype=L.int64),
    lambda L: L.eye(2, dtype=L.bool), lambda L: L.eye(0), lambda L: L.eye(-1),
    lambda L: L.eye(2, -1), lambda L: L.eye(3, device="meta"),
]


@pytest.mark.parametrize("case", range(len(RANGE_CASES)))
def test_range_factories_match_torch(case):
    fn = RANGE_CASES[case]
    if "meta" in fn.__code__.co_consts:
        expected, got = fn(torch), fn(ember)
        assert (tuple(got.shape), str(got.dtype).split(".")[-1]) == (
            tuple(expected.shape), str(expected.dtype).split(".")[-1])
        return
    same(fn)


SIZED_CASES = [
    lambda L: L.zeros(2, 3), lambda L: L.zeros((2, 3)), lambda L: L.zeros([2, 3]),
    lambda L: L.zeros(()), lambda L: L.ones(4, dtype=L.int32), lambda L: L.ones(0, 3),
    lambda L: L.zeros(2, 3, out=L.empty(0, dtype=L.int64)), lambda L: L.ones(-1),
    lambda L: L.zeros(2.5), lambda L: L.full((2,), True), lambda L: L.full((2,), 3),
    lambda L: L.full((2,), 3.5), lambda L: L.full((2,), 1j), lambda L: L.full((2, 2), 7,
                                                                                dtype=L.float64),
    lambda L: L.full((2,), L.tensor(2)), lambda L: L.full([], 1.0),
    lambda L: L.ones(2, requires_grad=True),
    lambda L: L.zeros_like(L.ones(2, 3, dtype=L.int16)),
    lambda L: L.ones_like(L.ones(2, 3), dtype=L.float64),
    lambda L: L.full_like(L.ones(2, dtype=L.int64), 2.7),
    lambda L: L.ones(2, 3).new_zeros(4), lambda L: L.ones(2, dtype=L.int8).new_ones((2, 2)),
    lambda L: L.ones(2).new_full((3,), 5), lambda L: L.ones(2).new_tensor([1, 2]),
    lambda L: L.ones(2, dtype=L.float64).new_empty(3, 1).shape,
    lambda L: L.empty(2, 3).shape, lambda L: L.empty_like(L.ones(2, dtype=L.int32)).dtype,
]


@pytest.mark.parametrize("case", range(len(SIZED_CASES)))
def test_sized_factories_match_torch(case):
    fn = SIZED_CASES[case]
    expected, _ = _run(fn, torch)
    if isinstance(expected, (torch.Size, torch.dtype)):
        got = fn(ember)
        assert str(got).replace("ember", "torch") == str(expected)
        return
    same(fn)


def test_empty_strided_has_the_asked_layout():
    for lib in (torch, ember):
        t = lib.empty_strided((2, 3), (1, 2))
        assert tuple(t.shape) == (2, 3) and t.stride() == (1, 2) and not t.is_contiguous()
        assert lib.empty_strided((2, 3), (1, 2), device="meta").stride() == (1, 2)
    same(lambda L: L.empty_strided((2, 3), (1,)))
    same(lambda L: L.empty_strided((2, -1), (1, 1)))
    assert ember.ones(1).new_empty_strided((2, 2), (1, 2)).stride() == (1, 2)


DATA_CASES = [
    [True, False], [1, 2, 3], [1.5, 2], [[1, 2], [3, 4]], [1, 2.5, True], [1 + 2j, 3],
    [], [[]], [[], []], 3, 2.5, True, 1j, (1, 2), [[1, 2], [3]], [[1, 2], 3], ["a"],
    np.array([1, 2], dtype=np.int32), np.array([1.5], dtype=np.float64), np.float32(2.5),
    np.int16(3), np.array(True), [np.float64(1.5), 2], [np.int32(3), 4],
]


@pytest.mark.parametrize("case", range(len(DATA_CASES)))
def test_tensor_infers_dtype_like_torch(case):
    data = DATA_CASES[case]
    same(lambda L: L.tensor(data))
    same(lambda L: L.as_tensor(data))


def test_tensor_options():
    same(lambda L: L.tensor([1, 2], dtype=L.float16))
    same(lambda L: L.tensor([1.7, -2.7], dtype=L.int64))
    same(lambda L: L.tensor([1.0, 2.0], requires_grad=True))
    same(lambda L: L.tensor([1, 2], requires_grad=True))
    same(lambda L: L.tensor([L.tensor(1.5), L.tensor(2.0)]))
    same(lambda L: L.tensor([L.tensor([1, 2]), L.tensor([3, 4])]))
    same(lambda L: L.tensor(L.tensor([1, 2], dtype=L.int8)))
    same(lambda L: L.asarray([1, 2], dtype=L.float64))
    same(lambda L: L.asarray(np.arange(3)))
    meta = ember.tensor([1.0, 2.0], device="meta")
    assert meta.device.type == "meta" and tuple(meta.shape) == (2,)


def test_set_default_dtype_changes_inference():
    ember.set_default_dtype(ember.float64)
    torch.set_default_dtype(torch.float64)
    try:
        same(lambda L: L.tensor([1.5, 2]))
        same(lambda L: L.arange(0.5, 2))
        same(lambda L: L.tensor([1j]))
        same(lambda L: L.linspace(0, 1, 3))
    finally:
        torch.set_default_dtype(torch.float32)


def test_from_numpy_shares_memory():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.from_numpy(array)
    array[0, 0] = 42
    assert t[0, 0].item() == 42
    t.add_(1)
    assert array[1, 2] == 6
    assert ember.as_tensor(array).data_ptr() == t.data_ptr()
    same(lambda L: L.from_numpy(np.arange(3)[::-1]))
    same(lambda L: L.from_numpy([1, 2]))
    same(lambda L: L.from_numpy(np.array(["a"])))


def test_legacy_tensor_constructor():
    assert tuple(ember.Tensor(2, 3).shape) == (2, 3)
    assert ember.Tensor(2, 3).dtype is ember.float32
    same(lambda L: L.Tensor([1, 2]))
    same(lambda L: L.Tensor())
    same(lambda L: L.Tensor([[1.5], [2]]))


NEW_CASES = [
    lambda L: L.ones(2, 3, dtype=L.int32).new(2, 3).shape,
    lambda L: L.ones(2, 3, dtype=L.int32).new([1.5, 2]),
    lambda L: L.ones(2, 3, dtype=L.int32).new().shape,
    lambda L: L.ones(2, 3, dtype=L.int32).new(2, 3, dtype=L.float64),
    lambda L: L.ones(2, 3, dtype=L.float64).new(2, device="cpu").dtype,
]


@pytest.mark.parametrize("case", range(len(NEW_CASES)))
def test_legacy_new_matches_torch(case):
    fn = NEW_CASES[case]
    expected, torch_error = _run(fn, torch)
    if torch_error is None and not isinstance(expected, torch.Tensor):
        assert str(fn(ember)).replace("ember", "torch") == str(expected)
        return
    same(fn)


# The sizes by keyword, as pytorch/examples' GAT writes `torch.empty(size=(n, m))`; the keyword
# wants a sequence and may not come with varargs sizes.
SIZE_KEYWORD_CASES = [
    lambda L: L.zeros(size=(2, 3)), lambda L: L.ones(size=[2], dtype=L.int32),
    lambda L: L.ones(size=L.Size([2, 1])), lambda L: L.empty(size=(2, 3)).fill_(1),
    lambda L: L.empty(size=[0, 4], dtype=L.float64),
    lambda L: L.rand(size=(3,), generator=L.Generator().manual_seed(5)),
    lambda L: L.randn(size=(2, 2), generator=L.Generator().manual_seed(5)),
    lambda L: L.zeros(size=3), lambda L: L.empty(size=2), lambda L: L.zeros(2, size=(3,)),
    lambda L: L.randn(2, size=(3,)),
    lambda L: L.ones(2, 3).new_zeros(size=(1, 2)), lambda L: L.ones(2).new_ones(size=[3]),
    lambda L: L.ones(2).new_empty(size=(2,)).fill_(2), lambda L: L.ones(2).new_zeros(2, size=(2,)),
    lambda L: L.ones(2).new_ones(size=2),
]


@pytest.mark.parametrize("case", range(len(SIZE_KEYWORD_CASES)))
def test_sizes_by_keyword_match_torch(case):
    same(SIZE_KEYWORD_CASES[case])


def test_size_keyword_errors_read_as_torch():
    for call in (lambda L: L.zeros(2, size=(3,)), lambda L: L.zeros(size=3)):
        messages = []
        for lib in (torch, ember):
            with pytest.raises(TypeError) as info:
                call(lib)
            messages.append(str(info.value))
        assert messages[0] == messages[1]


# NOTE [arange into integers]: PyTorch truncates the bounds and step for integer dtypes (int64
# counts with the truncated numbers, the narrow types with the numbers as given).
ARANGE_INTO_INTEGERS = [
    ((0, 5, 1.5), "int64"), ((0, 5, 1.5), "int8"), ((0.5, 5.5, 2.5), "int64"),
    ((0.5, 5.5, 2.5), "int8"), ((-2.5, 3, 1.2), "int32"), ((0, 5.5, 1), "int64"),
    ((0, 5.5, 1), "int16"), ((1.7, 9.2, 2.9), "uint8"), ((0.5, 2.5, 0.5), "int32"),
    ((0.5, 2.5, 0.5), "int64"), ((5, 0, -1.5), "int64"), ((5, 0, -1.5), "int16"),
    ((2.9, 0.5, -0.5), "int32"), ((-3.7, -0.2, 0.9), "int64"), ((0.5, 0.7, 1), "int64"),
]


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("bounds,dtype", ARANGE_INTO_INTEGERS)
def test_arange_into_integers_as_pytorch(bounds, dtype, device):
    def run(lib):
        try:
            made = lib.arange(*bounds, dtype=getattr(lib, dtype), device=device)
        except (RuntimeError, ValueError) as exc:
            return type(exc).__name__, str(exc)
        return tuple(made.shape), None if device == "meta" else made.tolist()
    assert run(ember) == run(torch)
