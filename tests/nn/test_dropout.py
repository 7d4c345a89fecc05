"""Dropout layers and functions: distribution of the mask, scaling, eval identity, gradients
consistent with the mask, in-place forms, channel-wise masks and errors (against PyTorch)."""
import numpy as np
import pytest
import torch
from tests.nn.compare import check_module

import ember

F = ember.nn.functional


def test_dropout_distribution_and_scaling():
    ember.manual_seed(0)
    x = ember.ones(20000, requires_grad=True)
    y = F.dropout(x, 0.3, training=True)
    values = y.detach().numpy()
    kept = values != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(values[kept], 1 / 0.7, rtol=1e-6)
    y.sum().backward()
    # The gradient is the mask scaled by 1 / (1 - p), the same mask as the output.
    np.testing.assert_allclose(x.grad.numpy(), values, rtol=1e-6)


def test_dropout_follows_the_generator():
    x = ember.ones(50)
    ember.manual_seed(7)
    a = F.dropout(x, 0.5)
    ember.manual_seed(7)
    b = F.dropout(x, 0.5)
    assert np.array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("cls", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                 "AlphaDropout", "FeatureAlphaDropout"])
def test_eval_is_identity_and_repr(cls):
    t = getattr(torch.nn, cls)(0.4).eval()
    e = getattr(ember.nn, cls)(0.4).eval()
    shape = {"Dropout1d": (2, 3, 4), "Dropout3d": (2, 3, 2, 2, 2)}.get(cls, (2, 3, 4, 4))
    x = torch.randn(shape, dtype=torch.float64)
    check_module(t, e, x)
    assert repr(ember.nn.Dropout(0.2, inplace=True)) == repr(torch.nn.Dropout(0.2, inplace=True))


@pytest.mark.parametrize("name, shape", [("dropout1d", (4, 6, 50)), ("dropout1d", (6, 50)),
                                         ("dropout2d", (4, 6, 5, 10)),
                                         ("dropout3d", (4, 6, 2, 5, 5)),
                                         ("dropout3d", (6, 2, 5, 5))])
def test_channel_dropout_zeroes_whole_channels(name, shape):
    ember.manual_seed(1)
    x = ember.ones(shape, dtype=ember.float64)
    y = getattr(F, name)(x, 0.5, training=True).numpy()
    batched = len(shape) == {"dropout1d": 3, "dropout2d": 4, "dropout3d": 5}[name]
    per_channel = y.reshape((shape[0] * shape[1] if batched else shape[0]), -1)
    assert (per_channel == per_channel[:, :1]).all()
    assert set(np.unique(y)) == {0.0, 2.0}


def test_alpha_dropout_keeps_mean_and_variance():
    ember.manual_seed(2)
    x = ember.randn(200000, dtype=ember.float64)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    # Dropped elements all take one value: alpha' * a + b.
    _, counts = np.unique(np.round(y, 10), return_counts=True)
    assert counts.max() / y.size == pytest.approx(0.2, abs=0.01)
    z = F.feature_alpha_dropout(ember.randn(8, 50, 3, dtype=ember.float64), 0.5, True).numpy()
    constant = (z == z[:, :, :1]).all(axis=2)
    assert 0.3 < constant.mean() < 0.7


def test_inplace_and_edge_probabilities():
    x = ember.ones(10)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    y = ember.ones(1000)
    out = F.dropout(y, 0.5, inplace=True)
    assert out is y and set(np.unique(y.numpy())) <= {0.0, 2.0}
    out, mask = ember.native_dropout(ember.ones(100), 0.5, True)
    assert mask.dtype == ember.bool
    np.testing.assert_allclose(out.numpy(), mask.numpy() * 2.0)


def test_errors_match_torch():
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError):
            torch.nn.Dropout(p)
        with pytest.raises(ValueError):
            ember.nn.Dropout(p)
        with pytest.raises(ValueError):
            F.dropout(ember.ones(3), p)
    with pytest.raises(RuntimeError):
        torch.nn.functional.dropout1d(torch.ones(3), 0.5)
    with pytest.raises(RuntimeError):
        F.dropout1d(ember.ones(3), 0.5)
    with pytest.warns(UserWarning):
        F.dropout2d(ember.ones(2, 3), 0.5)


@pytest.mark.parametrize("call", [lambda F, x: F.dropout(x, 0.3),
                                  lambda F, x: F.dropout2d(x, 0.5),
                                  lambda F, x: F.alpha_dropout(x, 0.2, True),
                                  lambda F, x: F.feature_alpha_dropout(x, 0.4, True)])
def test_masks_are_pytorchs_under_the_same_seed(call):
    x = torch.randn(3, 4, 5, 5)
    torch.manual_seed(5)
    expected = call(torch.nn.functional, x)
    ember.manual_seed(5)
    got = call(F, ember.from_numpy(x.numpy()))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)
