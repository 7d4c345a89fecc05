"""OpInfo entries for reductions (src/ember/_ops/reduction.py and reduction_stats.py)."""
import numpy as np

from opinfo.core import (
    ALL_FLOAT,
    ALL_TYPES,
    BOOL,
    COMPLEX,
    HALF,
    HALF_INTERMEDIATES,
    INTS,
    DType,
    ErrorSample,
    OpInfo,
    Sample,
    T,
)

FLOATS = ALL_FLOAT + HALF
NUMERIC = ALL_TYPES + HALF
EVERYTHING = NUMERIC + BOOL


# --------------------------------------------------------------------------- sample makers

def dim_samples(make, dtype, dims_as_tuple=True, empty_all=True):
    """Every element, one dim (plain, negative, keepdim), several dims, 0-d and empty inputs."""
    x = make((3, 4), dtype)
    yield Sample((T(x),), name="all")
    yield Sample((T(x), 1), name="dim 1")
    yield Sample((T(x), -2), {"keepdim": True}, name="dim -2 keepdim")
    yield Sample((T(make((2, 3, 4), dtype)), 0), name="3-d dim 0")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((), dtype)), 0), {"keepdim": True}, name="0-d dim 0 keepdim")
    yield Sample((T(make((0, 3), dtype)), 1), name="empty, nonempty dim")
    if empty_all:
        yield Sample((T(make((0, 3), dtype)),), name="empty, all")
        yield Sample((T(make((0, 3), dtype)), 0), name="empty, empty dim")
    if dims_as_tuple:
        yield Sample((T(make((2, 3, 4), dtype)), (0, 2)), name="dims (0, 2)")
        yield Sample((T(x), (-1,)), {"keepdim": True}, name="dims (-1,) keepdim")
        yield Sample((T(x), ()), name="dims ()")
        yield Sample((T(x), None, True), name="dim None keepdim")


def with_nan(make, dtype):
    x = make((3, 4), dtype)
    if dtype in FLOATS:
        x[0, 1] = x[2, 3] = x[2, 0] = np.nan
    return x


def ties(dtype):
    return np.array([[1, 3, 3, 1], [2, 2, 0, 0], [0, 0, 0, 0]]).astype(dtype)


def sum_samples(make, dtype):
    yield from dim_samples(make, dtype)
    yield Sample((T(make((3, 4), dtype)), 1), {"dtype": DType("float64")}, name="dtype f64")
    yield Sample((T(make((3, 4), dtype)),), {"dtype": DType("int32")}, name="dtype int32")
    yield Sample((T(make((2, 5), dtype)), [0]), {"dtype": DType("float16")}, name="dtype f16")


def nan_dim_samples(make, dtype):
    yield from dim_samples(make, dtype)
    yield Sample((T(with_nan(make, dtype)), 1), name="nan, dim 1")
    yield Sample((T(with_nan(make, dtype)),), name="nan, all")


def mean_samples(make, dtype):
    yield from dim_samples(make, dtype)
    yield Sample((T(make((3, 4), dtype)),), {"dtype": DType("float64")}, name="dtype f64")


def nanmean_samples(make, dtype):
    yield from nan_dim_samples(make, dtype)
    x = with_nan(make, dtype)
    x[2, :] = np.nan
    yield Sample((T(x), 1), name="all-nan row")


def prod_samples(make, dtype):
    x = make((3, 4), dtype, -3, 4)
    yield Sample((T(x),), name="all")
    yield Sample((T(x), 1), name="dim 1")
    yield Sample((T(x), -2, True), name="dim -2 keepdim")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 3), dtype)),), name="empty")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty dim")
    yield Sample((T(x), 0), {"dtype": DType("float64")}, name="dtype f64")
    # The gradient at zeros: rows with no, one and two zeros, and the whole tensor.
    z = make((3, 4), dtype, -3, 4)
    z[0, 1] = z[1, 0] = z[1, 2] = 0
    yield Sample((T(z), 1), name="zeros, dim 1")
    yield Sample((T(z), 0, True), name="zeros, dim 0 keepdim")
    yield Sample((T(z),), name="several zeros, all")
    one = make((3, 4), dtype, -3, 4)
    one[2, 3] = 0
    yield Sample((T(one),), name="one zero, all")


