"""OpInfo entries for pointwise math (src/ember/_ops/pointwise_math.py, pointwise_binary.py and
pointwise_special.py): exp/log, trig, rounding and sign, predicates, complex parts, binary math
and special functions. Random samples stay inside each function's domain; a table of special
values (NaN, infinities, signed zeros, out-of-domain numbers) checks the edges."""
import math

import ml_dtypes
import numpy as np

from opinfo.core import (
    ALL_FLOAT,
    BOOL,
    HALF,
    HALF_INTERMEDIATES,
    ErrorSample,
    OpInfo,
    Sample,
    Skip,
    T,
)

FLOATS = ALL_FLOAT + HALF
# Integer and bool input to a float function gives the default float dtype.
MATH = FLOATS + ("int64", "uint8") + BOOL
MATH_C = MATH + ("complex64",)
ROUNDING = FLOATS + ("int64", "int32", "uint8")
EVERYTHING = FLOATS + ("int64", "int32", "int8", "uint8") + BOOL
FEW = ("float32", "int64")       # alias entries: the alias exists and binds like the op
INTEGERS = ("int64", "int32", "int8", "uint8")

SPECIAL = (math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.5, 1e-6, 30.0)
# Without NaN, for ops that read its sign bit: PyTorch's float32 -> bfloat16 conversion (which
# builds the oracle's input) sets the sign of NaN.
SIGNED_SPECIAL = SPECIAL[1:]


def values(numbers, dtype):
    """An array of `numbers` in `dtype` (bfloat16 through float32)."""
    if dtype == "bfloat16":
        return np.array(numbers, dtype=np.float32).astype(ml_dtypes.bfloat16)
    return np.array(numbers).astype(dtype)


def _bounds(dtype, low, high):
    if dtype in FLOATS or dtype.startswith("complex"):
        return low, high
    if low is None or high is None:
        return low, high
    lo = math.floor(low)
    return lo, max(math.ceil(high), lo + 1)


def _is_float(dtype):
    return dtype in FLOATS


# --------------------------------------------------------------------------- sample makers

def unary(low=None, high=None, specials=SPECIAL, kwargs=None):
    """1-d, 2-d, 0-d and empty samples in [low, high), plus the special values for floats."""
    kwargs = kwargs or {}

    def samples(make, dtype):
        lo, hi = _bounds(dtype, low, high)
        yield Sample((T(make((5,), dtype, lo, hi)),), dict(kwargs), name="1-d")
        yield Sample((T(make((3, 4), dtype, lo, hi)),), dict(kwargs), name="2-d")
        yield Sample((T(make((), dtype, lo, hi)),), dict(kwargs), name="0-d")
        yield Sample((T(make((0, 2), dtype)),), dict(kwargs), name="empty")
        if _is_float(dtype) and specials:
            yield Sample((T(values(specials, dtype)),), dict(kwargs), name="special values")
    return samples


def binary(low=None, high=None, other_low=None, other_high=None, scalars=(), mixed=None,
           specials=SPECIAL):
    """Tensor pairs (same shape, broadcast both ways, 0-d, empty), `scalars` as the second
    operand, a second operand of dtype `mixed`, and a grid of special values for floats."""
    def samples(make, dtype):
        lo, hi = _bounds(dtype, low, high)

        def other(shape, other_dtype=dtype):
            return make(shape, other_dtype, *_bounds(other_dtype, other_low, other_high))
        yield Sample((T(make((5,), dtype, lo, hi)), T(other((5,)))), name="same shape")
        yield Sample((T(make((3, 4), dtype, lo, hi)), T(other((4,)))), name="broadcast")
        yield Sample((T(make((4,), dtype, lo, hi)), T(other((3, 4)))), name="broadcast self",
                     inplace_ok=False)
        yield Sample((T(make((), dtype, lo, hi)), T(other(()))), name="0-d")
        yield Sample((T(make((0, 3), dtype, lo, hi)), T(other((3,)))), name="empty")
        for number in scalars:
            yield Sample((T(make((2, 3), dtype, lo, hi)), number), name=f"scalar {number!r}")
        if mixed is not None and mixed != dtype:
            yield Sample((T(make((2, 3), dtype, lo, hi)), T(other((2, 3), mixed))),
                         name=f"{mixed} other")
        if _is_float(dtype) and specials:
            grid = values(specials, dtype)
            yield Sample((T(np.repeat(grid, len(grid))), T(np.tile(grid, len(grid)))),
                         name="special values")
    return samples


