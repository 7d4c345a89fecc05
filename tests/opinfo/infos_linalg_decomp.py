"""OpInfo entries for the rest of ember.linalg (norms, svd/qr/eig, LU and LDL, matrix
functions, lstsq ...; src/ember/_ops/linalg_factor.py, linalg_composite.py) and the older
`ember.*` forms (lu_unpack, qr, svd, pinverse, geqrf, orgqr, ormqr ...).

Decompositions whose factors are fixed only up to signs or phases (svd, eig) are compared
through gauge-free quantities (|U|, |V|), as their derivatives are.
"""
import numpy as np

from opinfo.core import ALL_FLOAT, OpInfo, Sample, Skip, T

FC = ALL_FLOAT + ("complex64", "complex128")
# NumPy's LAPACK and PyTorch's (MKL or OpenBLAS, blocked differently) factor in their own
# order; in single precision the results differ by the condition number times float32's eps.
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}


def _general(make, d, shape):
    n = shape[-1]
    return (make(shape, d, -1, 1) + 3 * np.eye(shape[-2], n)).astype(d)


def square(make, d):
    yield Sample((T(_general(make, d, (2, 2))),), name="2x2")
    yield Sample((T(_general(make, d, (3, 3))),), name="3x3")
    yield Sample((T(_general(make, d, (2, 2, 2))),), name="batch")


def rectangular(make, d):
    yield Sample((T(_general(make, d, (2, 2))),), name="2x2")
    yield Sample((T(make((4, 3), d, -1, 1)),), name="tall")
    yield Sample((T(make((2, 3, 4), d, -1, 1)),), name="wide batch")
    yield Sample((T(_general(make, d, (3, 3))),), name="square")


def vector_norm_samples(make, d):
    x = make((3, 4), d)
    for ord in (2, 1, 3.5, float("inf"), -float("inf")):
        yield Sample((T(x),), {"ord": ord}, name=f"ord={ord}")
    yield Sample((T(x),), {"ord": 2, "dim": 1, "keepdim": True}, name="dim keepdim")


def matrix_norm_samples(make, d):
    x = _general(make, d, (2, 3, 3))
    for ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
        yield Sample((T(x),), {"ord": ord}, name=f"ord={ord}")
    yield Sample((T(x),), {"ord": 1, "dim": (0, 2), "keepdim": True}, name="dims keepdim")


def norm_samples(make, d):
    yield Sample((T(make((3, 4), d)),), name="default 2d")
    yield Sample((T(make((2, 3, 4), d)),), name="default 3d")
    yield Sample((T(make((4,), d)),), {"ord": 3}, name="vector ord")
    yield Sample((T(_general(make, d, (3, 3))),), {"ord": "nuc"}, name="nuc")
    yield Sample((T(make((2, 3, 4), d)),), {"ord": float("inf"), "dim": (1, 2)},
                 name="matrix dims")


def two_vectors(make, d):
    yield Sample((T(make((2, 3), d)), T(make((2, 3), d))), name="rows")
    yield Sample((T(make((3, 4), d)), T(make((4,), d))), {"dim": -1}, name="broadcast")


def cross_samples(make, d):
    yield Sample((T(make((2, 3), d)), T(make((2, 3), d))), name="rows")
    yield Sample((T(make((3, 2), d)), T(make((3, 2), d))), {"dim": 0}, name="dim 0")


def multi_dot_samples(make, d):
    yield Sample(([T(make((2, 3), d)), T(make((3, 4), d)), T(make((4, 2), d))],), name="three")
    yield Sample(([T(make((3,), d)), T(make((3, 4), d)), T(make((4,), d))],), name="vectors")


def power_samples(make, d):
    yield Sample((T(_general(make, d, (2, 2))), 2), name="2x2 n=2")
    for n in (0, 1, 3, -2):
        yield Sample((T(_general(make, d, (2, 3, 3))), n), name=f"n={n}")


def exp_samples(make, d):
    yield Sample((T(make((3, 3), d, -1, 1)),), name="3x3")
    yield Sample((T(make((2, 2, 2), d, -1, 1)),), name="batch")


def householder_samples(make, d):
    yield Sample((T(make((2, 2), d, -1, 1)), T(make((1,), d, -1, 1))), name="2x2 k=1")
    yield Sample((T(make((4, 3), d, -1, 1)), T(make((2,), d, -1, 1))), name="4x3 k=2")
    yield Sample((T(make((2, 3, 3), d, -1, 1)), T(make((2, 3), d, -1, 1))), name="batch")


def tensorinv_samples(make, d):
    yield Sample((T(_general(make, d, (2, 2)).reshape(2, 2, 1)),), {"ind": 1}, name="2x2x1")
    yield Sample((T(_general(make, d, (6, 6)).reshape(6, 2, 3)),), {"ind": 1}, name="ind=1")
    yield Sample((T(_general(make, d, (4, 4)).reshape(2, 2, 2, 2)),), name="ind=2")


