"""OpInfo entries for ember.special (src/ember/special/, src/ember/_ops/special_functions.py and
special_polynomials.py) and the torch.* names that go with them (igamma, igammac, mvlgamma).
The functions special shares with torch.* (erf, lgamma, ...) are checked once more here only as
aliases; their own entries are in infos_pointwise_math.py."""
import math

import numpy as np

from opinfo.core import ALL_FLOAT, HALF, HALF_INTERMEDIATES, ErrorSample, OpInfo, Sample, T, XFail
from opinfo.infos_pointwise_math import SPECIAL, binary, not_for, unary, values

FLOATS = ALL_FLOAT + HALF
HALF_OK = FLOATS + ("int64",)              # integers compute in float32
FLOAT_ONLY = ALL_FLOAT + ("int64",)        # PyTorch has no half kernel
FEW = ("float32", "int64")
REFUSED_HALF = not_for(HALF + ("complex64",))
REFUSED_COMPLEX = not_for(("complex64",))
POSITIVE_SPECIAL = (math.nan, math.inf, 0.0, 1e-6, 0.5, 1.0, 2.0, 30.0)


def _special(name, samples, dtypes, **options):
    return OpInfo(f"special.{name}", samples, dtypes=dtypes, method=False, **options)


def _alias(name, samples=None):
    return _special(name, samples or unary(0.1, 3), FEW)


def polynomial_samples(make, dtype):
    """x in [-1.2, 1.2] (and the special points), degrees from -1 to 12, and tensor or number
    degrees; degrees above 6 or 8 inside (-1, 1) take the closed forms."""
    lo, hi = (-1.2, 1.2) if dtype in FLOATS else (-2, 3)
    yield Sample((T(make((4, 5), dtype, lo, hi)), T(np.arange(-1, 4, dtype=np.int64))),
                 name="tensor degrees")
    yield Sample((T(make((2, 14), dtype, lo, hi)), T(np.arange(-1, 13, dtype=np.int64))),
                 name="degrees to 12")
    yield Sample((T(make((6,), dtype, lo, hi)), 3), name="number degree")
    yield Sample((T(make((6,), dtype, lo, hi)), 11), name="large number degree")
    yield Sample((T(make((3,), dtype, lo, hi)), T(np.array([2.7, 5.2, 9.9], np.float32))),
                 name="float degrees truncate", inplace_ok=False)
    if dtype in ALL_FLOAT:
        # No NaN: PyTorch's result there is whatever the previous element gave.
        grid = values((1.0, -1.0, 0.0, 0.5, -0.5, 2.0, 0.999, -3.0), dtype)
        for degree in (0, 1, 2, 5, 7, 9, 10):
            yield Sample((T(grid), degree), name=f"special x, n={degree}")


def multigammaln_samples(make, dtype):
    lo, hi = (1.6, 5.0) if dtype in FLOATS else (2, 6)
    for p in (1, 2, 3):
        yield Sample((T(make((3, 4), dtype, lo, hi)), p), name=f"p={p}")


def zeta_samples(make, dtype):
    lo, hi = (1.5, 5.0) if dtype in FLOATS else (2, 6)
    yield Sample((T(make((5,), dtype, lo, hi)), T(make((5,), dtype, 0.5, 4.0))), name="tensors")
    yield Sample((T(make((2, 3), dtype, lo, hi)), T(make((3,), dtype, 0.5, 4.0))),
                 name="broadcast")
    yield Sample((T(make((4,), dtype, lo, hi)), 2.5), name="number other")


def gammainc_samples(make, dtype):
    yield Sample((T(make((5,), dtype, 0.5, 5.0)), T(make((5,), dtype, 0.1, 6.0))), name="tensors")
    yield Sample((T(make((2, 3), dtype, 0.5, 5.0)), T(make((3,), dtype, 0.1, 6.0))),
                 name="broadcast")
    if dtype in FLOATS:
        grid = values((0.5, 1.0, 3.0, math.inf, math.nan, 0.0), dtype)
        yield Sample((T(np.repeat(grid, 6)), T(np.tile(grid, 6))), name="special values")


def softmax_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 1), name="dim 1")
    yield Sample((T(make((3, 4), dtype)), 0), name="dim 0")


def logsumexp_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 1), name="dim 1")
    yield Sample((T(make((3, 4), dtype)), (0, 1), True), name="keepdim")


def pair_refused(dtypes):
    """Both operands of a refused dtype (a float second operand would promote the pair)."""
    def errors(make):
        for dtype in dtypes:
            yield ErrorSample(Sample((T(make((3,), dtype, 1, 3)), T(make((3,), dtype, 1, 3))),
                                     name=dtype), NotImplementedError)
    return errors


def _gammainc(lib, a, x, **kwargs):
    return lib.special.gammainc(a, x, **kwargs)


def _tensor_igamma(lib, a, x):
    return a.igamma(x)


def _tensor_mvlgamma(lib, x, p):
    return x.mvlgamma(p)