def round_samples(make, dtype):
    yield from unary(-100, 100)(make, dtype)
    halves = (0.5, 1.5, 2.5, -0.5, -2.5, 0.125, -0.375, 1.005, 12345.5, 250.0)
    for decimals in (0, 2, -1):
        if _is_float(dtype):
            yield Sample((T(values(halves, dtype)),), {"decimals": decimals},
                         name=f"halves, decimals={decimals}")
        yield Sample((T(make((3, 4), dtype, -100, 100)),), {"decimals": decimals},
                     name=f"decimals={decimals}")


def nan_to_num_samples(make, dtype):
    yield from unary()(make, dtype)
    x = values(SPECIAL, dtype) if _is_float(dtype) else make((6,), dtype)
    yield Sample((T(x),), {"nan": 1.5, "posinf": 100.0, "neginf": -100}, name="replacements")
    yield Sample((T(x), -1.0), name="positional nan")
    yield Sample((T(x),), {"posinf": 1e30}, name="posinf past the dtype's range")
    if dtype == "complex64":
        z = np.array([complex(math.nan, math.inf), complex(-math.inf, 1), 2 + 3j], np.complex64)
        yield Sample((T(z),), name="complex special values")


def logit_samples(make, dtype):
    yield from unary(0.05, 0.95, specials=(0.0, 1.0, 0.25, -0.5, 1.5, math.nan))(make, dtype)
    x = values((0.0, 1.0, 0.3, 1.5, -0.2, math.nan), dtype) if _is_float(dtype) \
        else make((4,), dtype, 0, 2)
    for eps in (0.1, 1e-6, -1.0):
        yield Sample((T(x), eps), name=f"eps={eps}")


def polygamma_samples(make, dtype, tensor_first=False):
    for n in (0, 1, 2, 3):
        for sample in unary(0.1, 5, specials=(math.nan, math.inf, 0.5, 1.0, 2.0, 30.0, -2.5))(
                make, dtype):
            args = (sample.args[0], n) if tensor_first else (n, sample.args[0])
            yield Sample(args, name=f"n={n} {sample.name}")


def float_power_samples(make, dtype):
    yield from binary(0.5, 3, -2, 2, scalars=(2, 0.5, -1.5), mixed="int64")(make, dtype)
    yield Sample((2.5, T(make((2, 3), dtype, -2, 2))), name="number base")
    yield Sample((T(make((3,), dtype, 0.5, 3)), 1j), name="complex exponent")


def xlogy_samples(make, dtype):
    yield from binary(-2, 5, 0.1, 5, scalars=(3, 0.5), mixed="float64")(make, dtype)
    yield Sample((2, T(make((2, 3), dtype, 0.1, 5))), name="number self")
    zeros = values((0.0, 0.0, 0.0, 1.0, 2.0), dtype) if _is_float(dtype) \
        else np.zeros(5, dtype)
    other = values((0.0, math.nan, -1.0, -1.0, 0.0), "float32")
    yield Sample((T(zeros), T(other)), name="zero self")


def heaviside_samples(make, dtype):
    x = make((3, 4), dtype)
    x.ravel()[::3] = 0
    yield Sample((T(x), T(make((4,), dtype))), name="broadcast values")
    yield Sample((T(x), T(make((), dtype))), name="0-d values")
    yield Sample((T(make((0, 4), dtype)), T(make((4,), dtype))), name="empty")
    yield Sample((T(make((4,), dtype)), T(make((3, 4), dtype))), name="broadcast self",
                 inplace_ok=False)
    if _is_float(dtype):
        grid = values(SPECIAL, dtype)
        yield Sample((T(grid), T(grid[::-1].copy())), name="special values")


def frexp_samples(make, dtype):
    yield from unary(-100, 100)(make, dtype)
    if dtype in ALL_FLOAT:
        yield Sample((T(values((3e-30, -1e30, 1e-40, 6.5e4), dtype)),), name="extremes")


def complex_samples(make, dtype):
    yield from unary()(make, dtype)
    if dtype.startswith("complex"):
        z = np.array([0j, 3 + 4j, complex(math.nan, 1), -1 + 0j, 1j, complex(-0.0, 0)], dtype)
        yield Sample((T(z),), name="special values")


def _write_through_real(lib, x):
    """Adding into `x.real` must change `x` (a view), as it does in PyTorch."""
    x.real.add_(1)
    return x


def _resolved_conj(lib, x):
    return lib.conj(x).resolve_conj()


def _imag_of(lib, x):
    return x.imag


def _real_of(lib, x):
    return x.real


# --------------------------------------------------------------------------- errors

