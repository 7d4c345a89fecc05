"""Fold and Unfold against PyTorch's layers."""
from __future__ import annotations

import pytest
import torch

import ember
from nn.compare import assert_close, check_module, to_ember


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kwargs", [{}, {"dilation": (2, 1), "padding": 1, "stride": (1, 2)}])
def test_unfold_matches_torch(kwargs, dtype):
    x = torch.randn(2, 3, 6, 7, dtype=dtype)
    check_module(torch.nn.Unfold((2, 3), **kwargs), ember.nn.Unfold((2, 3), **kwargs), x)
    check_module(torch.nn.Unfold((2, 3), **kwargs), ember.nn.Unfold((2, 3), **kwargs), x[0])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kwargs,blocks", [({}, 20), ({"padding": 1, "stride": 2}, 12)])
def test_fold_matches_torch(kwargs, blocks, dtype):
    x = torch.randn(2, 3 * 4, blocks, dtype=dtype)
    check_module(torch.nn.Fold((5, 6), 2, **kwargs), ember.nn.Fold((5, 6), 2, **kwargs), x)
    check_module(torch.nn.Fold((5, 6), 2, **kwargs), ember.nn.Fold((5, 6), 2, **kwargs), x[0])


def test_fold_of_unfold_counts_overlaps():
    x = torch.randn(1, 2, 5, 5)
    expected = torch.nn.functional.fold(torch.nn.functional.unfold(x, 3), (5, 5), 3)
    got = ember.nn.functional.fold(ember.nn.functional.unfold(to_ember(x), 3), (5, 5), 3)
    assert_close(got, expected)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.fold(x, (5, 6), 2, stride=7),
    lambda lib, x: lib.nn.functional.fold(x[:, :11], (5, 6), 2),
    lambda lib, x: lib.nn.functional.unfold(x, 2, stride=0),
    lambda lib, x: lib.nn.functional.unfold(x, 2, padding=-1),
])
def test_errors_match_torch(call):
    x = torch.randn(2, 12, 20)
    with pytest.raises(Exception) as expected:
        call(torch, x)
    with pytest.raises(type(expected.value)):
        call(ember, to_ember(x))
