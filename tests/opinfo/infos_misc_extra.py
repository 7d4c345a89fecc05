"""OpInfo entries for src/ember/_ops/misc_complex.py, misc_stats.py and misc_numeric.py:
complex, polar, histogram, histogramdd, cov, corrcoef, dist, vander, trapezoid, trapz,
cumulative_trapezoid, unravel_index and Tensor.sum_to_size."""
import numpy as np

from opinfo.core import ALL_FLOAT, ALL_TYPES, COMPLEX, ErrorSample, OpInfo, Sample, Skip, T

FLOAT_AND_COMPLEX = ALL_FLOAT + COMPLEX


# --------------------------------------------------------------------------- complex, polar

def complex_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), dtype))), name="same shape")
    yield Sample((T(make((3, 1), dtype)), T(make((4,), dtype))), name="broadcast")
    yield Sample((T(make((), dtype)), T(make((2, 3), dtype))), name="0-d real")
    yield Sample((T(np.array([np.inf, -np.inf, np.nan], dtype)),
                  T(np.array([0.0, np.nan, 1.0], dtype))), name="inf and nan")
    yield Sample((T(make((0, 3), dtype)), T(make((0, 3), dtype))), name="empty")


def complex_errors(make):
    x = make((3,), "float32")
    yield ErrorSample(Sample((T(x), T(make((3,), "float64"))), name="mixed dtypes"),
                      RuntimeError, "scalar type Float")
    yield ErrorSample(Sample((T(make((3,), "int64")), T(make((3,), "int64"))), name="ints"),
                      RuntimeError, "Half, Float or Double")
    yield ErrorSample(Sample((T(x), T(make((4,), "float32"))), name="shapes"),
                      RuntimeError, "must match")


def polar_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype, low=0.1)), T(make((3, 4), dtype))), name="same shape")
    yield Sample((T(make((3, 1), dtype, low=0.1)), T(make((4,), dtype))), name="broadcast")
    yield Sample((T(np.zeros((2,), dtype)), T(make((2,), dtype))), name="zero abs")
    yield Sample((T(make((3,), dtype, low=0.1)), T(make((3,), dtype))), name="small")


# --------------------------------------------------------------------------- statistics

def histogram_samples(make, dtype):
    x = make((4, 5), dtype)
    yield Sample((T(x), 7), name="int bins")
    yield Sample((T(x), 3), {"range": (-1.0, 2.0)}, name="range")
    yield Sample((T(x), T(np.array([-4.0, -1.0, 0.0, 3.5], dtype))),
                 {"weight": T(make((4, 5), dtype))}, name="edges and weight")
    yield Sample((T(x), 4), {"density": True}, name="density")
    yield Sample((T(np.full((3,), 2.0, dtype)), 2), name="one-point range")
    yield Sample((T(make((0,), dtype)), 2), name="empty")
    yield Sample((T(np.array([1.0, np.nan, 3.0], dtype)), 2, ), {"range": (0.0, 4.0)},
                 name="nan skipped")


def histogram_errors(make):
    x = make((5,), "float32")
    yield ErrorSample(Sample((T(make((5,), "int64")), 3), name="ints"), NotImplementedError,
                      "histogramdd")
    yield ErrorSample(Sample((T(x), 0), name="no bins"), RuntimeError, "bins must be > 0")
    yield ErrorSample(Sample((T(x), 2), {"range": (3.0, 1.0)}, name="reversed range"),
                      RuntimeError, "min should not exceed max")
    yield ErrorSample(Sample((T(np.array([1.0, np.inf], "float32")), 2), name="inf"),
                      RuntimeError, "is not finite")
    yield ErrorSample(Sample((T(x), 2), {"weight": T(make((5,), "float64"))},
                             name="weight dtype"), RuntimeError, "same dtype")


def histogramdd_samples(make, dtype):
    points = make((6, 2), dtype)
    yield Sample((T(points), [3, 2]), name="bin counts")
    yield Sample((T(points), 2), {"range": [-2.0, 2.0, -1.0, 3.0], "density": True},
                 name="range density")
    yield Sample((T(points), [T(np.array([-5.0, 0.0, 5.0], dtype)),
                              T(np.array([-5.0, -1.0, 1.0, 5.0], dtype))]),
                 {"weight": T(make((6,), dtype))}, name="edges and weight")
    yield Sample((T(make((2, 3, 3), dtype)), [2, 2, 2]), name="3-d batch")


