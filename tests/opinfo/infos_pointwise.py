"""OpInfo entries for pointwise arithmetic, comparison, logical, bitwise and selection ops
(src/ember/_ops/pointwise.py and pointwise_logic.py)."""
import numpy as np

from opinfo.core import (
    ALL_FLOAT,
    ALL_TYPES,
    ALL_TYPES_AND_BOOL,
    BOOL,
    HALF,
    HALF_INTERMEDIATES,
    INTS,
    ErrorSample,
    OpInfo,
    Sample,
    T,
)

SIGNED = ("int64", "int32", "int16", "int8")
EVERYTHING = ALL_TYPES_AND_BOOL + HALF
NUMERIC = ALL_TYPES + HALF
FLOATS = ALL_FLOAT + HALF
INTEGRAL = INTS + BOOL
# Ops whose integer kernels don't depend on the width are checked on fewer dtypes.
SOME = ("float32", "float64", "int64", "uint8", "bool", "float16", "bfloat16")
FEW = ("float32", "int64")          # alias entries: the alias exists and binds like the op


# --------------------------------------------------------------------------- sample makers

def binary_samples(make, dtype, nonzero_other=False):
    """Tensor-tensor (same shape, broadcast both ways, 0-d, empty), tensor-number and mixed
    dtypes. `nonzero_other` keeps divisors away from zero (integer division by zero raises)."""
    def other(shape, dt=dtype):
        return make(shape, dt, exclude_zero=nonzero_other)
    yield Sample((T(make((5,), dtype)), T(other((5,)))), name="same shape")
    yield Sample((T(make((3, 4), dtype)), T(other((4,)))), name="broadcast")
    yield Sample((T(make((4,), dtype)), T(other((3, 4)))), name="broadcast self",
                 inplace_ok=False)
    yield Sample((T(make((), dtype)), T(other(()))), name="0-d")
    yield Sample((T(make((0, 3), dtype)), T(other((3,)))), name="empty")
    yield Sample((T(make((2, 3), dtype)), 2), name="int scalar")
    yield Sample((T(make((2, 3), dtype)), 1.5), name="float scalar")
    yield Sample((T(make((2, 3), dtype)), True), name="bool scalar")
    yield Sample((T(make((2, 3), dtype)), T(other((), "float64"))), name="0-d float64 other")
    yield Sample((T(make((2, 3), dtype)), T(other((2, 3), "int32"))), name="int32 other")


def divisor_samples(make, dtype):
    yield from binary_samples(make, dtype, nonzero_other=True)
    yield Sample((T(make((6,), dtype)), -3), name="negative int scalar")


def number_first_samples(make, dtype):
    """remainder, floor_divide and the bitwise ops also take a number as the first argument."""
    yield from divisor_samples(make, dtype)
    yield Sample((3, T(make((2, 3), dtype, exclude_zero=True))), name="number self")


def bitwise_samples(make, dtype):
    yield from bools_and_more(make, dtype)
    yield Sample((3, T(make((2, 3), dtype))), name="number self")


def compare_samples(make, dtype):
    yield from binary_samples(make, dtype)
    x = make((3, 4), dtype)
    yield Sample((T(x), T(x.copy())), name="equal values")
    yield Sample((T(x), T(x[:1].copy())), name="some equal, broadcast")


