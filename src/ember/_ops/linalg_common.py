"""What the linear-algebra families (linalg_solve.py, linalg_eigen.py, ...) share: the
LinAlgError class, the argument checks with PyTorch's messages, and the LAPACK `info` of a
failed factorization turned into PyTorch's error text.

Checks take anything with `.shape`, `.ndim` and a NumPy `.dtype`, so kernels (raw arrays) and
meta rules (MetaArrays, via `t._data`) raise alike.

NOTE [linalg errors from info]: LAPACK reports a failed factorization per matrix as an
integer `info` (the order of the first non-positive leading minor for Cholesky, the first zero
pivot for LU). NumPy's batched calls raise one LinAlgError for the whole batch without it, so
the kernels run the batched call first and, only when it fails, compute `info` matrix by
matrix (`cholesky_info`, `lu_info`). The `_ex` forms return that `info`; the others raise
`LinAlgError` with PyTorch's text, "(Batch element i): " first when the input is batched.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check, _check_not_implemented


class LinAlgError(RuntimeError):
    """Raised when a matrix is singular or not positive-definite (PyTorch's
    torch.linalg.LinAlgError, a RuntimeError)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "ember._C"

_LOW_PRECISION = frozenset(("float16", "bfloat16"))


def svd_arrays(xp, A, **options):
    """xp.linalg.svd(A, **options), raising PyTorch's LinAlgError (not NumPy's, a ValueError)
    where LAPACK does not converge. NOTE [no LAPACK on infinite input]: a matrix holding an
    infinity can keep LAPACK's SVD iterating for ever; such matrices are not handed to it and
    their factors are NaN, as PyTorch's are (a NaN input is refused as PyTorch's LAPACK refuses
    it, below)."""
    if A.size and A.dtype.kind in "fc" and not bool(xp.isnan(A).any()):
        finite = xp.isfinite(A).all(axis=(-2, -1))
        if not bool(finite.all()):
            stand_in = xp.where(finite[..., None, None], A, A.dtype.type(0))
            factors = xp.linalg.svd(stand_in, **options)
            bad = ~finite
            for part in factors if isinstance(factors, tuple) else (factors,):
                part[bad] = np.nan
            return factors
    try:
        return xp.linalg.svd(A, **options)
    except np.linalg.LinAlgError:
        reason = ("contained non-finite values" if not np.isfinite(A).all() else
                  "is ill-conditioned or has too many repeated singular values")
        raise LinAlgError(f"linalg.svd: The algorithm failed to converge because the input "
                          f"matrix {reason}.") from None


def cpp_name(np_dtype) -> str:
    return dt.NP_TO_DTYPE[np.dtype(np_dtype)]._cpp_name


def check_matrix(api: str, A, arg: str = "A") -> None:
    _check(A.ndim >= 2, lambda: (
        f"{api}: The input tensor {arg} must have at least 2 dimensions."))


def check_square(api: str, A, arg: str = "A") -> None:
    check_matrix(api, A, arg)
    _check(A.shape[-1] == A.shape[-2], lambda: (
        f"{api}: {arg} must be batches of square matrices, but they are {A.shape[-2]} by "
        f"{A.shape[-1]} matrices"))


def check_floating(api: str, A, low_precision: bool = True) -> None:
    """Floating or complex input; half types refused with "Low precision dtypes not supported"
    where PyTorch checks that (`low_precision`), else left for `check_kernel_dtype`."""
    kind = A.dtype.kind
    _check(kind in "fcV", lambda: (
        f"{api}: Expected a floating point or complex tensor as input. Got "
        f"{cpp_name(A.dtype)}"))
    if low_precision:
        _check(np.dtype(A.dtype).name not in _LOW_PRECISION, lambda: (
            f"{api}: Low precision dtypes not supported. Got {cpp_name(A.dtype)}"))


def check_kernel_dtype(kernel: str, A) -> None:
    """The CPU kernels exist for float32/64 and complex64/128 only."""
    name = np.dtype(A.dtype).name
    _check_not_implemented(name in ("float32", "float64", "complex64", "complex128"),
                           lambda: f'"{kernel}" not implemented for \'{cpp_name(A.dtype)}\'')


def check_same_dtype(api: str, A, B, a_name: str = "A", b_name: str = "B") -> None:
    _check(A.dtype == B.dtype, lambda: (
        f"{api}: Expected {a_name} and {b_name} to have the same dtype, but found {a_name} of "
        f"type {cpp_name(A.dtype)} and {b_name} of type {cpp_name(B.dtype)} instead"))


