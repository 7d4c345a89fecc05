"""Factorizations and solvers for square systems: linalg_cholesky_ex, linalg_solve_triangular,
cholesky_solve, linalg_inv_ex and linalg_solve_ex, with their derivatives.

`ember.linalg.cholesky`, `inv` and `solve` are these `_ex` ops with their `info` checked
(NOTE [linalg errors from info], linalg_common.py), as in PyTorch, so their grad_fn names are
the `_ex` ones (LinalgCholeskyExBackward0 ...). Kernels: NumPy's batched linalg; SciPy's
batched triangular solve.

NOTE [linalg derivatives]: with X the result and gX its incoming gradient,
  cholesky (A = L L^H):  gA = L^-H Phi(L^H gL) L^-1, Phi = lower triangle, halved diagonal,
                         made Hermitian;
  triangular AX = B:     gB = A^-H gX, gA = -gB X^H (restricted to A's triangle);
  solve AX = B:          gB = A^-H gX, gA = -gB X^H (XA = B: gB = gX A^-H, gA = -X^H gB);
  inverse:               gA = -X^H gX X^H;
  cholesky_solve:        gB = (L L^H)^-1 gX, gL = -(gB X^H + X gB^H) L (upper: -U (...)).
"""
from __future__ import annotations

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.host_kernels import host_kernel
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_op
from ember._ops.linalg import broadcast_batch
from ember._ops.linalg_common import (
    check_floating,
    check_kernel_dtype,
    check_matrix,
    check_same_dtype,
    check_square,
    cholesky_info,
    lu_info,
    partial_cholesky,
    raise_from_info,
    singular_solve,
)

_INT32 = np.dtype(np.int32)


def _info_zeros(xp, A):
    return xp.zeros(A.shape[:-2], dtype=_INT32)


def _fresh(xp, array, np_dtype):
    return xp.asarray(array, dtype=np_dtype, order="C")


def solve_triangular(A, B, upper, left=True, unitriangular=False):
    """A^-1 B (or B A^-1) for triangular A, through the registry (differentiable)."""
    return call(OPS["linalg_solve_triangular"], (A, B, upper, left, unitriangular))


def solve(A, B, left=True):
    return call(OPS["linalg_solve_ex"], (A, B, left, False))[0]


# --------------------------------------------------------------------------- cholesky

def _cholesky_checks(A):
    api = "linalg.cholesky"
    check_square(api, A)
    check_floating(api, A, low_precision=False)
    check_kernel_dtype("cholesky_cpu", A)


def _cholesky_ex_meta(self, upper=False, check_errors=False):
    _cholesky_checks(self._data)
    return [(self.shape, self._dtype), (tuple(self.shape[:-2]), dt.int32)]


def _cholesky_grad(c):
    L = c.results[0]
    gL = c.grad
    if c.upper:
        L, gL = L.mH, gL.mH
    phi = (L.mH @ gL).tril()
    phi = 0.5 * (phi + phi.tril(-1).mH)
    gA = solve_triangular(L.mH, phi, True, True)
    return solve_triangular(L, gA, False, False)


def cholesky_factor(xp, A, upper):
    """(factor, info) of a batch of Hermitian matrices, reading the lower (upper) triangle;
    matrices that are not positive-definite get a zero factor and a nonzero info."""
    lower_input = xp.conj(A).swapaxes(-1, -2) if upper else A
    try:
        L = xp.linalg.cholesky(lower_input)
        info = _info_zeros(xp, A)
    except np.linalg.LinAlgError:
        # NOTE [linalg errors from info]: the error path finds which matrices failed.
        info = xp.asarray(cholesky_info(np.asarray(lower_input)))
        good = info == 0
        if backend_helpers(xp).host:     # NOTE [what _ex returns for a failed matrix]
            L = partial_cholesky(lower_input)
        else:
            L = xp.zeros_like(lower_input)
        if good.any():
            L[good] = xp.linalg.cholesky(lower_input[good])
    if upper:
        L = xp.conj(L).swapaxes(-1, -2)
    return _fresh(xp, L, A.dtype), info


@register_op("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
             "(Tensor L, Tensor info)", kind="generic", function=False, method=False,
             meta=_cholesky_ex_meta, saves=("result",), derivatives={"self": _cholesky_grad},
             node_name="LinalgCholeskyExBackward0", tags=("fp_errors",))
