"""The older sparse entry points against PyTorch: smm, hspmm / hsmm, sspaddmm / saddmm, dsmm,
the *_copy accessors and the in-place resizes of COO tensors."""
import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")

_MAT1 = [[1.0, 0, 2], [0, 0, 0], [0, 3, 0]]
_MAT2 = [[1.0, 0], [0, 0], [0, 5]]
_INPUT = [[1.0, 0], [0, 7], [0, 0]]


def _coo(lib, rows=_MAT1):
    return lib.tensor(rows).to_sparse()


def _uncoalesced(lib):
    return lib.sparse_coo_tensor([[0, 0, 2], [0, 0, 1]], [1.0, 1.0, 3.0], (3, 3))


def _resized(lib, method, *args, make=_coo):
    t = make(lib)
    result = getattr(t, method)(*args)
    assert result is t
    return t


def _EMPTY(lib):
    return lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0), (1, 1))

_CASES = {
    "smm": lambda lib: lib.smm(_coo(lib), lib.tensor(_MAT2)),
    "smm_method": lambda lib: _coo(lib).smm(lib.tensor(_MAT2)),
    "smm_uncoalesced": lambda lib: lib.smm(_uncoalesced(lib), lib.tensor(_MAT2)),
    "smm_sparse_mat": lambda lib: lib.smm(_coo(lib), lib.tensor(_MAT2).to_sparse()),
    "smm_dense_input": lambda lib: lib.smm(lib.tensor(_MAT1), lib.tensor(_MAT2)),
    "hspmm": lambda lib: lib.hspmm(_coo(lib), lib.tensor(_MAT2)),
    "hsmm": lambda lib: lib.hsmm(_coo(lib), lib.tensor(_MAT2)),
    "hspmm_bad_shapes": lambda lib: lib.hspmm(_coo(lib), lib.ones(2, 2)),
    "hspmm_csr": lambda lib: lib.hspmm(lib.tensor(_MAT1).to_sparse_csr(), lib.tensor(_MAT2)),
    "hsmm_dense": lambda lib: lib.hsmm(lib.tensor(_MAT1), lib.tensor(_MAT2)),
    "sspaddmm": lambda lib: lib.sspaddmm(_coo(lib, _INPUT), _coo(lib), lib.tensor(_MAT2),
                                         beta=2, alpha=3),
    "sspaddmm_method": lambda lib: _coo(lib, _INPUT).sspaddmm(_coo(lib), lib.tensor(_MAT2)),
    "sspaddmm_uncoalesced": lambda lib: lib.sspaddmm(
        lib.sparse_coo_tensor([[2, 0], [1, 1]], [1.0, 2.0], (3, 2)), _uncoalesced(lib),
        lib.tensor(_MAT2)),
    "sspaddmm_bad_input_shape": lambda lib: lib.sspaddmm(_coo(lib), _coo(lib),
                                                         lib.tensor(_MAT2)),
    "sspaddmm_dtypes": lambda lib: lib.sspaddmm(_coo(lib, _INPUT), _coo(lib),
                                                lib.tensor(_MAT2, dtype=lib.float64)),
    "saddmm": lambda lib: lib.saddmm(_coo(lib, _INPUT), _coo(lib), lib.tensor(_MAT2),
                                     beta=0.5, alpha=2),
    "dsmm": lambda lib: lib.dsmm(_coo(lib), lib.tensor(_MAT2)),
    "dsmm_dense": lambda lib: lib.dsmm(lib.tensor(_MAT1), lib.tensor(_MAT2)),
    "values_copy_csr": lambda lib: lib.values_copy(lib.tensor(_MAT1).to_sparse_csr()),
    "values_copy_bsc": lambda lib: lib.values_copy(lib.ones(2, 2).to_sparse_bsc((1, 1))),
    "values_copy_coo": lambda lib: lib.values_copy(_coo(lib)),
    "values_copy_dense": lambda lib: lib.values_copy(lib.ones(2)),
    "indices_copy_coo": lambda lib: lib.indices_copy(_coo(lib)),
    "indices_copy_csr": lambda lib: lib.indices_copy(lib.tensor(_MAT1).to_sparse_csr()),
    "crow_indices_copy": lambda lib: lib.crow_indices_copy(lib.tensor(_MAT1).to_sparse_csr()),
    "crow_indices_copy_bsr": lambda lib: lib.crow_indices_copy(
        lib.ones(2, 2).to_sparse_bsr((1, 1))),
    "crow_indices_copy_csc": lambda lib: lib.crow_indices_copy(
        lib.tensor(_MAT1).to_sparse_csc()),
    "col_indices_copy": lambda lib: lib.col_indices_copy(lib.tensor(_MAT1).to_sparse_csr()),
    "ccol_indices_copy": lambda lib: lib.ccol_indices_copy(lib.tensor(_MAT1).to_sparse_csc()),
    "ccol_indices_copy_dense": lambda lib: lib.ccol_indices_copy(lib.ones(2, 2)),
    "row_indices_copy": lambda lib: lib.row_indices_copy(lib.tensor(_MAT1).to_sparse_csc()),
    "row_indices_copy_bsc": lambda lib: lib.row_indices_copy(
        lib.ones(2, 2).to_sparse_bsc((1, 1))),
    "values_copy_out": lambda lib: lib.values_copy(lib.tensor(_MAT1).to_sparse_csr(),
                                                   out=lib.empty(0)),
    "sparse_resize_grow": lambda lib: _resized(lib, "sparse_resize_", (4, 5), 2, 0),
    "sparse_resize_same": lambda lib: _resized(lib, "sparse_resize_", (3, 3), 2, 0),
    "sparse_resize_shrink": lambda lib: _resized(lib, "sparse_resize_", (2, 2), 2, 0),
    "sparse_resize_dense_dims": lambda lib: _resized(lib, "sparse_resize_", (3, 3, 1), 2, 1),
    "sparse_resize_bad_count": lambda lib: _resized(lib, "sparse_resize_", (3, 3), 1, 0),
    "sparse_resize_empty_new_dims": lambda lib: _resized(lib, "sparse_resize_", (4, 3, 2), 1,
                                                         2, make=_EMPTY),
    "sparse_resize_dense": lambda lib: lib.ones(2).sparse_resize_((3,), 1, 0),
    "sparse_resize_csr": lambda lib: lib.ones(2, 2).to_sparse_csr().sparse_resize_((3, 3), 2,
                                                                                  0),
    "resize_and_clear": lambda lib: _resized(lib, "sparse_resize_and_clear_", (5, 5, 2), 2, 1),
    "resize_and_clear_bad_count": lambda lib: _resized(lib, "sparse_resize_and_clear_",
                                                       (5, 5), 2, 1),
    "resize_as_sparse_": lambda lib: _resized(lib, "resize_as_sparse_", _coo(lib), make=_EMPTY),
    "resize_as_sparse_function": lambda lib: lib.resize_as_sparse_(_EMPTY(lib),
                                                                  _coo(lib, _MAT2)),
    "resize_as_sparse_dense_template": lambda lib: _resized(lib, "resize_as_sparse_",
                                                            lib.ones(2), make=_EMPTY),
    "resize_as_sparse_grows": lambda lib: _resized(lib, "resize_as_sparse_",
                                                   lib.zeros(4, 4).to_sparse()),
}