def cov_samples(make, dtype):
    x = make((3, 6), dtype)
    yield Sample((T(x),), name="default")
    yield Sample((T(make((6,), dtype)),), name="1-d")
    yield Sample((T(x),), {"correction": 0}, name="correction 0")
    yield Sample((T(x),), {"fweights": T(np.array([1, 2, 0, 3, 1, 1]))}, name="fweights")
    if dtype in ALL_FLOAT:
        yield Sample((T(x),), {"aweights": T(np.linspace(0.5, 2.0, 6).astype(dtype)),
                               "fweights": T(np.array([1, 2, 1, 3, 1, 1]))},
                     name="both weights")
    if dtype not in COMPLEX:
        # (ember divides a complex number by a real 0 as by a complex 0: inf-infj where
        # PyTorch has inf+nanj; a difference of `div`, not of cov.)
        yield Sample((T(make((2, 2), dtype)),), {"correction": 3}, name="negative dof")


def cov_errors(make):
    x = make((2, 3), "float32")
    yield ErrorSample(Sample((T(make((2, 2, 2), "float32")),), name="3-d"), RuntimeError,
                      "two or fewer dimensions")
    yield ErrorSample(Sample((T(x),), {"fweights": T(make((3,), "float32"))},
                             name="float fweights"), RuntimeError, "integral dtype")
    yield ErrorSample(Sample((T(x),), {"fweights": T(np.array([1, -1, 1]))},
                             name="negative fweights"), RuntimeError, "cannot be negative")
    yield ErrorSample(Sample((T(x),), {"aweights": T(np.array([1.0, 2.0], "float32"))},
                             name="aweights numel"), RuntimeError, "same numel")


def corrcoef_samples(make, dtype):
    yield Sample((T(make((3, 6), dtype)),), name="default")
    yield Sample((T(make((6,), dtype)),), name="1-d")


def dist_samples(make, dtype):
    x = make((3, 4), dtype)
    # (p=0 is checked in tests/test_foundation_gaps.py: PyTorch's backward fails there.)
    for p in (2, 1, 3.5, float("inf"), float("-inf")):
        yield Sample((T(x), T(make((3, 4), dtype)), p), name=f"p {p}")
    yield Sample((T(x), T(make((4,), dtype))), name="broadcast")


def dist_errors(make):
    yield ErrorSample(Sample((T(make((3,), "int64")), T(make((3,), "int64"))), name="ints"),
                      RuntimeError, "floating point or complex")


# --------------------------------------------------------------------------- numeric helpers

def vander_samples(make, dtype):
    x = make((4,), dtype)
    yield Sample((T(x),), name="default")
    yield Sample((T(x),), {"N": 6, "increasing": True}, name="N 6 increasing")
    yield Sample((T(x), 1), name="N 1")
    yield Sample((T(x), 0), name="N 0")
    yield Sample((T(make((0,), dtype)),), name="empty")


def vander_errors(make):
    yield ErrorSample(Sample((T(make((2, 2), "float32")),), name="2-d"), RuntimeError,
                      "one-dimensional")
    yield ErrorSample(Sample((T(make((2,), "float32")), -1), name="negative N"), RuntimeError,
                      "non-negative")


def trapezoid_samples(make, dtype):
    y = make((3, 5), dtype)
    yield Sample((T(y),), name="default")
    yield Sample((T(y),), {"dx": 0.5, "dim": 0}, name="dx dim 0")
    yield Sample((T(y), T(np.sort(make((5,), "float64")).astype(dtype))), name="1-d x")
    yield Sample((T(y), T(make((3, 5), dtype))), name="x like y")
    yield Sample((T(make((3, 0), dtype)),), name="empty dim")
    yield Sample((T(make((3, 1), dtype)),), name="one sample")


def trapezoid_errors(make):
    yield ErrorSample(Sample((T(make((3, 5), "float32")), T(make((4,), "float32"))),
                             name="x length"), RuntimeError, "one `x` value")