@host_kernel
def linalg_cholesky_ex(xp, self, upper=False, check_errors=False):
    """linalg.cholesky_ex(A, *, upper=False, check_errors=False) -> (L, info)."""
    _cholesky_checks(self)
    L, info = cholesky_factor(xp, self, upper)
    if check_errors:
        raise_from_info("linalg.cholesky", self, info, "cholesky")
    return L, info


# --------------------------------------------------------------------------- triangular solve

def _triangular_checks(A, B, left):
    api = "linalg.solve_triangular"
    check_matrix(api, A)
    check_matrix(api, B, "B")
    check_square(api, A)
    check_floating(api, A, low_precision=False)
    rows = B.shape[-2] if left else B.shape[-1]
    _check(A.shape[-1] == rows, lambda: (
        f"{api}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
        f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"))
    batch = broadcast_batch(A.shape[:-2], B.shape[:-2])
    result = promote_types(dt.NP_TO_DTYPE[np.dtype(A.dtype)], dt.NP_TO_DTYPE[np.dtype(B.dtype)])
    return batch + B.shape[-2:], result


def _triangular_meta(self, B, upper, left=True, unitriangular=False):
    shape, dtype = _triangular_checks(self._data, B._data, left)
    return shape, dtype


def _triangular_grads():
    def grad_B(c):
        return solve_triangular(c.self.mH, c.grad, not c.upper, c.left, c.unitriangular)

    def grad_A(c):
        gB = grad_B(c)
        X = c.result
        gA = -(gB @ X.mH) if c.left else -(X.mH @ gB)
        diagonal = 1 if c.unitriangular else 0
        return gA.triu(diagonal) if c.upper else gA.tril(-diagonal)
    return {"self": grad_A, "B": grad_B}


def triangular_kernel(xp, A, B, upper, left=True, unitriangular=False):
    """Solve with SciPy's (batched) triangular solver; shapes already checked, dtypes equal.
    A zero on the diagonal gives infinities and NaNs, as PyTorch's trsm does (SciPy's solver
    refuses such a matrix: BLAS's trsm, which does not look, solves it then)."""
    from scipy.linalg import LinAlgError
    if not unitriangular and A.size and _tiny_diagonal(A):
        return _substitute(A, B, upper, left)
    try:
        return _triangular_solve(A, B, upper, left, unitriangular)
    except LinAlgError:
        return _trsm(A, B, upper, left, unitriangular)


# NOTE [triangular solves divide]: PyTorch's trsm (MKL's) divides by each diagonal entry;
# OpenBLAS's, which SciPy calls, multiplies by the diagonal's reciprocals, computed first. The
# two agree (to rounding) for ordinary diagonals and part at a zero or denormal one: there the
# reciprocal is inf and a zero numerator gives 0 * inf = NaN where PyTorch's 0 / 1e-45 is 0,
# and the residual b1 - a10 * (b0 / a00) of equal rows (an expanded input) rounds to 0 (0 / 0:
# NaN in PyTorch) where b1 - a10 * (b0 * (1 / a00)) does not (-inf). Such matrices are solved
# by substitution here, column by column as a trsm's updates run, dividing.
def _tiny_diagonal(A):
    diagonal = np.abs(np.diagonal(A, axis1=-2, axis2=-1))
    return bool((diagonal < np.finfo(A.dtype).tiny).any())


def _substitute(A, B, upper, left):
    """A^-1 B (or B A^-1) by substitution, dividing by the diagonal (NOTE [triangular solves
    divide]); A triangular (only its `upper` or lower triangle read)."""
    batch = broadcast_batch(A.shape[:-2], B.shape[:-2])
    A = np.broadcast_to(A, batch + A.shape[-2:])
    B = np.broadcast_to(B, batch + B.shape[-2:])
    if not left:                    # X A = B  <=>  A^T X^T = B^T, the other triangle
        A, B, upper = A.swapaxes(-1, -2), B.swapaxes(-1, -2), not upper
    n = A.shape[-1]
    rest = np.array(B, copy=True)
    X = np.empty_like(rest)
    order = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(all="ignore"):
        for k in order:
            X[..., k, :] = rest[..., k, :] / A[..., k, k, None]
            others = slice(0, k) if upper else slice(k + 1, n)
            rest[..., others, :] -= A[..., others, k, None] * X[..., None, k, :]
    return X if left else X.swapaxes(-1, -2)


def _trsm(A, B, upper, left, unitriangular):
    from scipy.linalg.blas import get_blas_funcs
    batch = broadcast_batch(A.shape[:-2], B.shape[:-2])
    A_b = np.broadcast_to(A, batch + A.shape[-2:]).reshape((-1,) + A.shape[-2:])
    B_b = np.broadcast_to(B, batch + B.shape[-2:]).reshape((-1,) + B.shape[-2:])
    trsm = get_blas_funcs("trsm", (A_b, B_b))
    out = np.empty(B_b.shape, B.dtype)
    for i in range(A_b.shape[0]):
        out[i] = trsm(1.0, A_b[i], B_b[i], side=0 if left else 1, lower=not upper,
                      diag=1 if unitriangular else 0)
    return out.reshape(batch + B.shape[-2:])


def _triangular_solve(A, B, upper, left, unitriangular):
    from scipy.linalg import solve_triangular as scipy_solve
    batch = broadcast_batch(A.shape[:-2], B.shape[:-2])
    if left:
        A_b = np.broadcast_to(A, batch + A.shape[-2:])
        B_b = np.broadcast_to(B, batch + B.shape[-2:])
        if B_b.size == 0 or A_b.size == 0:
            return np.zeros(batch + B.shape[-2:], dtype=B.dtype)
        return scipy_solve(A_b, B_b, lower=not upper, unit_diagonal=unitriangular,
                           check_finite=False)
    # X A = B  <=>  A^T X^T = B^T: the same triangle of A, transposed by the solver.
    A_b = np.broadcast_to(A, batch + A.shape[-2:])
    B_t = np.broadcast_to(B, batch + B.shape[-2:]).swapaxes(-1, -2)
    if B_t.size == 0 or A_b.size == 0:
        return np.zeros(batch + B.shape[-2:], dtype=B.dtype)
    X_t = scipy_solve(A_b, B_t, trans="T", lower=not upper, unit_diagonal=unitriangular,
                      check_finite=False)
    return X_t.swapaxes(-1, -2)


@register_op("linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, "
             "bool unitriangular=False) -> Tensor", kind="generic", function=False,
             method=False, meta=_triangular_meta, saves=("self", "result"),
             derivatives=_triangular_grads(), tags=("fp_errors",))
@host_kernel
def linalg_solve_triangular(xp, self, B, upper, left=True, unitriangular=False):
    """linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False) -> Tensor."""
    _, dtype = _triangular_checks(self, B, left)
    np_dtype = dtype._np
    A, B = self.astype(np_dtype, copy=False), B.astype(np_dtype, copy=False)
    check_kernel_dtype("triangular_solve_cpu", A)
    X = triangular_kernel(xp, A, B, upper, left, unitriangular)
    return _fresh(xp, X, np_dtype)


# --------------------------------------------------------------------------- cholesky_solve

def _cholesky_solve_checks(B, L):
    _check(B.ndim >= 2, lambda: (
        f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead"))
    _check(L.ndim >= 2, lambda: (
        f"u should have at least 2 dimensions, but has {L.ndim} dimensions instead"))
    _check(B.dtype == L.dtype, lambda: (
        f"Expected b and A to have the same dtype, but found b of type "
        f"{dt.NP_TO_DTYPE[np.dtype(B.dtype)]._cpp_name} and A of type "
        f"{dt.NP_TO_DTYPE[np.dtype(L.dtype)]._cpp_name} instead."))
    _check(L.shape[-1] == L.shape[-2], lambda: (
        f"A must be batches of square matrices, but they are {L.shape[-2]} by {L.shape[-1]} "
        "matrices"))
    _check(L.shape[-1] == B.shape[-2], lambda: (
        f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-2]} by "
        f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"))
    check_kernel_dtype("cholesky_solve_cpu", B)
    return broadcast_batch(B.shape[:-2], L.shape[:-2]) + B.shape[-2:]


def _cholesky_solve_meta(self, input2, upper=False):
    return _cholesky_solve_checks(self._data, input2._data), self._dtype


def _cholesky_solve_grads():
    def grad_B(c):
        return call(OPS["cholesky_solve"], (c.grad, c.input2, c.upper))

    def grad_L(c):
        gB = grad_B(c)
        common = gB @ c.result.mH
        common = common + common.mH
        return -(c.input2 @ common) if c.upper else -(common @ c.input2)
    return {"self": grad_B, "input2": grad_L}


@register_op("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor",
             kind="generic", meta=_cholesky_solve_meta, saves=("input2", "result"),
             derivatives=_cholesky_solve_grads(), tags=("fp_errors",))
@host_kernel
def cholesky_solve(xp, self, input2, upper=False):
    """cholesky_solve(B, L, upper=False, *, out=None) -> Tensor: solves A X = B given the
    Cholesky factor L of A (U with upper=True)."""
    _cholesky_solve_checks(self, input2)
    # A = L L^H: X = L^-H (L^-1 B); with U (A = U^H U): X = U^-1 (U^-H B).
    first = xp.conj(input2).swapaxes(-1, -2) if upper else input2
    Y = triangular_kernel(xp, first, self, upper=False)
    second = input2 if upper else xp.conj(input2).swapaxes(-1, -2)
    X = triangular_kernel(xp, second, Y, upper=True)
    return _fresh(xp, X, self.dtype)


# --------------------------------------------------------------------------- inverse

def _inv_checks(A):
    api = "linalg.inv"
    check_matrix(api, A)
    check_floating(api, A)
    check_square(api, A)


def _inv_ex_meta(A, check_errors=False):
    _inv_checks(A._data)
    return [(A.shape, A._dtype), (tuple(A.shape[:-2]), dt.int32)]


def _inv_grad(c):
    X = c.results[0]
    return -(X.mH @ c.grad @ X.mH)


def _batched_or_info(xp, A, fn, fill_shape):
    """fn(A) on the whole batch; if a matrix is singular, fn on the others, NaN for it, and
    getrf's info per matrix (NOTE [linalg errors from info])."""
    try:
        return fn(A), _info_zeros(xp, A)
    except np.linalg.LinAlgError:
        info = xp.asarray(lu_info(np.asarray(A)))
    good = info == 0
    if backend_helpers(xp).host:     # NOTE [what _ex returns for a failed matrix]
        result = singular_solve(A, np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape))
    else:
        result = xp.full(fill_shape, np.nan, dtype=A.dtype)
    if good.any():
        result[good] = fn(A[good])
    return result, info


# NOTE [single precision solves overflow in single precision]: NumPy's solve and inv take
# float32 and complex64 matrices through LAPACK in double precision and round the answer once;
# PyTorch's run LAPACK in the matrices' own precision. The two agree to rounding unless a step
# overflows the single range (a pivot of 1e-40: 1 / pivot is inf in float32, and 0 * inf then
# NaN, where double precision finds a number past float32's largest value, rounded to inf).
# So a matrix whose rounded answer is not finite is solved again by getrf + getrs in its own
# precision (a check of the answer; finite answers, the usual case, cost that check only).
def _single_precision_overflow(xp, A, X, again, matrix_dims):
    if A.dtype not in (np.float32, np.complex64) or X.size == 0 or not backend_helpers(xp).host:
        return X
    finite = np.isfinite(X).all(axis=tuple(range(-matrix_dims, 0)))
    if finite.all():
        return X
    bad = ~finite
    X = np.array(X)
    with np.errstate(all="ignore"):
        X[bad] = again(bad)
    return X


@register_op("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, "
             "Tensor info)", kind="generic", function=False, method=False, meta=_inv_ex_meta,
             saves=("result",), derivatives={"A": _inv_grad},
             node_name="LinalgInvExBackward0", tags=("fp_errors",))
@host_kernel
def linalg_inv_ex(xp, A, check_errors=False):
    """linalg.inv_ex(A, *, check_errors=False) -> (inverse, info)."""
    _inv_checks(A)
    if A.size == 0:
        return xp.zeros(A.shape, dtype=A.dtype), _info_zeros(xp, A)
    inverse, info = _batched_or_info(xp, A, xp.linalg.inv, A.shape)
    inverse = _single_precision_overflow(xp, A, inverse, lambda bad: singular_solve(
        A[bad], np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A[bad].shape)), 2)
    if check_errors:
        raise_from_info("linalg.inv", A, info, "inverse")
    return _fresh(xp, inverse, A.dtype), info


# --------------------------------------------------------------------------- solve

def is_vector_rhs(A, B) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) when it is 1-D, or has exactly A's batch
    shape plus one dimension."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve_checks(A, B, left):
    api = "linalg.solve"
    check_matrix(api, A)
    check_floating(api, A)
    check_square(api, A)
    check_same_dtype(api, A, B)
    vector = is_vector_rhs(A, B)
    B_rows = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    B_text = (f"{B.shape[-1]}x1" if vector else f"{B.shape[-2]}x{B.shape[-1]}")
    _check(A.shape[-1] == B_rows, lambda: (
        f"{api}: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
        f"({A.shape[-2]}x{A.shape[-1]} and {B_text})"))
    if vector:
        return broadcast_batch(A.shape[:-2], B.shape[:-1]) + B.shape[-1:]
    return broadcast_batch(A.shape[:-2], B.shape[:-2]) + B.shape[-2:]


def _solve_ex_meta(A, B, left=True, check_errors=False):
    shape = _solve_checks(A._data, B._data, left)
    return [(shape, A._dtype), (tuple(A.shape[:-2]), dt.int32)]


def _solve_grads():
    def grad_B(c):
        A, g = c.A, c.grad
        if is_vector_rhs(A, c.B):
            return solve(A.mH, g.unsqueeze(-1)).squeeze(-1)
        return solve(A.mH, g, c.left)

    def grad_A(c):
        gB = grad_B(c)
        X = c.results[0]
        if is_vector_rhs(c.A, c.B):
            return -(gB.unsqueeze(-1) @ X.unsqueeze(-1).mH)
        return -(gB @ X.mH) if c.left else -(X.mH @ gB)
    return {"A": grad_A, "B": grad_B}


def _solve_kernel(xp, A, B, left, vector):
    if vector:
        return xp.linalg.solve(A, B[..., None])[..., 0]
    if left:
        return xp.linalg.solve(A, B)
    # X A = B  <=>  A^T X^T = B^T
    return xp.linalg.solve(A.swapaxes(-1, -2), B.swapaxes(-1, -2)).swapaxes(-1, -2)


def _singular_solve_kernel(A, B, left, vector):
    """_solve_kernel through getrf + getrs matrix by matrix, singular matrices included."""
    if vector:
        return singular_solve(A, B[..., None])[..., 0]
    if left:
        return singular_solve(A, B)
    return singular_solve(A, B.swapaxes(-1, -2), transposed=True).swapaxes(-1, -2)


@register_op("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) "
             "-> (Tensor result, Tensor info)", kind="generic", function=False, method=False,
             meta=_solve_ex_meta, saves=("A", "B", "result0"), derivatives=_solve_grads(),
             node_name="LinalgSolveExBackward0", tags=("fp_errors",))
@host_kernel
def linalg_solve_ex(xp, A, B, left=True, check_errors=False):
    """linalg.solve_ex(A, B, *, left=True, check_errors=False) -> (result, info)."""
    shape = _solve_checks(A, B, left)
    vector = is_vector_rhs(A, B)
    batch = shape[:-1] if vector else shape[:-2]
    A_b = xp.broadcast_to(A, batch + A.shape[-2:])
    B_b = xp.broadcast_to(B, shape)
    if A_b.size == 0 or B_b.size == 0:
        return xp.zeros(shape, dtype=A.dtype), xp.zeros(A.shape[:-2], dtype=_INT32)
    try:
        X = _solve_kernel(xp, A_b, B_b, left, vector)
        info = xp.zeros(A.shape[:-2], dtype=_INT32)
    except np.linalg.LinAlgError:
        # NOTE [linalg errors from info]: one info per matrix of A (not of the broadcast).
        info = xp.asarray(lu_info(np.ascontiguousarray(A)))
        good = xp.broadcast_to(info == 0, batch)
        if backend_helpers(xp).host:     # NOTE [what _ex returns for a failed matrix]
            X = _singular_solve_kernel(A_b, B_b, left, vector)
        else:
            X = xp.full(shape, np.nan, dtype=A.dtype)
        if good.any():
            X[good] = _solve_kernel(xp, A_b[good], B_b[good], left, vector)
    X = _single_precision_overflow(xp, A_b, X, lambda bad: _singular_solve_kernel(
        A_b[bad], B_b[bad], left, vector), 1 if vector else 2)
    if check_errors:
        raise_from_info("torch.linalg.solve", A, info, "solve")
    return _fresh(xp, X, A.dtype), info

