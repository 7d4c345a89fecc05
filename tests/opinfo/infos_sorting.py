"""OpInfo entries for scans, sorting and searching (src/ember/_ops/cumulative.py and
sorting.py): cumsum, cumprod, cummax, cummin, logcumsumexp, sort, argsort, msort, topk, unique,
unique_consecutive, histc, bincount, bucketize, searchsorted.

Index outputs are compared too, so samples whose order PyTorch leaves open (ties in topk, the
order of topk(sorted=False)) use values without ties or compare sorted results only."""
import numpy as np

from opinfo.core import (
    ALL_FLOAT,
    ALL_TYPES,
    BOOL,
    HALF,
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
FEW = ("float32", "int64")


def distinct(shape, dtype, seed=0):
    """Values without ties (a shuffled range), exact in every dtype but bool."""
    n = int(np.prod(shape))
    values = np.random.default_rng(seed).permutation(n)
    if dtype != "uint8":
        values = values - n // 2
    if dtype == "bfloat16":
        import ml_dtypes
        return values.reshape(shape).astype(np.float32).astype(ml_dtypes.bfloat16)
    return values.reshape(shape).astype(dtype)


def special(dtype):
    """NaN, infinities and signed zeros, with repeats."""
    values = np.array([3.0, np.nan, -np.inf, 1.0, np.nan, np.inf, -0.0, 0.0, 1.0, -2.0])
    if dtype == "bfloat16":
        import ml_dtypes
        return values.astype(ml_dtypes.bfloat16)
    return values.astype(dtype)


# --------------------------------------------------------------------------- scans

def scan_samples(make, dtype, low=None, high=None):
    yield Sample((T(make((7,), dtype, low, high)), 0), name="1-d")
    yield Sample((T(make((3, 4), dtype, low, high)), 1), name="2-d dim 1")
    yield Sample((T(make((3, 4), dtype, low, high)), -2), name="2-d dim -2")
    yield Sample((T(make((2, 3, 2), dtype, low, high)), 1), name="3-d")
    yield Sample((T(make((), dtype)), 0), name="0-d")
    yield Sample((T(make((), dtype)), -1), name="0-d dim -1")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty dim")
    yield Sample((T(make((0, 3), dtype)), 1), name="empty other dim")


def cumsum_samples(make, dtype, low=None, high=None):
    yield from scan_samples(make, dtype, low, high)
    yield Sample((T(make((3, 4), dtype, low, high)), 1), {"dtype": DType("float64")},
                 name="dtype float64", inplace_ok=dtype == "float64")
    yield Sample((T(make((5,), dtype, low, high)), 0), {"dtype": DType(dtype)},
                 name="dtype own")
    if dtype != "bool":
        yield Sample((T(make((5,), dtype, low, high)), 0), {"dtype": DType("int32")},
                     name="dtype int32", inplace_ok=dtype == "int32")
    if dtype in ALL_FLOAT:
        yield Sample((T(special(dtype)), 0), name="nan and inf")


def cumprod_samples(make, dtype):
    yield from cumsum_samples(make, dtype, -2, 3)


def cummax_samples(make, dtype):
    # Integer and bool samples are full of ties: PyTorch takes the latest index of a tie.
    yield from scan_samples(make, dtype)
    if dtype in FLOATS:
        yield Sample((T(special(dtype)), 0), name="nan, inf, signed zeros")
    if dtype in INTS:
        yield Sample((T(make((4, 6), dtype, 0, 3)), 1), name="many ties")


def logcumsumexp_samples(make, dtype):
    yield from scan_samples(make, dtype)
    if dtype in ALL_FLOAT:
        yield Sample((T(special(dtype)), 0), name="nan and inf")
        yield Sample((T(np.array([-np.inf, -np.inf, 0.0, 1000.0, -1000.0], dtype)), 0),
                     name="wide range")


def scan_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 2)), IndexError, "out of range")
    yield ErrorSample(Sample((T(make((), "float32")), 1), name="0-d dim 1"), IndexError,
                      "out of range")


def cumsum_errors(make):
    yield from scan_errors(make)
    yield ErrorSample(Sample((T(make((3,), "bool")), 0), {"dtype": DType("bool")},
                             name="bool dtype"), NotImplementedError, "Bool")


def cummax_errors(make):
    yield from scan_errors(make)
    yield ErrorSample(Sample((T(make((3,), "complex64")), 0), name="complex"),
                      NotImplementedError, "ComplexFloat")


def logcumsumexp_errors(make):
    yield from scan_errors(make)
    yield ErrorSample(Sample((T(make((3,), "int64")), 0), name="int"), NotImplementedError,
                      "Long")