def unravel_index_samples(make, dtype):
    yield Sample((T(np.array([4, 1, 0, 5], dtype)), (2, 3)), name="2-d")
    yield Sample((T(np.array(22, dtype)), (2, 3, 4)), name="0-d index")
    yield Sample((T(np.array([7, -1], dtype)), (2, 3)), name="wraps")
    yield Sample((T(np.array([[3, 2]], dtype)), 6), name="int shape")


def unravel_index_errors(make):
    yield ErrorSample(Sample((T(make((2,), "float32")), (2, 3)), name="float indices"),
                      TypeError, "integer dtype")
    yield ErrorSample(Sample((T(np.array([1])), (2, -3)), name="negative shape"), ValueError,
                      "negative values")


def sum_to_size_samples(make, dtype):
    x = make((2, 3, 4), dtype)
    yield Sample((T(x), (3, 1)), name="lead and inner")
    yield Sample((T(x), (1, 3, 4)), name="first dim")
    yield Sample((T(x), 2, 3, 4), name="same size, varargs")
    yield Sample((T(x), 1), name="to one")
    yield Sample((T(make((2, 3), dtype)), (1, 3)), name="small")


def sum_to_size_errors(make):
    yield ErrorSample(Sample((T(make((2, 3), "float32")), (3, 2)), name="not expandable"),
                      RuntimeError, "is not expandable")


AT_ZERO = ("at abs = 0 PyTorch's gradient in abs is 0 (sgn of the result), not the derivative "
           "exp(i angle) that finite differences and forward AD see; test_grad compares it")
CONSTANT = "the result does not depend on the input (no differentiable output to check)"
INFINITE = "the result is infinite (zero degrees of freedom): finite differences are meaningless"


def _finite_differences(reason, *samples):
    return (Skip("gradcheck", reason, samples), Skip("gradgradcheck", reason, samples))


def _method(name):
    return lambda lib, self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


OPINFOS = [
    OpInfo("complex", complex_samples, method=False, errors=complex_errors,
           supports_autograd=True),
    OpInfo("polar", polar_samples, method=False, supports_autograd=True,
           known=(*_finite_differences(AT_ZERO, "zero abs"), Skip("forward_ad", AT_ZERO,
                                                                    ("zero abs",)))),
    OpInfo("histogram", histogram_samples, supports_out=False, supports_meta=False,
           errors=histogram_errors),
    OpInfo("histogramdd", histogramdd_samples, method=False, supports_out=False,
           supports_meta=False),
    OpInfo("cov", cov_samples, dtypes=ALL_FLOAT + ("int64",) + COMPLEX, supports_out=False,
           errors=cov_errors, supports_autograd=True,
           known=_finite_differences(INFINITE, "negative dof")),
    OpInfo("corrcoef", corrcoef_samples, dtypes=ALL_FLOAT + ("int64",), supports_out=False,
           supports_autograd=True),
    OpInfo("dist", dist_samples, dtypes=FLOAT_AND_COMPLEX, supports_out=False,
           errors=dist_errors, supports_autograd=True),
    OpInfo("vander", vander_samples, dtypes=ALL_TYPES + COMPLEX, method=False,
           supports_out=False, errors=vander_errors),   # gradients: test_foundation_gaps.py
    OpInfo("trapezoid", trapezoid_samples, dtypes=ALL_FLOAT + ("int64",), method=False,
           supports_out=False, errors=trapezoid_errors, supports_autograd=True,
           known=_finite_differences(CONSTANT, "empty dim")),
    OpInfo("trapz", trapezoid_samples, dtypes=ALL_FLOAT, method=False, supports_out=False,
           supports_autograd=True, known=_finite_differences(CONSTANT, "empty dim")),
    OpInfo("cumulative_trapezoid", trapezoid_samples, dtypes=ALL_FLOAT + ("int64",),
           method=False, supports_out=False, errors=trapezoid_errors, supports_autograd=True),
    OpInfo("unravel_index", unravel_index_samples, dtypes=("int64", "int32"), method=False,
           supports_out=False, errors=unravel_index_errors),
    OpInfo("Tensor.sum_to_size", sum_to_size_samples, call=_method("sum_to_size"),
           method=False, supports_out=False, errors=sum_to_size_errors,
           supports_autograd=True),
]
