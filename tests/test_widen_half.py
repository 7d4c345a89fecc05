"""float16 sums and means widen to float32 by bits (summation.widen_half): exactly NumPy's cast
for every float16 bit pattern, and the sums PyTorch gives (infinities and NaNs included)."""
import numpy as np
import pytest
import torch

import ember
from ember._ops.summation import widen_half


def test_every_float16_widens_exactly():
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    for x in (np.tile(every, 2), np.tile(every, 2).reshape(-1, 4).T):
        np.testing.assert_array_equal(widen_half(x).view(np.int32),
                                      x.astype(np.float32).view(np.int32))
        assert widen_half(x).shape == x.shape


@pytest.mark.parametrize("special", [None, np.inf, -np.inf, np.nan])
def test_large_half_sums_match_torch(special):
    x = np.random.default_rng(0).standard_normal((300, 700)).astype(np.float16)
    if special is not None:
        x[123, 456] = special
    for fn in (lambda L, t: t.sum(), lambda L, t: t.sum(0), lambda L, t: t.mean(1),
               lambda L, t: L.sum(t, dtype=L.float32)):
        got = fn(ember, ember.tensor(x)).float().numpy()
        expected = fn(torch, torch.tensor(x)).float().numpy()
        np.testing.assert_allclose(got, expected, rtol=2e-3, atol=1e-2)