def _error(args, error, match, name, kwargs=None):
    return ErrorSample(Sample(args, kwargs or {}, name=name), error, match)


def not_for(dtypes, error=NotImplementedError, match="", args=(), kwargs=None):
    """The op refuses tensors of `dtypes` (extra positional `args` follow the tensor)."""
    def errors(make):
        for dtype in dtypes:
            yield _error((T(make((3,), dtype)),) + args, error, match, dtype, kwargs)
    return errors


def tensor_pair_errors(refused=("int64",), valid="float32"):
    """A number as the second operand, refused dtypes, and shapes that don't broadcast."""
    def errors(make):
        yield _error((T(make((3,), valid)), 2.0), TypeError, "other", "number other")
        for dtype in refused:
            yield _error((T(make((3,), dtype)), T(make((3,), dtype))), NotImplementedError, "",
                         dtype)
        yield _error((T(make((2, 3), valid)), T(make((4,), valid))), RuntimeError, "size",
                     "shapes don't broadcast")
    return errors


def _several(*makers):
    def errors(make):
        for maker in makers:
            yield from maker(make)
    return errors


def heaviside_errors(make):
    x = T(make((3,), "float32"))
    yield _error((x, T(make((3,), "float64"))), RuntimeError, "different dtypes", "dtypes")
    yield _error((x, 1.0), TypeError, "values", "number values")
    z = T(make((3,), "complex64"))
    yield _error((z, z), RuntimeError, "complex", "complex")


def float_power_errors(make):
    yield _error((T(make((3,), "float32")), "a"), TypeError, "exponent", "string exponent")


def polygamma_errors(make):
    x = T(make((3,), "float32"))
    yield _error((-1, x), RuntimeError, "negative n", "negative n")
    yield _error((1.5, x), TypeError, "n", "float n")
    yield _error((1, T(make((3,), "complex64"))), NotImplementedError, "", "complex")


def _tensor_polygamma(lib, x, n, **kwargs):
    return x.polygamma(n, **kwargs)


def _float_power_inplace(lib, x, e):
    return x.float_power_(e)


def float_power_inplace_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype, 0.5, 2)), 2), name="number exponent")
    yield Sample((T(make((2, 3), dtype, 0.5, 2)), T(make((3,), dtype, -1, 1))), name="tensor")


# --------------------------------------------------------------------------- the table

# Predicates: bool results, no in-place form and no gradient.
PREDICATE = {"inplace": False, "supports_autograd": False}
# digamma's special values without the poles -1, -2, ...: there PyTorch's trigamma (digamma's
# derivative) is pi**2 / sin(pi x)**2 with sin(pi x) a rounding error (about 1e32), ember's inf.
DIGAMMA_GRAD_SPECIAL = tuple(v for v in SPECIAL if v != -1.0) + (-3.5, 1e-30)


def _unary_info(name, samples, dtypes=MATH, **options):
    # Gradients are checked unless an entry turns them off (the predicates have none).
    options.setdefault("supports_autograd", True)
    return OpInfo(name, samples, dtypes=dtypes, inplace=options.pop("inplace", True), **options)