def tensorsolve_samples(make, d):
    yield Sample((T(_general(make, d, (2, 2)).reshape(2, 1, 2)), T(make((2, 1), d))),
                 name="2x1x2")
    A = _general(make, d, (6, 6)).reshape(2, 3, 6)
    yield Sample((T(A), T(make((2, 3), d))), name="2x3x6")
    yield Sample((T(A.transpose(2, 0, 1).copy()), T(make((2, 3), d))), {"dims": (0,)},
                 name="dims")


def vander_samples(make, d):
    yield Sample((T(make((4,), d, -2, 2)),), name="4")
    yield Sample((T(make((2, 3), d, -2, 2)),), {"N": 5}, name="N=5")


def _lu_inputs(make, d, shape):
    import scipy.linalg
    A = _general(make, d, shape).reshape((-1,) + shape[-2:])
    LU = np.empty_like(A)
    pivots = np.empty(A.shape[:-1], np.int32)
    for k in range(A.shape[0]):
        LU[k], p = scipy.linalg.lu_factor(A[k])
        pivots[k] = p + 1
    return LU.reshape(shape), pivots.reshape(shape[:-1])


def lu_solve_samples(make, d):
    LU, pivots = _lu_inputs(make, d, (2, 2))
    yield Sample((T(LU), T(pivots), T(make((2, 1), d))), name="2x2")
    LU, pivots = _lu_inputs(make, d, (2, 3, 3))
    B = make((2, 3, 2), d)
    for left, adjoint in ((True, False), (True, True), (False, False), (False, True)):
        rhs = B if left else B.swapaxes(-1, -2).copy()
        yield Sample((T(LU), T(pivots), T(rhs)), {"left": left, "adjoint": adjoint},
                     name=f"left={left} adjoint={adjoint}")


def old_lu_solve_samples(make, d):
    LU, pivots = _lu_inputs(make, d, (2, 3, 3))
    yield Sample((T(make((2, 3, 2), d)), T(LU), T(pivots)), name="batch")


def lu_unpack_samples(make, d):
    LU, pivots = _lu_inputs(make, d, (2, 2))
    yield Sample((T(LU), T(pivots)), name="2x2")
    LU, pivots = _lu_inputs(make, d, (2, 3, 3))
    yield Sample((T(LU), T(pivots)), name="3x3 batch")


def ldl_samples(make, d):
    a = make((2, 3, 3), d, -1, 1)
    symmetric = a + a.swapaxes(-1, -2)
    yield Sample((T(symmetric),), name="symmetric batch")


def ldl_solve(lib, A, B, **kwargs):
    LD, pivots = lib.linalg.ldl_factor(A, **kwargs)
    return lib.linalg.ldl_solve(LD, pivots, B, **kwargs)


def ldl_solve_samples(make, d):
    a = make((2, 3, 3), d, -1, 1)
    yield Sample((T(a + a.swapaxes(-1, -2)), T(make((2, 3, 2), d))), name="symmetric")
    if d.startswith("complex"):
        h = a + np.conj(a).swapaxes(-1, -2)
        yield Sample((T(h), T(make((2, 3, 2), d))), {"hermitian": True}, name="hermitian")


def lstsq_samples(make, d):
    yield Sample((T(make((3, 2), d, -1, 1)), T(make((3, 1), d))), name="3x2")
    for driver in (None, "gels", "gelsd", "gelss"):
        yield Sample((T(make((5, 3), d, -1, 1)), T(make((5, 2), d))), {"driver": driver},
                     name=f"tall {driver}")
    yield Sample((T(make((2, 4, 3), d, -1, 1)), T(make((2, 4, 2), d))), name="batch")


def rank_samples(make, d):
    yield Sample((T(make((4, 3), d)),), name="full")
    low = make((4, 2), d) @ make((2, 3), d)
    yield Sample((T(low.astype(d)),), name="rank 2")
    yield Sample((T(low.astype(d)),), {"atol": 1.0, "rtol": 0.0}, name="tolerances")


def pinv_samples(make, d):
    yield Sample((T(make((4, 3), d, -1, 1)),), name="tall")
    yield Sample((T(make((2, 2, 3), d, -1, 1)),), name="wide batch")


def ormqr_samples(make, d):
    yield Sample((T(make((2, 1), d, -1, 1)), T(make((1,), d, -1, 1)), T(make((2, 1), d))),
                 name="2x1 k=1")
    A = make((4, 3), d, -1, 1)
    tau = make((3,), d, -1, 1)
    for left in (True, False):
        for transpose in (False, True):
            C = make((4, 2), d) if left else make((2, 4), d)
            yield Sample((T(A), T(tau), T(C), left, transpose),
                         name=f"left={left} transpose={transpose}")


def _abs_factors(*factors):
    return tuple(f.abs() if i != 1 else f for i, f in enumerate(factors))


def _abs_vectors(values, vectors):
    return values, vectors.abs()


