"""LU, LDL, the general eigendecomposition and the matrix exponential as registry ops:
linalg_lu_factor_ex, linalg_lu, linalg_ldl_factor_ex, linalg_ldl_solve, linalg_eig,
linalg_matrix_exp (lu_solve, lu_unpack, householder_product ... are composites in
ember/linalg/).

NOTE [batched LU]: NumPy has no LU and SciPy's returns a permutation, not LAPACK's pivots. The
kernel here is getrf's partial pivoting written over the whole batch at once: a loop over the
columns, each step vectorized over every matrix (the first largest |entry| is the pivot, as
LAPACK's i?amax picks; a zero pivot column is left unscaled and recorded in `info`). Pivots are
LAPACK's: 1-based, int32, row j swapped with row pivots[j] - 1.

NOTE [LU scales by the reciprocal]: MKL's getrf, which PyTorch's CPU build calls, scales the
column below a nonzero real pivot p by the rounded reciprocal 1 / p (even a denormal one,
whose reciprocal overflows to inf); so l = a * (1 / p) need not be 1 where a == p, and an
exactly singular matrix (equal rows: an expanded input) keeps a rounding residual in U where
dividing gives an exact 0 (and a 0 instead of 1 in L below it). It divides the last single
entry of matrices of up to four columns. Measured against PyTorch 2.13 on the fuzzer's finite
edge matrices (n = 2..8): real factors equal to the bit in 97-100% of the cases by this rule,
40-60% by dividing throughout. Complex pivots are divided (MKL's complex reciprocal agreed
less often than division did). Where the factors hold such residuals the result is the
LAPACK build's (reference LAPACK divides by a pivot below the smallest normal number).

NOTE [lu derivative] (square A = P L U): gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H.
NOTE [eig derivative]: gA = V^-H (diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) / E*) V^H with
E[i, j] = L[j] - L[i]; real input takes the real part. Each eigenvector is fixed up to a
complex phase, so Im diag(V^H gV) must vanish (the gauge check).
NOTE [matrix_exp derivative]: gA = exp([[A^H, G], [0, A^H]]) top-right block (Mathias).
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.host_kernels import host_kernel
from ember._core.registry import OPS, register_op
from ember._ops.linalg_common import (
    check_floating,
    check_kernel_dtype,
    check_matrix,
    check_square,
)
from ember._ops.linalg_solve import solve, solve_triangular

_INT32 = np.dtype(np.int32)


def batched_getrf(A):
    """(LU, pivots, info) of every matrix of A (NOTE [batched LU])."""
    m, n = A.shape[-2:]
    batch = A.shape[:-2]
    work = np.array(A.reshape((-1, m, n)), copy=True)
    count, k = work.shape[0], min(m, n)
    pivots = np.empty((count, k), dtype=_INT32)
    info = np.zeros(count, dtype=_INT32)
    rows = np.arange(count)
    real = work.dtype.kind == "f"
    for j in range(k):
        column = work[:, j:, j]
        # LAPACK's i?amax compares |Re| + |Im| for complex entries, not the modulus.
        size = np.abs(column.real) + np.abs(column.imag) if column.dtype.kind == "c" else \
            np.abs(column)
        p = j + np.argmax(size, axis=1)
        pivots[:, j] = p + 1
        swapped = work[rows, p].copy()
        work[rows, p] = work[:, j]
        work[:, j] = swapped
        pivot = work[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        if real and (k > 4 or j + 2 < m):           # NOTE [LU scales by the reciprocal]
            with np.errstate(over="ignore"):
                reciprocal = (1 / np.where(zero, 1, pivot)).astype(work.dtype)
            work[:, j + 1:, j] *= reciprocal[:, None]
        else:
            work[:, j + 1:, j] /= np.where(zero, 1, pivot)[:, None]
        work[:, j + 1:, j + 1:] -= work[:, j + 1:, j, None] * work[:, j, None, j + 1:]
    return (work.reshape(A.shape), pivots.reshape(batch + (k,)), info.reshape(batch))


def permutation_from_pivots(pivots, m):
    """The row order perm with (P^T A)[i] = A[perm[i]] for LAPACK pivots (batched)."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape((-1, pivots.shape[-1])).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        target = flat[:, j]
        kept = perm[:, j].copy()
        perm[:, j] = perm[rows, target]
        perm[rows, target] = kept
    return perm.reshape(batch + (m,))


# --------------------------------------------------------------------------- LU

def _lu_checks(api, A):
    check_matrix(api, A)
    check_floating(api, A, low_precision=False)
    check_kernel_dtype("lu_cpu", A)


def _lu_factor_meta(A, pivot=True, check_errors=False):
    _lu_checks("torch.linalg.lu_factor_ex", A._data)
    m, n = A.shape[-2:]
    batch = tuple(A.shape[:-2])
    return [(tuple(A.shape), A._dtype), (batch + (min(m, n),), dt.int32), (batch, dt.int32)]


