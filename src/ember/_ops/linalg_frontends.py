"""The `ember.*` forms of linear algebra that are composites of the linalg ops (logdet, inverse,
cholesky, cholesky_inverse, triangular_solve ...), as functions and Tensor methods; and the
named result tuples that `ember.linalg` shares with them.
"""
from __future__ import annotations

from ember._core.checked_entry import checked
from ember._core.checks import _check, _warn_once
from ember._core.dispatch import call, check_exact_out_dtype, copy_into_out
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend
from ember._core.return_types import return_type
from ember._ops.linalg_checks import call_checked
from ember._ops.linalg_common import LinAlgError, batch_prefix, check_square

CholeskyEx = return_type("linalg_cholesky_ex", ("L", "info"))
InvEx = return_type("linalg_inv_ex", ("inverse", "info"))
SolveEx = return_type("linalg_solve_ex", ("result", "info"))
LinalgSlogdet = return_type("linalg_slogdet", ("sign", "logabsdet"))
Slogdet = return_type("slogdet", ("sign", "logabsdet"))
Eigh = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
TriangularSolve = return_type("triangular_solve", ("solution", "cloned_coefficient"))


def into(out, result):
    """`result` written into `out` (a tensor or a tuple of them) when given."""
    if out is None:
        return result
    if isinstance(result, tuple):
        _check(isinstance(out, (tuple, list)) and len(out) == len(result),
               lambda: f"expected out= to hold {len(result)} tensors")
        for o, r in zip(out, result):
            check_exact_out_dtype(o, r)     # NOTE [out dtypes]
            copy_into_out(o, r)
        return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
    check_exact_out_dtype(out, result)
    copy_into_out(out, result)
    return out


@register_frontend("logdet")
@checked("logdet(Tensor self)")
def logdet(input):
    """logdet(input) -> Tensor: log of the determinant; NaN where a real determinant is
    negative, log(det) of complex type for complex input."""
    if _state.entry and _wants(locals()):
        return _handle(logdet, locals())
    sign, logabsdet = call(OPS["slogdet"], (input,))
    if input._dtype.is_complex:
        return logabsdet + sign.log()
    return call(OPS["where.self"], (sign < 0, float("nan"), logabsdet))


@register_frontend("inverse")
@checked("inverse(Tensor self)")
def inverse(input, *, out=None):
    """inverse(input, *, out=None) -> Tensor: the inverse of each square matrix
    (linalg.inv)."""
    if _state.entry and _wants(locals()):
        return _handle(inverse, locals())
    return into(out, call_checked("linalg_inv_ex", (input,), "linalg.inv")[0])


_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\n"
    "This transform will produce equivalent results for all valid (symmetric positive "
    "definite) inputs.")


@register_frontend("cholesky")
@checked("cholesky(Tensor self, bool upper=False)")
def cholesky(input, upper=False, *, out=None):
    """cholesky(input, upper=False, *, out=None) -> Tensor (deprecated: linalg.cholesky)."""
    if _state.entry and _wants(locals()):
        return _handle(cholesky, locals())
    _warn_once("cholesky", _CHOLESKY_DEPRECATED)
    L, info = call(OPS["linalg_cholesky_ex"], (input, upper, False))
    from ember._ops.linalg_common import raise_from_info
    raise_from_info("cholesky", input._data, info._data, "cholesky")
    return into(out, L)


@register_frontend("cholesky_inverse")
@checked("cholesky_inverse(Tensor self, bool upper=False)")
def cholesky_inverse(input, upper=False, *, out=None):
    """cholesky_inverse(L, upper=False, *, out=None) -> Tensor: the inverse of A = L L^H
    (U^H U with upper=True) from its Cholesky factor."""
    if _state.entry and _wants(locals()):
        return _handle(cholesky_inverse, locals())
    check_square("cholesky_inverse", input._data, "input")
    zeros = None if input.is_meta else input._data.diagonal(0, -2, -1) == 0
    if zeros is not None and zeros.any():
        flat = zeros.reshape(-1, zeros.shape[-1]) if zeros.ndim > 1 else zeros.reshape(1, -1)
        matrix = int(flat.any(axis=1).argmax())
        element = int(flat[matrix].argmax()) + 1
        raise LinAlgError(f"cholesky_inverse: {batch_prefix(input._data, matrix)}The diagonal "
                          f"element {element} is zero, the inversion could not be completed "
                          "because the input matrix is singular.")
    eye = input.new_ones(input.shape[-1]).diag_embed()
    return into(out, call(OPS["cholesky_solve"], (eye, input, upper)))


@register_frontend("triangular_solve")
@checked("triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
         "bool unitriangular=False)")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None)
    -> (solution, cloned_coefficient): solves A X = b (A^T X = b with transpose=True)
    (deprecated: linalg.solve_triangular)."""
    if _state.entry and _wants(locals()):
        return _handle(triangular_solve, locals())
    _check(input.ndim >= 2, lambda: (
        f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
        f"{input.ndim} dimensions instead"))
    _check(A.ndim >= 2, lambda: (
        f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
        f"{A.ndim} dimensions instead"))
    coefficient = A.mT if transpose else A
    solution = call(OPS["linalg_solve_triangular"],
                    (coefficient, input, upper != transpose, True, unitriangular))
    cloned = A.clone()
    batch = solution.shape[:-2]
    if tuple(cloned.shape[:-2]) != tuple(batch):
        cloned = cloned.expand(tuple(batch) + tuple(A.shape[-2:])).clone()
    return into(out, TriangularSolve(solution, cloned))


@register_frontend("slogdet")
def slogdet(input, *, out=None):
    """slogdet(input, *, out=None) -> (sign, logabsdet) (linalg.slogdet)."""
    if _state.entry and _wants(locals()):
        return _handle(slogdet, locals())
    return into(out, Slogdet(*call(OPS["slogdet"], (input,))))


# --------------------------------------------------------------------------- older forms

QrOld = return_type("qr", ("Q", "R"))
SvdOld = return_type("svd", ("U", "S", "V"))
Geqrf = return_type("geqrf", ("a", "tau"))


@register_frontend("lu_unpack", method=False)
@checked("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
         "bool unpack_pivots=True)")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None)
    -> (P, L, U) from linalg.lu_factor's output."""
    if _state.entry and _wants(locals()):
        return _handle(lu_unpack, locals())
    from ember._ops.linalg_composite import lu_unpack as unpack
    return into(out, unpack(LU_data, LU_pivots, unpack_data, unpack_pivots))