def _run(lib, case):
    try:
        return _CASES[case](lib), None
    except Exception as exc:  # noqa: BLE001  # the class and message are what is compared
        return None, (type(exc), str(exc).split("\n")[0])


def assert_same(e, t):
    assert str(e.layout).split(".")[1] == str(t.layout).split(".")[1]
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    if t.layout is torch.sparse_coo:
        assert (e.sparse_dim(), e.dense_dim(), e._nnz()) == \
            (t.sparse_dim(), t.dense_dim(), t._nnz())
        assert e.is_coalesced() == t.is_coalesced()
        np.testing.assert_array_equal(e._indices().numpy(), t._indices().numpy())
        np.testing.assert_allclose(e._values().numpy(), t._values().numpy())
    else:
        np.testing.assert_allclose(e.numpy(), t.numpy())


@pytest.mark.parametrize("case", list(_CASES))
def test_legacy_sparse_as_pytorch(case):
    e, e_err = _run(ember, case)
    t, t_err = _run(torch, case)
    if t_err is None:
        assert e_err is None, e_err
        assert_same(e, t)
        return
    assert e_err is not None and e_err[0] is t_err[0], (e_err, t_err)
    if "INTERNAL ASSERT" not in t_err[1]:
        # PyTorch's message, up to the list of its build's backends
        assert e_err[1][:120] == t_err[1][:120]


def test_resize_bumps_the_version_and_refuses_a_leaf_requiring_grad():
    for lib in (torch, ember):
        t = _coo(lib)
        before = t._version
        t.sparse_resize_((4, 4), 2, 0)
        assert t._version == before + 1
        leaf = _coo(lib).requires_grad_()
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            leaf.sparse_resize_((4, 4), 2, 0)


def test_copies_do_not_share_the_components():
    csr = ember.tensor(_MAT1).to_sparse_csr()
    copy = ember.values_copy(csr)
    copy[0] = 100.0
    assert csr.values()[0].item() == 1.0