def _unpack(LU, m, n):
    """(L, U) from the packed factor, in ember ops."""
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + LU.new_ones(k).diag_embed()[..., :m, :]
    if m < k:
        L = L[..., :m, :]
    U = LU[..., :k, :].triu()
    return L, U


def _lu_grad_square(P, L, U, gL, gU):
    inner = (L.mH @ gL).tril(-1) + (gU @ U.mH).triu()
    gA = solve_triangular(L.mH, inner, True, True, True)
    gA = solve_triangular(U.mH, gA, False, False)
    return P @ gA


def _check_square_grad(A):
    _check(A.shape[-1] == A.shape[-2], "linalg.lu: the derivative is implemented for square "
                                       "matrices only in ember")


def _lu_factor_grad(c):
    A = c.A
    _check_square_grad(A)
    LU, pivots = c.results[0], c.results[1]
    n = A.shape[-1]
    L, U = _unpack(LU, n, n)
    P = _permutation_matrix(pivots, n, A)
    gLU = c.grad
    return _lu_grad_square(P, L, U, gLU.tril(-1), gLU.triu())


def _permutation_matrix(pivots, m, like):
    perm = permutation_from_pivots(pivots._host(), m)
    P = np.zeros(perm.shape + (m,), dtype=like._data.dtype)
    np.put_along_axis(P, perm[..., :, None], 1, axis=-1)     # P^T[i, perm[i]] = 1
    from ember._core.dispatch import wrap
    data = np.ascontiguousarray(P.swapaxes(-1, -2))
    if like._device.type != "cpu":
        from ember._backends import get_backend
        data = get_backend(like._device.type).from_host(data, like._device)
    return wrap(data, like._dtype, like._device)


@register_op("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
             "(Tensor LU, Tensor pivots, Tensor info)", kind="generic", function=False,
             method=False, meta=_lu_factor_meta, saves=("A", "result"),
             derivatives={"A": _lu_factor_grad}, node_name="LinalgLuFactorExBackward0",
             tags=("fp_errors",))
@host_kernel
def linalg_lu_factor_ex(xp, A, pivot=True, check_errors=False):
    """linalg.lu_factor_ex(A, *, pivot=True, check_errors=False) -> (LU, pivots, info)."""
    _lu_checks("torch.linalg.lu_factor_ex", A)
    _check(pivot, "linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, pivots, info = batched_getrf(A)
    if check_errors:
        raise_lu_error("torch.linalg.lu_factor_ex", A, info)
    return np.ascontiguousarray(LU), pivots, info


def raise_lu_error(api, A, info):
    flat = info.reshape(-1)
    failed = np.flatnonzero(flat)
    if failed.size:
        index, code = int(failed[0]), int(flat[failed[0]])
        prefix = f"(Batch element {index}): " if A.ndim > 2 else ""
        _check(False, lambda: (
            f"{api}: {prefix}U[{code},{code}] is zero and using it on lu_solve would result in "
            "a division by zero. If you still want to perform the factorization, consider "
            "calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"))


def _lu_meta(A, pivot=True):
    _lu_checks("linalg.lu", A._data)
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    return [(batch + (m, m), A._dtype), (batch + (m, k), A._dtype), (batch + (k, n), A._dtype)]


def _lu_grad(c):
    _check_square_grad(c.A)
    P, L, U = c.results
    _, gL, gU = c.grads
    return _lu_grad_square(P, L, U, gL.tril(-1), gU.triu())


@register_op("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
             kind="generic", function=False, method=False, meta=_lu_meta,
             saves=("A", "result"), derivatives={"A": _lu_grad},
             node_name="LinalgLuBackward0", tags=("fp_errors",))
@host_kernel
def linalg_lu(xp, A, pivot=True):
    """linalg.lu(A, *, pivot=True) -> (P, L, U) with A = P L U."""
    _lu_checks("linalg.lu", A)
    _check(pivot, "linalg.lu: LU without pivoting is not implemented on the CPU")
    m, n = A.shape[-2:]
    k = min(m, n)
    LU, pivots, _ = batched_getrf(A)
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=A.dtype)
    U = np.triu(LU[..., :k, :])
    perm = permutation_from_pivots(pivots, m)
    PT = np.zeros(perm.shape + (m,), dtype=A.dtype)
    np.put_along_axis(PT, perm[..., :, None], 1, axis=-1)
    return np.ascontiguousarray(PT.swapaxes(-1, -2)), L, np.ascontiguousarray(U)


# --------------------------------------------------------------------------- LDL

