"""OpInfo entries for src/ember/_ops/misc.py: diff, isin, fill_diagonal_, is_nonzero and
is_same_size. (resize_, apply_, map_ and dim_order are checked in tests/test_misc_methods.py.)"""
import numpy as np

from opinfo.core import (
    ALL_FLOAT,
    ALL_TYPES,
    ALL_TYPES_AND_BOOL,
    COMPLEX,
    HALF,
    ErrorSample,
    OpInfo,
    Sample,
    T,
)

NUMERIC = ALL_TYPES + HALF


def _values(values, dtype):
    values = np.asarray(values)
    if dtype == "bfloat16":
        import ml_dtypes
        return values.astype(np.float32).astype(ml_dtypes.bfloat16)
    return values.astype(dtype)


# --------------------------------------------------------------------------- diff

def diff_samples(make, dtype):
    other = "int64" if dtype != "int64" else "int32"
    yield Sample((T(make((3, 4), dtype)),), name="default")
    yield Sample((T(make((5,), dtype)),), name="1-d")
    yield Sample((T(make((3, 4), dtype)), 2, 0), name="n 2 dim 0")
    yield Sample((T(make((3, 4), dtype)), 1, 0),
                 {"prepend": T(make((2, 4), dtype)), "append": T(make((1, 4), dtype))},
                 name="prepend and append")
    yield Sample((T(make((2, 3, 4), dtype)),), {"n": 3, "dim": 1}, name="n past the size")
    yield Sample((T(make((3, 4), dtype)),), {"n": 0}, name="n 0")
    yield Sample((T(make((2, 3, 4), dtype)), 2, -2), name="3-d dim -2")
    yield Sample((T(make((0, 3), dtype)), 1, 0), name="empty dim")
    yield Sample((T(make((0, 3), dtype)),), name="empty other dim")
    yield Sample((T(make((3, 4), dtype)),), {"append": T(make((3, 2), other))},
                 name="append of another dtype")
    yield Sample((T(make((3, 4), dtype)),), {"n": 2, "prepend": T(make((3, 1), "float64"))},
                 name="prepend float64")


def diff_errors(make):
    x = make((3, 4), "float32")
    yield ErrorSample(Sample((T(make((), "float32")),), name="0-d"), RuntimeError,
                      "at least one-dimensional")
    yield ErrorSample(Sample((T(x), -1), name="negative n"), RuntimeError, "non-negative")
    yield ErrorSample(Sample((T(x), 1, 2), name="dim out of range"), IndexError, "Dimension")
    yield ErrorSample(Sample((T(x),), {"prepend": T(make((3,), "float32"))}, name="prepend 1-d"),
                      RuntimeError, "same dimension")
    yield ErrorSample(Sample((T(x),), {"append": T(make((2, 1), "float32"))},
                             name="append shape"), RuntimeError, "input.size(0) = 3")
    yield ErrorSample(Sample((T(x),), {"prepend": 1.0}, name="number prepend"), TypeError,
                      "prepend")


# --------------------------------------------------------------------------- isin

def isin_samples(make, dtype):
    elements = _values(np.arange(12).reshape(3, 4) % 7 - 2, dtype)
    test = _values([0, 3, -1, 9], dtype) if dtype != "uint8" else _values([0, 3, 9], dtype)
    yield Sample((T(elements), T(test)), name="tensors")
    yield Sample((T(elements), T(test)), {"invert": True}, name="invert")
    yield Sample((T(_values([1, 2, 3, 4], dtype)), T(_values([4, 2], dtype))),
                 {"assume_unique": True}, name="assume_unique")
    yield Sample((T(elements), 2), name="number test_element")
    yield Sample((T(elements), 2.5), name="float number test_element")
    yield Sample((T(elements), 3), {"invert": True}, name="number, invert")
    yield Sample((3, T(test)), name="number element")
    yield Sample((7, T(test)), {"invert": True}, name="number element, invert")
    yield Sample((T(_values(2, dtype)), T(test)), name="0-d elements")
    yield Sample((T(elements), T(_values(3, dtype))), name="0-d test_elements")
    yield Sample((T(elements[:0]), T(test)), name="empty elements")
    yield Sample((T(elements), T(test[:0])), name="empty test_elements")
    yield Sample((T(elements), T(_values([3.0, 2.5], "float64"))), name="float64 test_elements")
    yield Sample((T(elements), T(_values([3, 300], "int64"))), name="int64 test_elements")
    if dtype in ALL_FLOAT + HALF:
        nan = _values([np.nan, 1.0, -np.inf], dtype)
        yield Sample((T(nan), T(nan)), name="nan matches nothing")


