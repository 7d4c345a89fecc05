"""ember.linalg functions that are composites of registry ops (norms, rank, pinv, powers,
Householder products, tensor solves, lu_solve/lu_unpack, lstsq ...), so their derivatives come
from the ops they are made of. `ember.linalg` re-exports them; linalg_frontends.py builds the
`ember.*` forms on them.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends import get_backend
from ember._core import dtype as dt
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_not_implemented, _check_type
from ember._core.dispatch import call, wrap
from ember._core.registry import OPS
from ember._core.return_types import return_type
from ember._ops.linalg_checks import call_checked
from ember._ops.linalg_factor import permutation_from_pivots

Svd = return_type("linalg_svd", ("U", "S", "Vh"))
Qr = return_type("linalg_qr", ("Q", "R"))
Eig = return_type("linalg_eig", ("eigenvalues", "eigenvectors"))
LuFactor = return_type("linalg_lu_factor", ("LU", "pivots"))
LuFactorEx = return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
Lu = return_type("linalg_lu", ("P", "L", "U"))
LuUnpack = return_type("lu_unpack", ("P", "L", "U"))
LdlFactor = return_type("linalg_ldl_factor", ("LD", "pivots"))
LdlFactorEx = return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
Lstsq = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _constant(array, like):
    """A NumPy array as a tensor on `like`'s device (no gradient)."""
    dtype = like._dtype if array.dtype.kind in "fc" else _dtype_of(array)
    if like._device.type == "meta":
        # No values to carry: a factory call, which a FakeTensorMode makes fake (on
        # `like.device`, NOTE [a fake tensor is a meta tensor inside]).
        return call(OPS["zeros"], (array.shape, dtype, None, like.device, None))
    data = np.ascontiguousarray(array)
    if like._device.type != "cpu":
        data = get_backend(like._device.type).from_host(data, like._device)
    return wrap(data, dtype, like._device)


def _dtype_of(array):
    from ember._core import dtype as dt
    return dt.NP_TO_DTYPE[array.dtype]


def _eye(m, n, like):
    return _constant(np.eye(m, n, dtype=like._data.dtype), like)


# --------------------------------------------------------------------------- norms

@checked("linalg_vector_norm(Tensor x, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
         "ScalarType? dtype=None)")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    return call(OPS["norm.ScalarOpt_dim_dtype"], (x, ord, dim, keepdim, dtype))


def _squeeze_dims(t, dims, keepdim):
    if keepdim:
        return t
    for d in sorted(dims, reverse=True):
        t = t.squeeze(d)
    return t


@checked("linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2, -1], bool keepdim=False, *, "
         "ScalarType? dtype=None)",
         'linalg_matrix_norm(Tensor self, str ord="fro", int[] dim=[-2, -1], bool keepdim=False, '
         '*, ScalarType? dtype=None)')
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    _check(A.ndim >= 2, lambda: (
        "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."))
    dim = tuple(dim)
    _check(len(dim) == 2, lambda: (
        f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}"))
    dims = tuple(d % A.ndim for d in dim)
    _check(dims[0] != dims[1], lambda: (
        f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})"))
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, dims, keepdim)
    if ord == "nuc":
        return call(OPS["nuclear_norm.dim"], (A, list(dims), keepdim))
    _check(ord in (1, -1, 2, -2, math.inf, -math.inf), lambda: (
        f"linalg.matrix_norm: Order {ord} not supported."))
    if abs(ord) == 2:
        moved = A.movedim(dims, (-2, -1))
        values = svdvals(moved)
        result = values.amax(-1) if ord > 0 else values.amin(-1)
        if keepdim:
            for d in sorted(dims):
                result = result.unsqueeze(d)
        return result
    summed, reduced = (dims[0], dims[1]) if abs(ord) == 1 else (dims[1], dims[0])
    sums = A.abs().sum(summed, keepdim=True)
    result = sums.amax(reduced, keepdim=True) if ord > 0 else sums.amin(reduced, keepdim=True)
    return _squeeze_dims(result, dims, keepdim)


