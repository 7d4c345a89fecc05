"""Sparse COO and CSR tensors against PyTorch: construction, printing, conversions,
accessors, and the errors of bad input or of ops without a sparse kernel."""
import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")

INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]           # (0, 2) twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, 1.0]


def pair(indices=INDICES, values=VALUES, size=(2, 3), **kwargs):
    return (ember.sparse_coo_tensor(indices, values, size, **kwargs),
            torch.sparse_coo_tensor(indices, values, size, **kwargs))


def same_text(e, t):
    assert repr(e) == repr(t).replace("torch.", "ember.")


def same_dense(e, t):
    assert e.layout is getattr(ember, str(t.layout).split(".")[1])
    e_dense = e.to_dense() if e.layout is not ember.strided else e
    t_dense = t.to_dense() if t.layout is not torch.strided else t
    np.testing.assert_allclose(e_dense.detach().numpy(), t_dense.detach().numpy(), rtol=1e-6)
    assert str(e_dense.dtype).split(".")[1] == str(t_dense.dtype).split(".")[1]


@pytest.mark.parametrize("case", [
    lambda L: L.sparse_coo_tensor(INDICES, VALUES, (2, 3)),
    lambda L: L.sparse_coo_tensor(INDICES, VALUES, (2, 3)).coalesce(),
    lambda L: L.sparse_coo_tensor(INDICES, VALUES, (2, 3), dtype=L.float64),
    lambda L: L.sparse_coo_tensor(INDICES, [1, 2, 3, 4], (2, 3)),
    lambda L: L.sparse_coo_tensor(INDICES, VALUES, (2, 3), requires_grad=True),
    lambda L: L.sparse_coo_tensor(L.zeros(1, 0, dtype=L.long), L.tensor([]), (3,)),
    lambda L: L.arange(12.0).reshape(3, 4).to_sparse(1),
    lambda L: L.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse_csr(),
    lambda L: L.tensor([[0.0, 1.5], [2.0, 0.0]], dtype=L.float64).to_sparse_csr(),
    lambda L: L.sparse_csr_tensor([0, 1, 3], [2, 0, 2], [3.0, 4.0, 5.0], (2, 3)),
], ids=["coo", "coalesced", "float64", "int64", "requires_grad", "empty", "hybrid", "csr",
        "csr_float64", "csr_ctor"])
def test_sparse_tensor_prints_as_pytorch(case):
    same_text(case(ember), case(torch))


def test_properties_and_accessors_match():
    e, t = pair()
    assert (e.is_sparse, e.is_sparse_csr, e.layout) == (True, False, ember.sparse_coo)
    assert e.shape == ember.Size(t.shape) and e.dim() == t.dim() and e.numel() == t.numel()
    assert (e.sparse_dim(), e.dense_dim(), e._nnz()) == (t.sparse_dim(), t.dense_dim(), t._nnz())
    assert e.is_coalesced() == t.is_coalesced() is False
    assert e.device == ember.device("cpu") and ember.device("cpu") == e.device
    assert hash(e.device) == hash(ember.device("cpu")) and str(e.device) == "cpu"
    assert e._indices().tolist() == t._indices().tolist()
    assert e._values().tolist() == t._values().tolist()
    ec, tc = e.coalesce(), t.coalesce()
    assert ec.is_coalesced() and ec.indices().tolist() == tc.indices().tolist()
    assert ec.values().tolist() == tc.values().tolist()
    same_dense(e, t)


def test_csr_accessors_and_conversions_match():
    dense = [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0], [0.0, 0.0, 0.0]]
    e, t = ember.tensor(dense).to_sparse_csr(), torch.tensor(dense).to_sparse_csr()
    assert e.is_sparse_csr and not e.is_sparse and e.layout is ember.sparse_csr
    for name in ("crow_indices", "col_indices", "values"):
        assert getattr(e, name)().tolist() == getattr(t, name)().tolist()
    assert (e.sparse_dim(), e.dense_dim(), e._nnz()) == (t.sparse_dim(), t.dense_dim(), t._nnz())
    same_text(e.to_sparse(), t.to_sparse())
    same_text(e.to_sparse_coo().to_sparse_csr(), t.to_sparse_coo().to_sparse_csr())
    same_dense(e, t)
    same_text(ember.tensor(dense).to_sparse(layout=ember.sparse_csr),
              torch.tensor(dense).to_sparse(layout=torch.sparse_csr))


def test_to_sparse_with_no_sparse_dim_raises_as_pytorch():
    with pytest.raises(RuntimeError) as t_error:
        torch.ones(2, 2).to_sparse(0)
    with pytest.raises(RuntimeError) as e_error:
        ember.ones(2, 2).to_sparse(0)
    assert str(e_error.value) == str(t_error.value)


@pytest.mark.parametrize("sparse_dim", [None, 1, 2])
def test_to_sparse_of_dense_matches(sparse_dim):
    array = np.array([[0.0, 0.0, 0.0], [9.0, 0.0, 10.0], [0.0, 0.0, 0.0]])
    args = () if sparse_dim is None else (sparse_dim,)
    e = ember.tensor(array).to_sparse(*args)
    t = torch.tensor(array).to_sparse(*args)
    same_text(e, t)
    assert e.is_coalesced() == t.is_coalesced()


