"""Ops whose PyTorch CPU kernels round a multiply-add once (NOTE [fused multiply-add], NOTE
[addmm rounds once]): lerp in float32/float64, addmm and baddbmm in the half types. Their
results equal PyTorch's bit for bit where its kernels fuse (NOTE [kernels by CPU capability],
tests/_capability.py); its DEFAULT-capability lerp rounds the product first."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from tests._capability import assert_matches_vectorised_kernel

import ember
from ember._ops.fused_multiply_add import fma64


def _assert_lerp_matches(got, expected, start, end, weight, dtype):
    """Bit for bit under AVX2/AVX-512; otherwise within 1.5 ulp of the larger of the product
    and the result: half an ulp of the product (the rounding an unfused lerp adds) and the
    rounding of the sum in each. (An ulp of the result alone would not do: where the sum
    cancels, the product's rounding is many of the result's ulps.)"""
    start, end, weight = (np.asarray(a, np.float64) for a in (start, end, weight))
    product = (end - start) * np.where(np.abs(weight) < 0.5, weight, 1 - weight)
    scale = np.maximum(np.abs(product), np.abs(expected))
    assert_matches_vectorised_kernel(got, expected, 1.5, scale, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("weight", [0.05000000000000004, -0.3, 0.3, 0.7, -2.0, 3.0, 1.0, 0.0])
def test_lerp_equals_torch_bit_for_bit(dtype, weight):
    rng = np.random.default_rng(0)
    start = rng.standard_normal((200, 300)).astype(np.float32)
    end = 3 * rng.standard_normal((200, 300)).astype(np.float32)
    got = ember.lerp(ember.tensor(start).to(getattr(ember, dtype)),
                     ember.tensor(end).to(getattr(ember, dtype)), weight)
    start, end = (torch.tensor(a).to(getattr(torch, dtype)) for a in (start, end))
    expected = torch.lerp(start, end, weight)
    _assert_lerp_matches(got.double().numpy(), expected.double().numpy(),
                         start.double().numpy(), end.double().numpy(), weight, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_with_a_tensor_weight_and_in_place(dtype):
    rng = np.random.default_rng(1)
    start, end = (rng.standard_normal((50, 60)).astype(dtype) for _ in range(2))
    weight = rng.uniform(-1, 2, (50, 60)).astype(dtype)
    results = []
    for lib in (ember, torch):
        a = lib.tensor(start)
        out = lib.lerp(a, lib.tensor(end), lib.tensor(weight))
        a.lerp_(lib.tensor(end), 0.2)
        results.append((out.numpy(), a.numpy()))
    for got, expected, lerp_weight in zip(*results, (weight, 0.2)):
        _assert_lerp_matches(got, expected, start, end, lerp_weight, dtype)


def test_lerp_special_values_as_torch():
    start = np.array([np.inf, -np.inf, np.nan, 1e308, 0.0, -0.0, 5e-324])
    end = np.array([1.0, np.inf, 1.0, -1e308, -0.0, 0.0, -5e-324])
    for weight in (0.3, 0.8):
        got = ember.lerp(ember.tensor(start), ember.tensor(end), weight).numpy()
        expected = torch.lerp(torch.tensor(start), torch.tensor(end), weight).numpy()
        np.testing.assert_array_equal(got, expected)


def test_fma64_rounds_once():
    """a * b + c where the unfused form loses the low bits of the product."""
    a = np.array([1 + 2.0 ** -30, 3.0, 1e300])
    b = np.array([1 - 2.0 ** -30, 1 / 3, 1e10])
    c = np.array([-1.0, -1.0, 1.0])
    with np.errstate(all="ignore"):          # the split of 1e300 overflows, as documented
        got = fma64(a, b, c)
    assert got[0] == -(2.0 ** -60)            # the exact value; a * b + c gives 0
    assert got[1] == 3.0 * (1 / 3) - 1 or abs(got[1]) < 1e-16
    assert np.isinf(got[2])


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", ["addmm", "baddbmm"])
def test_half_addmm_rounds_once_as_torch(dtype, name):
    rng = np.random.default_rng(2)
    mismatches = total = 0
    for _ in range(200):
        n, k, m = rng.integers(2, 9, 3)
        arrays = [rng.standard_normal(s).astype(np.float32) for s in [(n, m), (n, k), (k, m)]]
        if name == "baddbmm":
            arrays = [a[None] for a in arrays]
        results = [getattr(lib, name)(*(lib.tensor(a).to(getattr(lib, dtype)) for a in arrays),
                                      beta=-4.775, alpha=2.0315).float().numpy()
                   for lib in (ember, torch)]
        mismatches += int((results[0] != results[1]).sum())
        total += results[0].size
    # The float32 products may sum in another order than PyTorch's (rarely one ulp); rounding
    # the product to the half type first would miss on several percent of the elements.
    assert mismatches <= total // 1000, (mismatches, total)
