"""OpInfo entries for the factories that take a tensor (the `*_like` family, `Tensor.new_*`)
and for filling (src/ember/_ops/filling.py): fill, Tensor.fill_, zero_.

Factories without a tensor argument (zeros, arange, ...) are checked in test_creation.py; here
the tensor argument lets the table's meta and non-contiguous checks run on them too. Random and
uninitialised results are compared by shape and dtype only.
"""

from opinfo.core import (
    ALL_FLOAT,
    ALL_TYPES_AND_BOOL,
    HALF,
    DType,
    ErrorSample,
    OpInfo,
    Sample,
    T,
)

ALL = ALL_TYPES_AND_BOOL + HALF + ("complex64",)
SOME = ("float32", "float64", "int64", "uint8", "bool", "float16")


def like_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)),), name="2-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 4), dtype)),), name="empty")
    yield Sample((T(make((2, 3), dtype)),), {"dtype": DType("float64")}, name="dtype=")
    yield Sample((T(make((3,), dtype)),), {"dtype": DType("int32")}, name="int32")


def full_like_samples(make, dtype):
    for sample in like_samples(make, dtype):
        fill = True if dtype == "bool" else 3
        yield Sample(sample.args + (fill,), sample.kwargs, sample.name)
    yield Sample((T(make((2, 3), dtype)), 2.5), {"dtype": DType("float32")}, name="float value")


def randint_like_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)), 5), name="high")
    yield Sample((T(make((2, 3), dtype)), -2, 5), name="low, high")
    yield Sample((T(make((0, 3), dtype)), 5), name="empty")


def new_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)), (4, 2)), name="shape")
    yield Sample((T(make((2, 3), dtype)), ()), name="0-d")
    yield Sample((T(make((2, 3), dtype)), (0, 2)), name="empty")
    yield Sample((T(make((2, 3), dtype)), (3,)), {"dtype": DType("int16")}, name="dtype=")


def new_full_samples(make, dtype):
    for sample in new_samples(make, dtype):
        yield Sample(sample.args + (True if dtype == "bool" else 7,), sample.kwargs, sample.name)


def _method(name):
    return lambda lib, self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def fill_samples(make, dtype):
    number = True if dtype == "bool" else 3
    yield Sample((T(make((2, 3), dtype)), number), name="int")
    yield Sample((T(make((5,), dtype)), 2.5 if dtype != "bool" else 0), name="float")
    yield Sample((T(make((), dtype)), number), name="0-d")
    yield Sample((T(make((0, 3), dtype)), number), name="empty")
    yield Sample((T(make((2, 3), dtype)), T(make((), dtype))), name="0-d tensor value")
    yield Sample((T(make((3, 2), dtype)), T(make((), "float64"))), name="float64 tensor value")
    yield Sample((T(make((4,), dtype)), T(make((), "int64"))), name="int64 tensor value")


def fill_errors(make):
    x = T(make((2, 3), "float32"))
    yield ErrorSample(Sample((x, T(make((1,), "float32"))), name="1-d value"), RuntimeError,
                      "0-dimension value tensor")
    yield ErrorSample(Sample((x, "a"), name="string value"), TypeError, "fill")
    yield ErrorSample(Sample((x, 1j), name="complex into float"), RuntimeError,
                      "without overflow")
    yield ErrorSample(Sample((T(make((2,), "uint8")), 300), name="too large for uint8"),
                      RuntimeError, "cannot be converted to type uint8_t without overflow")
    yield ErrorSample(Sample((T(make((2,), "int8")), -129), name="too small for int8"),
                      RuntimeError, "int8_t")
    yield ErrorSample(Sample((T(make((2,), "int64")), float("nan")), name="nan into int64"),
                      RuntimeError, "int64_t")
    yield ErrorSample(Sample((T(make((2,), "float32")), 1e39), name="1e39 into float32"),
                      RuntimeError, "type float without overflow")
    yield ErrorSample(Sample((T(make((2,), "float16")), 70000.0), name="70000 into float16"),
                      RuntimeError, "c10::Half")
    yield ErrorSample(Sample((x, 1 << 64), name="int beyond 64 bits"), OverflowError)


def zero_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)),), name="2-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 3), dtype)),), name="empty")