def unary_samples(make, dtype):
    yield Sample((T(make((5,), dtype)),), name="1-d")
    yield Sample((T(make((3, 4), dtype)),), name="2-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 2), dtype)),), name="empty")


def nonzero_unary_samples(make, dtype):
    for sample in unary_samples(make, dtype):
        yield Sample((T(np.where(sample.args[0].array == 0, 1, sample.args[0].array)
                        .astype(sample.args[0].array.dtype)),), name=sample.name)


def alpha_samples(make, dtype):
    yield from binary_samples(make, dtype)
    if dtype == "bool":
        yield Sample((T(make((4,), dtype)), T(make((4,), dtype))), {"alpha": True},
                     name="bool alpha")
        return
    yield Sample((T(make((3, 4), dtype)), T(make((4,), dtype))), {"alpha": 3}, name="int alpha")
    yield Sample((T(make((2, 3), dtype)), 2), {"alpha": -2}, name="scalar, alpha")
    if dtype in FLOATS:
        yield Sample((T(make((3,), dtype)), T(make((3,), dtype))), {"alpha": 0.25},
                     name="float alpha")


def rounding_samples(make, dtype):
    for mode in (None, "trunc", "floor"):
        for sample in divisor_samples(make, dtype):
            yield Sample(sample.args, {"rounding_mode": mode}, f"{sample.name} mode={mode}",
                         sample.inplace_ok)


def pow_samples(make, dtype):
    if dtype in INTS:
        low = 0 if dtype == "uint8" else -3
        yield Sample((T(make((5,), dtype, low, 4)), T(make((5,), dtype, 0, 4))), name="tensors")
        yield Sample((T(make((3, 4), dtype, low, 4)), T(make((4,), dtype, 0, 3))),
                     name="broadcast")
        yield Sample((T(make((2, 3), dtype, low, 4)), 2), name="int exponent")
        yield Sample((T(make((2, 3), dtype, low, 4)), 0.5), name="float exponent")
        yield Sample((T(make((), dtype, low, 4)), T(make((), dtype, 0, 4))), name="0-d")
        yield Sample((T(make((0, 3), dtype)), 3), name="empty")
        yield Sample((2, T(make((2, 3), dtype, 0, 4))), name="number base")
        if dtype in SIGNED:
            base = np.array([1, -1, 2, -2, 0, -1, 3], dtype=dtype)
            exponent = np.array([-3, -3, -1, -2, -1, -2, 2], dtype=dtype)
            yield Sample((T(base), T(exponent)), name="negative tensor exponents")
        return
    if dtype == "bool":
        yield Sample((T(make((5,), dtype)), 2), name="int exponent")
        yield Sample((T(make((5,), dtype)), T(make((5,), dtype))), name="bool tensors")
        return
    yield Sample((T(make((5,), dtype, 0.5, 2)), T(make((5,), dtype, -2, 2))), name="tensors")
    yield Sample((T(make((3, 4), dtype, 0.5, 2)), T(make((4,), dtype, -2, 2))),
                 name="broadcast")
    yield Sample((T(make((2, 3), dtype)), 2), name="square")
    yield Sample((T(make((2, 3), dtype, 0.5, 2)), -1.5), name="float exponent")
    yield Sample((T(make((), dtype, 0.5, 2)), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 3), dtype)), 3), name="empty")
    yield Sample((T(make((2, 3), dtype, 0.5, 2)), T(make((2, 3), "int64", 0, 3))),
                 name="int exponent tensor")
    yield Sample((2.5, T(make((2, 3), dtype))), name="number base")


def shift_samples(make, dtype):
    bits = np.dtype(dtype).itemsize * 8
    low = 0 if dtype == "uint8" else -20
    yield Sample((T(make((5,), dtype, low, 20)), T(make((5,), dtype, 0, bits))), name="tensors")
    yield Sample((T(make((3, 4), dtype, low, 20)), T(make((4,), dtype, 0, bits))),
                 name="broadcast")
    yield Sample((T(make((2, 3), dtype, low, 20)), 3), name="int scalar")
    yield Sample((T(make((), dtype)), T(make((), dtype, 0, 3))), name="0-d")
    yield Sample((T(make((0, 2), dtype)), 1), name="empty")
    yield Sample((T(make((4,), dtype, low, 20)), bits + 3), name="count past the width")
    yield Sample((1, T(make((3,), dtype, 0, 8))), name="number self")
    if dtype in SIGNED:
        counts = np.array([-1, 0, bits - 1, bits], dtype=dtype)
        yield Sample((T(make((4,), dtype)), T(counts)), name="negative and wide counts")


