"""The CSC layout against PyTorch: a CSR matrix's transpose is CSC (and back), CSC's
constructor, conversions, components, products, printing, pickling and checkpoints."""
import io
import pickle

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")

_DENSE = np.array([[1.0, 0.0, 3.0], [0.0, 0.0, 6.0]], dtype=np.float32)


def _csr(lib):
    return lib.tensor(_DENSE).to_sparse_csr()


_CASES = {
    "t": lambda lib: _csr(lib).t(),
    "transpose": lambda lib: _csr(lib).transpose(0, 1),
    "transpose_negative": lambda lib: _csr(lib).transpose(-1, 0),
    "transpose_same_dim": lambda lib: _csr(lib).transpose(0, 0),
    "transpose_bad_dim": lambda lib: _csr(lib).transpose(0, 2),
    "mT": lambda lib: _csr(lib).mT,
    "t_t": lambda lib: _csr(lib).t().t(),
    "to_dense": lambda lib: _csr(lib).t().to_dense(),
    "to_sparse": lambda lib: _csr(lib).t().to_sparse(),
    "to_sparse_csr": lambda lib: _csr(lib).t().to_sparse_csr(),
    "dense_to_sparse_csc": lambda lib: lib.tensor(_DENSE).to_sparse_csc(),
    "double": lambda lib: _csr(lib).t().double(),
    "clone": lambda lib: _csr(lib).t().clone(),
    "int_values": lambda lib: lib.tensor(_DENSE).int().to_sparse_csr().t(),
    "times_dense": lambda lib: _csr(lib).t() @ lib.ones(2, 2),
    "mm": lambda lib: lib.mm(_csr(lib).t(), lib.arange(4.0).reshape(2, 2)),
    "mv": lambda lib: _csr(lib).t() @ lib.ones(2),
    "csr_times_csc": lambda lib: lib.mm(_csr(lib), _csr(lib).t()),
    "times_scalar": lambda lib: _csr(lib).t() * 2,
    "constructor": lambda lib: lib.sparse_csc_tensor(
        lib.tensor([0, 1, 1, 3]), lib.tensor([0, 0, 1]), lib.tensor([1.0, 3, 6]), (2, 3)),
    "constructor_no_size": lambda lib: lib.sparse_csc_tensor(
        lib.tensor([0, 1, 1, 3]), lib.tensor([0, 0, 1]), lib.tensor([1.0, 3, 6])),
    "ccol_indices_of_dense": lambda lib: lib.tensor(_DENSE).ccol_indices(),
    "row_indices_of_csr": lambda lib: _csr(lib).row_indices(),
}


def _run(lib, case):
    try:
        return _CASES[case](lib), None
    except Exception as exc:  # noqa: BLE001  # the class is what is compared
        return None, type(exc)


def _layout(x) -> str:
    return str(x.layout).split(".")[1]


def assert_same(e, t):
    assert _layout(e) == _layout(t)
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    if t.layout is torch.sparse_csc:
        for part in ("ccol_indices", "row_indices", "values"):
            np.testing.assert_array_equal(getattr(e, part)().numpy(),
                                          getattr(t, part)().numpy())
        assert e._nnz() == t._nnz()
        assert (e.is_sparse, e.is_sparse_csr) == (t.is_sparse, t.is_sparse_csr)
        assert (e.sparse_dim(), e.dense_dim()) == (t.sparse_dim(), t.dense_dim())
        assert repr(e).replace("ember.", "torch.") == repr(t)
    np.testing.assert_array_equal(e.to_dense().numpy(), t.to_dense().numpy())


@pytest.mark.parametrize("case", list(_CASES))
def test_csc_as_pytorch(case):
    e, e_err = _run(ember, case)
    t, t_err = _run(torch, case)
    assert e_err == t_err, (e_err, t_err)
    if t_err is None:
        assert_same(e, t)


def test_transpose_shares_the_values():
    csr = ember.tensor(_DENSE).to_sparse_csr()
    csc = csr.t()
    csc.values()[0] = 10.0
    assert csr.values()[0].item() == 10.0


def test_op_without_csc_kernel_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="SparseCsrCPU"):
        ember.tensor(_DENSE).to_sparse_csr().t().exp()


def test_pickle_and_checkpoint_round_trip():
    csc = ember.tensor(_DENSE).to_sparse_csr().t()
    for copy in (pickle.loads(pickle.dumps(csc)), _saved_and_loaded(ember, csc)):
        assert copy.layout is ember.sparse_csc
        np.testing.assert_array_equal(copy.to_dense().numpy(), _DENSE.T)
    # A checkpoint PyTorch wrote loads in ember as CSC.
    loaded = _saved_and_loaded(torch, torch.tensor(_DENSE).to_sparse_csr().t(), load=ember.load)
    assert loaded.layout is ember.sparse_csc
    np.testing.assert_array_equal(loaded.to_dense().numpy(), _DENSE.T)


def _saved_and_loaded(lib, t, load=None):
    buffer = io.BytesIO()
    lib.save(t, buffer)
    buffer.seek(0)
    return (load or lib.load)(buffer)
