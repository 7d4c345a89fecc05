"""torch.sparse.as_sparse_gradcheck against PyTorch's: functions taking and returning sparse
tensors of every layout pass on both; a wrong gradient fails on both. And the gradients it
relies on: compressed tensors built from values that require grad, layout conversions."""
import importlib

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")

_MATRIX = [[0.0, 1.0, 0.0, 2.0], [3.0, 0.0, 0.0, 4.0]]


def _inputs(lib, layout):
    dense = lib.tensor(_MATRIX, dtype=lib.float64)
    made = {"coo": lambda: dense.to_sparse_coo(), "csr": lambda: dense.to_sparse_csr(),
            "csc": lambda: dense.to_sparse_csc(), "bsr": lambda: dense.to_sparse_bsr((1, 2)),
            "bsc": lambda: dense.to_sparse_bsc((2, 1))}[layout]()
    return made.requires_grad_(True)


_FUNCTIONS = {
    "identity": lambda lib: lambda x: x,
    "to_dense_sin": lambda lib: lambda x: x.to_dense().sin(),
    "to_coo": lambda lib: lambda x: x.to_sparse(),
    "times_dense": lambda lib: lambda x: lib.mm(x.to_dense(), lib.ones(4, 3,
                                                                      dtype=lib.float64)),
}


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("function", list(_FUNCTIONS))
@pytest.mark.parametrize("layout", ["coo", "csr", "csc", "bsr", "bsc"])
def test_passes_where_pytorch_passes(layout, function, masked):
    results = []
    for lib in (torch, ember):
        check = lib.sparse.as_sparse_gradcheck(lib.autograd.gradcheck)
        results.append(check(_FUNCTIONS[function](lib), _inputs(lib, layout), masked=masked))
    assert results == [True, True]


def test_the_documented_example():
    for lib in (torch, ember):
        check = lib.sparse.as_sparse_gradcheck(lib.autograd.gradcheck)
        x = lib.tensor([[0, 1], [2, 3]], dtype=lib.float64).to_sparse_coo().requires_grad_(True)
        assert check(lambda t: t.to_sparse_csr(), x) is True


def _wrong_gradient(lib):
    class Doubled(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 3      # wrong on purpose

    return Doubled


@pytest.mark.parametrize("layout", ["coo", "csr", "bsr"])
def test_a_wrong_gradient_fails_on_both(layout):
    for lib in (torch, ember):
        check = lib.sparse.as_sparse_gradcheck(lib.autograd.gradcheck)
        doubled = _wrong_gradient(lib)
        error = importlib.import_module(lib.__name__ + ".autograd.gradcheck").GradcheckError
        with pytest.raises(error):
            check(lambda x, f=doubled: f.apply(x.to_dense()), _inputs(lib, layout))
        assert check(lambda x, f=doubled: f.apply(x.to_dense()), _inputs(lib, layout),
                     raise_exception=False) is False


@pytest.mark.parametrize("convert", ["to_sparse_csr", "to_sparse_csc", "to_sparse_bsr",
                                     "to_sparse_bsc", "to_sparse"])
def test_conversion_of_a_dense_tensor_passes_the_gradient_back(convert):
    grads = []
    for lib in (torch, ember):
        x = lib.tensor(_MATRIX, dtype=lib.float64, requires_grad=True)
        args = ((2, 2),) if convert in ("to_sparse_bsr", "to_sparse_bsc") else ()
        y = getattr(x, convert)(*args)
        assert y.requires_grad
        (y.to_dense() * lib.arange(8.0, dtype=lib.float64).reshape(2, 4)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])


@pytest.mark.parametrize("layout", ["csr", "csc", "bsr", "bsc"])
def test_compressed_tensor_from_values_that_require_grad(layout):
    grads = []
    for lib in (torch, ember):
        pattern = _inputs(lib, layout).detach()
        values = pattern.values().clone().requires_grad_(True)
        compressed, plain = (pattern.crow_indices(), pattern.col_indices()) \
            if layout in ("csr", "bsr") else (pattern.ccol_indices(), pattern.row_indices())
        built = lib.sparse_compressed_tensor(compressed, plain, values, tuple(pattern.shape),
                                             layout=pattern.layout)
        assert built.requires_grad
        (built.to_dense() * lib.arange(8.0, dtype=lib.float64).reshape(2, 4)).sum().backward()
        grads.append(values.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0])