def extreme_samples(make, dtype):
    """max/min/amax/amin over dims (the sum-style tuple forms are for amax/amin only)."""
    yield from dim_samples(make, dtype, dims_as_tuple=False)
    yield Sample((T(ties(dtype)), 1), name="ties")
    if dtype in FLOATS:
        yield Sample((T(with_nan(make, dtype)), 1), name="nan, dim 1")
        yield Sample((T(with_nan(make, dtype)),), name="nan, all")


def max_samples(make, dtype):
    yield from extreme_samples(make, dtype)
    yield Sample((T(make((3, 4), dtype)), T(make((4,), dtype))), name="other, broadcast")
    yield Sample((T(make((3, 4), dtype)),), {"dim": 0, "keepdim": True}, name="dim keyword")


def amax_samples(make, dtype):
    yield from extreme_samples(make, dtype)
    yield Sample((T(make((2, 3, 4), dtype)), (0, 2)), name="dims (0, 2)")
    yield Sample((T(make((3, 4), dtype)), (-1,), True), name="dims (-1,) keepdim")
    yield Sample((T(make((3, 4), dtype)), ()), name="dims ()")


def aminmax_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x),), name="all")
    yield Sample((T(x),), {"dim": 1}, name="dim 1")
    yield Sample((T(x),), {"dim": -2, "keepdim": True}, name="dim -2 keepdim")
    yield Sample((T(x),), {"keepdim": True}, name="all keepdim")
    yield Sample((T(make((), dtype)),), {"dim": 0}, name="0-d")
    yield Sample((T(make((0, 3), dtype)),), {"dim": 1}, name="empty, nonempty dim")
    if dtype in FLOATS:
        yield Sample((T(with_nan(make, dtype)),), {"dim": 1}, name="nan")


def argmax_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x),), name="flattened")
    yield Sample((T(x), 1), name="dim 1")
    yield Sample((T(x), -2, True), name="dim -2 keepdim")
    yield Sample((T(x), None, True), name="flattened keepdim")
    yield Sample((T(make((), dtype)), 0), name="0-d")
    yield Sample((T(make((0, 3), dtype)), 1), name="empty, nonempty dim")
    yield Sample((T(ties(dtype)), 1), name="ties")
    yield Sample((T(ties(dtype)),), name="ties, flattened")
    if dtype in FLOATS:
        yield Sample((T(with_nan(make, dtype)), 1), name="nan")


def logical_samples(make, dtype):
    x = make((3, 4), dtype)
    x[1, :] = 0
    if dtype != "bool":
        x[2, :] = 1
    yield Sample((T(x),), name="all")
    yield Sample((T(x), 1), name="dim 1")
    yield Sample((T(x), (0, 1), True), name="dims keepdim")
    yield Sample((T(x), ()), name="dims () reduce nothing")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 3), dtype)),), name="empty")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty dim")


def count_nonzero_samples(make, dtype):
    x = make((3, 4), dtype)
    x[1, :2] = 0
    yield Sample((T(x),), name="all")
    yield Sample((T(x), 1), name="dim 1")
    yield Sample((T(x), (0, 1)), name="dims tuple")
    yield Sample((T(x), [-1]), name="dims list")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty")


def logsumexp_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 1), name="dim 1")
    yield Sample((T(make((3, 4), dtype)), (0, 1), True), name="dims keepdim")
    yield Sample((T(make((2, 3, 4), dtype)), -1), name="3-d")
    yield Sample((T(make((), dtype)), 0), name="0-d")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty dim")
    if dtype in ALL_FLOAT:
        yield Sample((T(make((3, 4), dtype, 80, 100)), 1), name="large (no overflow)")
        x = np.array([[np.inf, 1.0], [-np.inf, -np.inf], [np.nan, 0.0]], dtype=dtype)
        yield Sample((T(x), 1), name="inf and nan")


def moment_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x),), name="all")
    yield Sample((T(x), False), name="legacy unbiased=False")
    yield Sample((T(x), 1), name="dim 1")
    yield Sample((T(x), 0, False, True), name="dim, unbiased, keepdim positional")
    yield Sample((T(x), (0, 1)), {"correction": 0}, name="correction 0")
    yield Sample((T(x), 1), {"correction": 2.5, "keepdim": True}, name="correction 2.5")
    yield Sample((T(x),), {"dim": None, "unbiased": False}, name="unbiased keyword")
    yield Sample((T(make((2, 3, 4), dtype)), (0, 2)), name="3-d dims")
    yield Sample((T(make((0, 3), dtype)), 1), name="empty, nonempty dim")


