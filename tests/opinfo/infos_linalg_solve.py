"""OpInfo entries for ember.linalg's factorizations, solvers, determinants and eigh
(src/ember/_ops/linalg_solve.py, linalg_spectral.py, linalg_frontends.py).

Inputs are built well-conditioned (diagonally dominant, or A A^H + n I for the positive-
definite ones). Ops that read one triangle of a Hermitian input are called on (A + A^H) / 2 so
that finite differences see the function the derivative describes; eigh's eigenvectors are
compared through |V| (each is fixed only up to a sign or phase, which two LAPACKs may choose
differently).
"""
import numpy as np

from opinfo.core import ALL_FLOAT, ErrorSample, OpInfo, Sample, T

FLOAT_AND_COMPLEX = ALL_FLOAT + ("complex64", "complex128")
# NumPy's LAPACK and PyTorch's (MKL or OpenBLAS, blocked differently) factor in their own
# order; in single precision the results differ by the condition number times float32's eps.
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}


def _general(make, d, shape):
    n = shape[-1]
    return (make(shape, d, -1, 1) + 3 * np.eye(n)).astype(d)


def _positive_definite(make, d, shape):
    n = shape[-1]
    a = make(shape, d, -1, 1)
    return (a @ np.conj(a).swapaxes(-1, -2) + n * np.eye(n)).astype(d)


def _lower(make, d, shape):
    return np.tril(_general(make, d, shape)).astype(d)


def _hermitian(lib, A):
    return (A + A.mH) / 2


# --------------------------------------------------------------------------- samples

def square_samples(make, d):
    yield Sample((T(_general(make, d, (3, 3))),), name="3x3")
    yield Sample((T(_general(make, d, (2, 3, 3))),), name="batch")
    yield Sample((T(_general(make, d, (1, 1))),), name="1x1")
    yield Sample((T(make((0, 0), d)),), name="empty")


def pd_samples(make, d):
    yield Sample((T(_positive_definite(make, d, (3, 3))),), name="3x3")
    yield Sample((T(_positive_definite(make, d, (2, 3, 3))),), name="batch")
    yield Sample((T(make((0, 0), d)),), name="empty")


def cholesky_samples(make, d):
    yield from pd_samples(make, d)
    yield Sample((T(_positive_definite(make, d, (2, 3, 3))),), {"upper": True}, name="upper")


def eigh_samples(make, d):
    yield from pd_samples(make, d)
    yield Sample((T(_positive_definite(make, d, (3, 3))),), {"UPLO": "U"}, name="UPLO=U")


def solve_samples(make, d):
    yield Sample((T(_general(make, d, (3, 3))), T(make((3, 2), d))), name="matrix")
    yield Sample((T(_general(make, d, (3, 3))), T(make((3,), d))), name="vector")
    yield Sample((T(_general(make, d, (2, 3, 3))), T(make((2, 3), d))), name="batched vector")
    yield Sample((T(_general(make, d, (2, 1, 3, 3))), T(make((4, 3, 2), d))),
                 name="broadcast")
    yield Sample((T(_general(make, d, (3, 3))), T(make((2, 3), d))), {"left": False},
                 name="left=False")


def triangular_samples(make, d):
    for upper in (False, True):
        A = _lower(make, d, (2, 3, 3))
        A = A.swapaxes(-1, -2).copy() if upper else A
        yield Sample((T(A), T(make((2, 3, 2), d))), {"upper": upper}, name=f"upper={upper}")
    yield Sample((T(_lower(make, d, (3, 3))), T(make((2, 3), d))),
                 {"upper": False, "left": False}, name="left=False")
    yield Sample((T(_lower(make, d, (3, 3))), T(make((2, 3, 1), d))),
                 {"upper": False, "unitriangular": True}, name="unitriangular broadcast")


def cholesky_solve_samples(make, d):
    L = np.linalg.cholesky(_positive_definite(make, d, (3, 3)))
    yield Sample((T(make((3, 2), d)), T(L)), name="lower")
    yield Sample((T(make((2, 3, 1), d)), T(np.conj(L).T.copy())), {"upper": True},
                 name="upper broadcast")


def old_triangular_samples(make, d):
    yield Sample((T(make((2, 1), d)), T(_lower(make, d, (2, 2)).T.copy())), name="2x2")
    A = _lower(make, d, (2, 3, 3))
    B = make((2, 3, 2), d)
    yield Sample((T(B), T(A.swapaxes(-1, -2).copy())), name="upper")
    yield Sample((T(B), T(A)), {"upper": False, "transpose": True}, name="lower transposed")
    yield Sample((T(B), T(A)), {"upper": False, "unitriangular": True}, name="unit")


