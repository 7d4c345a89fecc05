"""where on arrays large enough for the branch-free select (NOTE [branch-free where]), against
PyTorch: every element width, broadcasting, NaN and -0.0 carried bit for bit."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "int32", "int16", "uint8", "bool", "complex64",
                                   "complex128"])
def test_matches_torch(dtype):
    rng = np.random.default_rng(0)
    a = torch.tensor(rng.standard_normal((16, 3, 40, 10)) * 5).to(getattr(torch, dtype))
    b = torch.tensor(rng.standard_normal((3, 1, 10)) * 5).to(getattr(torch, dtype))
    c = torch.tensor(rng.random((16, 1, 40, 10)) > 0.5)
    want = torch.where(c, a, b)
    got = ember.where(ember.tensor(c.numpy()), ember.tensor(a.float().numpy() if dtype ==
                                                             "bfloat16" else a.numpy()),
                      ember.tensor(b.float().numpy() if dtype == "bfloat16" else b.numpy()))
    if dtype == "bfloat16":
        got = got.to(ember.bfloat16) if got.dtype != ember.bfloat16 else got
    assert tuple(got.shape) == tuple(want.shape)
    got_np = got.float().numpy() if dtype == "bfloat16" else got.numpy()
    want_np = want.float().numpy() if dtype == "bfloat16" else want.numpy()
    assert got_np.tobytes() == want_np.tobytes()


def test_special_values_bit_for_bit():
    values = np.array([np.nan, -0.0, np.inf, -np.inf, 1.5] * 2000, np.float32)
    cond = np.arange(values.size) % 3 == 0
    other = np.float32(-0.0)
    want = torch.where(torch.tensor(cond), torch.tensor(values), other)
    got = ember.where(ember.tensor(cond), ember.tensor(values), float(other))
    assert got.numpy().tobytes() == want.numpy().tobytes()


def test_relu_gradient_large():
    x = torch.tensor(np.random.default_rng(1).standard_normal((64, 6, 24, 24)),
                     dtype=torch.float32, requires_grad=True)
    torch.relu(x).sum().backward()
    e = ember.tensor(x.detach().numpy(), requires_grad=True)
    ember.relu(e).sum().backward()
    assert np.array_equal(e.grad.numpy(), x.grad.numpy())