def norm_samples(make, dtype):
    """Vector norms (a number p or 'fro'); the nuclear norm is in nuc_norm_samples."""
    x = make((3, 4), dtype)
    yield Sample((T(x),), name="default fro")
    for p in (1, 2, 3.5, 0, -1, float("inf"), float("-inf")):
        yield Sample((T(x), p), name=f"p={p}")
    yield Sample((T(x), 2, 1), name="dim 1")
    yield Sample((T(x), 1, (0, 1), True), name="dims keepdim")
    yield Sample((T(x), "fro", 0), name="fro dim 0")
    yield Sample((T(make((2, 3, 4), dtype)), "fro"), name="fro 3-d")
    yield Sample((T(x), None, 1), name="p None")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 3), dtype)),), name="empty")
    yield Sample((T(make((0, 3), dtype)), float("inf"), 1), name="empty, inf, nonempty dim")
    if dtype in ALL_FLOAT:
        yield Sample((T(x.astype("float32")),), {"dtype": DType("float64")}, name="dtype f64")
    # A zero row (and a zero element): the gradient there is 0 or finite, never NaN.
    z = make((3, 4), dtype)
    z[1, :] = 0
    z[0, 2] = 0
    for p in (2, 1, 3.5, 1.5, 0.5, 0, -1, float("inf"), float("-inf")):
        yield Sample((T(z), p, 1), name=f"zero row, p={p}")
    yield Sample((T(np.zeros((2, 3), dtype)),), name="all zeros")


def nuc_norm_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x), "nuc"), name="nuc")
    if dtype in ALL_FLOAT:
        yield Sample((T(make((2, 3, 4), dtype)), "nuc", (2, 0), True), name="nuc dims keepdim")


def median_samples(make, dtype):
    yield Sample((T(make((3, 5), dtype)),), name="all, odd")
    yield Sample((T(make((4,), dtype)),), name="all, even (lower median)")
    yield Sample((T(make((3, 4), dtype)), 1), name="dim 1")
    yield Sample((T(make((3, 5), dtype)), 0, True), name="dim 0 keepdim")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((), dtype)), 0), name="0-d dim")
    yield Sample((T(make((0, 3), dtype)), 1), name="empty, nonempty dim")
    if dtype in FLOATS:
        yield Sample((T(make((0, 3), dtype)),), name="empty, all")
        yield Sample((T(with_nan(make, dtype)), 1), name="nan")
        yield Sample((T(with_nan(make, dtype)),), name="nan, all")


def all_nan_row_samples(make, dtype):
    x = with_nan(make, dtype)
    x[1, :] = np.nan
    yield Sample((T(x), 1), name="all-nan row")


def kthvalue_samples(make, dtype):
    x = make((3, 5), dtype)
    yield Sample((T(x), 2), name="k=2 last dim")
    yield Sample((T(x), 1, 0), name="k=1 dim 0")
    yield Sample((T(x), 5, -1, True), name="k=n keepdim")
    yield Sample((T(make((), dtype)), 1), name="0-d")
    yield Sample((T(make((0, 3), dtype)), 2), name="empty, nonempty dim")
    # Small enough for gradcheck (which takes the first few small samples; NaN has no slope).
    yield Sample((T(make((2, 4), dtype)), 3, 1), name="small, k=3 dim 1")
    if dtype in FLOATS:
        yield Sample((T(with_nan(make, dtype)), 4), name="nan sorts last")


def mode_samples(make, dtype):
    small = make((4, 7), dtype, 0, 3)
    # Distinct values first: the mode is then the smallest and moves smoothly (gradcheck takes
    # the first few small samples; at a tie a perturbation changes which value wins).
    yield Sample((T(make((2, 5), dtype)),), name="distinct values")
    yield Sample((T(small),), name="last dim")
    yield Sample((T(small), 0), name="dim 0")
    yield Sample((T(small), 1, True), name="keepdim")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 3), dtype)),), name="empty, nonempty dim")
    yield Sample((T(ties(dtype)),), name="equal counts: smallest value")


