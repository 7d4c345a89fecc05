"""The random ops the distributions add (_standard_gamma, _standard_gamma_grad,
_sample_dirichlet, _dirichlet_grad, binomial) against PyTorch's."""
import numpy as np
import pytest
import torch

import ember


def test_standard_gamma_grad_matches_pytorch():
    alpha = np.array([0.05, 0.5, 1.0, 2.0, 10.0, 80.0, 500.0])
    x = np.array([0.01, 0.3, 1.2, 1.5, 12.0, 75.0, 520.0])
    for dtype in ("float32", "float64"):
        got = ember._standard_gamma_grad(ember.tensor(alpha, dtype=getattr(ember, dtype)),
                                         ember.tensor(x, dtype=getattr(ember, dtype)))
        expected = torch._standard_gamma_grad(torch.tensor(alpha, dtype=getattr(torch, dtype)),
                                              torch.tensor(x, dtype=getattr(torch, dtype)))
        assert str(got.dtype) == f"ember.{dtype}"
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-3)


def test_dirichlet_grad_matches_pytorch():
    x = np.array([0.1, 0.3, 0.7, 0.5, 0.02])
    alpha = np.array([0.5, 1.5, 2.0, 4.0, 0.3])
    total = np.array([1.0, 3.5, 3.5, 9.0, 2.0])
    got = ember._dirichlet_grad(ember.tensor(x), ember.tensor(alpha), ember.tensor(total))
    expected = torch._dirichlet_grad(torch.tensor(x), torch.tensor(alpha), torch.tensor(total))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-3)


def test_standard_gamma_draws_and_gradient_node():
    ember.manual_seed(0)
    alpha = ember.full((4000,), 3.0, requires_grad=True)
    draws = ember._standard_gamma(alpha)
    assert draws.dtype == ember.float32 and draws.grad_fn.name() == "StandardGammaBackward0"
    assert abs(float(draws.mean()) - 3.0) < 0.15
    assert bool((draws > 0).all())
    draws.sum().backward()
    expected = ember._standard_gamma_grad(alpha.detach(), draws.detach())
    np.testing.assert_allclose(alpha.grad.numpy(), expected.numpy())


def test_seed_gives_the_same_gamma_dirichlet_and_binomial_draws():
    def draw():
        ember.manual_seed(11)
        return (ember._standard_gamma(ember.ones(5)),
                ember._sample_dirichlet(ember.ones(2, 3)),
                ember.binomial(ember.full((5,), 10.0), ember.full((5,), 0.3)))
    for first, second in zip(draw(), draw()):
        np.testing.assert_array_equal(first.numpy(), second.numpy())


def test_sample_dirichlet_rows_lie_on_the_simplex():
    draws = ember._sample_dirichlet(ember.tensor([[0.5, 1.0, 2.0]] * 100, dtype=ember.float64))
    assert draws.dtype == ember.float64 and tuple(draws.shape) == (100, 3)
    np.testing.assert_allclose(draws.sum(-1).numpy(), np.ones(100))


def test_binomial_counts_and_moments():
    ember.manual_seed(0)
    count = ember.full((5000,), 12.0)
    draws = ember.binomial(count, ember.full((5000,), 0.25))
    assert draws.dtype == ember.float32
    values = draws.numpy()
    assert values.min() >= 0 and values.max() <= 12 and np.all(values == np.round(values))
    assert abs(values.mean() - 3.0) < 0.1


@pytest.mark.parametrize("call", [
    lambda lib: lib._standard_gamma(lib.ones(3, dtype=lib.int64)),
    lambda lib: lib._sample_dirichlet(lib.ones(3, dtype=lib.int64)),
    lambda lib: lib.binomial(lib.ones(3), lib.ones(3, dtype=lib.int64)),
    lambda lib: lib.binomial(lib.ones(3, dtype=lib.int64), lib.ones(3)),
    lambda lib: lib.binomial(lib.ones(3, dtype=lib.float64), lib.ones(3)),
])
def test_bad_dtypes_are_refused_as_pytorch_does(call):
    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(type(expected.value)) as got:
        call(ember)
    assert str(got.value) == str(expected.value)
