"""The blocked layouts (BSR, BSC) against PyTorch: constructors, conversions from dense and
between layouts, components, transposes, products, printing, pickling and checkpoints."""
import io
import pickle

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")

_DENSE = np.array([[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 0, 5], [0, 0, 6, 0], [0, 0, 0, 0],
                   [7, 0, 0, 0]], dtype=np.float32)
_RANDOM = np.where(np.random.default_rng(3).random((8, 12)) < 0.2,
                   np.random.default_rng(4).standard_normal((8, 12)), 0.0)


def _dense(lib):
    return lib.tensor(_DENSE)


def _bsr(lib):
    return _dense(lib).to_sparse_bsr((2, 2))


def _bsc(lib):
    return _dense(lib).to_sparse_bsc((2, 2))


_CASES = {
    "dense_to_bsr": _bsr,
    "dense_to_bsc": _bsc,
    "dense_to_bsr_int_blocksize": lambda lib: _dense(lib).to_sparse_bsr(2),
    "dense_to_bsr_tall_blocks": lambda lib: _dense(lib).to_sparse_bsr((3, 2)),
    "dense_to_bsc_wide_blocks": lambda lib: _dense(lib).to_sparse_bsc((1, 4)),
    "random_bsr": lambda lib: lib.tensor(_RANDOM).to_sparse_bsr((2, 3)),
    "random_bsc": lambda lib: lib.tensor(_RANDOM).to_sparse_bsc((4, 2)),
    "to_sparse_layout_bsr": lambda lib: _dense(lib).to_sparse(layout=lib.sparse_bsr,
                                                             blocksize=(3, 2)),
    "to_sparse_layout_bsc": lambda lib: _dense(lib).to_sparse(layout=lib.sparse_bsc,
                                                             blocksize=(2, 4)),
    "to_sparse_layout_without_blocksize": lambda lib: _dense(lib).to_sparse(
        layout=lib.sparse_bsr),
    "indivisible_blocksize": lambda lib: _dense(lib).to_sparse_bsr((4, 4)),
    "csr_to_bsr": lambda lib: _dense(lib).to_sparse_csr().to_sparse_bsr((2, 2)),
    "coo_to_bsr": lambda lib: _dense(lib).to_sparse().to_sparse_bsr((2, 2)),
    "bsr_to_bsr_same_blocksize": lambda lib: _bsr(lib).to_sparse_bsr((2, 2)),
    "bsr_to_bsr_other_blocksize": lambda lib: _bsr(lib).to_sparse_bsr((1, 1)),
    "bsr_to_bsc": lambda lib: _bsr(lib).to_sparse_bsc((2, 2)),
    "bsc_to_bsr": lambda lib: _bsc(lib).to_sparse_bsr((2, 2)),
    "bsr_to_csr": lambda lib: _bsr(lib).to_sparse_csr(),
    "bsr_to_coo": lambda lib: _bsr(lib).to_sparse(),
    "bsc_to_coo": lambda lib: _bsc(lib).to_sparse(),
    "to_dense": lambda lib: _bsr(lib).to_dense(),
    "bsc_to_dense": lambda lib: _bsc(lib).to_dense(),
    "t": lambda lib: _bsr(lib).t(),
    "bsc_t": lambda lib: _bsc(lib).t(),
    "transpose": lambda lib: _bsr(lib).transpose(0, 1),
    "transpose_same_dim": lambda lib: _bsr(lib).transpose(1, 1),
    "t_t": lambda lib: _bsr(lib).t().t(),
    "detach": lambda lib: _bsr(lib).detach(),
    "clone": lambda lib: _bsc(lib).clone(),
    "double": lambda lib: _bsr(lib).double(),
    "to_float64": lambda lib: _bsc(lib).to(lib.float64),
    "times_scalar": lambda lib: _bsr(lib) * 2,
    "scalar_times": lambda lib: 3 * _bsc(lib),
    "neg": lambda lib: -_bsr(lib),
    "matmul": lambda lib: _bsr(lib) @ lib.arange(8.0).reshape(4, 2),
    "mv": lambda lib: lib.mv(_bsr(lib), lib.arange(4.0)),
    "addmm": lambda lib: lib.addmm(lib.ones(6, 2), _bsr(lib), lib.ones(4, 2), beta=2,
                                   alpha=0.5),
    "bad_product_shapes": lambda lib: _bsr(lib) @ lib.ones(3, 2),
    "bsr_constructor": lambda lib: lib.sparse_bsr_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([0, 1]), lib.arange(12.0).reshape(2, 2, 3)),
    "bsr_constructor_with_size": lambda lib: lib.sparse_bsr_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([0, 1]), lib.arange(12.0).reshape(2, 2, 3),
        (4, 9)),
    "bsr_constructor_dtype": lambda lib: lib.sparse_bsr_tensor(
        [0, 1, 2], [0, 1], lib.ones(2, 2, 3), dtype=lib.float64),
    "bsc_constructor": lambda lib: lib.sparse_bsc_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([1, 0]), lib.arange(12.0).reshape(2, 3, 2)),
    "bsr_constructor_requires_grad": lambda lib: lib.sparse_bsr_tensor(
        lib.tensor([0, 1]), lib.tensor([0]), lib.ones(1, 2, 2), requires_grad=True),
    "bsr_constructor_flat_values": lambda lib: lib.sparse_bsr_tensor(
        lib.tensor([0, 1]), lib.tensor([0]), lib.ones(1)),
    "compressed_csr": lambda lib: lib.sparse_compressed_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([0, 1]), lib.tensor([1.0, 2.0]),
        layout=lib.sparse_csr),
    "compressed_csc": lambda lib: lib.sparse_compressed_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([0, 1]), lib.tensor([1.0, 2.0]), (2, 2),
        layout=lib.sparse_csc),
    "compressed_bsr": lambda lib: lib.sparse_compressed_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([0, 1]), lib.ones(2, 2, 3), layout=lib.sparse_bsr),
    "compressed_bsc": lambda lib: lib.sparse_compressed_tensor(
        lib.tensor([0, 1, 2]), lib.tensor([0, 1]), lib.ones(2, 2, 3), layout=lib.sparse_bsc),
    "compressed_no_layout": lambda lib: lib.sparse_compressed_tensor(
        lib.tensor([0, 1]), lib.tensor([0]), lib.ones(1)),
    "compressed_strided": lambda lib: lib.sparse_compressed_tensor(
        lib.tensor([0, 1]), lib.tensor([0]), lib.ones(1), layout=lib.strided),
    "ccol_indices_of_bsr": lambda lib: _bsr(lib).ccol_indices(),
    "row_indices_of_bsr": lambda lib: _bsr(lib).row_indices(),
    "crow_indices_of_bsc": lambda lib: _bsc(lib).crow_indices(),
    "col_indices_of_bsc": lambda lib: _bsc(lib).col_indices(),
    "indices_of_bsr": lambda lib: _bsr(lib).indices(),
    "crow_indices_of_bsr": lambda lib: _bsr(lib).crow_indices(),
    "row_indices_of_bsc": lambda lib: _bsc(lib).row_indices(),
    "values_of_bsc": lambda lib: _bsc(lib).values(),
}