def quantile_samples(make, dtype):
    x = make((3, 5), dtype)
    yield Sample((T(x), 0.3), name="float q, all")
    yield Sample((T(x), 0.3, 1, True), name="float q, dim keepdim")
    yield Sample((T(x), T(np.array([0.0, 0.25, 0.5, 1.0], dtype))), {"dim": 0},
                 name="tensor q")
    yield Sample((T(x), T(np.array([0.1, 0.9], dtype)), None, True), name="tensor q, all keepdim")
    yield Sample((T(x), T(np.array(0.5, dtype)), -1), name="0-d q")
    yield Sample((T(make((), dtype)), 0.7), name="0-d input")
    # Small enough for gradcheck, which takes the first few small samples (before the NaN ones).
    yield Sample((T(make((2, 4), dtype)), T(np.array([0.3, 0.8], dtype)), 1),
                 name="small, tensor q, dim 1")
    yield Sample((T(make((3, 3), dtype)), 0.45), name="small, float q, all")
    for how in ("lower", "higher", "midpoint", "nearest"):
        yield Sample((T(x), T(np.array([0.125, 0.375, 0.6], dtype)), 1),
                     {"interpolation": how}, name=how)
    yield Sample((T(with_nan(make, dtype)), 0.4, 1), name="nan")
    y = with_nan(make, dtype)
    y[1, :] = np.nan
    yield Sample((T(y), T(np.array([0.2, 0.5], dtype)), 1), name="all-nan row")


# --------------------------------------------------------------------------- error samples

def x34(make, dtype="float32"):
    return T(make((3, 4), dtype))


def dim_errors(*extra):
    def errors(make):
        yield ErrorSample(Sample((x34(make), 2), name="dim 2 of 2-d"), IndexError,
                          "Dimension out of range")
        yield ErrorSample(Sample((x34(make), -3), name="dim -3 of 2-d"), IndexError,
                          "Dimension out of range")
        for sample, error, match in extra:
            yield ErrorSample(sample(make), error, match)
    return errors


def _empty_all(make):
    return Sample((T(make((0, 3), "float32")),), name="empty, all")


def _empty_dim(make):
    return Sample((T(make((0, 3), "float32")), 0), name="empty, empty dim")


def _int_input(make):
    return Sample((x34(make, "int64"),), name="int64 input")


def _bool_input(make):
    return Sample((x34(make, "bool"),), name="bool input")


def _complex_input(make):
    return Sample((x34(make, "complex64"),), name="complex input")


def _repeated_dims(make):
    return Sample((x34(make), (0, 0)), name="repeated dim")


def _float_dim(make):
    return Sample((x34(make), 1.5), name="float dim")


REPEATED = (_repeated_dims, RuntimeError, "multiple times")
FLOAT_DIM = (_float_dim, TypeError, "")
EMPTY_ALL = (_empty_all, RuntimeError, "Expected reduction dim to be specified")
EMPTY_DIM = (_empty_dim, IndexError, "to have non-zero size")


def _call(name, *args, **kwargs):
    return lambda make: Sample(tuple(a(make) if callable(a) else a for a in args), kwargs,
                               name=f"{name}")


def values_only(name):
    """Call `name` and keep the values: which index PyTorch reports for tied values is not
    specified (its selection algorithm decides)."""
    def call(lib, *args, **kwargs):
        result = getattr(lib, name)(*args, **kwargs)
        return result[0] if isinstance(result, tuple) else result
    return call


# --------------------------------------------------------------------------- the table