def clamp_samples(make, dtype):
    x = make((3, 4), dtype)
    low = 0 if dtype == "uint8" else -3
    yield Sample((T(x), -2, 3), name="number bounds")
    yield Sample((T(x),), {"min": 1}, name="min only")
    yield Sample((T(x),), {"max": 0}, name="max only")
    yield Sample((T(x), 3, -2), name="min > max")
    yield Sample((T(x), -1.5, 2.5), name="float bounds")
    yield Sample((T(x), T(make((4,), dtype, low, 1)), T(make((3, 1), dtype, 0, 3))),
                 name="tensor bounds, broadcast")
    yield Sample((T(make((), dtype)), T(make((), dtype)), None), name="0-d")
    yield Sample((T(make((0, 4), dtype)), 0, 1), name="empty")
    if dtype in FLOATS:
        yield Sample((T(np.array([np.nan, 1.0, -7.0], dtype=x.dtype)), -2, 3), name="nan input")
        # Inputs on the bounds, min > max, min == max and NaN bounds: which of input, min and
        # max gets the gradient there.
        values = np.array([-3.0, -2.0, 0.0, 2.0, 3.0, np.nan, 1.0, 1.0, 0.5, 1.0], dtype=x.dtype)
        low = np.array([-2.0, -2.0, -2.0, -2.0, -2.0, -2.0, 2.0, 1.0, np.nan, 0.0],
                       dtype=x.dtype)
        high = np.array([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, -2.0, 1.0, 1.0, np.nan], dtype=x.dtype)
        yield Sample((T(values), T(low), T(high)), name="tensor bounds: ties, min > max, nan")


def clamp_one_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x), 1), name="int bound")
    yield Sample((T(x), 0.5), name="float bound")
    yield Sample((T(x), T(make((4,), dtype))), name="tensor bound, broadcast")
    yield Sample((T(make((), dtype)), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 4), dtype)), 1), name="empty")
    if dtype in FLOATS:
        values = np.array([-3.0, -2.0, 0.0, np.nan, 1.0], dtype=x.dtype)
        bound = np.array([-2.0, -2.0, -2.0, -2.0, np.nan], dtype=x.dtype)
        yield Sample((T(values), T(bound)), name="ties and nan")


def where_samples(make, dtype):
    cond = make((3, 4), "bool")
    yield Sample((T(cond), T(make((3, 4), dtype)), T(make((3, 4), dtype))), name="same shape")
    yield Sample((T(cond), T(make((4,), dtype)), T(make((3, 1), dtype))), name="broadcast")
    yield Sample((T(make((4,), "bool")), T(make((3, 4), dtype)), 0), name="int scalar other")
    yield Sample((T(cond), 1.5, T(make((3, 4), dtype))), name="float scalar input")
    yield Sample((T(cond), T(make((3, 4), dtype)), T(make((), "float64"))), name="0-d other")
    yield Sample((T(cond), T(make((3, 4), dtype)), T(make((3, 4), "int32"))), name="mixed")
    yield Sample((T(make((), "bool")), T(make((), dtype)), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 4), "bool")), T(make((4,), dtype)), 1), name="empty")


def tensor_where_samples(make, dtype):
    # Tensor.where(condition, other): self is the input.
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), "bool")), T(make((4,), dtype))),
                 name="tensor other")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), "bool")), 0), name="scalar other")


def lerp_samples(make, dtype):
    yield Sample((T(make((5,), dtype)), T(make((5,), dtype)), 0.3), name="number weight")
    yield Sample((T(make((5,), dtype)), T(make((5,), dtype)), 0.8), name="weight > 0.5")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), dtype)), T(make((3, 1), dtype, 0, 1))),
                 name="tensor weight, broadcast")
    yield Sample((T(make((2, 3), dtype)), T(make((2, 3), dtype)), T(make((), "float64", 0, 1))),
                 name="0-d float64 weight")
    yield Sample((T(make((), dtype)), T(make((), dtype)), 1), name="0-d")
    yield Sample((T(make((0, 3), dtype)), T(make((3,), dtype)), 0.5), name="empty")