def _ldl_meta(self, hermitian=False, check_errors=False):
    check_square("torch.linalg.ldl_factor_ex", self._data)
    batch = tuple(self.shape[:-2])
    return [(tuple(self.shape), self._dtype), (batch + (self.shape[-1],), dt.int32),
            (batch, dt.int32)]


def _lapack(name, array):
    from scipy.linalg import get_lapack_funcs
    return get_lapack_funcs(name, (array,))


@register_op("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors="
             "False) -> (Tensor LD, Tensor pivots, Tensor info)", kind="generic",
             function=False, method=False, meta=_ldl_meta, differentiable=False,
             tags=("fp_errors",))
@host_kernel
def linalg_ldl_factor_ex(xp, self, hermitian=False, check_errors=False):
    """linalg.ldl_factor_ex(A, *, hermitian=False, check_errors=False) -> (LD, pivots, info):
    LAPACK's sytrf (hetrf) on the lower triangle, one matrix at a time (it has no batched
    form)."""
    api = "torch.linalg.ldl_factor_ex"
    check_square(api, self)
    check_floating(api, self, low_precision=False)
    check_kernel_dtype("ldl_factor_cpu", self)
    n = self.shape[-1]
    flat = self.reshape((-1, n, n))
    LD = np.zeros_like(flat)
    pivots = np.zeros((flat.shape[0], n), dtype=_INT32)
    info = np.zeros(flat.shape[0], dtype=_INT32)
    if flat.shape[0] and n:
        routine = _lapack("hetrf" if hermitian and self.dtype.kind == "c" else "sytrf", flat[0])
        for k in range(flat.shape[0]):
            ld, ipiv, code = routine(flat[k], lower=1)
            LD[k], pivots[k], info[k] = np.tril(ld), ipiv, code
    if check_errors:
        _check(not info.any(), lambda: f"{api}: the factorization failed (info "
                                        f"{int(info[np.flatnonzero(info)[0]])})")
    batch = self.shape[:-2]
    return LD.reshape(self.shape), pivots.reshape(batch + (n,)), info.reshape(batch)


def _ldl_solve_meta(LD, pivots, B, hermitian=False):
    return tuple(B.shape), B._dtype


def _check_ldl_solve(api, LD, pivots, B):
    """PyTorch's checks of linalg.ldl_solve in its order; then the pivots' values, which
    LAPACK's sytrs reads as row numbers (PyTorch passes any on: ember refuses one out of
    range rather than let LAPACK read and write out of bounds)."""
    check_square(api, LD, "A")
    _check(pivots.ndim == LD.ndim - 1 and pivots.shape == LD.shape[:-1], lambda: (
        f"{api}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
        f"shape {list(pivots.shape)} instead"))
    name = dt.NP_TO_DTYPE[np.dtype(pivots.dtype)]._cpp_name
    _check(pivots.dtype.kind in "iu", lambda: (
        f"{api}: Expected pivots to be integers. Got {name}"))
    ld_type, b_type = (dt.NP_TO_DTYPE[np.dtype(a.dtype)] for a in (LD, B))
    _check(ld_type is b_type, lambda: (
        f"Expected b and A to have the same dtype, but found b of type {b_type._cpp_name} and "
        f"A of type {ld_type._cpp_name} instead."))
    n = LD.shape[-1]
    rows = B.shape[-2] if B.ndim >= 2 else _raise_index(B.ndim, -2)
    _check(rows == n, lambda: (
        f"Incompatible matrix sizes for {api}: each A matrix is {n} by {n} but each b matrix "
        f"is {rows} by {B.shape[-1]}"))
    _check(ld_type.is_floating_point or ld_type.is_complex, lambda: (
        f"{api}: Expected a floating point or complex tensor as input. Got "
        f"{ld_type._cpp_name}"))
    if ld_type in (dt.float16, dt.bfloat16):
        raise NotImplementedError(f'"ldl_solve_kernel_cpu" not implemented for '
                                  f"'{ld_type._cpp_name}'")
    if pivots.size:
        magnitude = np.abs(pivots.astype(np.int64))
        _check(bool((magnitude >= 1).all() and (magnitude <= n).all()), lambda: (
            f"{api}: pivots must be row numbers in [-{n}, -1] or [1, {n}] (ember refuses "
            "others: LAPACK would index out of bounds)"))


def _raise_index(ndim, dim):
    raise IndexError(f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
                     f"{max(ndim, 1) - 1}], but got {dim})")


@register_op("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) "
             "-> Tensor", kind="generic", function=False, method=False, meta=_ldl_solve_meta,
             differentiable=False, tags=("fp_errors",))
