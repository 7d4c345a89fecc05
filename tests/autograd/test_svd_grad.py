"""The svd op's derivative (NOTE [svd derivative]) against PyTorch's, on functions that don't
depend on the singular vectors' arbitrary phases, and by gradcheck / gradgradcheck."""
import numpy as np
import pytest

import ember
from ember._ops.decomposition import svd

torch = pytest.importorskip("torch")

SHAPES = [(3, 3), (4, 2), (2, 4), (2, 3, 2)]


def _functions(lib, decompose):
    return [
        lambda a: decompose(a)[1].sum(),                              # nuclear norm
        lambda a: (lambda u, s, vh: (u @ vh).abs().sum())(*decompose(a)),
        lambda a: (lambda u, s, vh: ((u * s.unsqueeze(-2)) @ vh * a.conj()).real.sum())(
            *decompose(a)),
        lambda a: (lambda u, s, vh: (u[..., :, :1] @ vh[..., :1, :]).abs().sum())(*decompose(a)),
    ]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("complex_input", [False, True])
def test_svd_gradients_match_pytorch(shape, complex_input):
    rng = np.random.default_rng(1)
    values = rng.standard_normal(shape)
    if complex_input:
        values = values + 1j * rng.standard_normal(shape)
    ours = _functions(ember, svd)
    theirs = _functions(torch, lambda a: torch.linalg.svd(a, full_matrices=False))
    for f, g in zip(ours, theirs):
        a = ember.tensor(values, requires_grad=True)
        t = torch.tensor(values, requires_grad=True)
        f(a).backward()
        g(t).backward()
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("complex_input", [False, True])
def test_svd_passes_gradcheck_and_gradgradcheck(complex_input):
    rng = np.random.default_rng(2)
    values = rng.standard_normal((3, 2))
    if complex_input:
        values = values + 1j * rng.standard_normal((3, 2))
    a = ember.tensor(values, requires_grad=True)
    for f in _functions(ember, svd):
        assert ember.autograd.gradcheck(f, (a,))
        assert ember.autograd.gradgradcheck(f, (a,))


def test_nuclear_norm_gradient_matches_pytorch():
    values = np.random.default_rng(3).standard_normal((2, 3, 4))
    a = ember.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    ember.norm(a, "nuc", dim=(2, 0), keepdim=True).sum().backward()
    torch.norm(t, "nuc", dim=(2, 0), keepdim=True).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