@checked("linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
         "ScalarType? dtype=None)",
         "linalg_norm(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
         "ScalarType? dtype=None)")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    _check(dim is None or len(dim) in (1, 2), lambda: (
        f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"))
    if dim is not None and len(dim) == 2 or isinstance(ord, str) or (
            dim is None and ord is not None and A.ndim == 2):
        return matrix_norm(A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim,
                           keepdim, dtype=dtype)
    _check(dim is not None or ord is None or A.ndim == 1, lambda: (
        f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
        f"{A.ndim}D."))
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@checked("linalg_diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1)")
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


@checked("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1)")
def vecdot(x, y, *, dim=-1):
    _check(x._dtype.is_floating_point or x._dtype.is_complex, lambda: (
        f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
        f"{x._dtype._cpp_name}"))
    return (x.conj() * y).sum(dim) if x._dtype.is_complex else (x * y).sum(dim)


@checked("linalg_cross(Tensor self, Tensor other, *, int dim=-1)")
def cross(input, other, *, dim=-1):
    return call(OPS["cross"], (input, other, dim))


@checked("linalg_multi_dot(Tensor[] tensors)")
def multi_dot(tensors):
    return call(OPS["linalg_multi_dot"], (list(tensors),))


# --------------------------------------------------------------------------- svd family

@checked("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None)")
def svd(A, full_matrices=True, *, driver=None):
    return Svd(*call(OPS["linalg_svd"], (A, full_matrices, driver)))


@checked("linalg_svdvals(Tensor A, *, str? driver=None)")
def svdvals(A, *, driver=None):
    return call(OPS["linalg_svd"], (A, False, driver))[1]


def _tolerance(S_max, A, atol, rtol):
    """max(atol, rtol * largest singular value), PyTorch's defaults: rtol = eps * max(m, n)
    when neither is given, 0 when only atol is."""
    if rtol is None:
        rtol = 0.0 if atol is not None and not (isinstance(atol, (int, float)) and atol == 0) \
            else float(np.finfo(A._dtype.to_real()._np).eps) * max(A.shape[-2:])
    if atol is None:
        atol = 0.0
    tol = S_max * rtol
    if isinstance(atol, (int, float)):
        return tol.clamp_min(atol) if atol else tol
    return call(OPS["maximum"], (tol, atol))


@checked("linalg_matrix_rank(Tensor self, *, float? atol=None, float? rtol=None, "
         "bool hermitian=False)",
         "linalg_matrix_rank(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, "
         "bool hermitian=False)",
         "linalg_matrix_rank(Tensor input, Tensor tol, bool hermitian=False)",
         "linalg_matrix_rank(Tensor self, float tol, bool hermitian=False)")
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    if tol is not None:
        # PyTorch's older overloads: `tol` is an absolute tolerance (no relative one).
        _check_type(atol is None and rtol is None, lambda: (
            "linalg_matrix_rank() received an invalid combination of arguments"))
        atol, rtol = tol, 0.0
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    if S.shape[-1] == 0:
        return A.new_zeros(A.shape[:-2]).long()
    tol = _tolerance(S.amax(-1, keepdim=True), A, atol, rtol)
    return (S > tol).sum(-1)


def eigvalsh(A, UPLO="L"):
    return call(OPS["linalg_eigh"], (A, UPLO))[0]


@checked("linalg_pinv(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False)",
         "linalg_pinv(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False)",
         "linalg_pinv(Tensor self, float rcond, bool hermitian=False)",
         "linalg_pinv(Tensor self, Tensor rcond, bool hermitian=False)")
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    if rcond is not None:
        # PyTorch's older overloads: rcond (a relative tolerance, no absolute one), hermitian
        # positional too.
        _check_type(atol is None and rtol is None and
                    (isinstance(rcond, (float, int)) and not isinstance(rcond, bool) or
                     hasattr(rcond, "_dtype")), lambda: (
                        "linalg_pinv() received an invalid combination of arguments"))
        atol, rtol = 0.0, rcond
    if hermitian:
        L, V = call(OPS["linalg_eigh"], (A, "L"))
        magnitude = L.abs()
        keep = magnitude > _tolerance(magnitude.amax(-1, keepdim=True), A, atol, rtol)
        inverse = call(OPS["where.self"], (keep, 1 / call(OPS["where.self"], (keep, L, 1)), 0))
        scale = inverse.to(V._dtype) if V._dtype.is_complex else inverse
        return (V * scale.unsqueeze(-2)) @ V.mH
    U, S, Vh = call(OPS["linalg_svd"], (A, False, None))
    if S.shape[-1] == 0:
        return A.new_zeros(A.shape[:-2] + (A.shape[-1], A.shape[-2]))
    keep = S > _tolerance(S.amax(-1, keepdim=True), A, atol, rtol)
    inverse = call(OPS["where.self"], (keep, 1 / call(OPS["where.self"], (keep, S, 1)), 0))
    scale = inverse.to(U._dtype) if U._dtype.is_complex else inverse
    return (Vh.mH * scale.unsqueeze(-2)) @ U.mH


@checked("linalg_cond(Tensor self, Scalar? p=None)",
         "linalg_cond(Tensor self, str p)")
def cond(A, p=None):
    _check(A.ndim >= 2, lambda: (
        f"linalg.cond(ord={p}): The input tensor A must have at least 2 dimensions."
        if isinstance(p, str) else "linalg.cond: The input tensor must have at least 2 "
        "dimensions."))
    if p is None or p in (2, -2):
        S = svdvals(A)
        return S[..., 0] / S[..., -1] if p != -2 else S[..., -1] / S[..., 0]
    _check(A.ndim >= 2 and A.shape[-1] == A.shape[-2], lambda: (
        f"linalg.cond: A must be batches of square matrices, but they are {A.shape[-2]} by "
        f"{A.shape[-1]} matrices"))
    inverse = call(OPS["linalg_inv_ex"], (A, False))[0]
    return matrix_norm(A, p) * matrix_norm(inverse, p)


# --------------------------------------------------------------------------- powers, exp

@checked("linalg_matrix_exp(Tensor self)")
def matrix_exp(A):
    return call(OPS["linalg_matrix_exp"], (A,))


@checked("linalg_matrix_power(Tensor self, int n)")
def matrix_power(A, n):
    _check(A.ndim >= 2 and A.shape[-1] == A.shape[-2], lambda: (
        f"linalg.matrix_power: A must be batches of square matrices, but they are "
        f"{A.shape[-2] if A.ndim >= 2 else A.shape[-1]} by {A.shape[-1]} matrices"))
    if n == 0:
        # The identity, still connected to A (a zero gradient), as PyTorch's is; NaN and
        # infinite entries of A leave no trace.
        return (A * 0).nan_to_num(0.0, 0.0, 0.0) + _eye(A.shape[-1], A.shape[-1], A)
    if n < 0:
        A = call_checked("linalg_inv_ex", (A,), "linalg.inv")[0]
        n = -n
    if n == 1:
        return A.clone()
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


# --------------------------------------------------------------------------- Householder

@checked("linalg_householder_product(Tensor input, Tensor tau)")
def householder_product(A, tau):
    """Q = H_1 ... H_k (first n columns), H_i = I - tau_i v_i v_i^H, v_i the i-th column of A
    below the diagonal with a unit i-th entry."""
    _check(A.ndim >= 2, "torch.linalg.householder_product: input must have at least 2 "
                        "dimensions.")
    m, n = A.shape[-2:]
    _check(m >= n, "torch.linalg.householder_product: input.shape[-2] must be greater than or "
                   "equal to input.shape[-1]")
    k = tau.shape[-1]
    _check(n >= k, "torch.linalg.householder_product: input.shape[-1] must be greater than or "
                   "equal to tau.shape[-1]")
    return apply_reflectors(A, tau, _eye(m, n, A).expand(A.shape[:-2] + (m, n)))


# --------------------------------------------------------------------------- tensor solves

@checked("linalg_tensorinv(Tensor self, int ind=2)")
def tensorinv(A, ind=2):
    _check(ind > 0, lambda: f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape, in_shape = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, cols = math.prod(out_shape), math.prod(in_shape)
    _check(rows == cols, lambda: (
        f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
        f"prod(self.shape[:ind]), but got {cols} != {rows}"))
    inverse = call_checked("linalg_inv_ex", (A.reshape(rows, cols),), "linalg.inv")[0]
    return inverse.reshape(in_shape + out_shape)


@checked("linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None)")
def tensorsolve(A, B, dims=None):
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    result_shape = tuple(A.shape[B.ndim:])
    rows = B.numel()
    matrix = A.reshape(rows, math.prod(result_shape))
    X = call_checked("linalg_solve_ex", (matrix, B.reshape(rows), True),
                     "torch.linalg.solve")[0]
    return X.reshape(result_shape)


@checked("linalg_vander(Tensor x, *, SymInt? N=None)")
def vander(x, *, N=None):
    _check(x.ndim >= 1, "x must be at least 1-dimensional.")
    n = x.shape[-1] if N is None else N
    _check(n > 1, "N must be greater than 1.")
    x = x.double() if not (x._dtype.is_floating_point or x._dtype.is_complex) and \
        x._dtype.itemsize < 8 else x
    ones = x.new_ones(x.shape).unsqueeze(-1)
    repeated = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))
    return call(OPS["cat"], ([ones, repeated], -1)).cumprod(-1)


# --------------------------------------------------------------------------- LU family

@checked("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False)")
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    return LuFactorEx(*call(OPS["linalg_lu_factor_ex"], (A, pivot, check_errors)))


@checked("linalg_lu_factor(Tensor A, *, bool pivot=True)")
def lu_factor(A, *, pivot=True):
    LU, pivots, _ = call_checked("linalg_lu_factor_ex", (A, pivot), "torch.linalg.lu_factor",
                                 in_kernel=False)
    return LuFactor(LU, pivots)


@checked("linalg_lu(Tensor A, *, bool pivot=True)")
def lu(A, *, pivot=True):
    P, L, U = call(OPS["linalg_lu"], (A, pivot))
    return Lu(P.detach(), L, U)     # a permutation: no gradient flows through it


@checked("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
         "bool unpack_pivots=True)")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    batch = tuple(LU_data.shape[:-2])
    if unpack_pivots:
        _check(LU_pivots._dtype is dt.int32, (
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"))
        perm = permutation_from_pivots(LU_pivots._host(), m)
        P_t = np.zeros(perm.shape + (m,), dtype=LU_data._data.dtype)
        np.put_along_axis(P_t, perm[..., :, None], 1, axis=-1)
        P = _constant(P_t.swapaxes(-1, -2), LU_data)
    else:
        P = LU_data.new_empty((0,))
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + _eye(m, k, LU_data)
        U = LU_data[..., :k, :].triu()
    else:
        L = U = LU_data.new_empty((0,))
    del batch
    return LuUnpack(P, L, U)


def _check_lu_solve_shapes(LU, pivots, B, left):
    """PyTorch's shape checks of linalg.lu_solve, in its order (A square, B a matrix that
    fits it, one pivot per row of each matrix)."""
    _check(LU.ndim >= 2, "torch.linalg.lu_solve: The input tensor A must have at least 2 "
                         "dimensions.")
    _check(LU.shape[-1] == LU.shape[-2], lambda: (
        f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
        f"{LU.shape[-2]} by {LU.shape[-1]} matrices"))
    _check(B.ndim >= 2, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    _check(LU.shape[-1] == B.shape[-2] if left else LU.shape[-2] == B.shape[-1], lambda: (
        f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
        f"{'AX = B' if left else 'XA = B'} ({LU.shape[-2]}x{LU.shape[-1]} and "
        f"{B.shape[-2]}x{B.shape[-1]})"))
    _check(pivots.ndim > 0 and pivots.shape[-1] == LU.shape[-1],
           "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
           "matrix")
    _check(tuple(LU.shape[:-1]) == tuple(pivots.shape), lambda: (
        f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
        f"pivots with shape {list(pivots.shape)} instead"))


@checked("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
         "bool adjoint=False)")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    _check(LU._dtype.is_floating_point or LU._dtype.is_complex, lambda: (
        f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
        f"{LU._dtype._cpp_name}"))
    _check(LU._dtype is B._dtype, lambda: (
        f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
        f"{LU._dtype._cpp_name} and B of type {B._dtype._cpp_name} instead"))
    _check(pivots._dtype is dt.int32,
           "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    _check_lu_solve_shapes(LU, pivots, B, left)
    P, L, U = lu_unpack(LU, pivots)
    triangular = OPS["linalg_solve_triangular"]
    if left and not adjoint:        # X = U^-1 L^-1 P^T B
        Y = call(triangular, (L, P.mT @ B, False, True, True))
        return call(triangular, (U, Y, True, True, False))
    if left:                        # A^H X = B: X = P L^-H U^-H B
        Y = call(triangular, (U.mH, B, False, True, False))
        return P @ call(triangular, (L.mH, Y, True, True, True))
    if not adjoint:                 # X A = B: X = B U^-1 L^-1 P^T
        Y = call(triangular, (U, B, True, False, False))
        return call(triangular, (L, Y, False, False, True)) @ P.mT
    # X A^H = B: X = B P L^-H U^-H
    Y = call(triangular, (L.mH, B @ P, True, False, True))
    return call(triangular, (U.mH, Y, False, False, False))


@checked("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False)")
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    return LdlFactorEx(*call(OPS["linalg_ldl_factor_ex"], (A, hermitian, check_errors)))


@checked("linalg_ldl_factor(Tensor self, *, bool hermitian=False)")
def ldl_factor(A, *, hermitian=False):
    LD, pivots, _ = call_checked("linalg_ldl_factor_ex", (A, hermitian), "torch.linalg.ldl_factor",
                                 in_kernel=False)
    return LdlFactor(LD, pivots)


@checked("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False)")
def ldl_solve(LD, pivots, B, *, hermitian=False):
    return call(OPS["linalg_ldl_solve"], (LD, pivots, B, hermitian))


# --------------------------------------------------------------------------- lstsq

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@checked("linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None)")
def lstsq(A, B, rcond=None, *, driver=None):
    driver = "gelsy" if driver is None else driver
    _check(driver in _DRIVERS, lambda: (
        "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"))
    _check(A._dtype is B._dtype, lambda: (
        f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
        f"input's dtype {A._dtype._cpp_name} and other's dtype {B._dtype._cpp_name}"))
    vector = B.ndim == A.ndim - 1
    B_matrix = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2:]
    solution = pinv(A, rtol=rcond) @ B_matrix
    real = A._dtype.to_real()
    empty = A.new_empty((0,), dtype=real)
    # PyTorch's residuals are part of the graph even when empty.
    empty_residuals = A.reshape(-1)[:0].abs()
    rank = matrix_rank(A, rtol=rcond) if driver != "gels" else A.new_empty((0,)).long()
    full_rank = bool((matrix_rank(A, rtol=rcond) == n).all()) if m > n else False
    if m > n and driver != "gelsy" and full_rank:
        residual = (A @ solution - B_matrix).abs().pow(2).sum(-2)
        residuals = residual.squeeze(-1) if vector else residual
    else:
        residuals = empty_residuals
    singular_values = svdvals(A).detach() if driver in ("gelsd", "gelss") else empty
    if vector:
        solution = solution.squeeze(-1)
    return Lstsq(solution, residuals, rank, singular_values)


# --------------------------------------------------------------------------- eig, qr

@checked("linalg_eig(Tensor self)")
def eig(A):
    return Eig(*call(OPS["linalg_eig"], (A,)))


@checked("linalg_eigvals(Tensor self)")
def eigvals(A):
    return call(OPS["linalg_eig"], (A,))[0]


@checked('linalg_qr(Tensor A, str mode="reduced")')
def qr(A, mode="reduced"):
    return Qr(*call(OPS["linalg_qr"], (A, mode)))


def _reflector(A, i):
    m = A.shape[-2]
    below = np.arange(m)
    mask = _constant((below > i).astype(A._data.dtype), A)
    unit = _constant((below == i).astype(A._data.dtype), A)
    return (A[..., :, i] * mask + unit).unsqueeze(-1)


def apply_reflectors(A, tau, C, left=True, transpose=False):
    """Q C, Q^H C, C Q or C Q^H for Q = H_1 ... H_k (LAPACK's ormqr), in ember ops."""
    k = tau.shape[-1]
    # Q C = H_1 (H_2 (... H_k C)): the last reflector first; Q^H C applies H_1^H first.
    order = range(k) if left == transpose else reversed(range(k))
    for i in order:
        v = _reflector(A, i)
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        t = t.conj() if transpose and t._dtype.is_complex else t
        if left:
            C = C - (t * v) @ (v.mH @ C)
        else:
            C = C - (C @ v) @ (t * v.mH)
    return C


@checked("ormqr(Tensor self, Tensor input2, Tensor input3, bool left=True, bool transpose=False)")
def ormqr(A, tau, C, left=True, transpose=False):
    other_rows = C.shape[-2] if left else C.shape[-1]
    _check(tau.shape[-1] == min(other_rows, A.shape[-1]), lambda: (
        f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
        "input.shape[-1])"))
    return apply_reflectors(A, tau, C, left, transpose)


@checked("geqrf(Tensor self)")
def geqrf(A):
    """(a, tau) from LAPACK's geqrf, matrix by matrix (not differentiable, as in PyTorch)."""
    from scipy.linalg import get_lapack_funcs
    dtype = A._dtype
    _check_not_implemented(
        dtype in (dt.float32, dt.float64, dt.complex64, dt.complex128),
        lambda: f'"geqrf_cpu" not implemented for \'{dtype._cpp_name}\'')
    data = A._host()
    _check(data.ndim >= 2, lambda: (
        "torch.geqrf: input must have at least 2 dimensions."))
    m, n = data.shape[-2:]
    flat = data.reshape((-1, m, n))
    out = np.empty_like(flat)
    tau = np.zeros((flat.shape[0], min(m, n)), dtype=data.dtype)
    if flat.size:
        routine = get_lapack_funcs("geqrf", (flat[0],))
        for k in range(flat.shape[0]):
            out[k], tau[k] = routine(flat[k])[:2]
    return (_constant(out.reshape(data.shape), A),
            _constant(tau.reshape(data.shape[:-2] + (min(m, n),)), A))
