"""ember.linalg: PyTorch's torch.linalg. Each function is a registry op of the `_ops/linalg_*`
families (or a composite of them); this module gives them PyTorch's names, signatures and
named result tuples. Loaded on first use of `ember.linalg`.
"""
from __future__ import annotations

from ember._core.checked_entry import checked
from ember._core.dispatch import call
from ember._core.registry import OPS
from ember._ops.linalg_checks import call_checked
from ember._ops.linalg_common import LinAlgError
from ember._ops.linalg_composite import (
    cond,
    cross,
    diagonal,
    eig,
    eigvals,
    householder_product,
    ldl_factor,
    ldl_factor_ex,
    ldl_solve,
    lstsq,
    lu,
    lu_factor,
    lu_factor_ex,
    lu_solve,
    matrix_exp,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    qr,
    svd,
    svdvals,
    tensorinv,
    tensorsolve,
    vander,
    vecdot,
    vector_norm,
)
from ember._ops.linalg_frontends import (
    CholeskyEx,
    Eigh,
    InvEx,
    LinalgSlogdet,
    SolveEx,
    into,
)

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh",
    "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
    "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
    "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
    "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals",
    "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm",
]


@checked("linalg_matmul(Tensor self, Tensor other)")
def matmul(input, other, *, out=None):
    """linalg.matmul(input, other, *, out=None) -> Tensor: the same as ember.matmul."""
    return into(out, call(OPS["matmul"], (input, other)))


@checked("linalg_cholesky(Tensor self, *, bool upper=False)")
def cholesky(A, *, upper=False, out=None):
    """linalg.cholesky(A, *, upper=False, out=None) -> Tensor: the Cholesky factor of each
    Hermitian positive-definite matrix; raises LinAlgError where one is not."""
    return into(out, call_checked("linalg_cholesky_ex", (A, upper), "linalg.cholesky")[0])


@checked("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False)")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """linalg.cholesky_ex(A, *, upper=False, check_errors=False, out=None) -> (L, info)."""
    return into(out, CholeskyEx(*call(OPS["linalg_cholesky_ex"], (A, upper, check_errors))))


@checked("linalg_inv(Tensor A)")
def inv(A, *, out=None):
    """linalg.inv(A, *, out=None) -> Tensor; raises LinAlgError for a singular matrix."""
    return into(out, call_checked("linalg_inv_ex", (A,), "linalg.inv")[0])


@checked("linalg_inv_ex(Tensor A, *, bool check_errors=False)")
def inv_ex(A, *, check_errors=False, out=None):
    """linalg.inv_ex(A, *, check_errors=False, out=None) -> (inverse, info)."""
    return into(out, InvEx(*call(OPS["linalg_inv_ex"], (A, check_errors))))


@checked("linalg_solve(Tensor A, Tensor B, *, bool left=True)")
def solve(A, B, *, left=True, out=None):
    """linalg.solve(A, B, *, left=True, out=None) -> Tensor: X with A X = B (X A = B when
    left=False); raises LinAlgError for a singular A."""
    return into(out, call_checked("linalg_solve_ex", (A, B, left), "torch.linalg.solve")[0])


@checked("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False)")
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """linalg.solve_ex(A, B, *, left=True, check_errors=False, out=None) -> (result, info)."""
    return into(out, SolveEx(*call(OPS["linalg_solve_ex"], (A, B, left, check_errors))))


@checked("linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, "
         "bool unitriangular=False)")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None)."""
    return into(out, call(OPS["linalg_solve_triangular"], (A, B, upper, left, unitriangular)))


@checked("linalg_det(Tensor A)")
def det(A, *, out=None):
    """linalg.det(A, *, out=None) -> Tensor."""
    return into(out, call(OPS["det"], (A,)))


@checked("linalg_slogdet(Tensor A)")
def slogdet(A, *, out=None):
    """linalg.slogdet(A, *, out=None) -> (sign, logabsdet)."""
    return into(out, LinalgSlogdet(*call(OPS["slogdet"], (A,))))


@checked("linalg_eigh(Tensor self, str UPLO=\"L\")")
def eigh(A, UPLO="L", *, out=None):
    """linalg.eigh(A, UPLO='L', *, out=None) -> (eigenvalues, eigenvectors) of Hermitian
    matrices, eigenvalues ascending; only the UPLO triangle is read."""
    return into(out, Eigh(*call(OPS["linalg_eigh"], (A, UPLO))))


@checked("linalg_eigvalsh(Tensor self, str UPLO=\"L\")")
def eigvalsh(A, UPLO="L", *, out=None):
    """linalg.eigvalsh(A, UPLO='L', *, out=None) -> Tensor: the eigenvalues of eigh."""
    return into(out, call(OPS["linalg_eigh"], (A, UPLO))[0])