OPINFOS = [
    OpInfo("sum", sum_samples, dtypes=EVERYTHING + COMPLEX,
           errors=dim_errors(REPEATED, FLOAT_DIM)),
    # PyTorch's half kernels sum in an order of their own, rounding partial sums to half.
    OpInfo("nansum", nan_dim_samples, dtypes=EVERYTHING,
           # (sums of magnitude ~10 whose partial sums round to 11 or 8 bits, in an order that
           # differs between PyTorch's CPU capabilities)
           tolerances={"float16": (1.6e-2, 5e-3), "bfloat16": (0.1, 0.05)},
           supports_autograd=True,
           errors=dim_errors((_complex_input, RuntimeError, "complex"))),
    OpInfo("mean", mean_samples, dtypes=FLOATS + COMPLEX,
           errors=dim_errors((_int_input, RuntimeError, "could not infer output dtype"),
                             (_bool_input, RuntimeError, "Bool"), REPEATED)),
    OpInfo("nanmean", nanmean_samples, dtypes=FLOATS, supports_autograd=True,
           tolerances=HALF_INTERMEDIATES,
           errors=dim_errors((_int_input, RuntimeError, "floating point"))),
    OpInfo("prod", prod_samples, dtypes=EVERYTHING + COMPLEX, supports_autograd=True,
           errors=dim_errors(
        (_call("tuple dim", lambda make: x34(make), (0, 1)), TypeError, "dim"))),
    OpInfo("max", max_samples, dtypes=EVERYTHING, supports_autograd=True,
           errors=dim_errors(EMPTY_ALL, EMPTY_DIM, (_complex_input, NotImplementedError, ""),
                             (_call("tuple dim", x34, (0,)), TypeError, ""))),
    OpInfo("min", max_samples, dtypes=EVERYTHING, supports_autograd=True,
           errors=dim_errors(EMPTY_ALL, EMPTY_DIM)),
    OpInfo("amax", amax_samples, dtypes=EVERYTHING, supports_autograd=True,
           errors=dim_errors(EMPTY_ALL, EMPTY_DIM, REPEATED,
                             (_complex_input, NotImplementedError, ""))),
    OpInfo("amin", amax_samples, dtypes=EVERYTHING, supports_autograd=True,
           errors=dim_errors(EMPTY_ALL, EMPTY_DIM)),
    OpInfo("aminmax", aminmax_samples, dtypes=EVERYTHING,
           supports_autograd=True, errors=lambda make: (
        ErrorSample(_empty_all(make), RuntimeError, "empty"),
        ErrorSample(_call("bad dim", x34, dim=2)(make), IndexError, "Dimension out of range"),
        ErrorSample(_call("positional dim", x34, 1)(make), TypeError, ""),
        ErrorSample(_call("empty dim", lambda make: T(make((0, 3), "float32")), dim=0)(make),
                    IndexError, "non-zero size"))),
    OpInfo("argmax", argmax_samples, dtypes=NUMERIC, errors=dim_errors(
        (_empty_all, IndexError, "Expected reduction dim to be specified"), EMPTY_DIM,
        (_bool_input, RuntimeError, "bool"), (_complex_input, RuntimeError, "complex"),
        (_call("tuple dim", x34, (0,)), TypeError, "dim"))),
    OpInfo("argmin", argmax_samples, dtypes=NUMERIC, errors=dim_errors(EMPTY_DIM)),
    OpInfo("all", logical_samples, dtypes=EVERYTHING + COMPLEX, errors=dim_errors(REPEATED)),
    OpInfo("any", logical_samples, dtypes=EVERYTHING, errors=dim_errors(REPEATED)),
    OpInfo("count_nonzero", count_nonzero_samples, dtypes=EVERYTHING, supports_out=False,
           errors=dim_errors(REPEATED)),
    OpInfo("logsumexp", logsumexp_samples, dtypes=NUMERIC + BOOL, supports_autograd=True,
           errors=dim_errors(
        (_call("no dim", x34), TypeError, ""), REPEATED)),
    OpInfo("std", moment_samples, dtypes=FLOATS + COMPLEX, supports_autograd=True,
           errors=dim_errors((_int_input, RuntimeError, "floating point"), REPEATED,
                             (_call("unbiased and correction", x34, 0, True, correction=1),
                              TypeError, ""))),
    OpInfo("var", moment_samples, dtypes=FLOATS + COMPLEX, supports_autograd=True,
           errors=dim_errors((_int_input, RuntimeError, "floating point"))),
    OpInfo("std_mean", moment_samples, dtypes=ALL_FLOAT + COMPLEX, supports_out=False,
           supports_autograd=True,
           errors=dim_errors((_int_input, RuntimeError, "floating point"))),
    OpInfo("var_mean", moment_samples, dtypes=FLOATS, supports_out=False,
           supports_autograd=True,
           errors=dim_errors((_int_input, RuntimeError, "floating point"))),
    OpInfo("norm", norm_samples, dtypes=FLOATS + COMPLEX, supports_autograd=True,
           errors=lambda make: (
        ErrorSample(_int_input(make), RuntimeError, "floating point"),
        ErrorSample(_call("bad p", x34, "abc")(make), RuntimeError, "abc"),
        ErrorSample(_call("nuc of 1-d", lambda make: T(make((3,), "float32")), "nuc")(make),
                    RuntimeError, "2 dimensions"),
        ErrorSample(_call("fro over 3 dims", lambda make: T(make((2, 2, 2), "float32")),
                          "fro", (0, 1, 2))(make), RuntimeError, "2-tuple"),
        ErrorSample(_call("inf of empty", lambda make: T(make((0, 3), "float32")),
                          float("inf"))(make), RuntimeError, "empty"),
        ErrorSample(_call("narrowing dtype", x34, dtype=DType("float16"))(make),
                    RuntimeError, "narrowing"),
        ErrorSample(_call("bad dim", x34, 2, 3)(make), IndexError, "Dimension out of range"),
    )),
    OpInfo("norm", nuc_norm_samples, dtypes=ALL_FLOAT + COMPLEX, supports_autograd=True),
    OpInfo("median", median_samples, dtypes=FLOATS, supports_autograd=True,
           errors=dim_errors(EMPTY_DIM, (_bool_input, NotImplementedError, "Bool"))),
    OpInfo("median", median_samples, dtypes=INTS, call=values_only("median"),
           supports_out=False),
    OpInfo("nanmedian", median_samples, dtypes=FLOATS, supports_autograd=True,
           errors=dim_errors(EMPTY_DIM)),
    OpInfo("nanmedian", median_samples, dtypes=INTS, call=values_only("nanmedian"),
           supports_out=False),
    # Which NaN of an all-NaN row PyTorch reports depends on its selection algorithm.
    OpInfo("nanmedian", all_nan_row_samples, dtypes=FLOATS, call=values_only("nanmedian"),
           supports_out=False),
    OpInfo("kthvalue", kthvalue_samples, dtypes=FLOATS, supports_autograd=True,
           errors=lambda make: (
        ErrorSample(_call("k=0", x34, 0)(make), RuntimeError, "out of range"),
        ErrorSample(_call("k > size", x34, 5)(make), RuntimeError, "out of range"),
        ErrorSample(_call("bad dim", x34, 1, 2)(make), IndexError, "Dimension out of range"),
        ErrorSample(_call("empty dim", lambda make: T(make((0, 3), "float32")), 1, 0)(make),
                    IndexError, "non-zero size"),
        ErrorSample(_call("bool", lambda make: x34(make, "bool"), 1)(make),
                    NotImplementedError, "Bool"),
    )),
    OpInfo("kthvalue", kthvalue_samples, dtypes=INTS, call=values_only("kthvalue"),
           supports_out=False),
    OpInfo("mode", mode_samples, dtypes=EVERYTHING, supports_autograd=True,
           errors=dim_errors(
        EMPTY_DIM, (_complex_input, NotImplementedError, "Complex"))),
    OpInfo("quantile", quantile_samples, dtypes=ALL_FLOAT, supports_autograd=True,
           errors=lambda make: (
        ErrorSample(_call("int input", lambda make: x34(make, "int64"), 0.5)(make),
                    RuntimeError, "float or double"),
        ErrorSample(_call("q > 1", x34, 1.5)(make), RuntimeError, "range"),
        ErrorSample(_call("q tensor > 1", x34, T(np.array([0.5, 1.5], "float32")))(make),
                    RuntimeError, "range"),
        ErrorSample(_call("2-d q", x34, T(np.full((1, 1), 0.5, "float32")))(make),
                    RuntimeError, "1D"),
        ErrorSample(_call("q dtype", x34, T(np.array([0.5])))(make), RuntimeError, "dtype"),
        ErrorSample(_call("empty", lambda make: T(make((0, 3), "float32")), 0.5)(make),
                    RuntimeError, "non-empty"),
        ErrorSample(_call("bad interpolation", x34, 0.5, interpolation="foo")(make),
                    RuntimeError, "interpolation"),
        ErrorSample(_call("bad dim", x34, 0.5, 2)(make), IndexError, "Dimension out of range"),
    )),
    OpInfo("nanquantile", quantile_samples, dtypes=ALL_FLOAT, supports_autograd=True),
]