def addc_samples(make, dtype, nonzero=False):
    def t2(shape, dt=dtype):
        return make(shape, dt, exclude_zero=nonzero)
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), dtype)), T(t2((3, 4)))), name="same")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), dtype)), T(t2((3, 1)))),
                 name="broadcast")
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), dtype)), T(t2((3, 4)))),
                 {"value": 2}, name="int value")
    yield Sample((T(make((4,), dtype)), T(make((4,), dtype)), T(t2((4,)))),
                 {"value": -0.5}, name="float value")
    yield Sample((T(make((), dtype)), T(make((), dtype)), T(t2(()))), name="0-d")
    yield Sample((T(make((0, 2), dtype)), T(make((2,), dtype)), T(t2((2,)))), name="empty")
    yield Sample((T(make((2, 2), dtype)), T(make((2, 2), "float64")), T(t2((2, 2), "float64"))),
                 name="float64 tensors", inplace_ok=dtype == "float64")


def addcdiv_samples(make, dtype):
    yield from addc_samples(make, dtype, nonzero=True)


def isclose_samples(make, dtype):
    x = make((3, 4), dtype)
    near = x + (x * 1e-6).astype(x.dtype) if dtype in FLOATS else x
    yield Sample((T(x), T(near)), name="near")
    yield Sample((T(x), T(make((3, 4), dtype))), name="random")
    yield Sample((T(x), T(make((4,), dtype))), {"atol": 2.0}, name="broadcast, atol")
    yield Sample((T(x), T(make((3, 4), dtype))), {"rtol": 0.5, "atol": 0.0}, name="rtol only")
    yield Sample((T(x), T(make((3, 4), dtype))), {"rtol": 0.0, "atol": 0.0}, name="exact")
    yield Sample((T(make((), dtype)), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 4), dtype)), T(make((4,), dtype))), name="empty")
    if dtype in FLOATS:
        special = np.array([np.nan, np.inf, -np.inf, 1.0], dtype=x.dtype)
        yield Sample((T(special), T(special.copy())), name="nan and inf")
        yield Sample((T(special), T(special.copy())), {"equal_nan": True}, name="equal_nan")


def equal_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x), T(x.copy())), name="same values")
    yield Sample((T(x), T(make((3, 4), dtype))), name="different values")
    yield Sample((T(x), T(x[:1].copy())), name="different shapes")
    yield Sample((T(make((), dtype)), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 3), dtype)), T(make((0, 3), dtype))), name="empty")
    yield Sample((T(x), T(x.astype("float64"))), name="different dtypes")
    if dtype in FLOATS:
        yield Sample((T(np.array([np.nan], dtype=x.dtype)), T(np.array([np.nan], dtype=x.dtype))),
                     name="nan")


def tensor_pair_samples(make, dtype):
    """Ops without a Scalar overload (numbers raise TypeError in PyTorch): mostly tensors."""
    for sample in compare_samples(make, dtype):
        if not sample.name.endswith("scalar"):
            yield sample
    yield Sample((T(make((3, 4), dtype)), T(make((4,), "bool"))), name="bool other")
    yield Sample((T(make((3,), dtype)), 2), name="number other (TypeError)")


def minmax_samples(make, dtype):
    yield from tensor_pair_samples(make, dtype)
    if dtype in FLOATS:
        # Ties split the gradient (maximum/minimum) or give it to input (fmax/fmin); a NaN
        # operand decides where the gradient goes too.
        kind = make((0,), dtype).dtype     # NumPy has no name for bfloat16
        a = np.array([1.0, 2.0, 3.0, np.nan, 1.0, np.nan], dtype=kind)
        b = np.array([2.0, 2.0, 1.0, 1.0, np.nan, np.nan], dtype=kind)
        yield Sample((T(a), T(b)), name="ties and nan")