# Products PyTorch's CPU build refuses for blocked operands ("addmm: computation on CPU is not
# implemented for Strided + SparseBsc @ Strided", "MKL Sparse doesn't support matrices with
# non-square blocks"); ember computes them, checked against PyTorch's dense products. Each
# case gets the library and how to make a matrix blocked (for PyTorch: leave it dense).
_BEYOND_TORCH_CPU = {
    "bsc_matmul": lambda lib, bsc, bsr: bsc(_dense(lib)) @ lib.arange(8.0).reshape(4, 2),
    "bsc_mv": lambda lib, bsc, bsr: bsc(_dense(lib)) @ lib.arange(4.0),
    "mm": lambda lib, bsc, bsr: lib.mm(bsc(_dense(lib)), lib.ones(4, 3)),
    "dense_times_bsr": lambda lib, bsc, bsr: lib.tensor(np.arange(16.0).reshape(2, 8)) @ bsr(lib.tensor(
        _RANDOM)),
    "dense_times_bsc": lambda lib, bsc, bsr: lib.arange(12.0).reshape(2, 6) @ bsc(_dense(lib)),
    "non_square_blocks": lambda lib, bsc, bsr: (
        lib.mm(bsr(lib.tensor(_RANDOM)), lib.tensor(np.arange(24.0).reshape(12, 2)))),
}