# --------------------------------------------------------------------------- sort, topk

def sort_samples(make, dtype):
    """No ties for the default (stable=False) call; ties only with stable=True."""
    if dtype != "bool":
        yield Sample((T(distinct((9,), dtype)),), name="1-d")
        yield Sample((T(distinct((3, 5), dtype)), 0), name="dim 0")
        yield Sample((T(distinct((3, 5), dtype)),), {"descending": True}, name="descending")
        yield Sample((T(distinct((2, 3, 4), dtype)), 1, True), name="3-d positional")
        yield Sample((T(distinct((), dtype)),), name="0-d")
    yield Sample((T(make((4, 6), dtype)),), {"stable": True}, name="ties stable")
    yield Sample((T(make((4, 6), dtype)),), {"stable": True, "descending": True, "dim": 0},
                 name="ties stable descending")
    yield Sample((T(make((0, 3), dtype)), 0), name="empty")
    yield Sample((T(make((2, 0), dtype)),), {"stable": True}, name="empty sorted dim")
    if dtype in FLOATS:
        yield Sample((T(special(dtype)),), {"stable": True}, name="nan, inf, signed zeros")
        yield Sample((T(special(dtype)),), {"stable": True, "descending": True},
                     name="nan descending")


def msort_samples(make, dtype):
    if dtype != "bool":
        yield Sample((T(distinct((5, 3), dtype)),), name="2-d")
        yield Sample((T(distinct((4,), dtype)),), name="1-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((0, 2), dtype)),), name="empty")
    if dtype in FLOATS:
        yield Sample((T(special(dtype)),), name="nan")


def topk_samples(make, dtype):
    yield Sample((T(distinct((8,), dtype)), 3), name="1-d")
    yield Sample((T(distinct((4, 5), dtype)), 2, 0), name="dim 0")
    yield Sample((T(distinct((4, 5), dtype)), 5), {"largest": False}, name="smallest, k=n")
    yield Sample((T(distinct((2, 3, 4), dtype)), 0, 1), name="k=0")
    yield Sample((T(distinct((), dtype)), 1), name="0-d")
    yield Sample((T(distinct((), dtype)), 0), name="0-d k=0")
    yield Sample((T(make((0, 3), dtype)), 0, 0), name="empty")
    yield Sample((T(make((0, 3), dtype)), 2), name="empty other dim")
    if dtype in FLOATS:
        values = np.array([1.0, np.nan, 3.0, -np.inf, 2.0, np.inf]).astype(special(dtype).dtype)
        yield Sample((T(values), 3), name="nan is largest")
        yield Sample((T(values), 3), {"largest": False}, name="nan is not smallest")


def _topk_unsorted(lib, input, k, *args, **kwargs):
    """topk(sorted=False) returns its elements in an order PyTorch leaves open: sort them."""
    values = lib.topk(input, k, *args, sorted=False, **kwargs).values
    return lib.sort(values, dim=args[0] if args else -1).values


def sort_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 2)), IndexError, "out of range")
    yield ErrorSample(Sample((T(make((3,), "complex64")),), name="complex"), RuntimeError,
                      "complex")


def topk_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 5)), RuntimeError, "k out of range")
    yield ErrorSample(Sample((x, -1), name="negative k"), RuntimeError, "k out of range")
    yield ErrorSample(Sample((x, 4, 0), name="k above the dim"), RuntimeError, "out of range")
    yield ErrorSample(Sample((x, 1, 2), name="bad dim"), IndexError, "out of range")
    yield ErrorSample(Sample((x, 1.5), name="float k"), TypeError, "'k'")
    yield ErrorSample(Sample((T(make((3,), "bool")), 1), name="bool"), RuntimeError, "bool")


# --------------------------------------------------------------------------- unique

def repeated(make, shape, dtype):
    """Values with many repeats (including bool)."""
    if dtype == "bool":
        return make(shape, dtype)
    return make(shape, "int64", 0, 4).astype(make((), dtype).dtype)