@host_kernel
def linalg_ldl_solve(xp, LD, pivots, B, hermitian=False):
    """linalg.ldl_solve(LD, pivots, B, *, hermitian=False) -> Tensor (sytrs per matrix)."""
    api = "torch.linalg.ldl_solve"
    _check_ldl_solve(api, LD, pivots, B)
    n = LD.shape[-1]
    batch = np.broadcast_shapes(LD.shape[:-2], B.shape[:-2], pivots.shape[:-1])
    LD_b = np.broadcast_to(LD, batch + LD.shape[-2:]).reshape((-1, n, n))
    piv_b = np.broadcast_to(pivots, batch + pivots.shape[-1:]).reshape((-1, n))
    B_b = np.broadcast_to(B, batch + B.shape[-2:]).reshape((-1,) + B.shape[-2:])
    X = np.empty_like(B_b)
    if B_b.size:
        routine = _lapack("hetrs" if hermitian and B.dtype.kind == "c" else "sytrs", LD_b[0])
        for k in range(B_b.shape[0]):
            X[k] = routine(LD_b[k], piv_b[k], B_b[k], lower=1)[0]
    return X.reshape(batch + B.shape[-2:])


# --------------------------------------------------------------------------- eig

def _complex_of(kind):
    return {dt.float32: dt.complex64, dt.float64: dt.complex128}.get(kind, kind)


def _eig_meta(self):
    check_square("linalg.eig", self._data)
    complex_type = _complex_of(self._dtype)
    return [(tuple(self.shape[:-1]), complex_type), (tuple(self.shape), complex_type)]


_EIG_GAUGE = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
              "multiplication by e^{i phi}. The specified loss function depends on this "
              "quantity, so it is ill-defined.")


def _eig_grad(c):
    L, V = c.results
    gL, gV = c.grads
    VhgV = V.mH @ gV
    diagonal = VhgV.diagonal(0, -2, -1)
    _check(bool((diagonal.imag.abs() <= 1e-3).all()), _EIG_GAUGE)
    VhgV = VhgV - V.mH @ (V * diagonal.real.to(V._dtype).unsqueeze(-2))
    n = L.shape[-1]
    eye = L.new_ones(n).diag_embed()
    Lc = L.conj()
    gaps = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye
    inner = VhgV / gaps * (1 - eye) + gL.diag_embed()
    gA = solve(V.mH, inner @ V.mH)
    return gA if c.self._dtype.is_complex else gA.real


@register_op("linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)",
             kind="generic", function=False, method=False, meta=_eig_meta,
             saves=("self", "result"), derivatives={"self": _eig_grad},
             node_name="LinalgEigBackward0", tags=("fp_errors",))
@host_kernel
def linalg_eig(xp, self):
    """linalg.eig(A) -> (eigenvalues, eigenvectors), complex, eigenvectors of unit norm."""
    check_square("linalg.eig", self)
    check_floating("linalg.eig", self, low_precision=False)
    check_kernel_dtype("linalg_eig_cpu", self)
    _check(bool(np.isfinite(self).all()), "torch.linalg.eig: input tensor should not contain "
                                          "infs or NaNs.")
    complex_np = np.result_type(self.dtype, np.complex64)
    if self.size == 0:
        return (np.zeros(self.shape[:-1], complex_np), np.zeros(self.shape, complex_np))
    values, vectors = np.linalg.eig(self)
    return (np.asarray(values, dtype=complex_np, order="C"),
            np.asarray(vectors, dtype=complex_np, order="C"))


# --------------------------------------------------------------------------- matrix_exp

def _matrix_exp_meta(self):
    check_square("linalg.matrix_exp", self._data)
    return tuple(self.shape), self._dtype


def _matrix_exp_grad(c):
    A, g = c.self, c.grad
    n = A.shape[-1]
    top = call(OPS["cat"], ([A.mH, g], -1))
    bottom = call(OPS["cat"], ([A.new_zeros(A.shape), A.mH], -1))
    block = call(OPS["cat"], ([top, bottom], -2))
    return call(OPS["linalg_matrix_exp"], (block,))[..., :n, n:]


@register_op("linalg_matrix_exp(Tensor self) -> Tensor", kind="generic", method=False,
             function=False, meta=_matrix_exp_meta, saves=("self",),
             derivatives={"self": _matrix_exp_grad}, node_name="LinalgMatrixExpBackward0",
             tags=("fp_errors",))
@host_kernel
def linalg_matrix_exp(xp, self):
    """linalg.matrix_exp(A) -> Tensor: the matrix exponential (SciPy's batched expm)."""
    check_square("linalg.matrix_exp", self)
    check_kernel_dtype("linalg_matrix_exp", self)
    if self.size == 0:
        return np.zeros(self.shape, self.dtype)
    from scipy.linalg import expm
    # (single precision through double: SciPy's float32 expm is some 1e-6 relative off where
    # the result cancels (791.8955 for 791.8943), PyTorch's float32 series some 2e-7)
    wide = np.complex128 if self.dtype.kind == "c" else np.float64
    return np.asarray(expm(self.astype(wide)), dtype=self.dtype, order="C")