def isin_errors(make):
    x = make((3,), "int64")
    yield ErrorSample(Sample((T(np.array([True, False])), T(x)), name="bool elements"),
                      RuntimeError, "Unsupported input type encountered for isin(): Bool")
    yield ErrorSample(Sample((T(x), True), name="bool number"), RuntimeError, "Bool")
    yield ErrorSample(Sample((T(x), T(make((2,), "complex64"))), name="complex"), RuntimeError,
                      "ComplexFloat")
    yield ErrorSample(Sample((1, 2), name="two numbers"), TypeError, "isin()")
    yield ErrorSample(Sample((T(x), [1, 2]), name="list"), TypeError, "isin()")
    yield ErrorSample(Sample((T(x), T(x), False), name="assume_unique positional"), TypeError,
                      "")


# --------------------------------------------------------------------------- fill_diagonal_

def _fill_diagonal(lib, x, *args, **kwargs):
    # A copy, so that the tensor made for the sample stays a leaf (autograd refuses to write
    # into a leaf that requires grad) and the in-place write is what gets differentiated.
    return x.clone().fill_diagonal_(*args, **kwargs)


def fill_diagonal_samples(make, dtype):
    yield Sample((T(make((3, 3), dtype)), 7), name="square")
    yield Sample((T(make((2, 4), dtype)), 0), name="wide")
    yield Sample((T(make((4, 2), dtype)), 5), name="tall")
    yield Sample((T(make((7, 3), dtype)), 1), {"wrap": True}, name="tall, wrap")
    yield Sample((T(make((7, 3), dtype)), 1, True), name="tall, wrap positional")
    yield Sample((T(make((3, 7), dtype)), 1), {"wrap": True}, name="wide, wrap")
    yield Sample((T(make((2, 2, 2), dtype)), 3), name="3-d cube")
    yield Sample((T(make((0, 3), dtype)), 3), name="empty")
    yield Sample((T(make((3, 3), dtype)), True), name="bool value")
    if dtype not in ("bool",):
        yield Sample((T(make((3, 3), dtype)), 2.75), name="float value")


def fill_diagonal_errors(make):
    yield ErrorSample(Sample((T(make((3,), "float32")), 1), name="1-d"), RuntimeError,
                      "dimensions must larger than 1")
    yield ErrorSample(Sample((T(make((2, 3, 2), "float32")), 1), name="unequal 3-d"),
                      RuntimeError, "equal length")
    yield ErrorSample(Sample((T(make((3, 3), "int8")), 300), name="overflow"), RuntimeError,
                      "without overflow")
    yield ErrorSample(Sample((T(make((3, 3), "float32")), 1j), name="complex value"),
                      RuntimeError, "without overflow")


# --------------------------------------------------------------------------- queries

def is_nonzero_samples(make, dtype):
    yield Sample((T(make((1,), dtype)),), name="one element")
    yield Sample((T(np.zeros((1, 1), dtype=make((), dtype).dtype)),), name="zero")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(np.ones((), dtype=make((), dtype).dtype)),), name="0-d one")


def is_nonzero_errors(make):
    yield ErrorSample(Sample((T(make((0,), "float32")),), name="empty"), RuntimeError,
                      "no values")
    yield ErrorSample(Sample((T(make((2,), "float32")),), name="two elements"), RuntimeError,
                      "more than one value")


def is_same_size_samples(make, dtype):
    x = make((3, 4), dtype)
    yield Sample((T(x), T(make((3, 4), "int64"))), name="same shape, other dtype")
    yield Sample((T(x), T(make((4, 3), dtype))), name="transposed shape")
    yield Sample((T(make((), dtype)), T(make((1,), dtype))), name="0-d and 1-d")
    yield Sample((T(make((0, 3), dtype)), T(make((0, 3), dtype))), name="empty")


def is_same_size_errors(make):
    yield ErrorSample(Sample((T(make((3,), "float32")), 3), name="number"), TypeError, "other")


OPINFOS = [
    OpInfo("diff", diff_samples, dtypes=ALL_TYPES_AND_BOOL + HALF + COMPLEX, errors=diff_errors,
           supports_autograd=True),
    OpInfo("isin", isin_samples, dtypes=NUMERIC, method=False, errors=isin_errors),
    OpInfo("fill_diagonal_", fill_diagonal_samples, dtypes=ALL_TYPES_AND_BOOL + HALF,
           call=_fill_diagonal, supports_out=False, errors=fill_diagonal_errors,
           supports_autograd=True),
    OpInfo("is_nonzero", is_nonzero_samples, dtypes=ALL_TYPES_AND_BOOL + HALF + COMPLEX,
           supports_out=False, supports_meta=False, errors=is_nonzero_errors),
    OpInfo("is_same_size", is_same_size_samples, dtypes=("float32", "int64", "bool"),
           supports_out=False, supports_meta=False, errors=is_same_size_errors),
]