def bools_and_more(make, dtype):
    yield from binary_samples(make, dtype)
    yield Sample((T(make((3, 4), dtype)), T(make((4,), "bool"))), name="bool other")


# --------------------------------------------------------------------------- error samples

def _f(make, shape=(2,)):
    return T(make(shape, "float32"))


def _i(values):
    return T(np.array(values, dtype="int64"))


def _b(make, shape=(2,)):
    return T(make(shape, "bool"))


def binary_errors(make):
    yield ErrorSample(Sample((_f(make), _f(make, (3,))), name="shape mismatch"), RuntimeError,
                      "size of tensor")
    yield ErrorSample(Sample((_f(make), "a"), name="string other"), TypeError)


def add_errors(make):
    yield from binary_errors(make)
    yield ErrorSample(Sample((_i([1, 2]), _i([1, 2])), {"alpha": 1.5}, name="float alpha"),
                      RuntimeError, "alpha")
    yield ErrorSample(Sample((_f(make), _f(make)), {"alpha": True}, name="bool alpha"),
                      RuntimeError, "Boolean alpha")


def sub_errors(make):
    yield from binary_errors(make)
    yield ErrorSample(Sample((_b(make), _b(make)), name="two bools"), RuntimeError, "bool")
    yield ErrorSample(Sample((_i([1, 2]), _b(make)), name="bool other"), RuntimeError, "bool")
    yield ErrorSample(Sample((_b(make), 1), name="bool self, int"), RuntimeError, "bool")
    yield ErrorSample(Sample((_i([1, 2]), True), name="bool number"), RuntimeError, "bool")


def division_errors(name):
    def errors(make):
        yield from binary_errors(make)
        yield ErrorSample(Sample((_i([4, 5]), _i([2, 0])), name="int zero"), RuntimeError,
                          "ZeroDivisionError")
        yield ErrorSample(Sample((_i([4, 5]), 0), name="int zero number"), RuntimeError,
                          "ZeroDivisionError")
        yield ErrorSample(Sample((_b(make), _b(make)), name="bool"), NotImplementedError, name)
    return errors


def div_errors(make):
    yield from binary_errors(make)
    yield ErrorSample(Sample((_i([4, 5]), _i([2, 0])), {"rounding_mode": "floor"},
                             name="int zero floor"), RuntimeError, "ZeroDivisionError")
    yield ErrorSample(Sample((_i([4, 5]), 0), {"rounding_mode": "trunc"},
                             name="int zero trunc"), RuntimeError, "ZeroDivisionError")
    yield ErrorSample(Sample((_f(make), _f(make)), {"rounding_mode": "round"},
                             name="bad rounding mode"), RuntimeError, "rounding_mode")


def pow_errors(make):
    yield from binary_errors(make)
    yield ErrorSample(Sample((_i([1, 2]), -1), name="negative int exponent"), RuntimeError,
                      "negative integer powers")
    yield ErrorSample(Sample((_b(make), _b(make)), name="bool"), NotImplementedError, "Bool")


def bool_unary_error(what, error, match):
    def errors(make):
        yield ErrorSample(Sample((_b(make),), name=f"bool {what}"), error, match)
    return errors


def bitwise_errors(name):
    def errors(make):
        yield ErrorSample(Sample((_i([1, 2]), _i([1, 2, 3])), name="shape mismatch"),
                          RuntimeError, "size of tensor")
        yield ErrorSample(Sample((_i([1, 2]), "a"), name="string other"), TypeError)
        yield ErrorSample(Sample((_f(make), _f(make)), name="float"), NotImplementedError,
                          name)
        yield ErrorSample(Sample((_i([1, 2]), 1.5), name="float number"), NotImplementedError,
                          name)
    return errors


