"""Indexing sparse tensors against PyTorch: `s[i]`, `s[:, j]`, `s[i, j]`, `select` over sparse
and dense dims, `index_select`, coalesced and not, COO and CSR; the result's layout, indices
and values (in PyTorch's order), its coalesced flag, and the errors."""
import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse")

_DENSE = np.array([[1.0, 0.0, 3.0], [0.0, 0.0, 6.0]], dtype=np.float32)
_CUBE = (np.arange(24.0).reshape(2, 3, 4) * (np.arange(24).reshape(2, 3, 4) % 3 == 0)) \
    .astype(np.float32)


def _sources(lib):
    return {
        "coo": lib.tensor(_DENSE).to_sparse(),
        "csr": lib.tensor(_DENSE).to_sparse_csr(),
        "cube": lib.tensor(_CUBE).to_sparse(),
        "hybrid": lib.tensor(_CUBE).to_sparse(2),
        "uncoalesced": lib.sparse_coo_tensor(lib.tensor([[0, 0, 1], [1, 1, 2]]),
                                             lib.tensor([1.0, 2.0, 3.0]), (2, 3)),
    }


_CASES = {
    "row": ("coo", lambda lib, s: s[0]),
    "last_row": ("coo", lambda lib, s: s[-1]),
    "column": ("coo", lambda lib, s: s[:, 2]),
    "element": ("coo", lambda lib, s: s[0, 2]),
    "absent_element": ("coo", lambda lib, s: s[1, 1]),
    "row_out_of_range": ("coo", lambda lib, s: s[5]),
    "slice": ("coo", lambda lib, s: s[0:1]),
    "select_dim1": ("coo", lambda lib, s: s.select(1, 2)),
    "select_bad_dim": ("coo", lambda lib, s: s.select(2, 0)),
    "select_bad_index": ("coo", lambda lib, s: s.select(0, -3)),
    "cube_select": ("cube", lambda lib, s: s.select(1, 0)),
    "cube_row": ("cube", lambda lib, s: s[1]),
    "cube_element": ("cube", lambda lib, s: s[1, 2]),
    "hybrid_dense_dim": ("hybrid", lambda lib, s: s.select(2, 1)),
    "hybrid_row": ("hybrid", lambda lib, s: s[0]),
    "hybrid_to_dense_values": ("hybrid", lambda lib, s: s[0, 1]),
    "uncoalesced_select": ("uncoalesced", lambda lib, s: s.select(0, 0)),
    "uncoalesced_element": ("uncoalesced", lambda lib, s: s[0, 1]),
    "csr_row": ("csr", lambda lib, s: s[0]),
    "csr_select": ("csr", lambda lib, s: s.select(0, 1)),
    "index_select_rows": ("coo", lambda lib, s: s.index_select(0, lib.tensor([1, 0, 1]))),
    "index_select_columns": ("coo", lambda lib, s: s.index_select(1, lib.tensor([2, 2]))),
    "index_select_negative": ("coo", lambda lib, s: s.index_select(1, lib.tensor([-1]))),
    "index_select_empty": ("coo", lambda lib, s: s.index_select(0, lib.tensor([], dtype=lib.long))),
    "index_select_function": ("coo", lambda lib, s: lib.index_select(s, 0, lib.tensor([1]))),
    "index_select_cube": ("cube", lambda lib, s: s.index_select(2, lib.tensor([3, 0]))),
    "index_select_hybrid_dense": ("hybrid", lambda lib, s: s.index_select(2, lib.tensor([1]))),
    "index_select_uncoalesced": ("uncoalesced",
                                 lambda lib, s: s.index_select(1, lib.tensor([1, 1]))),
    "index_select_float_index": ("coo", lambda lib, s: s.index_select(0, lib.tensor([1.0]))),
    "index_select_int32_index": ("coo", lambda lib, s: s.index_select(
        0, lib.tensor([1], dtype=lib.int32))),
    "index_select_2d_index": ("coo", lambda lib, s: s.index_select(0, lib.tensor([[1]]))),
    "index_select_out_of_range": ("coo", lambda lib, s: s.index_select(0, lib.tensor([5]))),
    "index_select_csr": ("csr", lambda lib, s: s.index_select(0, lib.tensor([1]))),
}


def _run(lib, case):
    source, fn = _CASES[case]
    try:
        return fn(lib, _sources(lib)[source]), None
    except Exception as exc:  # noqa: BLE001  # the class is what is compared
        return None, type(exc)


def _layout(x) -> str:
    return str(x.layout).split(".")[1]


@pytest.mark.parametrize("case", list(_CASES))
def test_sparse_indexing_as_pytorch(case):
    e, e_err = _run(ember, case)
    t, t_err = _run(torch, case)
    assert e_err == t_err, (e_err, t_err)
    if t_err is not None:
        return
    assert _layout(e) == _layout(t)
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    if t.layout is torch.sparse_coo:
        np.testing.assert_array_equal(e._indices().numpy(), t._indices().numpy())
        np.testing.assert_array_equal(e._values().numpy(), t._values().numpy())
        assert e.is_coalesced() == t.is_coalesced()
    else:
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_dense_indexing_skips_whole_slices_as_pytorch():
    """`x[:, 1]` is one select (no slice of the whole dim) for a dispatch mode, as in PyTorch."""
    def ops(lib, mode_cls):
        seen = []

        class Log(mode_cls):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__ if lib is ember else str(func).split(".", 1)[1])
                return func(*args, **(kwargs or {}))
        x = lib.ones(2, 3)
        with Log():
            x[:, 1]
            x[:, 1:]
            x[..., ::1, 0]
        return seen
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

    from ember.utils._python_dispatch import TorchDispatchMode as EmberMode
    assert ops(ember, EmberMode) == ops(torch, TorchMode)