def real_dtype(np_dtype):
    """The real dtype of a (possibly complex) NumPy dtype."""
    return np.empty(0, dtype=np_dtype).real.dtype


def batch_prefix(A, index: int) -> str:
    return f"(Batch element {index}): " if A.ndim > 2 else ""


def raise_from_info(api: str, A, info, kind: str) -> None:
    """Raise PyTorch's LinAlgError for the first failed matrix in `info` (NOTE [linalg errors
    from info]); nothing when every entry is 0."""
    flat = np.asarray(info).reshape(-1)
    failed = np.flatnonzero(flat)
    if failed.size == 0:
        return
    index = int(failed[0])
    code = int(flat[index])
    prefix = batch_prefix(A, index)
    if kind == "cholesky":
        text = ("The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {code} is not "
                "positive-definite).")
    elif kind == "inverse":
        text = (f"The diagonal element {code} is zero, the inversion could not be completed "
                "because the input matrix is singular.")
    else:
        text = "The solver failed because the input matrix is singular."
    raise LinAlgError(f"{api}: {prefix}{text}")


def _per_matrix(A, lapack_name: str, call):
    """`info` for each matrix of a batch from a LAPACK routine (the error path only)."""
    from scipy.linalg import get_lapack_funcs
    batch = A.shape[:-2]
    flat = A.reshape((-1,) + A.shape[-2:])
    info = np.zeros(flat.shape[0], dtype=np.int32)
    if flat.shape[0]:
        routine = get_lapack_funcs(lapack_name, (flat[0],))
        for k in range(flat.shape[0]):
            info[k] = call(routine, flat[k])
    return info.reshape(batch)


def cholesky_info(A):
    """potrf's info per matrix of A (lower triangle read), as int32 of A's batch shape."""
    return _per_matrix(A, "potrf", lambda potrf, a: potrf(a, lower=True, clean=False)[1])


def lu_info(A):
    """getrf's info per matrix of A (the 1-based index of the first zero pivot, or 0)."""
    return _per_matrix(A, "getrf", lambda getrf, a: getrf(a)[2])


# NOTE [what _ex returns for a failed matrix]: PyTorch's `_ex` forms return LAPACK's own output
# for a matrix that failed: potrf's partial factor (the columns done before the failing pivot,
# the rest of the lower triangle as the input left it, the other triangle zero), and for inv
# and solve the getrf + getrs result of the singular factor (infinities and NaNs from its zero
# pivot). The error path calls the same LAPACK routines, through SciPy, matrix by matrix.

def partial_cholesky(A):
    """potrf's (lower, cleaned) output for each matrix of A, whether or not it failed."""
    return _per_matrix_array(A, "potrf", lambda potrf, a: potrf(a, lower=True, clean=True)[0])


def singular_solve(A, B, transposed=False):
    """getrs(getrf(A), B) for each matrix of A and of B (same batch), zero pivots included;
    `transposed` solves A^T X = B with the same factor (PyTorch's way to X A = B)."""
    from scipy.linalg import get_lapack_funcs
    flat_a = A.reshape((-1,) + A.shape[-2:])
    flat_b = B.reshape((-1,) + B.shape[-2:])
    out = np.empty(flat_b.shape, np.result_type(A, B))
    if flat_a.shape[0]:
        getrf, getrs = get_lapack_funcs(("getrf", "getrs"), (flat_a[0], flat_b[0]))
        with np.errstate(all="ignore"):
            for k in range(flat_a.shape[0]):
                lu, piv, _ = getrf(flat_a[k])
                out[k] = getrs(lu, piv, flat_b[k], trans=1 if transposed else 0)[0]
    return out.reshape(B.shape)


def _per_matrix_array(A, lapack_name: str, call):
    """An array result of a LAPACK routine for each matrix of a batch (the error path)."""
    from scipy.linalg import get_lapack_funcs
    flat = A.reshape((-1,) + A.shape[-2:])
    out = np.empty(flat.shape, A.dtype)
    if flat.shape[0]:
        routine = get_lapack_funcs(lapack_name, (flat[0],))
        for k in range(flat.shape[0]):
            out[k] = call(routine, flat[k])
    return out.reshape(A.shape)


def eye_like(t):
    """An identity of t's matrix size, dtype and device (for derivative formulas)."""
    n = t.shape[-1]
    return t.new_ones(n).diag_embed()
