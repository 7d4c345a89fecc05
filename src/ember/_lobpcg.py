"""`ember.lobpcg`: a few extreme eigenpairs of a symmetric (generalised) eigenproblem
A x = lambda B x by the locally optimal block preconditioned conjugate gradient method.

Each step runs Rayleigh-Ritz on the span of the current vectors X, the (preconditioned)
residuals W and the previous directions P. The small projected problem is solved robustly:
the basis is made B-orthonormal through an eigendecomposition of its B-Gram matrix, and
directions that the Gram matrix shows to be (numerically) dependent are dropped, so neither
"basic" nor "ortho" can fail on a singular Cholesky factor. Convergence is PyTorch's test:
||r_j|| < tol ||x_j|| (||A|| + |lambda_j| ||B||), with the norms estimated from the start
vectors. Without X, the start vectors come from `randn(m, n)`, as PyTorch draws them.

NOTE [lobpcg derivative]: for a dense A that requires grad (and no B), A is symmetrised first,
as PyTorch does, and the converged pairs are made differentiable by first-order perturbation:
d lambda_i = u_i^T dA u_i and d u_i = -(A - lambda_i)^+ (I - u_i u_i^T) dA u_i, written as
ember ops on `A - A.detach()` (zero in value, dA in gradient) with the pseudo-inverse from
one eigh of A. Both are the exact derivatives of the eigenpairs (for distinct eigenvalues), so
they agree with PyTorch's gradients.
"""
from __future__ import annotations

__all__ = ["lobpcg"]

_EPS = {"float32": 1.2e-07, "float64": 2.23e-16}


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
    method=None, tracker=None, ...) -> (Tensor, Tensor): the k largest (or smallest)
    eigenvalues of A x = lambda B x and their eigenvectors, for A (*, m, m) symmetric and B
    positive definite (the identity when None)."""
    import ember
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    dtype = A.dtype if A.dtype in (ember.float32, ember.float64) else ember.float32
    if tol is None:
        tol = _EPS[str(dtype).split(".")[1]] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    if method not in ("basic", "ortho"):
        raise ValueError(f"expected method to be 'basic' or 'ortho', got {method}")
    settings = (k, n, 1000 if niter is None else niter, tol,
                True if largest is None else largest)
    differentiable = A.requires_grad and not A.is_sparse and B is None
    if differentiable:
        A = (A + A.mT) / 2
    elif A.requires_grad or (B is not None and B.requires_grad):
        raise RuntimeError("lobpcg: gradients are supported for a dense A without B only")
    with ember.no_grad():
        if A.ndim > 2:
            values, vectors = _batched(ember, A.detach(), B, X, iK, dtype, settings)
        else:
            start = ember.randn((m, n), dtype=dtype) if X is None else X
            if tuple(start.shape) != (m, n):
                raise AssertionError(f"X shape mismatch: got {start.shape}, expected {(m, n)}")
            values, vectors = _run(ember, A.detach(), B, start.to(dtype), iK, settings)
    if differentiable:
        return _with_derivative(ember, A, values, vectors)
    return values, vectors


def _batched(ember, A, B, X, iK, dtype, settings):
    k, n = settings[0], settings[1]
    m = A.shape[-1]
    batch = tuple(A.shape[:-2])
    flat_A = A.reshape((-1, m, m))
    flat_B = B.reshape((-1, m, m)) if B is not None else None
    flat_X = X.reshape((-1,) + tuple(X.shape[-2:])) if X is not None else None
    values, vectors = [], []
    for i in range(flat_A.shape[0]):
        start = ember.randn((m, n), dtype=dtype) if flat_X is None else flat_X[i]
        if tuple(start.shape) != (m, n):
            raise AssertionError(f"X_ shape mismatch: got {start.shape}, expected {(m, n)}")
        e, x = _run(ember, flat_A[i], None if flat_B is None else flat_B[i], start.to(dtype),
                    iK, settings)
        values.append(e)
        vectors.append(x)
    return (ember.stack(values).reshape(batch + (k,)),
            ember.stack(vectors).reshape(batch + (m, k)))


def _run(ember, A, B, X, iK, settings):
    """The LOBPCG iteration on one problem: (the k eigenvalues, their B-orthonormal vectors)."""
    k, n, niter, tol, largest = settings

    def times_B(v):
        return v if B is None else B @ v

    x_norm = float(ember.linalg.norm(X))
    a_norm = float(ember.linalg.norm(A @ X)) / x_norm
    b_norm = float(ember.linalg.norm(times_B(X))) / x_norm
    values, X = _rayleigh_ritz(ember, A, times_B, X, n, largest)
    P = None
    steps = 0
    while niter < 0 or steps < niter:
        AX = A @ X
        R = AX - times_B(X) * values
        error = ember.linalg.vector_norm(R, dim=0) / (
            ember.linalg.vector_norm(X, dim=0) * (a_norm + values.abs() * b_norm))
        if bool((error[:k] < tol).all()):
            break
        W = R if iK is None else iK @ R
        basis = ember.cat([X, W] if P is None else [X, W, P], dim=1)
        new_values, coefficients = _rayleigh_ritz_coefficients(ember, A, times_B, basis, n,
                                                               largest)
        if coefficients.shape[1] < n:      # the basis collapsed: keep the last good pairs
            break
        values = new_values
        X = basis @ coefficients
        P = basis[:, n:] @ coefficients[n:]
        steps += 1
    return values[:k], X[:, :k]


def _rayleigh_ritz(ember, A, times_B, basis, count, largest):
    values, coefficients = _rayleigh_ritz_coefficients(ember, A, times_B, basis, count, largest)
    return values, basis @ coefficients


def _rayleigh_ritz_coefficients(ember, A, times_B, basis, count, largest):
    """The `count` extreme Ritz values of A in span(basis) with B, and the coefficients of
    their B-orthonormal Ritz vectors in the basis."""
    gram_B = basis.mT @ times_B(basis)
    gram_B = (gram_B + gram_B.mT) / 2
    scales, directions = ember.linalg.eigh(gram_B)
    cutoff = scales.max() * basis.shape[0] * ember.finfo(basis.dtype).eps
    keep = scales > cutoff
    whitening = directions[:, keep] / scales[keep].sqrt()
    projected = whitening.mT @ (basis.mT @ (A @ basis)) @ whitening
    values, vectors = ember.linalg.eigh((projected + projected.mT) / 2)
    order = ember.arange(values.shape[0] - 1, -1, -1) if largest else ember.arange(
        values.shape[0])
    order = order[:count]
    return values[order], whitening @ vectors[:, order]


def _with_derivative(ember, A, values, vectors):
    """The converged pairs as functions of A to first order (NOTE [lobpcg derivative])."""
    change = A - A.detach()
    values = values + ((vectors.mT @ change) * vectors.mT).sum(-1)
    all_values, basis = ember.linalg.eigh(A.detach())
    gaps = all_values.unsqueeze(-2) - values.detach().unsqueeze(-1)       # (*, k, m)
    scale = ember.finfo(A.dtype).eps * max(float(all_values.abs().max()), 1.0) * 1e3
    inverse_gaps = ember.where(gaps.abs() > scale, 1 / gaps, ember.zeros_like(gaps))
    moved = change @ vectors                                             # (*, m, k)
    moved = moved - vectors * (vectors * moved).sum(-2, keepdim=True)
    in_basis = basis.mT @ moved                                          # (*, m, k)
    correction = basis @ (in_basis * inverse_gaps.mT)
    return values, vectors - correction