def unique_samples(make, dtype):
    x = repeated(make, (3, 5), dtype)
    yield Sample((T(x),), name="plain")
    yield Sample((T(x),), {"return_inverse": True}, name="inverse")
    yield Sample((T(x),), {"return_counts": True, "sorted": False}, name="counts, unsorted")
    yield Sample((T(x), True, True, True), name="everything, positional")
    rows = repeated(make, (6, 2), dtype)
    rows[3] = rows[0]
    yield Sample((T(rows),), {"dim": 0, "return_inverse": True, "return_counts": True},
                 name="dim 0")
    yield Sample((T(rows.T.copy()),), {"dim": -1, "return_inverse": True}, name="dim -1")
    yield Sample((T(repeated(make, (), dtype)),), {"return_inverse": True,
                                                   "return_counts": True}, name="0-d")
    yield Sample((T(make((0,), dtype)),), {"return_inverse": True, "return_counts": True},
                 name="empty")
    yield Sample((T(make((2, 0), dtype)),), {"dim": 1, "return_inverse": True,
                                             "return_counts": True}, name="empty dim")
    if dtype in FLOATS:
        yield Sample((T(special(dtype)),), {"return_inverse": True, "return_counts": True},
                     name="each nan distinct")


def unique_consecutive_samples(make, dtype):
    x = repeated(make, (4, 5), dtype)
    yield Sample((T(x),), name="plain")
    yield Sample((T(x), True, True), name="everything, positional")
    yield Sample((T(x),), {"return_counts": True}, name="counts")
    rows = np.repeat(repeated(make, (3, 2), dtype), [2, 1, 3], axis=0)
    yield Sample((T(rows),), {"dim": 0, "return_inverse": True, "return_counts": True},
                 name="dim 0")
    yield Sample((T(rows.T.copy()),), {"dim": 1, "return_inverse": True}, name="dim 1")
    yield Sample((T(repeated(make, (), dtype)),), {"return_inverse": True,
                                                   "return_counts": True}, name="0-d")
    yield Sample((T(make((0, 2), dtype)),), {"dim": 0, "return_inverse": True,
                                             "return_counts": True}, name="empty dim")
    if dtype in FLOATS:
        yield Sample((T(special(dtype)),), {"return_inverse": True, "return_counts": True},
                     name="each nan distinct")


def unique_errors(make):
    yield ErrorSample(Sample((T(make((3, 4), "int64")),), {"dim": 2}, name="bad dim"),
                      IndexError, "out of range")
    yield ErrorSample(Sample((T(make((), "int64")),), {"dim": 0}, name="0-d with dim"),
                      IndexError, "no dimensions")
    yield ErrorSample(Sample((T(make((3, 0), "int64")),), {"dim": 0}, name="empty other dim"),
                      RuntimeError, "0 sized")
    yield ErrorSample(Sample((T(make((3,), "complex64")),), name="complex"),
                      NotImplementedError, "ComplexFloat")


def _on_meta(lib, name, input, *args, **kwargs):
    return getattr(lib, name)(input.to("meta"), *args, **kwargs)


def meta_errors(make):
    """Ops whose output shape depends on the data have no meta rule, as in PyTorch."""
    x = T(make((4,), "int64", 0, 5))
    for name, kwargs in (("unique", {}), ("unique", {"dim": 0}), ("unique_consecutive", {}),
                         ("bincount", {})):
        yield ErrorSample(Sample((name, x), kwargs, name=f"{name} {kwargs}"),
                          NotImplementedError)


# --------------------------------------------------------------------------- histograms

def histc_samples(make, dtype):
    yield Sample((T(make((20,), dtype)),), name="defaults")
    yield Sample((T(make((4, 5), dtype)), 7), name="data range")
    yield Sample((T(make((4, 5), dtype)), 6, -2, 3), name="given range")
    yield Sample((T(make((10,), dtype)),), {"bins": 4, "min": 1.5, "max": 1.5},
                 name="min == max uses the data")
    yield Sample((T(np.full((3,), 2, dtype=make((), dtype).dtype)), 4), name="constant")
    yield Sample((T(np.array([0.0, 1 / 3, 2 / 3, 1.0, 0.3, 0.7], dtype=make((), dtype).dtype)),
                  3, 0, 1), name="on the edges")
    yield Sample((T(make((), dtype)), 3), name="0-d")
    yield Sample((T(make((0,), dtype)), 3), name="empty")


def histc_errors(make):
    x = T(make((5,), "float32"))
    yield ErrorSample(Sample((x, 0), name="no bins"), RuntimeError, "bins must be > 0")
    yield ErrorSample(Sample((x, 3, 2, 1), name="max < min"), RuntimeError, "larger than min")
    yield ErrorSample(Sample((x, 3, 0, float("inf")), name="infinite"), RuntimeError,
                      "not finite")
    yield ErrorSample(Sample((T(np.array([1.0, np.nan], np.float32)), 3), name="nan range"),
                      RuntimeError, "not finite")
    yield ErrorSample(Sample((T(make((5,), "int64")), 3), name="int"), NotImplementedError,
                      "Long")
    yield ErrorSample(Sample((x, 2.5), name="float bins"), TypeError, "bins")


