"""F.gumbel_softmax against PyTorch: the same sample for the same seed (the noise comes from
`exponential_`, whose stream matches PyTorch's), the straight-through gradient of hard=True,
the sample's distribution, and the deprecated `eps` warning."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F


def _logits(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize(("shape", "dim", "tau"), [
    ((4, 5), -1, 1.0), ((3, 4, 6), 1, 0.5), ((7,), 0, 2.0), ((2, 3, 4), 0, 1.3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_sample_as_torch_for_the_same_seed(hard, shape, dim, tau, dtype):
    logits = _logits(shape, dtype=dtype)
    ember.manual_seed(3)
    torch.manual_seed(3)
    got = F.gumbel_softmax(ember.tensor(logits), tau=tau, hard=hard, dim=dim)
    expected = torch.nn.functional.gumbel_softmax(torch.tensor(logits), tau=tau, hard=hard,
                                                  dim=dim)
    assert got.dtype == getattr(ember, str(expected.dtype).split(".")[1])
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-7)
    if hard:
        assert set(np.unique(got.numpy())) <= {0.0, 1.0}
        np.testing.assert_array_equal(got.numpy().sum(axis=dim), 1)


def test_non_contiguous_logits_draw_as_torch():
    logits = _logits((5, 4))
    ember.manual_seed(11)
    torch.manual_seed(11)
    got = F.gumbel_softmax(ember.tensor(logits).t(), dim=0)
    expected = torch.nn.functional.gumbel_softmax(torch.tensor(logits).t(), dim=0)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("hard", [False, True])
def test_gradient_matches_torch(hard):
    logits = _logits((3, 5))
    weights = _logits((3, 5), seed=1)
    grads = []
    for lib in (ember, torch):
        lib.manual_seed(5)
        x = lib.tensor(logits, requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(x, tau=0.7, hard=hard)
        (y * lib.tensor(weights)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_hard_gradient_is_the_soft_samples():
    """Straight through: the one-hot's gradient equals the soft sample's for the same noise."""
    logits = _logits((4, 6))
    weights = ember.tensor(_logits((4, 6), seed=2))
    grads = []
    for hard in (True, False):
        ember.manual_seed(9)
        x = ember.tensor(logits, requires_grad=True)
        (F.gumbel_softmax(x, hard=hard) * weights).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-7)


def test_argmax_frequencies_follow_the_softmax_of_the_logits():
    """The argmax of logits + Gumbel noise is a categorical draw with probabilities
    softmax(logits), at any temperature."""
    logits = np.array([1.0, 0.0, -1.0, 0.5], np.float32)
    n = 40000
    ember.manual_seed(0)
    samples = F.gumbel_softmax(ember.tensor(logits).expand(n, 4), tau=0.3, hard=True)
    frequencies = samples.numpy().mean(axis=0)
    expected = torch.softmax(torch.tensor(logits), 0).numpy()
    # four standard errors of a proportion over n draws
    assert np.all(np.abs(frequencies - expected) < 4 * np.sqrt(expected * (1 - expected) / n))


def test_eps_warns_as_torch():
    messages = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3), eps=1e-5)
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3))
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1
