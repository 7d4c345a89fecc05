"""How PyTorch's CPU gamma sampler walks the generator, pinned down against torch: a serial,
one-number-at-a-time replica built on ember's own stream primitives (53-bit double uniforms and
the scalar Box-Muller sampler with its cached second normal) gives torch's draws bit for bit and
leaves the generator in torch's state. ember's `_standard_gamma` runs this loop on blocks of the
stream instead (NOTE [rejection samplers on PyTorch's stream], checked against torch in
test_rejection_streams.py); the replica documents the loop and checks the primitives it uses."""
import math

import numpy as np
import pytest
import torch

import ember
from ember._ops import random_transforms as rt

# Marsaglia and Tsang's constants as PyTorch writes them: float literals, so 1/3 is float32's.
_THIRD = float(np.float32(1.0) / np.float32(3.0))
_SQUEEZE = float(np.float32(0.0331))


def _gamma_replica(generator, alpha, dtype):
    """One Gamma(alpha, 1) draw the way PyTorch's CPU kernel makes it: accumulation in double,
    alpha's own arithmetic (the boost below 1, alpha - 1/3) in the tensor's dtype."""
    own = np.dtype(dtype).type

    def uniform():
        return float(rt.uniform_double(generator, 1)[0])

    def normal():
        return float(rt.normal_scalar(generator, 1)[0])

    scale = 1.0
    alpha = own(alpha)
    if alpha < 1:
        if alpha == 0:
            return 0.0
        scale *= math.pow(1 - uniform(), float(own(1) / alpha))
        alpha = alpha + own(1)
    d = float(alpha - own(_THIRD))
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = normal()
        y = 1.0 + c * x
        if y <= 0:
            continue
        v = y * y * y
        u = 1 - uniform()
        xx = x * x
        if u < 1.0 - _SQUEEZE * xx * xx or math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 7.0])
@pytest.mark.parametrize("seed", [0, 5])
def test_replica_draws_pytorchs_gamma_numbers(dtype, alpha, seed):
    count = 150
    tg, eg = torch.Generator().manual_seed(seed), ember.Generator().manual_seed(seed)
    expected = torch._standard_gamma(torch.full((count,), alpha, dtype=getattr(torch, dtype)),
                                     generator=tg).numpy()
    tiny = np.finfo(dtype).tiny
    got = np.array([max(tiny, np.dtype(dtype).type(_gamma_replica(eg, alpha, dtype)))
                     for _ in range(count)], dtype=dtype)
    np.testing.assert_array_equal(got, expected)
    assert bytes(eg.get_state().numpy()) == bytes(tg.get_state().numpy())