_AUTOGRAD = {"supports_autograd": True}
_POLYNOMIALS = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
    "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
]
_NO_GRAD_UNARY = [
    ("bessel_j0", -8, 8), ("bessel_j1", -8, 8), ("bessel_y0", 0.1, 8), ("bessel_y1", 0.1, 8),
    ("modified_bessel_i0", -5, 5), ("modified_bessel_i1", -5, 5),
    ("modified_bessel_k0", 0.1, 5), ("modified_bessel_k1", 0.1, 5),
    ("scaled_modified_bessel_k0", 0.1, 5), ("scaled_modified_bessel_k1", 0.1, 5),
    ("spherical_bessel_j0", -8, 8), ("airy_ai", -5, 5),
]

OPINFOS = [
    # With half kernels and gradients.
    _special("entr", unary(0.1, 5), HALF_OK, errors=REFUSED_COMPLEX, **_AUTOGRAD),
    # PyTorch's half kernels of i0e and ndtr compute in half (ember: float32, rounded once).
    _special("i0e", unary(-5, 5), HALF_OK, errors=REFUSED_COMPLEX,
             tolerances=HALF_INTERMEDIATES, **_AUTOGRAD),
    _special("i1", unary(-5, 5), HALF_OK, errors=REFUSED_COMPLEX, **_AUTOGRAD),
    _special("i1e", unary(-5, 5), HALF_OK, errors=REFUSED_COMPLEX, **_AUTOGRAD),
    _special("ndtr", unary(-5, 5), HALF_OK, errors=REFUSED_COMPLEX,
             tolerances=HALF_INTERMEDIATES, **_AUTOGRAD),
    _special("xlog1py", binary(-3, 3, -0.9, 4, scalars=(2.0,)), HALF_OK, known=(XFail(
        "forward_ad", "ember's forward AD gives NaN where the formula's where() picks 0 "
        "(input 0, other <= -1); xlogy's does the same", ("special values",)),), **_AUTOGRAD),
    # Float kernels only, with gradients.
    _special("erfcx", unary(-3, 5, specials=SPECIAL + (-30.0, 1e4)), FLOAT_ONLY,
             errors=REFUSED_HALF, **_AUTOGRAD),
    _special("ndtri", unary(0.05, 0.95, specials=(0.0, 1.0, -1.0, 2.0, 0.5, math.nan, 1e-30)),
             FLOAT_ONLY, errors=REFUSED_HALF, **_AUTOGRAD),
    _special("log_ndtr", unary(-10, 5, specials=SPECIAL + (-40.0, 10.0)), FLOAT_ONLY,
             errors=REFUSED_HALF, **_AUTOGRAD),
    # zeta's derivative in its first argument is not implemented (in PyTorch either).
    _special("zeta", zeta_samples, FLOAT_ONLY, errors=pair_refused(HALF), grad_args=(1,),
             **_AUTOGRAD),
    _special("gammainc", gammainc_samples, FLOATS, grad_args=(1,), call=_gammainc,
             errors=pair_refused(("int64", "bool", "complex64")),
             **_AUTOGRAD),
    _special("gammaincc", gammainc_samples, FLOATS, grad_args=(1,), **_AUTOGRAD),
    OpInfo("igamma", gammainc_samples, dtypes=ALL_FLOAT, grad_args=(1,), inplace=True,
           **_AUTOGRAD),
    OpInfo("igammac", gammainc_samples, dtypes=ALL_FLOAT, grad_args=(1,), inplace=True,
           **_AUTOGRAD),
    OpInfo("igamma", gammainc_samples, dtypes=("float32",), call=_tensor_igamma,
           supports_out=False),
    _special("multigammaln", multigammaln_samples, FLOATS + ("int64",), **_AUTOGRAD),
    OpInfo("mvlgamma", multigammaln_samples, dtypes=ALL_FLOAT, inplace=True, **_AUTOGRAD),
    OpInfo("mvlgamma", multigammaln_samples, dtypes=("float64",), call=_tensor_mvlgamma,
           supports_out=False),
    # Aliases of torch.* functions.
    _alias("gammaln"), _alias("psi"), _alias("expit"), _alias("erf"), _alias("erfc"),
    _alias("erfinv", unary(-0.9, 0.9)), _alias("digamma"), _alias("i0"), _alias("exp2"),
    _alias("expm1"), _alias("log1p"), _alias("sinc"), _alias("logit", unary(0.1, 0.9)),
    _special("round", unary(-10, 10), ("float32",)),
    _special("xlogy", binary(0, 3, 0.1, 3), FEW),
    _special("softmax", softmax_samples, ("float32",), supports_out=False),
    _special("log_softmax", softmax_samples, ("float32",), supports_out=False),
    _special("logsumexp", logsumexp_samples, ("float32",)),
]
# PyTorch's float64 kernels of these (Cephes' rational approximations) are good to about 3e-6
# absolute on the sampled ranges (measured against mpmath); ember's (SciPy's) to 1e-15.
_CEPHES_FLOAT64 = {"float64": (1e-5, 1e-7)}
_CEPHES_INACCURATE = ("bessel_j0", "bessel_j1", "bessel_y1", "airy_ai")
OPINFOS += [_special(name, unary(lo, hi), FLOAT_ONLY, errors=REFUSED_HALF,
                     tolerances=_CEPHES_FLOAT64 if name in _CEPHES_INACCURATE else {})
            for name, lo, hi in _NO_GRAD_UNARY]
OPINFOS += [_special(name, polynomial_samples, ALL_FLOAT + ("int64",), errors=not_for(
    HALF + ("complex64",), args=(3,))) for name in _POLYNOMIALS]
