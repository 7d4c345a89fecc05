"""nn.utils.parametrizations.orthogonal: a matrix (or batch) kept orthogonal (unitary) by
mapping unconstrained parameters through the matrix exponential, the Cayley map or a product of
Householder reflectors, as PyTorch does.

NOTE [orthogonal trivialization]: with use_trivialization=True the parameter X is mapped to
base @ map(X), and assigning an orthogonal Q stores Q as `base` and sets X to -I (the map of
-I is the identity for the Householder map; for exp and Cayley any X with skew part 0). Tall
matrices work on the transposed (wide -> tall) matrix, completed to a square one by random
columns (drawn as PyTorch draws them) and a QR.
"""
from __future__ import annotations

import ember
from ember.nn.modules.module import Module

_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q) -> bool:
    k = Q.shape[-1]
    eye = ember.eye(k, dtype=Q.dtype, device=Q.device)
    tolerance = 10.0 * Q.shape[-2] * ember.finfo(Q.dtype).eps
    return bool(ember.allclose(Q.mH @ Q, eye, atol=tolerance))


def _orthogonalize(A):
    """The Q of A's QR with R's diagonal made positive (a unique choice)."""
    reflectors, tau = ember.geqrf(A)
    Q = ember.linalg.householder_product(reflectors, tau)
    return Q * reflectors.diagonal(0, -2, -1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: str, *, use_trivialization: bool = True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            # Only the lower triangle counts: its skew-Hermitian part generates Q.
            X = X.tril()
            if n != k:
                padding = X.new_zeros(n, n - k).expand(*X.shape[:-2], n, n - k)
                X = ember.cat([X, padding], dim=-1)
            skew = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = ember.linalg.matrix_exp(skew)
            else:
                eye = ember.eye(n, dtype=X.dtype, device=X.device)
                Q = ember.linalg.solve(eye - 0.5 * skew, eye + 0.5 * skew)
            if n != k:
                Q = Q[..., :k]
        else:
            reflectors = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (reflectors * reflectors).sum(dim=-2))
            Q = ember.linalg.householder_product(reflectors, tau)
            # X's diagonal holds the signs (+-1) of Q's columns; no gradient flows to it.
            Q = Q * X.diagonal(0, -2, -1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @ember.no_grad()
    def right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        original = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transposed = n < k
        if transposed:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential or the Cayley "
                    "parametrizations when use_trivialization=False.")
            # Householder: the reflectors of Q's QR, signs on the diagonal.
            reflectors, tau = ember.geqrf(Q)
            signs = reflectors.diagonal(0, -2, -1).sign()
            # A reflector LAPACK skipped (tau == 0) flips its sign.
            signs = ember.where(tau == 0.0, -signs, signs)
            eye = ember.eye(n, k, dtype=Q.dtype, device=Q.device)
            reflectors = reflectors * (1 - eye) + eye * signs.unsqueeze(-2)
            return reflectors.mT if transposed else reflectors
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _orthogonalize(Q)
        else:
            extra = ember.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype,
                                device=Q.device)
            Q = _orthogonalize(ember.cat([Q, extra], dim=-1))
        self.base = Q
        minus_identity = ember.zeros_like(original)
        minus_identity.diagonal(0, -2, -1).fill_(-1.0)
        return minus_identity


def orthogonal(module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True):
    """Parametrize module.<name> (a matrix or batch of them) as orthogonal (unitary), through
    "matrix_exp", "cayley" or "householder" (default: matrix_exp for square or complex
    weights, householder otherwise); NOTE [orthogonal trivialization]."""
    from ember.nn.utils import parametrize
    weight = getattr(module, name, None)
    if not isinstance(weight, ember.Tensor):
        raise ValueError(  # noqa: TRY004 -- PyTorch's class
            f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization),
        unsafe=True)
    return module
