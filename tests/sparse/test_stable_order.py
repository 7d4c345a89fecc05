"""coalesce's sort (a radix sort by 16-bit digits while the keys are narrow enough) gives NumPy's
stable order, and so PyTorch's coalesced indices (the duplicates' sums within rounding)."""
import numpy as np
import pytest
import torch

import ember
from ember._ops.sparse_arrays import stable_order


@pytest.mark.parametrize("high", [1, 7, 1 << 16, 10 ** 8, 1 << 40, 1 << 48, 1 << 62])
def test_stable_order_is_numpys_stable_argsort(high):
    keys = np.random.default_rng(high % 1000).integers(0, high, 20000)
    np.testing.assert_array_equal(stable_order(keys), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("shape", [(50, 40), (3000, 3000, 30)])
def test_coalesce_with_duplicates_matches_torch(shape):
    rng = np.random.default_rng(0)
    nnz = 5000
    indices = np.stack([rng.integers(0, min(size, 30), nnz) for size in shape])
    values = rng.standard_normal(nnz).astype(np.float32)
    got = ember.sparse_coo_tensor(ember.tensor(indices), ember.tensor(values), shape).coalesce()
    expected = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values),
                                       shape).coalesce()
    np.testing.assert_array_equal(got.indices().numpy(), expected.indices().numpy())
    np.testing.assert_allclose(got.values().numpy(), expected.values().numpy(), rtol=1e-5, atol=1e-5)
