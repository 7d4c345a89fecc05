"""Derivatives of the linalg ops on complex input (the op table checks float64 with
gradcheck; these run complex128 gradcheck and compare with PyTorch's gradients), and the
eigenvector gauge check PyTorch raises."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _complex(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)


def _well_conditioned(shape, seed=0):
    return _complex(shape, seed) + 3 * np.eye(shape[-1])


def _hermitian(A):
    return (A + A.mH) / 2


def _positive_definite(A):
    n = A.shape[-1]
    return A @ A.mH + n * A.new_ones(n).diag_embed()


def _gauge_free_eigh(lib):
    def f(A):
        L, V = lib.linalg.eigh(_hermitian(A))
        return L, V.abs()
    return f


FUNCTIONS = {
    "inv": (lambda lib: lib.linalg.inv, (2, 2)),
    "det": (lambda lib: lib.linalg.det, (2, 2)),
    "slogdet": (lambda lib: lib.linalg.slogdet, (2, 2)),
    "logdet": (lambda lib: lambda A: lib.logdet(_positive_definite(A)), (2, 2)),
    "solve": (lambda lib: lambda A: lib.linalg.solve(A, A[..., :1] * 2), (2, 2)),
    "cholesky": (lambda lib: lambda A: lib.linalg.cholesky(_positive_definite(A)), (2, 2)),
    "solve_triangular": (lambda lib: lambda A: lib.linalg.solve_triangular(
        A, A.mH, upper=True), (2, 2)),
    "cholesky_solve": (lambda lib: lambda A: lib.cholesky_solve(A.mH, A.tril()), (2, 2)),
    "eigh": (_gauge_free_eigh, (3, 3)),
    "eigvalsh": (lambda lib: lambda A: lib.linalg.eigvalsh(_hermitian(A)), (3, 3)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_complex_gradcheck(name):
    make, shape = FUNCTIONS[name]
    A = ember.tensor(_well_conditioned(shape), requires_grad=True)
    assert ember.autograd.gradcheck(make(ember), (A,))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_complex_gradient_matches_torch(name):
    make, shape = FUNCTIONS[name]
    data = _well_conditioned((2,) + shape, seed=1)
    grads = []
    for lib in (torch, ember):
        A = lib.tensor(data, requires_grad=True)
        out = make(lib)(A)
        outs = out if isinstance(out, tuple) else (out,)
        total = sum((o.abs() if o.is_complex() else o).sum() for o in outs)
        total.backward()
        grads.append(A.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", ["det", "inv", "cholesky", "eigh"])
def test_complex_gradgradcheck(name):
    make, shape = FUNCTIONS[name]
    A = ember.tensor(_well_conditioned(shape), requires_grad=True)
    assert ember.autograd.gradgradcheck(make(ember), (A,))


def test_phase_dependent_eigenvector_loss_raises_as_torch():
    data = _well_conditioned((3, 3), seed=2)
    messages = []
    for lib in (torch, ember):
        A = lib.tensor(data, requires_grad=True)
        _, V = lib.linalg.eigh(_hermitian(A))
        with pytest.raises(RuntimeError) as info:
            V.sum().abs().backward()
        messages.append(str(info.value))
    assert messages[1] == messages[0]
