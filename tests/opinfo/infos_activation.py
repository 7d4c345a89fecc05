"""OpInfo entries for activations (src/ember/_ops/activation.py): relu, softmax, log_softmax."""
import numpy as np

from opinfo.core import (
    ALL_FLOAT,
    ALL_TYPES,
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


def relu_samples(make, dtype):
    # The small samples come first: gradcheck takes the first three, and relu has no
    # derivative at 0 (the "zeros" sample below).
    yield Sample((T(make((3, 4), dtype)),), name="2-d")
    yield Sample((T(make((5,), dtype)),), name="1-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((2, 3, 4), dtype)),), name="3-d")
    yield Sample((T(make((0, 3), dtype)),), name="empty")
    zeros = make((3, 4), dtype)
    zeros[0, :2] = 0
    yield Sample((T(zeros),), name="zeros")
    if dtype in FLOATS:
        special = np.array([np.nan, -np.inf, np.inf, -1.0, 2.0, -0.0]).astype(make((), dtype).dtype)
        yield Sample((T(special),), name="nan and inf")


def relu_errors(make):
    yield ErrorSample(Sample((T(np.array([True, False])),), name="bool"), RuntimeError,
                      "Boolean inputs not supported for relu")
    yield ErrorSample(Sample((T(make((3,), "complex64")),), name="complex"), NotImplementedError,
                      "complex")


def softmax_samples(make, dtype):
    if dtype in INTS:
        # Integers need a floating dtype (the others raise, like PyTorch: test_values checks).
        x = make((3, 4), dtype)
        yield Sample((T(x), 1), {"dtype": DType("float32")}, name="ints to float32")
        yield Sample((T(x), 0), {"dtype": DType("float64")}, name="ints to float64")
        yield Sample((T(x), 1), name="ints refused")
        return
    yield Sample((T(make((3, 4), dtype)), 1), name="dim 1")
    yield Sample((T(make((3, 4), dtype)), 0), name="dim 0")
    yield Sample((T(make((5,), dtype)), -1), name="1-d dim -1")
    yield Sample((T(make((), dtype)), 0), name="0-d")
    yield Sample((T(make((), dtype)), -1), name="0-d dim -1")
    yield Sample((T(make((2, 3, 4), dtype)), 1), name="3-d dim 1")
    yield Sample((T(make((2, 3, 4), dtype)), -1), name="3-d dim -1")
    yield Sample((T(make((0, 3), dtype)), 1), name="empty, nonempty dim")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty dim")
    yield Sample((T(make((3, 4), dtype, 500, 1000)), 1), name="large (no overflow)")
    yield Sample((T(make((3, 4), dtype, -1000, -500)), 1), name="very negative")
    yield Sample((T(make((3, 4), dtype)), 1), {"dtype": DType("float64")}, name="dtype f64")
    yield Sample((T(make((3, 4), dtype)), 0, DType("float32")), name="dtype positional")
    inf = make((3, 4), dtype)
    inf[0, 1] = -np.inf
    inf[1, :] = -np.inf
    inf[2, 0] = np.inf
    yield Sample((T(inf), 1), name="infinities")


def softmax_errors(make):
    x = make((3, 4), "float32")
    yield ErrorSample(Sample((T(x), 2), name="dim out of range"), IndexError, "Dimension")
    yield ErrorSample(Sample((T(make((3,), "int64")), 0), name="int64"), NotImplementedError,
                      "not implemented for 'Long'")
    yield ErrorSample(Sample((T(make((3,), "complex64")), 0), name="complex"),
                      NotImplementedError, "ComplexFloat")
    yield ErrorSample(Sample((T(x), 0), {"dtype": DType("int32")}, name="int dtype"),
                      NotImplementedError, "not implemented for 'Int'")


OPINFOS = [
    OpInfo("relu", relu_samples, dtypes=ALL_TYPES + HALF, inplace=True, supports_out=False,
           errors=relu_errors, supports_autograd=True),
    OpInfo("softmax", softmax_samples, dtypes=FLOATS + ("int64", "uint8"),
           errors=softmax_errors, supports_autograd=True),
    OpInfo("log_softmax", softmax_samples, dtypes=FLOATS + ("int64", "uint8"),
           errors=softmax_errors, supports_autograd=True,
           tolerances=HALF_INTERMEDIATES),     # (PyTorch's half kernel rounds x - max)
]