def _run(lib, case):
    try:
        return _CASES[case](lib), None
    except Exception as exc:  # noqa: BLE001  # the class is what is compared
        return None, (type(exc), str(exc).split("\n")[0])


def _layout(x) -> str:
    return str(x.layout).split(".")[1]


def assert_same(e, t):
    assert _layout(e) == _layout(t)
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    assert e.requires_grad == t.requires_grad
    parts = {torch.sparse_bsr: ("crow_indices", "col_indices", "values"),
             torch.sparse_bsc: ("ccol_indices", "row_indices", "values"),
             torch.sparse_csr: ("crow_indices", "col_indices", "values"),
             torch.sparse_csc: ("ccol_indices", "row_indices", "values")}.get(t.layout)
    if parts:
        for part in parts:
            np.testing.assert_array_equal(getattr(e, part)().detach().numpy(),
                                          getattr(t, part)().detach().numpy())
        assert e._nnz() == t._nnz()
        assert (e.is_sparse, e.is_sparse_csr) == (t.is_sparse, t.is_sparse_csr)
        assert (e.sparse_dim(), e.dense_dim()) == (t.sparse_dim(), t.dense_dim())
        assert repr(e).replace("ember.", "torch.") == repr(t)
    if t.layout is torch.sparse_coo:
        assert e._nnz() == t._nnz()
    np.testing.assert_allclose(e.detach().to_dense().numpy(), t.detach().to_dense().numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("case", list(_CASES))
def test_blocked_as_pytorch(case):
    e, e_err = _run(ember, case)
    t, t_err = _run(torch, case)
    if t_err is None:
        assert e_err is None, e_err
        assert_same(e, t)
    else:
        assert e_err is not None and e_err[0] is t_err[0], (e_err, t_err)


@pytest.mark.parametrize("case", ["indivisible_blocksize", "bsr_to_bsr_other_blocksize",
                                  "bsr_to_csr", "compressed_no_layout", "compressed_strided",
                                  "ccol_indices_of_bsr", "crow_indices_of_bsc",
                                  "indices_of_bsr", "to_sparse_layout_without_blocksize",
                                  "bsr_constructor_flat_values"])
def test_blocked_refusals_say_what_pytorch_says(case):
    _, (_, e_message) = _run(ember, case)
    _, (_, t_message) = _run(torch, case)
    assert e_message == t_message


def test_op_without_blocked_kernel_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="SparseCsrCPU"):
        _bsr(ember).exp()


def test_pickle_and_checkpoint_round_trip():
    for make, layout in ((_bsr, ember.sparse_bsr), (_bsc, ember.sparse_bsc)):
        blocked = make(ember)
        for copy in (pickle.loads(pickle.dumps(blocked)), _saved_and_loaded(ember, blocked)):
            assert copy.layout is layout
            np.testing.assert_array_equal(copy.to_dense().numpy(), _DENSE)
    # A checkpoint PyTorch wrote loads in ember with its layout.
    loaded = _saved_and_loaded(torch, _bsc(torch), load=ember.load)
    assert loaded.layout is ember.sparse_bsc
    assert repr(loaded) == repr(_bsc(ember))


def _saved_and_loaded(lib, t, load=None):
    buffer = io.BytesIO()
    lib.save(t, buffer)
    buffer.seek(0)
    return (load or lib.load)(buffer)


@pytest.mark.parametrize("case", list(_BEYOND_TORCH_CPU))
def test_blocked_products_pytorch_cpu_refuses(case):
    ours = _BEYOND_TORCH_CPU[case](ember, lambda m: m.to_sparse_bsc((2, 2)),
                                   lambda m: m.to_sparse_bsr((2, 3)))
    theirs = _BEYOND_TORCH_CPU[case](torch, lambda m: m, lambda m: m)
    assert ours.layout is ember.strided
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)