def shift_errors(name):
    def errors(make):
        yield from bitwise_errors(name)(make)
        yield ErrorSample(Sample((_b(make), _b(make)), name="bool"), NotImplementedError, name)
    return errors


def complex_order_errors(make):
    yield from binary_errors(make)
    c = T(np.array([1 + 1j, 2], dtype="complex64"))
    yield ErrorSample(Sample((c, c), name="complex"), NotImplementedError, "ComplexFloat")


def minmax_errors(make):
    yield from binary_errors(make)
    c = T(np.array([1 + 1j, 2], dtype="complex64"))
    yield ErrorSample(Sample((c, c), name="complex"), RuntimeError, "complex")


def where_errors(make):
    yield ErrorSample(Sample((_i([1, 0]), _f(make), _f(make)), name="int condition"),
                      RuntimeError, "boolean")
    yield ErrorSample(Sample((_b(make, (3,)), _f(make), _f(make)), name="shape mismatch"),
                      RuntimeError, "size of tensor")


def clamp_errors(make):
    yield ErrorSample(Sample((_f(make),), name="no bounds"), RuntimeError, "min")
    yield ErrorSample(Sample((_b(make), False, True), name="bool"), NotImplementedError, "Bool")
    c = T(np.array([1 + 1j, 2], dtype="complex64"))
    yield ErrorSample(Sample((c, 1), name="complex"), NotImplementedError, "complex")


def lerp_errors(make):
    yield ErrorSample(Sample((_f(make), T(make((2,), "float64")), 0.5), name="end dtype"),
                      RuntimeError, "end")
    yield ErrorSample(Sample((_f(make), _f(make), T(make((2,), "float64"))),
                             name="weight dtype"), RuntimeError, "weight")
    yield ErrorSample(Sample((_i([1, 2]), _i([3, 4]), 0.5), name="int"), NotImplementedError,
                      "Long")


def addcmul_errors(make):
    yield ErrorSample(Sample((_b(make), _b(make), _b(make)), name="bool"), NotImplementedError,
                      "Bool")
    yield ErrorSample(Sample((_f(make), _f(make), _f(make, (3,))), name="shape mismatch"),
                      RuntimeError, "size of tensor")


def addcdiv_errors(make):
    yield ErrorSample(Sample((_i([1, 2]), _i([1, 2]), _i([1, 2])), name="ints"), RuntimeError,
                      "Integer division")
    yield ErrorSample(Sample((_f(make), _i([1, 2]), _i([1, 2])), name="float input, ints"),
                      RuntimeError, "Integer division")


def isclose_errors(make):
    yield ErrorSample(Sample((_f(make), T(make((2,), "float64"))), name="dtypes differ"),
                      RuntimeError, "did not match")
    yield ErrorSample(Sample((_f(make), _f(make)), {"rtol": -1.0}, name="negative rtol"),
                      RuntimeError, "rtol")
    yield ErrorSample(Sample((_f(make), _f(make)), {"atol": -1.0}, name="negative atol"),
                      RuntimeError, "atol")


def equal_errors(make):
    yield ErrorSample(Sample((_f(make), 1), name="number other"), TypeError, "other")


# --------------------------------------------------------------------------- the table

def _tensor_where(lib, input, condition, other):
    return input.where(condition, other)


