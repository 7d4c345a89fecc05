"""The double-valued fills on many numbers give PyTorch's numbers bit for bit (each path of
random_transforms.py: glibc's functions by element, the long double rounding of log and exp,
geometric's ratio near a whole number, cauchy's fma shortcuts). Where the fma is one PyTorch's
DEFAULT CPU capability does not make, within a stated bound there (NOTE [kernels by CPU
capability], tests/_capability.py)."""
import numpy as np
import pytest
import torch
from tests._capability import assert_matches_vectorised_kernel

import ember

COUNT = 100_003


# The float64 fills whose multiply-add PyTorch's DEFAULT build rounds twice (a sigma of 1, a
# std of 2 or a median of 0 leaves nothing to fuse; float32 rounds the difference away).
_FUSED = {("cauchy_", (2.0, 3.0)), ("log_normal_", (3.0, 2.5))}


def _assert_matches(got, expected, name, args):
    """Bit for bit under AVX2/AVX-512 (and where nothing is fused). Elsewhere cauchy's
    median + sigma * t within 1.5 ulp of the larger of sigma * t and the value (half an ulp
    of the product, the sum's rounding in each); log-normal's exp turns its argument's
    difference (an ulp or so of |mean + std * z|, up to about 17 here) into up to 32 ulps of
    the value (16 seen)."""
    if got.dtype != np.float64 or (name, args) not in _FUSED:
        np.testing.assert_array_equal(got, expected)
    elif name == "cauchy_":
        scale = np.maximum(np.abs(expected - args[0]), np.abs(expected))
        assert_matches_vectorised_kernel(got, expected, 1.5, scale)
    else:
        assert_matches_vectorised_kernel(got, expected, 32, np.abs(expected))


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
    _assert_matches(got, expected, name, args)
    assert bytes(eg.get_state().numpy()) == bytes(tg.get_state().numpy())


@pytest.mark.parametrize("count", [16, 1000, COUNT])
def test_randn_float64_matches_pytorch(count):
    tg, eg = torch.Generator().manual_seed(8), ember.Generator().manual_seed(8)
    expected = torch.randn(count, dtype=torch.float64, generator=tg).numpy()
    np.testing.assert_array_equal(ember.randn(count, dtype=ember.float64, generator=eg).numpy(),
                                  expected)