def bincount_samples(make, dtype):
    x = make((12,), dtype, 0, 8)
    yield Sample((T(x),), name="counts")
    yield Sample((T(x),), {"minlength": 12}, name="minlength")
    yield Sample((T(x), None, 2), name="short minlength, positional")
    for weights in ("float32", "float64", "int64", "float16", "bool"):
        yield Sample((T(x), T(make((12,), weights))), name=f"{weights} weights")
    yield Sample((T(make((0,), dtype)),), name="empty")
    yield Sample((T(make((0,), dtype)), T(make((0,), "float32")), 3), name="empty weighted")


def bincount_errors(make):
    yield ErrorSample(Sample((T(np.array([1, -1])),), name="negative"), RuntimeError,
                      "non-negative")
    yield ErrorSample(Sample((T(make((2, 2), "int64", 0, 3)),), name="2-d"), RuntimeError,
                      "1-d")
    yield ErrorSample(Sample((T(make((), "int64", 0, 3)),), name="0-d"), RuntimeError, "1-d")
    yield ErrorSample(Sample((T(make((3,), "float32")),), name="float"), NotImplementedError,
                      "Float")
    yield ErrorSample(Sample((T(make((3,), "bool")),), name="bool"), NotImplementedError,
                      "Bool")
    x = T(make((4,), "int64", 0, 3))
    yield ErrorSample(Sample((x,), {"minlength": -1}, name="minlength"), RuntimeError,
                      "minlength")
    yield ErrorSample(Sample((x, T(make((3,), "float32"))), name="weights length"),
                      RuntimeError, "weights")


# --------------------------------------------------------------------------- searching

def _sorted(make, shape, dtype):
    return np.sort(make(shape, dtype), axis=-1)


def bucketize_samples(make, dtype):
    boundaries = _sorted(make, (6,), dtype)
    # Values that hit the boundaries exactly test `right`.
    hits = T(np.concatenate([boundaries, make((6,), dtype)]).reshape(3, 4))
    yield Sample((hits, T(boundaries)), name="2-d values")
    yield Sample((hits, T(boundaries)), {"right": True}, name="right")
    yield Sample((hits, T(boundaries)), {"out_int32": True}, name="int32")
    yield Sample((T(make((), dtype)), T(boundaries)), name="0-d value")
    yield Sample((3, T(boundaries)), name="int scalar")
    yield Sample((T(make((0, 2), dtype)), T(boundaries)), name="empty values")
    yield Sample((T(make((4,), dtype)), T(make((0,), dtype))), name="no boundaries")
    yield Sample((T(make((5,), "float64")), T(boundaries)), name="float64 values")
    if dtype in FLOATS:
        yield Sample((T(special(dtype)), T(boundaries)), name="nan and inf values")
        yield Sample((1.5, T(boundaries)), {"right": True}, name="float scalar")


def searchsorted_samples(make, dtype):
    sequence = _sorted(make, (6,), dtype)
    values = np.concatenate([sequence[::2], make((5,), dtype)])
    yield Sample((T(sequence), T(values)), name="1-d")
    yield Sample((T(sequence), T(values)), {"right": True}, name="right")
    yield Sample((T(sequence), T(values)), {"side": "right"}, name="side right")
    yield Sample((T(sequence), T(values)), {"side": "left", "out_int32": True},
                 name="side left, int32")
    yield Sample((T(sequence), T(values.reshape(2, 4))), name="2-d values, 1-d sequence")
    batched = _sorted(make, (3, 5), dtype)
    batched_values = np.concatenate([batched[:, 1:3], make((3, 4), dtype)], axis=1)
    yield Sample((T(batched), T(batched_values)), name="batched")
    yield Sample((T(batched), T(batched_values)), {"right": True}, name="batched right")
    yield Sample((T(_sorted(make, (2, 2, 4), dtype)), T(make((2, 2, 3), dtype))),
                 name="batched 3-d")
    shuffled = make((6,), dtype)
    sorter = np.argsort(shuffled.astype(np.float64), kind="stable")
    yield Sample((T(shuffled), T(values)), {"sorter": T(sorter)}, name="sorter")
    yield Sample((T(batched[:, ::-1].copy()), T(batched_values)),
                 {"sorter": T(np.tile(np.arange(4, -1, -1), (3, 1)))}, name="batched sorter")
    yield Sample((T(sequence), 2), name="scalar")
    yield Sample((T(sequence), T(make((), dtype))), name="0-d value")
    yield Sample((T(make((0,), dtype)), T(values)), name="empty sequence")
    yield Sample((T(make((2, 0), dtype)), T(make((2, 3), dtype))), name="empty batched")
    yield Sample((T(sequence), T(make((0,), dtype))), name="no values")
    if dtype in FLOATS:
        yield Sample((T(sequence), T(special(dtype))), name="nan and inf values")


