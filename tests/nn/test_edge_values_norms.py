"""layer_norm and group_norm of rows whose float32 moments overflow, against PyTorch: where its
moments merge multiplies an overflowed delta * delta by zero the row is NaN, elsewhere the
variance is inf and the row 0 (NOTE [PyTorch's moments merge] in ember/_ops/nn_norm.py). The
cases give the same answer on every CPU capability PyTorch dispatches to."""
import numpy as np
import pytest
import torch

import ember

# (a row NaN in PyTorch, a neighbouring row that is not: one with a tail of F % 8 elements)
ROWS = [
    ([1e30, 3e30, 2e30, -1e30], [1e30] * 4 + [2.0] * 5),
    ([2e19, 2e19], [2e19] * 9),
    ([1e30, 2.0], [1e20, -1e20]),
    ([2e19] * 7, [2e19] * 9),
    ([2e19] * 16, [3e19] + [0.0] * 15),
]


def _assert_same(got, want):
    got, want = got.detach().numpy(), want.detach().numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=1e-5, atol=0)


@pytest.mark.parametrize("nan_row, finite_row", ROWS)
def test_norms_of_rows_past_float32s_square_root(nan_row, finite_row):
    for values in (nan_row, finite_row):
        _compare(values)


def _compare(values):
    n = len(values)
    for op in (lambda lib, x: lib.nn.functional.layer_norm(x, (n,)),
               lambda lib, x: lib.nn.functional.layer_norm(x.reshape(1, n).expand(3, n), (n,),
                                                           lib.ones(n), lib.zeros(n)),
               lambda lib, x: lib.nn.functional.group_norm(x.reshape(1, n, 1), 1),
               lambda lib, x: lib.nn.functional.group_norm(x.reshape(1, n, 1).repeat(2, 2, 1), 2)):
        _assert_same(op(ember, ember.tensor(values)), op(torch, torch.tensor(values)))


def test_group_norm_example_from_the_issue():
    x = [[1e30, 3e30, 2e30, -1e30]]
    got = ember.nn.functional.group_norm(ember.tensor(x).reshape(1, 4, 1), 2)
    want = torch.nn.functional.group_norm(torch.tensor(x).reshape(1, 4, 1), 2)
    _assert_same(got, want)
    assert np.isnan(got.numpy()).all()