def cholesky_inverse_samples(make, d):
    L = np.linalg.cholesky(_positive_definite(make, d, (2, 3, 3)))
    yield Sample((T(L),), name="lower")
    yield Sample((T(np.conj(L).swapaxes(-1, -2).copy()), True), name="upper")


# --------------------------------------------------------------------------- errors

def _e(args, error, match, kwargs=None, name=""):
    return ErrorSample(Sample(tuple(args), kwargs or {}, name or match), error, match)


def inv_errors(make):
    yield _e([T(make((3, 2), "float64"))], RuntimeError, "must be batches of square matrices")
    yield _e([T(make((3,), "float64"))], RuntimeError, "at least 2 dimensions")
    yield _e([T(make((3, 3), "int64"))], RuntimeError, "Expected a floating point")
    yield _e([T(np.zeros((2, 3, 3)))], RuntimeError,
             "linalg.inv: (Batch element 0): The diagonal element 1 is zero")


def cholesky_errors(make):
    yield _e([T(-np.eye(3))], RuntimeError, "the leading minor of order 1 is not positive")


def solve_errors(make):
    yield _e([T(np.zeros((3, 3))), T(np.ones((3, 1)))], RuntimeError,
             "The solver failed because the input matrix is singular")
    yield _e([T(np.eye(3)), T(np.ones(2))], RuntimeError,
             "Incompatible shapes of A and B for the equation AX = B (3x3 and 2x1)")
    yield _e([T(np.eye(3)), T(np.ones((3, 1), np.float32))], RuntimeError, "same dtype")


def eigh_errors(make):
    yield _e([T(np.eye(3))], RuntimeError, "Expected UPLO argument", {"UPLO": "X"})


OPINFOS = [
    OpInfo("linalg.cholesky", cholesky_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           call=lambda lib, A, **kw: lib.linalg.cholesky(_hermitian(lib, A), **kw),
           supports_out=False, errors=cholesky_errors, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.cholesky_ex", cholesky_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           tolerances=TOL),
    OpInfo("linalg.inv", square_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           errors=inv_errors, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.inv_ex", square_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           tolerances=TOL),
    OpInfo("inverse", square_samples, dtypes=FLOAT_AND_COMPLEX, tolerances=TOL),
    OpInfo("linalg.det", square_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("det", square_samples, dtypes=FLOAT_AND_COMPLEX, supports_out=False,
           tolerances=TOL),
    OpInfo("linalg.slogdet", square_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("slogdet", square_samples, dtypes=FLOAT_AND_COMPLEX, tolerances=TOL),
    OpInfo("logdet", pd_samples, dtypes=FLOAT_AND_COMPLEX, supports_autograd=True,
           supports_out=False, tolerances=TOL),
    OpInfo("linalg.solve", solve_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           errors=solve_errors, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.solve_ex", solve_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           tolerances=TOL),
    OpInfo("linalg.solve_triangular", triangular_samples, dtypes=FLOAT_AND_COMPLEX,
           method=False, supports_autograd=True, tolerances=TOL),
    OpInfo("cholesky_solve", cholesky_solve_samples, dtypes=FLOAT_AND_COMPLEX,
           call=lambda lib, B, L, **kw: lib.cholesky_solve(B, L.tril() if not kw.get(
               "upper") else L.triu(), **kw),
           method=False, supports_out=False, supports_autograd=True, tolerances=TOL),
    OpInfo("triangular_solve", old_triangular_samples, dtypes=FLOAT_AND_COMPLEX,
           supports_out=False, supports_autograd=True, tolerances=TOL,
           # PyTorch's forward AD of the deprecated triangular_solve reads all of A's tangent,
           # its reverse mode only A's triangle; ember follows the reverse mode (and
           # linalg.solve_triangular agrees with PyTorch in both).
           forward_ad=False),
    OpInfo("cholesky_inverse", cholesky_inverse_samples, dtypes=FLOAT_AND_COMPLEX,
           supports_out=False, tolerances=TOL),
    OpInfo("linalg.eigh", eigh_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           call=lambda lib, A, **kw: _gauge_free(lib.linalg.eigh(_hermitian(lib, A), **kw)),
           supports_out=False, errors=eigh_errors, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.eigvalsh", eigh_samples, dtypes=FLOAT_AND_COMPLEX, method=False,
           call=lambda lib, A, **kw: lib.linalg.eigvalsh(_hermitian(lib, A), **kw),
           supports_out=False, supports_autograd=True, tolerances=TOL),
]


def _gauge_free(result):
    values, vectors = result
    return values, vectors.abs()