# Tangents come from the reverse formulas through a second backward (NOTE [forward AD from
# reverse formulas]), whose placeholder cotangent is not gauge-free: eig's check refuses it.
_EIG_FORWARD = {"forward_ad": False}
# These composites build host constants (pivot permutations, Householder masks, identities)
# that a meta tensor cannot hold.
NO_META = {"supports_meta": False}


OPINFOS = [
    OpInfo("linalg.vector_norm", vector_norm_samples, dtypes=FC, method=False,
           supports_out=False, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.matrix_norm", matrix_norm_samples, dtypes=FC, method=False,
           supports_out=False, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.norm", norm_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.diagonal", square, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True),
    OpInfo("linalg.vecdot", two_vectors, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True),
    OpInfo("linalg.cross", cross_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True),
    OpInfo("linalg.multi_dot", multi_dot_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.svd", rectangular, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: _abs_factors(*lib.linalg.svd(A, full_matrices=False)),
           supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.svdvals", rectangular, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("svd", rectangular, dtypes=FC, supports_out=False,
           call=lambda lib, A: _abs_factors(*lib.svd(A)), method=False, tolerances=TOL),
    OpInfo("linalg.qr", rectangular, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A, **kw: tuple(lib.linalg.qr(A, **kw)),
           supports_autograd=True, tolerances=TOL),
    OpInfo("qr", rectangular, dtypes=FC, supports_out=False, tolerances=TOL),
    OpInfo("linalg.eig", square, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: _abs_vectors(*lib.linalg.eig(A)), supports_autograd=True,
           **_EIG_FORWARD,
           tolerances=TOL),
    OpInfo("linalg.eigvals", square, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL, **_EIG_FORWARD),
    OpInfo("linalg.matrix_exp", exp_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("matrix_exp", exp_samples, dtypes=FC, supports_out=False, tolerances=TOL),
    OpInfo("linalg.matrix_power", power_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL, **NO_META),
    OpInfo("matrix_power", power_samples, dtypes=FC, supports_out=False, tolerances=TOL,
           **NO_META),
    OpInfo("linalg.pinv", pinv_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("pinverse", pinv_samples, dtypes=FC, supports_out=False, tolerances=TOL),
    OpInfo("linalg.matrix_rank", rank_samples, dtypes=FC, method=False, supports_out=False),
    OpInfo("linalg.cond", square, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.householder_product", householder_samples, dtypes=FC, method=False,
           supports_out=False, supports_autograd=True, tolerances=TOL, **NO_META),
    OpInfo("orgqr", householder_samples, dtypes=FC, supports_out=False, tolerances=TOL,
           **NO_META),
    OpInfo("ormqr", ormqr_samples, dtypes=FC, supports_out=False, supports_autograd=True,
           tolerances=TOL, **NO_META),
    OpInfo("geqrf", rectangular, dtypes=FC, supports_out=False, tolerances=TOL,
           **NO_META),
    OpInfo("linalg.tensorinv", tensorinv_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.tensorsolve", tensorsolve_samples, dtypes=FC, method=False,
           supports_out=False, supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.vander", vander_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL),
    OpInfo("linalg.lu_factor", square, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: tuple(lib.linalg.lu_factor(A)), supports_autograd=True,
           tolerances=TOL),
    OpInfo("linalg.lu_factor", rectangular, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: tuple(lib.linalg.lu_factor(A)), tolerances=TOL),
    OpInfo("linalg.lu_factor_ex", rectangular, dtypes=FC, method=False, supports_out=False,
           tolerances=TOL),
    OpInfo("linalg.lu", square, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: tuple(lib.linalg.lu(A)), supports_autograd=True,
           tolerances=TOL),
    OpInfo("linalg.lu", rectangular, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: tuple(lib.linalg.lu(A)), tolerances=TOL),
    OpInfo("linalg.lu_solve", lu_solve_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, tolerances=TOL, **NO_META),
    OpInfo("lu_solve", old_lu_solve_samples, dtypes=FC, supports_out=False, tolerances=TOL,
           **NO_META),
    OpInfo("lu_unpack", lu_unpack_samples, dtypes=FC, method=False, supports_out=False,
           supports_autograd=True, grad_args=(0,), **NO_META),
    OpInfo("linalg.ldl_factor", ldl_samples, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A: tuple(lib.linalg.ldl_factor(A)), tolerances=TOL),
    OpInfo("linalg.ldl_solve", ldl_solve_samples, dtypes=FC, method=False, supports_out=False,
           call=ldl_solve, tolerances=TOL),
    OpInfo("linalg.lstsq", lstsq_samples, dtypes=FC, method=False, supports_out=False,
           call=lambda lib, A, B, **kw: tuple(lib.linalg.lstsq(A, B, **kw)),
           supports_autograd=True, grad_args=(0, 1), tolerances=TOL, **NO_META,
           known=(Skip("gradcheck", "singular_values has no gradient (as in PyTorch); "
                       "gradcheck wants every floating output differentiable",
                       ("tall gelsd", "tall gelss")),)),
]
