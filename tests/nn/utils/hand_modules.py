"""Small modules built the same way in ember and PyTorch (weights copied across), for the
nn.utils tests: they need only Module and Parameter."""
from __future__ import annotations

import numpy as np


def affine_class(lib):
    class Affine(lib.nn.Module):
        """y = x @ weight.T + bias, weight (out, in): a Linear written by hand."""

        def __init__(self, weight, bias):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.from_numpy(weight.copy()))
            self.bias = lib.nn.Parameter(lib.from_numpy(bias.copy()))

        def forward(self, x):
            return x @ self.weight.t() + self.bias

    return Affine


def affine_pair(torch, ember, out_features=4, in_features=3, seed=0):
    rng = np.random.default_rng(seed)
    weight = rng.standard_normal((out_features, in_features))
    bias = rng.standard_normal(out_features)
    return affine_class(torch)(weight, bias), affine_class(ember)(weight, bias)


def filter_class(lib):
    class Filter(lib.nn.Module):
        """A module with a 4-d weight (out, in, kh, kw) applied as a flattened matrix."""

        def __init__(self, weight):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.from_numpy(weight.copy()))

        def forward(self, x):
            return x @ self.weight.reshape(self.weight.shape[0], -1).t()

    return Filter


def filter_pair(torch, ember, shape=(3, 2, 2, 2), seed=1):
    weight = np.random.default_rng(seed).standard_normal(shape)
    return filter_class(torch)(weight), filter_class(ember)(weight)


def same_state(e_module, t_module, rtol=1e-12):
    assert list(e_module.state_dict()) == list(t_module.state_dict())
    for key, value in t_module.state_dict().items():
        np.testing.assert_allclose(e_module.state_dict()[key].detach().numpy(),
                                   value.detach().numpy(), rtol=rtol, atol=1e-14, err_msg=key)
    assert [n for n, _ in e_module.named_parameters()] == \
        [n for n, _ in t_module.named_parameters()]