def probability_samples(make, dtype):
    """Inputs in [0, 1]."""
    def probs(shape):
        return T(make(shape, dtype, low=0.0, high=1.0))
    yield Sample((probs((2, 3)),), name="2-d")
    yield Sample((probs(()),), name="0-d")
    yield Sample((probs((0, 3)),), name="empty")


def bernoulli_p_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)), 0.3), name="p")
    yield Sample((T(make((4,), dtype)), 1.0), name="p=1")


def normal_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)), 2.0), name="tensor mean")
    yield Sample((T(make((2, 3), dtype)), T(make((3,), dtype, low=0.5, high=2.0))),
                 name="tensor std")


def multinomial_samples(make, dtype):
    yield Sample((T(make((4,), dtype, low=0.1, high=1.0)), 2), name="1-d")
    yield Sample((T(make((3, 4), dtype, low=0.1, high=1.0)), 6, True), name="replacement")


def tensor_data_samples(make, dtype):
    yield Sample((make((2, 3), dtype).tolist(),), name="nested list")
    yield Sample((make((), dtype).item(),), name="number")


NO_VALUES = {"compare_values": False, "method": False, "supports_out": False}

OPINFOS = [
    OpInfo("zeros_like", like_samples, dtypes=ALL, method=False, supports_out=False),
    OpInfo("ones_like", like_samples, dtypes=ALL, method=False, supports_out=False),
    OpInfo("full_like", full_like_samples, dtypes=ALL, method=False, supports_out=False),
    OpInfo("empty_like", like_samples, dtypes=ALL, **NO_VALUES),
    OpInfo("rand_like", like_samples, dtypes=ALL_FLOAT + HALF, **NO_VALUES),
    OpInfo("randn_like", like_samples, dtypes=ALL_FLOAT + HALF, **NO_VALUES),
    OpInfo("randint_like", randint_like_samples, dtypes=("float32", "int64", "uint8"),
           **NO_VALUES),
    OpInfo("Tensor.new_zeros", new_samples, dtypes=SOME, call=_method("new_zeros"),
           supports_out=False),
    OpInfo("Tensor.new_ones", new_samples, dtypes=SOME, call=_method("new_ones"),
           supports_out=False),
    OpInfo("Tensor.new_full", new_full_samples, dtypes=SOME, call=_method("new_full"),
           supports_out=False),
    OpInfo("Tensor.new_empty", new_samples, dtypes=SOME, call=_method("new_empty"),
           supports_out=False, compare_values=False),
    # fill: the function, and Tensor.fill_ through the in-place check (there is no
    # Tensor.fill). The value's gradient is the sum of the incoming one.
    OpInfo("fill", fill_samples, dtypes=ALL, method=False, inplace=True, supports_out=False,
           errors=fill_errors, supports_autograd=True),
    OpInfo("zero_", zero_samples, dtypes=ALL, supports_out=False),
    # Random samples of tensors: shapes, dtypes and errors here; the values, which are
    # PyTorch's for the same seed (NOTE [ember draws PyTorch's CPU stream]), are compared in
    # test_random_torch_stream.py.
    OpInfo("bernoulli", probability_samples, dtypes=("float32", "float64"),
           compare_values=False, supports_out=False),
    OpInfo("bernoulli.p", bernoulli_p_samples, dtypes=("float32", "float64", "int64"),
           call=lambda lib, x, p: lib.bernoulli(x, p), method=False, supports_out=False,
           compare_values=False),
    OpInfo("poisson", probability_samples, dtypes=("float32", "float64"), method=False,
           supports_out=False, compare_values=False),
    OpInfo("normal", normal_samples, dtypes=("float32", "float64"), method=False,
           supports_out=False, compare_values=False),
    OpInfo("multinomial", multinomial_samples, dtypes=("float32", "float64"),
           supports_out=False, compare_values=False),
    # Data and aliases: tensor() of Python data (through lift_fresh), detach.
    OpInfo("tensor", tensor_data_samples, dtypes=("float64", "int64", "bool"), method=False,
           supports_out=False, supports_meta=False),
    OpInfo("detach", zero_samples, dtypes=ALL, supports_out=False),
]

