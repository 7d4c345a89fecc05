"""What the `_ex` forms return for matrices that fail (NOTE [what _ex returns for a failed
matrix]): LAPACK's partial Cholesky factor, and the getrf + getrs result of a singular matrix,
compared with PyTorch's, batched with good matrices beside the bad ones."""
import numpy as np
import pytest
import torch

import ember

NOT_PD = [[4.0, 2.0, 1.0], [2.0, 1.0, 3.0], [1.0, 3.0, 2.0]]
PD = [[4.0, 2.0, 0.0], [2.0, 3.0, 1.0], [0.0, 1.0, 5.0]]
SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]
SINGULAR_LATE = [[2.0, 1.0, 1.0], [4.0, 2.0, 2.0], [6.0, 3.0, 3.0]]


def _pair(rows, dtype):
    data = np.array(rows)
    if dtype.is_complex:
        data = data + 0j
    return torch.tensor(data, dtype=dtype), ember.tensor(data, dtype=getattr(ember, str(dtype)[6:]))


def _same(ours, theirs):
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.complex128])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_partial_factor(dtype, upper):
    theirs, ours = _pair([NOT_PD, PD, NOT_PD[::-1]], dtype)
    L_t, info_t = torch.linalg.cholesky_ex(theirs, upper=upper)
    L_e, info_e = ember.linalg.cholesky_ex(ours, upper=upper)
    assert info_e.tolist() == info_t.tolist()
    _same(L_e, L_t)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.complex128])
def test_inv_ex_of_singular_matrices(dtype):
    theirs, ours = _pair([SINGULAR, PD, SINGULAR_LATE], dtype)
    inv_t, info_t = torch.linalg.inv_ex(theirs)
    inv_e, info_e = ember.linalg.inv_ex(ours)
    assert info_e.tolist() == info_t.tolist()
    _same(inv_e, inv_t)


@pytest.mark.parametrize("left,rhs_shape", [(True, (3, 3, 2)), (False, (3, 2, 3)),
                                            (True, (3, 3))])
def test_solve_ex_of_singular_matrices(left, rhs_shape):
    theirs, ours = _pair([SINGULAR, PD, SINGULAR_LATE], torch.float64)
    rhs = np.arange(1.0, 1.0 + np.prod(rhs_shape)).reshape(rhs_shape) / 7
    X_t, info_t = torch.linalg.solve_ex(theirs, torch.tensor(rhs), left=left)
    X_e, info_e = ember.linalg.solve_ex(ours, ember.tensor(rhs), left=left)
    assert info_e.tolist() == info_t.tolist()
    _same(X_e, X_t)
