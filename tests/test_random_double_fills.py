"""The double-valued fills on many numbers give PyTorch's numbers bit for bit (each path of
random_transforms.py: glibc's functions by element, the long double rounding of log and exp,
geometric's ratio near a whole number, cauchy's fma shortcuts)."""
import numpy as np
import pytest
import torch

import ember

COUNT = 100_003


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, args", [
    ("exponential_", (0.7,)), ("cauchy_", ()), ("cauchy_", (2.0, 3.0)), ("cauchy_", (0.0, 2.5)),
    ("cauchy_", (-1.5, 1.0)), ("log_normal_", ()), ("log_normal_", (3.0, 2.5)),
    ("geometric_", (0.3,)), ("geometric_", (0.5,)), ("geometric_", (1e-6,)),
    ("geometric_", (0.999,))])
def test_fill_matches_pytorch(dtype, name, args):
    tg, eg = torch.Generator().manual_seed(21), ember.Generator().manual_seed(21)
    expected = getattr(torch.empty(COUNT, dtype=getattr(torch, dtype)), name)(
        *args, generator=tg).numpy()
    got = getattr(ember.empty(COUNT, dtype=getattr(ember, dtype)), name)(
        *args, generator=eg).numpy()
    np.testing.assert_array_equal(got, expected)
    assert bytes(eg.get_state().numpy()) == bytes(tg.get_state().numpy())


@pytest.mark.parametrize("count", [16, 1000, COUNT])
def test_randn_float64_matches_pytorch(count):
    tg, eg = torch.Generator().manual_seed(8), ember.Generator().manual_seed(8)
    expected = torch.randn(count, dtype=torch.float64, generator=tg).numpy()
    np.testing.assert_array_equal(ember.randn(count, dtype=ember.float64, generator=eg).numpy(),
                                  expected)
