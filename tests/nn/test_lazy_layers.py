"""LazyLinear, LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d: shapes from the first
input, the class they become, repr before and after, and the same computation as PyTorch's."""
import pytest
import torch
from tests.nn.compare import check_module

import ember


@pytest.mark.parametrize("cls, kwargs, shape", [
    ("LazyLinear", {"out_features": 3}, (4, 5)),
    ("LazyLinear", {"out_features": 2, "bias": False}, (2, 3, 5)),
    ("LazyBatchNorm1d", {}, (4, 3)),
    ("LazyBatchNorm2d", {"momentum": None}, (2, 3, 2, 2)),
    ("LazyBatchNorm3d", {"affine": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", {}, (2, 3, 4)),
    ("LazyInstanceNorm2d", {"bias": False}, (2, 3, 2, 3)),
    ("LazyInstanceNorm3d", {"track_running_stats": False}, (2, 3, 2, 2, 2)),
])
def test_lazy_layer_becomes_its_plain_class(cls, kwargs, shape):
    t = getattr(torch.nn, cls)(**kwargs)
    e = getattr(ember.nn, cls)(**kwargs)
    assert repr(e) == repr(t)
    x = torch.randn(shape, dtype=torch.float32)
    with torch.no_grad():
        t(x)
    with ember.no_grad():
        e(ember.from_numpy(x.numpy()))
    assert type(e).__name__ == type(t).__name__
    assert not ember.nn.parameter.is_lazy(e.weight) if e.weight is not None else True
    check_module(t, e, x)