@register_frontend("qr")
@checked("qr(Tensor self, bool some=True)")
def qr(input, some=True, *, out=None):
    """qr(input, some=True, *, out=None) -> (Q, R): reduced (some=True) or complete QR."""
    if _state.entry and _wants(locals()):
        return _handle(qr, locals())
    Q, R = call(OPS["linalg_qr"], (input, "reduced" if some else "complete"))
    return into(out, QrOld(Q, R))


@register_frontend("svd")
@checked("svd(Tensor self, bool some=True, bool compute_uv=True)")
def svd(input, some=True, compute_uv=True, *, out=None):
    """svd(input, some=True, compute_uv=True, *, out=None) -> (U, S, V): note V, not V^H;
    without compute_uv, U and V are zero-filled."""
    if _state.entry and _wants(locals()):
        return _handle(svd, locals())
    U, S, Vh = call(OPS["linalg_svd"], (input, not some, None))
    if not compute_uv:
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        U = input.new_zeros(batch + (m, m))
        V = input.new_zeros(batch + (n, n))
        return into(out, SvdOld(U, S.detach(), V))
    return into(out, SvdOld(U, S, Vh.mH))


@register_frontend("pinverse")
@checked("pinverse(Tensor self, float rcond=1.0000000000000001e-15)")
def pinverse(input, rcond=1e-15):
    """pinverse(input, rcond=1e-15) -> Tensor (linalg.pinv with rtol=rcond)."""
    if _state.entry and _wants(locals()):
        return _handle(pinverse, locals())
    from ember._ops.linalg_composite import pinv
    return pinv(input, rtol=rcond)


@register_frontend("matrix_exp")
@checked("matrix_exp(Tensor self)")
def matrix_exp(A):
    """matrix_exp(A) -> Tensor (linalg.matrix_exp)."""
    if _state.entry and _wants(locals()):
        return _handle(matrix_exp, locals())
    return call(OPS["linalg_matrix_exp"], (A,))


@register_frontend("matrix_power")
@checked("matrix_power(Tensor self, int n)")
def matrix_power(input, n, *, out=None):
    """matrix_power(input, n, *, out=None) -> Tensor (linalg.matrix_power)."""
    if _state.entry and _wants(locals()):
        return _handle(matrix_power, locals())
    from ember._ops.linalg_composite import matrix_power as power
    return into(out, power(input, n))


@register_frontend("lu_solve")
@checked("lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots)")
def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """lu_solve(b, LU_data, LU_pivots, *, out=None) -> Tensor (linalg.lu_solve, deprecated)."""
    if _state.entry and _wants(locals()):
        return _handle(lu_solve, locals())
    from ember._ops.linalg_composite import lu_solve as solve_lu
    return into(out, solve_lu(LU_data, LU_pivots, b))


_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


@register_frontend("lu")
def lu(A, pivot=True, get_infos=False, out=None):
    """lu(A, pivot=True, get_infos=False, out=None) -> (LU, pivots[, infos]) (deprecated:
    linalg.lu_factor)."""
    if _state.entry and _wants(locals()):
        return _handle(lu, locals())
    _warn_once("lu", _LU_DEPRECATED)
    LU, pivots, info = call(OPS["linalg_lu_factor_ex"], (A, pivot, not get_infos))
    return into(out, (LU, pivots, info) if get_infos else (LU, pivots))


@register_frontend("orgqr")
@checked("orgqr(Tensor self, Tensor input2)")
def orgqr(input, tau):
    """orgqr(input, tau) -> Tensor (linalg.householder_product)."""
    if _state.entry and _wants(locals()):
        return _handle(orgqr, locals())
    from ember._ops.linalg_composite import householder_product
    return householder_product(input, tau)


@register_frontend("ormqr")
@checked("ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False)")
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """ormqr(input, tau, other, left=True, transpose=False, *, out=None) -> Tensor: `other`
    multiplied by the Q of Householder reflectors (Q^H with transpose=True)."""
    if _state.entry and _wants(locals()):
        return _handle(ormqr, locals())
    from ember._ops.linalg_composite import ormqr as multiply
    return into(out, multiply(input, tau, other, left, transpose))


@register_frontend("geqrf")
@checked("geqrf(Tensor self)")
def geqrf(input, *, out=None):
    """geqrf(input, *, out=None) -> (a, tau): LAPACK's geqrf (QR as Householder reflectors)."""
    if _state.entry and _wants(locals()):
        return _handle(geqrf, locals())
    from ember._ops.linalg_composite import geqrf as factor
    return into(out, Geqrf(*factor(input)))