def test_size_is_inferred_as_pytorch_does():
    e = ember.sparse_coo_tensor([[0, 4], [1, 0]], ember.ones(2, 3))
    t = torch.sparse_coo_tensor([[0, 4], [1, 0]], torch.ones(2, 3))
    assert e.shape == ember.Size(t.shape)


def test_values_of_uncoalesced_tensor_raise_as_pytorch():
    e, t = pair()
    for name in ("values", "indices"):
        with pytest.raises(RuntimeError) as t_error:
            getattr(t, name)()
        with pytest.raises(RuntimeError) as e_error:
            getattr(e, name)()
        assert str(e_error.value) == str(t_error.value)


@pytest.mark.parametrize("bad", [
    {"indices": [[0, 5]], "values": [1.0, 2.0], "size": (3,), "check_invariants": True},
    {"indices": [[0, 1]], "values": [1.0, 2.0, 3.0], "size": (3,)},
    {"indices": [[0, 1]], "values": [1.0, 2.0], "size": (3, 3)},
], ids=["out_of_range", "nnz_mismatch", "size_mismatch"])
def test_bad_construction_raises_as_pytorch(bad):
    with pytest.raises(RuntimeError) as t_error:
        torch.sparse_coo_tensor(**bad)
    with pytest.raises(RuntimeError) as e_error:
        ember.sparse_coo_tensor(**bad)
    assert str(e_error.value) == str(t_error.value)


def test_op_without_sparse_kernel_raises_not_implemented():
    e, t = pair()
    with pytest.raises(NotImplementedError) as t_error:
        t.exp()
    with pytest.raises(NotImplementedError) as e_error:
        e.exp()
    assert str(t_error.value).startswith(str(e_error.value).split(" This could")[0])
    assert "'SparseCPU' backend" in str(e_error.value)


def test_numpy_and_reshape_refuse_sparse_as_pytorch():
    e, t = pair()
    with pytest.raises(TypeError) as t_error:
        t.numpy()
    with pytest.raises(TypeError) as e_error:
        e.numpy()
    assert str(e_error.value) == str(t_error.value)
    with pytest.raises(RuntimeError, match="reshape is not implemented for sparse tensors"):
        e.reshape(6)


def test_dtype_conversion_keeps_layout():
    e, t = pair()
    same_text(e.double(), t.double())
    same_text(e.to(ember.float64), t.to(torch.float64))
    same_text(e.clone(), t.clone())
    same_text(e.detach(), t.detach())


def test_dense_calls_after_sparse_ones_are_unchanged():
    pair()
    a, b = ember.ones(3), ember.ones(3, dtype=ember.float64)
    assert (a + b).dtype is ember.float64 and (a + 1).tolist() == [2.0, 2.0, 2.0]
    assert ember.tensor([[1.0, 2.0]]).layout is ember.strided
    assert not ember.ones(2).is_sparse


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_pickle_and_deepcopy_keep_sparse_tensors(layout):
    import copy
    import pickle
    e, t = pair()
    if layout == "csr":
        e, t = e.to_sparse_csr(), t.to_sparse_csr()
    same_text(pickle.loads(pickle.dumps(e)), t)
    same_text(copy.deepcopy(e), t)      # (PyTorch can't deepcopy a CSR tensor)


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_checkpoints_of_sparse_tensors_pass_both_ways(tmp_path, layout):
    e, t = pair()
    if layout == "csr":
        e, t = e.to_sparse_csr(), t.to_sparse_csr()
    ember.save({"w": e}, tmp_path / "e.pt")
    torch.save({"w": t}, tmp_path / "t.pt")
    same_text(ember.load(tmp_path / "t.pt")["w"], t)
    same_text(ember.load(tmp_path / "e.pt")["w"], t)
    loaded = torch.load(tmp_path / "e.pt")["w"]
    assert repr(loaded) == repr(t)


def test_strides_and_data_access_as_pytorch():
    e, t = pair()
    assert e.stride() == t.stride() and e.is_contiguous() == t.is_contiguous()
    with pytest.raises(RuntimeError) as t_error:
        t.tolist()
    with pytest.raises(RuntimeError) as e_error:
        e.tolist()
    assert str(e_error.value) == str(t_error.value)
    with pytest.raises(RuntimeError, match="zeroth power"):
        e.pow(0)


def test_invariant_checks_switch_on_in_a_block():
    bad = {"indices": [[0, 5]], "values": [1.0, 2.0], "size": (3,)}
    for L in (ember, torch):
        L.sparse_coo_tensor(**bad)                      # unchecked by default
        with L.sparse.check_sparse_tensor_invariants():
            assert L.sparse.check_sparse_tensor_invariants.is_enabled()
            with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
                L.sparse_coo_tensor(**bad)
        assert not L.sparse.check_sparse_tensor_invariants.is_enabled()


def test_a_sparse_tensors_device_makes_dense_tensors_on_the_cpu():
    e, _ = pair()
    for made in (ember.zeros(3, device=e.device), ember.ones(2).to(e.device),
                 ember.tensor([1.0], device=e.device), ember.arange(3, device=e.device)):
        assert made.device is ember.device("cpu") and made.layout is ember.strided
    assert ember.device(e.device) is ember.device("cpu")