OPINFOS = [
    # exp / log
    _unary_info("exp2", unary(-5, 5), MATH_C),
    _unary_info("expm1", unary(-5, 5), MATH_C),
    _unary_info("log", unary(0.1, 5), MATH_C),
    _unary_info("log2", unary(0.1, 5), MATH_C),
    _unary_info("log10", unary(0.1, 5), MATH_C),
    _unary_info("log1p", unary(-0.9, 5), MATH_C),
    _unary_info("sqrt", unary(0, 5), MATH_C),
    _unary_info("rsqrt", unary(0.1, 5), MATH_C),
    # trigonometric and hyperbolic
    _unary_info("sin", unary(-5, 5), MATH_C),
    _unary_info("cos", unary(-5, 5), MATH_C),
    _unary_info("tan", unary(-1.4, 1.4), MATH_C),
    _unary_info("asin", unary(-1, 1), MATH_C),
    _unary_info("acos", unary(-1, 1), MATH_C),
    _unary_info("atan", unary(-5, 5), MATH_C),
    _unary_info("sinh", unary(-5, 5), MATH_C),
    _unary_info("cosh", unary(-5, 5), MATH_C),
    _unary_info("tanh", unary(-5, 5), MATH_C),
    _unary_info("asinh", unary(-5, 5), MATH_C),
    _unary_info("acosh", unary(1, 5), MATH_C),
    _unary_info("atanh", unary(-0.99, 0.99), MATH_C),
    _unary_info("arcsin", unary(-1, 1), FEW),
    _unary_info("arccos", unary(-1, 1), FEW),
    _unary_info("arctan", unary(), FEW),
    _unary_info("arcsinh", unary(), FEW),
    _unary_info("arccosh", unary(1, 5), FEW),
    _unary_info("arctanh", unary(-0.99, 0.99), FEW),
    _unary_info("sinc", unary(-3, 3), MATH_C),
    _unary_info("deg2rad", unary(-360, 360), MATH,
                errors=not_for(("complex64",), RuntimeError, "complex")),
    _unary_info("rad2deg", unary(), MATH, errors=not_for(("complex64",), RuntimeError,
                                                          "complex")),
    # special functions
    _unary_info("erf", unary(-3, 3), MATH, errors=not_for(("complex64",))),
    _unary_info("erfc", unary(-3, 3), MATH, errors=not_for(("complex64",))),
    _unary_info("erfinv", unary(-0.99, 0.99, specials=SPECIAL + (0.999999, -0.9999)), MATH,
                errors=not_for(("complex64",))),
    _unary_info("lgamma", unary(0.1, 5, specials=SPECIAL + (-1.0, -3.5, 1e-30)), MATH,
                errors=not_for(("complex64",))),
    _unary_info("digamma", unary(0.1, 5, specials=SPECIAL + (-1.0, -3.5, 1e-30)), MATH,
                supports_autograd=False,
                errors=not_for(("complex64",))),
    # digamma again for its gradient, away from the poles (see DIGAMMA_GRAD_SPECIAL).
    _unary_info("digamma", unary(0.1, 5, specials=DIGAMMA_GRAD_SPECIAL), ALL_FLOAT,
                inplace=False, supports_out=False),
    # method=False: the samples put n first; the Tensor method is the entry below.
    OpInfo("polygamma", polygamma_samples, dtypes=MATH, errors=polygamma_errors,
           method=False, supports_autograd=True),
    OpInfo("polygamma", lambda make, dtype: polygamma_samples(make, dtype, tensor_first=True),
           dtypes=("float32", "float64", "int64"), call=_tensor_polygamma, inplace=True,
           supports_out=False, supports_autograd=True),
    _unary_info("i0", unary(-5, 5), MATH, errors=not_for(("complex64",))),
    _unary_info("sigmoid", unary(-10, 10, specials=SPECIAL + (-100.0, 100.0)), MATH_C),
    # PyTorch's half kernel rounds x / (1 - x) to half before the log.
    _unary_info("logit", logit_samples, MATH, errors=not_for(("complex64",)),
                tolerances=HALF_INTERMEDIATES),
    # rounding and sign
    _unary_info("floor", unary(-10, 10), ROUNDING, errors=not_for(BOOL + ("complex64",))),
    _unary_info("ceil", unary(-10, 10), ROUNDING, errors=not_for(BOOL + ("complex64",))),
    _unary_info("trunc", unary(-10, 10), ROUNDING, errors=not_for(BOOL)),
    _unary_info("fix", unary(-10, 10), FEW),
    _unary_info("frac", unary(-10, 10), FLOATS, errors=not_for(("int64", "bool"))),
    _unary_info("round", round_samples, ROUNDING,
                errors=_several(not_for(BOOL),
                                not_for(("int64",), match="round", kwargs={"decimals": 1}))),
    _unary_info("sign", unary(), EVERYTHING, errors=not_for(("complex64",), match="sgn")),
    _unary_info("sgn", complex_samples, EVERYTHING + ("complex64", "complex128")),
    _unary_info("signbit", unary(specials=SIGNED_SPECIAL), EVERYTHING, **PREDICATE,
                errors=not_for(("complex64",), match="complex")),
    # predicates
    # PyTorch's isnan and isinf take no out=.
    _unary_info("isnan", unary(), MATH_C, supports_out=False, **PREDICATE),
    _unary_info("isinf", unary(), MATH_C, supports_out=False, **PREDICATE),
    _unary_info("isposinf", unary(), MATH, **PREDICATE,
                errors=not_for(("complex64",), RuntimeError, "complex")),
    _unary_info("isneginf", unary(), MATH, **PREDICATE,
                errors=not_for(("complex64",), RuntimeError, "complex")),
    _unary_info("isfinite", unary(), MATH_C, **PREDICATE, supports_out=False),
    _unary_info("isreal", complex_samples, MATH_C, **PREDICATE, supports_out=False),
    _unary_info("nan_to_num", nan_to_num_samples, MATH_C),
    # complex parts
    _unary_info("conj", complex_samples, ("float32", "int64"), inplace=False,
                supports_out=False),
    # PyTorch's conj of a complex tensor sets a bit that its .numpy() refuses: resolve it.
    OpInfo("conj", complex_samples, dtypes=("complex64", "complex128"), call=_resolved_conj,
           supports_out=False),
    _unary_info("conj_physical", complex_samples, ("float32", "int64", "bool", "complex64",
                                                   "complex128"), known=(
        Skip("layout", "PyTorch returns a real input itself (its docs: this may become a "
             "read-only view); ember copies; neither is a documented contract"),)),
    _unary_info("resolve_conj", unary(), ("float32", "complex64"), inplace=False,
                supports_out=False),
    _unary_info("resolve_neg", unary(), ("float32", "complex64"), inplace=False,
                supports_out=False),
    _unary_info("real", complex_samples, ("float32", "int64", "complex64", "complex128"),
                inplace=False, supports_out=False, method=False),
    _unary_info("imag", complex_samples, ("complex64", "complex128"), inplace=False,
                supports_out=False, method=False,
                errors=not_for(("float32",), RuntimeError, "non-complex")),
    OpInfo("Tensor.real", complex_samples, dtypes=("float32", "complex64"), call=_real_of,
           supports_out=False, supports_autograd=True),
    OpInfo("Tensor.imag", complex_samples, dtypes=("complex64",), call=_imag_of,
           supports_out=False),
    OpInfo("Tensor.real.add_", complex_samples, dtypes=("float32", "complex128"),
           call=_write_through_real, supports_out=False, supports_meta=False),
    # Real input (the only kind the gradient tests take) gives constant zero gradients.
    _unary_info("angle", complex_samples, MATH_C + ("complex128",), inplace=False),
    # binary math
    OpInfo("atan2", binary(mixed="int64"), dtypes=MATH, inplace=True,
           errors=tensor_pair_errors(refused=("complex64",)), supports_autograd=True),
    OpInfo("arctan2", binary(), dtypes=FEW, inplace=True, supports_autograd=True),
    OpInfo("hypot", binary(mixed="float64"), dtypes=FLOATS, inplace=True,
           errors=tensor_pair_errors(refused=("int64", "complex64")), supports_autograd=True),
    OpInfo("copysign", binary(scalars=(-1, 2.5, -0.0), mixed="int64", specials=SIGNED_SPECIAL),
           dtypes=MATH,
           inplace=True, errors=not_for(("complex64",), args=(1.0,)), supports_autograd=True),
    OpInfo("nextafter", binary(mixed="float64"), dtypes=FLOATS, inplace=True,
           errors=tensor_pair_errors(refused=("int64",)), supports_autograd=True),
    OpInfo("xlogy", xlogy_samples, dtypes=MATH, inplace=True,
           errors=not_for(("complex64",), args=(2.0,)), supports_autograd=True),
    OpInfo("logaddexp", binary(mixed="float64"), dtypes=FLOATS + ("complex64",),
           errors=tensor_pair_errors(refused=("int64", "bool")), supports_autograd=True),
    OpInfo("logaddexp2", binary(mixed="float64"), dtypes=FLOATS,
           errors=tensor_pair_errors(refused=("int64", "complex64")), supports_autograd=True),
    OpInfo("heaviside", heaviside_samples, dtypes=EVERYTHING, inplace=True,
           errors=heaviside_errors),
    OpInfo("gcd", binary(-30, 30, -30, 30, mixed="int64"), dtypes=INTEGERS, inplace=True,
           errors=tensor_pair_errors(refused=("float32", "bool"), valid="int64")),
    OpInfo("lcm", binary(-30, 30, -30, 30, mixed="int64"), dtypes=INTEGERS, inplace=True,
           errors=tensor_pair_errors(refused=("float32",), valid="int64")),
    OpInfo("ldexp", binary(other_low=-10, other_high=10, mixed="int64"),
           dtypes=MATH + ("complex64",), inplace=True,
           errors=lambda make: [_error((T(make((3,), "float32")), 2), TypeError, "other",
                                       "number other")], supports_autograd=True),
    OpInfo("float_power", float_power_samples, dtypes=MATH + ("complex64",), inplace=False,
           errors=float_power_errors, supports_autograd=True),
    OpInfo("float_power_", float_power_inplace_samples, dtypes=("float32", "float64",
                                                                "complex128"),
           call=_float_power_inplace, supports_out=False, supports_meta=False),
    OpInfo("frexp", frexp_samples, dtypes=FLOATS,
           errors=not_for(("int64", "bool", "complex64"), RuntimeError, "floating-point"),
           supports_autograd=True),
]
