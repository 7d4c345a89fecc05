"""var / std / var_mean / std_mean with values whose float32 squares overflow or underflow,
against PyTorch, which accumulates them in double (NOTE [moments accumulate in float64])."""
import math

import numpy as np
import pytest
import torch

import ember

INF, NAN = math.inf, math.nan


def _assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
        return
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    got, want = got.float().numpy(), want.float().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=0)


OPS = [
    lambda lib, x: lib.std(x),
    lambda lib, x: lib.std(x, correction=0),
    lambda lib, x: lib.var(x),
    lambda lib, x: lib.std_mean(x),
    lambda lib, x: lib.var_mean(x, correction=0),
    lambda lib, x: x.reshape(1, -1).std(dim=1, keepdim=True),
    lambda lib, x: lib.std_mean(x.reshape(-1, 1).expand(-1, 3), dim=0),
    lambda lib, x: x.repeat(2)[::2].std(),
]


def _compare(values, ops=OPS):
    for op in ops:
        got, want = op(ember, ember.tensor(values)), op(torch, torch.tensor(values))
        _assert_same(tuple(got) if isinstance(got, tuple) else got,
                     tuple(want) if isinstance(want, tuple) else want)


@pytest.mark.parametrize("values", [[2.39, 1e30], [1e30, 3e30, 2e30, -1e30]])
def test_std_of_values_whose_float32_squares_overflow(values):
    # std is finite; var (the square) is inf in both.
    _compare(values)


def test_std_of_denormal_deviations():
    _compare([1e-40, 3e-42, 0.0, -1e-41])
    _compare([1e-20, 3e-20, 0.0, NAN])


def test_mean_of_values_whose_float32_sum_overflows():
    # (PyTorch's contiguous std of such a row overflows in its own way; not compared.)
    _compare([3.4e38, 3.3e38, 1e38, 1.0], [
        lambda lib, x: lib.std_mean(x)[1], lambda lib, x: lib.var_mean(x)[1],
        lambda lib, x: lib.std_mean(x.reshape(-1, 1).expand(-1, 3), dim=0)])


def test_moments_of_bfloat16_accumulate_in_double():
    values = ember.tensor([2.39, 1e30], dtype=ember.bfloat16)
    want = torch.tensor([2.39, 1e30], dtype=torch.bfloat16)
    for op in (lambda lib, x: lib.std(x), lambda lib, x: lib.var(x),
               lambda lib, x: lib.std_mean(x)[0]):
        _assert_same(op(ember, values), op(torch, want))