def bucketize_errors(make):
    x = T(make((3,), "float32"))
    yield ErrorSample(Sample((x, T(make((2, 2), "float32"))), name="2-d boundaries"),
                      RuntimeError, "1 dimension")
    yield ErrorSample(Sample((x, T(make((), "float32"))), name="0-d boundaries"),
                      RuntimeError, "1 dimension")
    yield ErrorSample(Sample((T(make((3,), "bool")), T(make((2,), "bool"))), name="bool"),
                      NotImplementedError, "Bool")


def searchsorted_errors(make):
    sequence = T(np.sort(make((4,), "float32")))
    values = T(make((3,), "float32"))
    yield ErrorSample(Sample((sequence, values), {"side": "middle"}, name="bad side"),
                      RuntimeError, "side")
    yield ErrorSample(Sample((sequence, values), {"side": "left", "right": True},
                             name="side against right"), RuntimeError, "opposites")
    yield ErrorSample(Sample((T(make((), "float32")), values), name="0-d sequence"),
                      RuntimeError, "positive dimension")
    yield ErrorSample(Sample((T(make((2, 4), "float32")), T(make((3, 2), "float32"))),
                             name="batch mismatch"), RuntimeError, "must match")
    yield ErrorSample(Sample((T(make((2, 4), "float32")), 1.0), name="scalar, batched"),
                      RuntimeError, "scalar")
    yield ErrorSample(Sample((sequence, values), {"sorter": T(np.array([0, 1, 2]))},
                             name="sorter size"), RuntimeError, "sorter")
    yield ErrorSample(Sample((sequence, values), {"sorter": T(np.array([0, 1, 2, 7]))},
                             name="sorter range"), RuntimeError, "out of range")
    yield ErrorSample(Sample((sequence, values), {"sorter": T(np.arange(4, dtype=np.int32))},
                             name="sorter dtype"), RuntimeError, "long")


OPINFOS = [
    OpInfo("cumsum", cumsum_samples, dtypes=EVERYTHING, inplace=True, errors=cumsum_errors,
           supports_autograd=True),
    OpInfo("cumprod", cumprod_samples, dtypes=EVERYTHING, inplace=True, errors=scan_errors,
           supports_autograd=True),
    OpInfo("cummax", cummax_samples, dtypes=EVERYTHING,
           errors=cummax_errors, supports_autograd=True),
    OpInfo("cummin", cummax_samples, dtypes=EVERYTHING,
           supports_autograd=True),
    OpInfo("logcumsumexp", logcumsumexp_samples, dtypes=FLOATS + ("complex128",),
           errors=logcumsumexp_errors, supports_autograd=True),
    OpInfo("sort", sort_samples, dtypes=EVERYTHING, errors=sort_errors,
           supports_autograd=True),
    OpInfo("argsort", sort_samples, dtypes=EVERYTHING, supports_out=False),
    OpInfo("msort", msort_samples, dtypes=EVERYTHING, supports_autograd=True),
    OpInfo("topk", topk_samples, dtypes=NUMERIC, errors=topk_errors,
           supports_autograd=True),
    OpInfo("topk.unsorted", topk_samples, dtypes=FEW, call=_topk_unsorted,
           supports_out=False, supports_autograd=True),
    OpInfo("unique", unique_samples, dtypes=EVERYTHING, supports_out=False,
           supports_meta=False, errors=unique_errors),
    OpInfo("unique_consecutive", unique_consecutive_samples, dtypes=EVERYTHING,
           supports_out=False, supports_meta=False),
    OpInfo("data-dependent shapes on meta", lambda make, dtype: (), dtypes=(), call=_on_meta,
           errors=meta_errors),
    OpInfo("histc", histc_samples, dtypes=FLOATS, errors=histc_errors),
    OpInfo("bincount", bincount_samples, dtypes=INTS, supports_out=False, supports_meta=False,
           errors=bincount_errors),
    OpInfo("bucketize", bucketize_samples, dtypes=NUMERIC, method=False,
           errors=bucketize_errors),
    OpInfo("searchsorted", searchsorted_samples, dtypes=NUMERIC, method=False,
           errors=searchsorted_errors),
]
