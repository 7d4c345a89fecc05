"""OpInfo entries for pointwise ops."""
from opinfo.core import (ALL_FLOAT, ALL_TYPES_AND_BOOL, HALF, INTS, ErrorSample, OpInfo, Sample,
                         T)


def binary_samples(make, dtype):
    yield Sample((T(make((5,), dtype)), T(make((5,), dtype))), name="same shape")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), dtype))), name="broadcast")
    yield Sample((T(make((4,), dtype)), T(make((3, 4), dtype))), name="broadcast self",
                 inplace_ok=False)
    yield Sample((T(make((), dtype)), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 3), dtype)), T(make((3,), dtype))), name="empty")
    yield Sample((T(make((2, 3), dtype)), 2), name="int scalar")
    yield Sample((T(make((2, 3), dtype)), 1.5), name="float scalar")
    yield Sample((T(make((2, 3), dtype)), T(make((), "float64"))), name="0-d float64 other")
    yield Sample((T(make((2, 3), dtype)), T(make((2, 3), "int32"))), name="int32 other")


def binary_errors(make):
    yield ErrorSample(Sample((T(make((2,), "float32")), T(make((3,), "float32"))),
                             name="shape mismatch"), RuntimeError, "size of tensor")
    yield ErrorSample(Sample((T(make((2,), "float32")), "a"), name="string other"), TypeError)


def unary_samples(make, dtype):
    yield Sample((T(make((5,), dtype)),), name="1-d")
    yield Sample((T(make((3, 4), dtype)),), name="2-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 2), dtype)),), name="empty")


OPINFOS = [
    OpInfo("add", binary_samples, dtypes=ALL_TYPES_AND_BOOL + HALF, inplace=True,
           errors=binary_errors),
    OpInfo("sub", binary_samples, dtypes=ALL_TYPES_AND_BOOL + HALF, inplace=True),
    OpInfo("mul", binary_samples, dtypes=ALL_TYPES_AND_BOOL + HALF, inplace=True),
    OpInfo("div", binary_samples, dtypes=ALL_FLOAT + INTS + HALF, inplace=True),
    OpInfo("eq", binary_samples, dtypes=ALL_TYPES_AND_BOOL, inplace=True),
    OpInfo("lt", binary_samples, dtypes=ALL_TYPES_AND_BOOL, inplace=True),
    OpInfo("neg", unary_samples, dtypes=ALL_FLOAT + INTS + HALF, inplace=True),
    OpInfo("exp", unary_samples, dtypes=ALL_FLOAT + INTS + HALF, inplace=True),
]