OPINFOS = [
    # arithmetic
    OpInfo("add", alpha_samples, dtypes=EVERYTHING, inplace=True, errors=add_errors,
           supports_autograd=True),
    OpInfo("sub", alpha_samples, dtypes=EVERYTHING, inplace=True, errors=sub_errors,
           supports_autograd=True),
    OpInfo("subtract", binary_samples, dtypes=FEW, inplace=True, supports_autograd=True),
    # PyTorch's half kernel rounds alpha * input to half on the elements its vector loop
    # leaves over (not on the others).
    OpInfo("rsub", alpha_samples, dtypes=NUMERIC + BOOL, method=False, supports_out=False,
           errors=sub_errors, supports_autograd=True, tolerances=HALF_INTERMEDIATES),
    OpInfo("mul", binary_samples, dtypes=SOME, inplace=True, errors=binary_errors,
           supports_autograd=True),
    OpInfo("multiply", binary_samples, dtypes=FEW, inplace=True, supports_autograd=True),
    OpInfo("div", rounding_samples, dtypes=EVERYTHING, inplace=True, errors=div_errors,
           supports_autograd=True),
    OpInfo("divide", rounding_samples, dtypes=FEW, inplace=True, supports_autograd=True),
    OpInfo("true_divide", divisor_samples, dtypes=FEW + BOOL, inplace=True,
           supports_autograd=True),
    # No autograd: PyTorch records floor_divide but its backward raises "not implemented".
    OpInfo("floor_divide", number_first_samples, dtypes=EVERYTHING, inplace=True,
           errors=division_errors("div_floor")),
    OpInfo("remainder", number_first_samples, dtypes=EVERYTHING, inplace=True,
           errors=division_errors("remainder")),
    # Gradients of remainder without the number-first sample (PyTorch has no derivative for
    # remainder(number, tensor)).
    OpInfo("remainder(tensor, ...)", divisor_samples, dtypes=ALL_FLOAT,
           call=lambda lib, a, b: lib.remainder(a, b), supports_out=False,
           supports_meta=False, supports_autograd=True),
    OpInfo("fmod", divisor_samples, dtypes=EVERYTHING, inplace=True,
           errors=division_errors("fmod"), supports_autograd=True),
    OpInfo("pow", pow_samples, dtypes=EVERYTHING, inplace=True, errors=pow_errors,
           supports_autograd=True),
    OpInfo("neg", unary_samples, dtypes=EVERYTHING, inplace=True,
           errors=bool_unary_error("neg", RuntimeError, "Negation"), supports_autograd=True),
    OpInfo("negative", unary_samples, dtypes=FEW, inplace=True, supports_autograd=True),
    OpInfo("positive", unary_samples, dtypes=EVERYTHING, supports_out=False,
           errors=bool_unary_error("positive", RuntimeError, "bool"), supports_autograd=True),
    OpInfo("abs", unary_samples, dtypes=EVERYTHING, inplace=True,
           errors=bool_unary_error("abs", NotImplementedError, "Bool"), supports_autograd=True),
    OpInfo("absolute", unary_samples, dtypes=FEW, inplace=True, supports_autograd=True),
    OpInfo("reciprocal", nonzero_unary_samples, dtypes=SOME, inplace=True,
           supports_autograd=True),
    OpInfo("square", unary_samples, dtypes=SOME, inplace=True, supports_autograd=True),
    OpInfo("exp", unary_samples, dtypes=SOME, inplace=True, supports_autograd=True),
    # comparison
    OpInfo("eq", compare_samples, dtypes=EVERYTHING, inplace=True, errors=binary_errors),
    OpInfo("ne", compare_samples, dtypes=SOME, inplace=True),
    OpInfo("not_equal", compare_samples, dtypes=FEW, inplace=True),
    OpInfo("lt", compare_samples, dtypes=EVERYTHING, inplace=True,
           errors=complex_order_errors),
    OpInfo("less", compare_samples, dtypes=FEW, inplace=True),
    OpInfo("le", compare_samples, dtypes=SOME, inplace=True),
    OpInfo("less_equal", compare_samples, dtypes=FEW, inplace=True),
    OpInfo("gt", compare_samples, dtypes=SOME, inplace=True),
    OpInfo("greater", compare_samples, dtypes=FEW, inplace=True),
    OpInfo("ge", compare_samples, dtypes=EVERYTHING, inplace=True,
           errors=complex_order_errors),
    OpInfo("greater_equal", compare_samples, dtypes=FEW, inplace=True),
    OpInfo("equal", equal_samples, dtypes=SOME, supports_out=False,
           supports_meta=False, errors=equal_errors),
    OpInfo("isclose", isclose_samples, dtypes=SOME, supports_out=False,
           errors=isclose_errors),
    OpInfo("allclose", isclose_samples, dtypes=FEW + HALF + BOOL, supports_out=False,
           supports_meta=False),
    OpInfo("maximum", minmax_samples, dtypes=EVERYTHING, errors=minmax_errors,
           supports_autograd=True),
    OpInfo("minimum", minmax_samples, dtypes=SOME, supports_autograd=True),
    OpInfo("fmax", minmax_samples, dtypes=EVERYTHING, errors=minmax_errors,
           supports_autograd=True),
    OpInfo("fmin", minmax_samples, dtypes=SOME, supports_autograd=True),
    # logical
    OpInfo("logical_and", tensor_pair_samples, dtypes=SOME, inplace=True),
    OpInfo("logical_or", tensor_pair_samples, dtypes=SOME, inplace=True),
    OpInfo("logical_xor", tensor_pair_samples, dtypes=SOME, inplace=True),
    OpInfo("logical_not", unary_samples, dtypes=SOME, inplace=True),
    # bitwise
    OpInfo("bitwise_and", bitwise_samples, dtypes=INTEGRAL, inplace=True,
           errors=bitwise_errors("bitwise_and")),
    OpInfo("bitwise_or", bitwise_samples, dtypes=INTEGRAL, inplace=True,
           errors=bitwise_errors("bitwise_or")),
    OpInfo("bitwise_xor", bitwise_samples, dtypes=INTEGRAL, inplace=True,
           errors=bitwise_errors("bitwise_xor")),
    OpInfo("bitwise_not", unary_samples, dtypes=INTEGRAL, inplace=True,
           errors=lambda make: [ErrorSample(Sample((_f(make),), name="float"),
                                            NotImplementedError, "Float")]),
    OpInfo("bitwise_left_shift", shift_samples, dtypes=INTS, inplace=True,
           errors=shift_errors("lshift")),
    OpInfo("bitwise_right_shift", shift_samples, dtypes=INTS, inplace=True,
           errors=shift_errors("rshift")),
    # selection
    OpInfo("where", where_samples, dtypes=EVERYTHING, method=False, errors=where_errors,
           supports_autograd=True),
    OpInfo("where(condition)", lambda make, dtype: [Sample((T(make((3, 4), dtype)),))],
           dtypes=("bool", "float32"), call=lambda lib, c: lib.where(c), supports_out=False,
           supports_meta=False),
    OpInfo("Tensor.where", tensor_where_samples, dtypes=FEW, call=_tensor_where,
           supports_out=False, supports_autograd=True),
    OpInfo("clamp", clamp_samples, dtypes=NUMERIC, inplace=True, errors=clamp_errors,
           supports_autograd=True),
    OpInfo("clip", clamp_samples, dtypes=FEW, inplace=True, supports_autograd=True),
    OpInfo("clamp_min", clamp_one_samples, dtypes=NUMERIC, inplace=True,
           supports_autograd=True),
    OpInfo("clamp_max", clamp_one_samples, dtypes=NUMERIC, inplace=True,
           supports_autograd=True),
    OpInfo("lerp", lerp_samples, dtypes=FLOATS, inplace=True, errors=lerp_errors,
           supports_autograd=True),
    OpInfo("addcmul", addc_samples, dtypes=NUMERIC, inplace=True, errors=addcmul_errors,
           supports_autograd=True),
    OpInfo("addcdiv", addcdiv_samples, dtypes=FLOATS, inplace=True, errors=addcdiv_errors,
           supports_autograd=True),
]
