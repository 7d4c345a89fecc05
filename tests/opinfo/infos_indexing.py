"""OpInfo entries for the indexing ops (gather / scatter / index_* / masks / take / put / nonzero).

Ops that overwrite (scatter, index_copy, index_put, put) get unique indices: with repeats the
winning write is unspecified in PyTorch too.

Autograd: a src larger than index can't be differentiated in PyTorch (its backward rejects the
index-shaped gradient), so such samples pass src by keyword, which the grad tests leave without
requires_grad. The legacy `scatter(..., reduce=)` overloads have no derivative in PyTorch: their
samples sit in a separate OpInfo with autograd off.
"""
import numpy as np

from opinfo.core import ALL_FLOAT, ALL_TYPES_AND_BOOL, HALF, INTS, ErrorSample, OpInfo, Sample, T

ALL = ALL_TYPES_AND_BOOL + HALF
NUMERIC = ALL_FLOAT + INTS + HALF
_rng = np.random.default_rng(7)


def _long(values):
    return T(np.asarray(values, dtype=np.int64))


def _indices(high, shape, dtype="int64"):
    return T(_rng.integers(0, high, size=shape).astype(dtype))


def _unique_along(size, shape, dim):
    """An index of `shape` whose entries are distinct along `dim` (values < size)."""
    keys = _rng.random(shape[:dim] + (size,) + shape[dim + 1:])
    order = np.argsort(keys, axis=dim)
    return T(np.take(order, np.arange(shape[dim]), axis=dim).astype(np.int64))


def _unique(size, count):
    return _long(_rng.permutation(size)[:count])


# --------------------------------------------------------------------------- gather / scatter

def gather_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _indices(3, (2, 4))), name="dim 0")
    yield Sample((T(make((3, 4), dtype)), 1, _indices(4, (3, 6))), name="dim 1, longer")
    yield Sample((T(make((3, 4), dtype)), -1, _indices(4, (2, 2))), name="smaller index")
    yield Sample((T(make((2, 3, 4), dtype)), 1, _indices(3, (2, 2, 4), "int32")),
                 name="3-d, int32 index")
    yield Sample((T(make((), dtype)), 0, _long(0)), name="0-d")
    yield Sample((T(make((3, 4), dtype)), 0, T(np.zeros((0, 4), np.int64))), name="empty index")


def gather_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([[5]])), name="out of range"), RuntimeError,
                      "index 5 is out of bounds for dimension 0 with size 3")
    yield ErrorSample(Sample((x, 0, T(np.ones((1, 1), np.float32))), name="float index"),
                      RuntimeError, "int32/int64")
    yield ErrorSample(Sample((x, 0, _long([1])), name="ndim"), RuntimeError, "dimensions")
    yield ErrorSample(Sample((x, 0, _long(np.zeros((2, 5)))), name="too large"), RuntimeError,
                      "Size does not match")


def scatter_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _unique_along(3, (2, 4), 0),
                  T(make((2, 4), dtype))), name="src")
    yield Sample((T(make((3, 4), dtype)), 1, _unique_along(4, (3, 2), 1)),
                 {"src": T(make((3, 5), dtype))}, name="larger src")
    yield Sample((T(make((3, 4), dtype)), 0, _unique_along(3, (2, 4), 0)),
                 {"value": 1 if dtype != "bool" else True}, name="value")
    yield Sample((T(make((), dtype)), 0, _long(0), T(make((), dtype))), name="0-d")
    yield Sample((T(make((3, 4), dtype)), 0, T(np.zeros((0, 4), np.int64)),
                  T(make((0, 4), dtype))), name="empty index")


def scatter_legacy_reduce_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _indices(3, (4, 4)), T(make((4, 4), dtype))),
                 {"reduce": "add"}, name="reduce add, repeats")
    yield Sample((T(make((3, 4), dtype)), 1, _indices(4, (3, 3))),
                 {"value": 2, "reduce": "multiply"}, name="value reduce multiply")


def scatter_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([[5]]), T(make((1, 1), "float32"))),
                             name="out of range"), RuntimeError, "out of bounds")
    yield ErrorSample(Sample((x, 0, _long([[1]]), T(make((1, 1), "float64"))),
                             name="src dtype"), RuntimeError, "dtype")
    yield ErrorSample(Sample((x, 0, _long([[1]]), T(make((1, 1), "float32"))),
                             {"reduce": "max"}, name="bad reduce"), RuntimeError, "add or multiply")
    yield ErrorSample(Sample((x, 0, _long(np.zeros((2, 2))), T(make((1, 1), "float32"))),
                             name="src too small"), RuntimeError, "no larger")


def scatter_add_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _indices(3, (5, 4)), T(make((5, 4), dtype))),
                 name="repeats")
    yield Sample((T(make((3, 4), dtype)), 1, _indices(4, (2, 3), "int32")),
                 {"src": T(make((3, 4), dtype))}, name="int32 index, larger src")
    yield Sample((T(make((), dtype)), 0, _long(0), T(make((), dtype))), name="0-d")
    yield Sample((T(make((0, 4), dtype)), 1, T(np.zeros((0, 4), np.int64)),
                  T(make((0, 4), dtype))), name="empty")


def scatter_reduce_samples(make, dtype):
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        if dtype == "bool" and reduce == "mean":
            continue
        for include_self in (True, False):
            yield Sample((T(make((3, 4), dtype)), 0, _indices(3, (4, 4)),
                          T(make((4, 4), dtype)), reduce), {"include_self": include_self},
                         name=f"{reduce} include_self={include_self}")
    yield Sample((T(make((), dtype)), 0, _long(0), T(make((), dtype)), "amax"), name="0-d")


def scatter_reduce_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([[1]]), T(make((1, 1), "float32")), "foo"),
                             name="bad reduce"), RuntimeError, "sum, prod, mean, amax or amin")


# --------------------------------------------------------------------------- index_* along dim

def index_select_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _long([2, 0, 2])), name="dim 0, repeats")
    yield Sample((T(make((3, 4), dtype)), -1, T(np.array([3, 1], np.int32))), name="int32")
    yield Sample((T(make((3, 4), dtype)), 1, _long(2)), name="0-d index")
    yield Sample((T(make((), dtype)), 0, _long([0])), name="0-d input")
    yield Sample((T(make((3, 4), dtype)), 0, _long([])), name="empty index")


def index_select_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([5])), name="out of range"), IndexError,
                      "index out of range in self")
    yield ErrorSample(Sample((x, 1, _long([4])), name="out of range, dim 1"), RuntimeError,
                      "out of DATA bounds")
    yield ErrorSample(Sample((T(make((2, 3, 4), "float32")), 2, _long([-1])),
                             name="negative, last dim of 3-d"), IndexError, "out of range")
    yield ErrorSample(Sample((x, 0, _long([[1]])), name="2-d index"), IndexError, "vector")
    yield ErrorSample(Sample((x, 0, T(np.ones(1, np.float32))), name="float index"),
                      RuntimeError, "int32 or int64")


def index_add_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _long([0, 2, 0]), T(make((3, 4), dtype))),
                 name="repeats")
    yield Sample((T(make((3, 4), dtype)), 1, T(np.array([1, 3], np.int32)),
                  T(make((3, 2), dtype))), name="int32 index")
    if dtype != "bool":
        yield Sample((T(make((3, 4), dtype)), 0, _long([1]), T(make((1, 4), dtype))),
                     {"alpha": 2}, name="alpha")
    yield Sample((T(make((), dtype)), 0, _long([0]), T(make((), dtype))), name="0-d")


def index_add_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([5]), T(make((1, 4), "float32"))),
                             name="out of range"), RuntimeError, "out of bounds")
    yield ErrorSample(Sample((x, 0, _long([1]), T(make((1, 3), "float32"))),
                             name="source shape"), RuntimeError, "source tensor shape")
    yield ErrorSample(Sample((T(make((), "float32")), 0, _long([0]), T(make((1,), "float32"))),
                             name="0-d self, 1-d source"), RuntimeError, "source tensor shape")
    yield ErrorSample(Sample((x, 0, _long([1]), T(make((1, 4), "float64"))),
                             name="source dtype"), RuntimeError, "same scalar type")


def index_copy_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), 0, _unique(3, 2), T(make((2, 4), dtype))), name="dim 0")
    yield Sample((T(make((3, 4), dtype)), -1, _unique(4, 3), T(make((3, 3), dtype))),
                 name="dim -1")
    yield Sample((T(make((3, 4), dtype)), 0, _long([]), T(make((0, 4), dtype))), name="empty")


def index_copy_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, T(np.array([1], np.int32)), T(make((1, 4), "float32"))),
                             name="int32 index"), RuntimeError, "long tensor")
    yield ErrorSample(Sample((x, 0, _long([5]), T(make((1, 4), "float32"))),
                             name="out of range"), IndexError, "out of bounds")
    yield ErrorSample(Sample((x, 0, _long([1]), T(make((2, 4), "float32"))),
                             name="count"), IndexError, "Number of indices")


def index_fill_samples(make, dtype):
    value = True if dtype == "bool" else 3
    yield Sample((T(make((3, 4), dtype)), 0, _long([0, 2, 0]), value), name="scalar")
    yield Sample((T(make((3, 4), dtype)), 1, _long([-1]), value), name="negative index")
    # (PyTorch's backward for a tensor value can't take negative indices.)
    yield Sample((T(make((3, 4), dtype)), 1, _long([3, 1, 3]), T(make((), dtype))),
                 name="0-d tensor, repeats")
    yield Sample((T(make((3, 4), dtype)), 1, _long(2), value), name="0-d index")
    yield Sample((T(make((), dtype)), 0, _long([0]), value), name="0-d input")


def index_fill_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([5]), 1.0), name="out of range"), IndexError,
                      "out of bounds")
    yield ErrorSample(Sample((x, 0, T(np.array([1], np.int32)), 1.0), name="int32 index"),
                      IndexError, "int64")
    yield ErrorSample(Sample((x, 0, _long([1]), T(make((1,), "float32"))), name="1-d value"),
                      RuntimeError, "0-dimensional")


def index_reduce_samples(make, dtype):
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            yield Sample((T(make((3, 4), dtype)), 0, _long([0, 2, 0]), T(make((3, 4), dtype)),
                          reduce), {"include_self": include_self},
                         name=f"{reduce} include_self={include_self}")
    yield Sample((T(make((3, 4), dtype)), 1, T(np.array([3], np.int32)), T(make((3, 1), dtype)),
                  "amax"), name="int32 index")
    # Small enough for gradgradcheck (NOTE [finite-difference budget]).
    yield Sample((T(make((2, 3), dtype)), 0, _long([1, 1]), T(make((2, 3), dtype)), "prod"),
                 name="small prod")


def index_reduce_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, 0, _long([1]), T(make((1, 4), "float32")), "sum"),
                             name="bad reduce"), RuntimeError, "prod, mean, amax or amin")
    yield ErrorSample(Sample((x, 0, _long([-1]), T(make((1, 4), "float32")), "prod"),
                             name="negative index"), IndexError, "index out of range")


# --------------------------------------------------------------------------- index_put / masks

def index_put_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), (_unique(3, 2),), T(make((2, 4), dtype))),
                 name="rows")
    yield Sample((T(make((3, 4), dtype)), (_long([0, 2]), _long([-1, 1])), T(make((), dtype))),
                 name="points, 0-d value")
    yield Sample((T(make((3, 4), dtype)), (T(make((3, 4), "bool")),), T(make((), dtype))),
                 name="mask")
    if dtype != "bool":
        yield Sample((T(make((3, 4), dtype)), (_long([0, 0, 2]), _long([1, 1, 3])),
                      T(make((3,), dtype)), True), name="accumulate repeats")
    yield Sample((T(make((2, 3), dtype)), (_long([1]),), T(make((1, 3), dtype))),
                 name="small rows")


def index_put_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, (_long([5]),), T(make((), "float32"))), name="out of range"),
                      IndexError, "out of bounds")
    yield ErrorSample(Sample((x, (_long([1]),), T(make((), "float64"))), name="dtype"),
                      RuntimeError, "dtypes match")
    yield ErrorSample(Sample((x, (_long([1, 2]),), T(make((3,), "float32"))), name="shape"),
                      RuntimeError, "shape mismatch")
    yield ErrorSample(Sample((x, (_long([1]),) * 3, T(make((), "float32"))), name="too many"),
                      IndexError, "too many indices")


def masked_fill_samples(make, dtype):
    value = True if dtype == "bool" else 2
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), "bool")), value), name="scalar")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), "bool")), T(make((), dtype))),
                 name="broadcast mask, 0-d tensor")
    yield Sample((T(make((4,), dtype)), T(make((3, 4), "bool")), value), name="broadcast self",
                 inplace_ok=False)
    if dtype in INTS:
        yield Sample((T(make((3, 4), dtype)), T(make((3, 4), "bool")), 2.7), name="float value")
    yield Sample((T(make((), dtype)), T(make((), "bool")), value), name="0-d")
    yield Sample((T(make((0, 4), dtype)), T(make((0, 4), "bool")), value), name="empty")


def masked_fill_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, T(make((4,), "uint8")), 1.0), name="uint8 mask"), RuntimeError,
                      "boolean masks")
    yield ErrorSample(Sample((x, T(make((3,), "bool")), 1.0), name="shape"), RuntimeError,
                      "size of tensor")
    yield ErrorSample(Sample((x, T(make((4,), "bool")), T(make((1,), "float32"))),
                             name="1-d value"), RuntimeError, "0-dimensional")


def masked_select_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), "bool"))), name="same shape")
    yield Sample((T(make((4,), dtype)), T(make((3, 4), "bool"))), name="broadcast self")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), "bool"))), name="broadcast mask")
    yield Sample((T(make((), dtype)), T(make((), "bool"))), name="0-d")
    yield Sample((T(make((0, 4), dtype)), T(make((4,), "bool"))), name="empty")


def masked_scatter_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), "bool")), T(make((12,), dtype))),
                 name="same shape")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), "bool")), T(make((4, 5), dtype))),
                 name="broadcast mask, larger source")
    yield Sample((T(make((4,), dtype)), T(make((3, 4), "bool")), T(make((12,), dtype))),
                 name="broadcast self", inplace_ok=False)
    yield Sample((T(make((), dtype)), T(make((), "bool")), T(make((1,), dtype))), name="0-d")


def masked_scatter_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, T(np.ones((3, 4), bool)), T(make((5,), "float32"))),
                             name="short source"), RuntimeError, "Number of elements")
    yield ErrorSample(Sample((x, T(np.ones((3, 4), bool)), T(make((12,), "float64"))),
                             name="dtype"), RuntimeError, "same dtypes")


# --------------------------------------------------------------------------- flat indices

def take_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), _long([[0, -1], [11, 5]])), name="2-d index")
    yield Sample((T(make((), dtype)), _long([0, 0])), name="0-d input")
    yield Sample((T(make((3, 4), dtype)), _long(3)), name="0-d index")
    yield Sample((T(make((3, 4), dtype)), _long([])), name="empty index")


def take_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, _long([12])), name="out of range"), IndexError, "out of range")
    yield ErrorSample(Sample((x, T(np.array([1], np.int32))), name="int32"), RuntimeError,
                      "long tensor")


def take_along_dim_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), _indices(3, (2, 4)), 0), name="dim 0")
    yield Sample((T(make((3, 4), dtype)), _indices(4, (1, 5)), 1), name="broadcast index")
    yield Sample((T(make((3, 1), dtype)), _indices(3, (2, 4)), 0), name="broadcast input")
    yield Sample((T(make((3, 4), dtype)), _long([[-1, 0, 1, 2]]), 0), name="negative")
    yield Sample((T(make((3, 4), dtype)), _long([0, 11, 5])), name="dim None")


def take_along_dim_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, T(np.array([[1]], np.int32)), 0), name="int32"), RuntimeError,
                      "Long")
    yield ErrorSample(Sample((x, _long([1]), 0), name="ndim"), RuntimeError, "dimensions")


def put_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), _long([[0, -1], [5, 7]]), T(make((4,), dtype))),
                 name="2-d index")
    yield Sample((T(make((), dtype)), _long([0]), T(make((1,), dtype))), name="0-d")
    if dtype != "bool":
        yield Sample((T(make((3, 4), dtype)), _long([0, 0, -1]), T(make((3,), dtype)), True),
                     name="accumulate repeats")


def put_errors(make):
    x = T(make((3, 4), "float32"))
    yield ErrorSample(Sample((x, _long([12]), T(make((1,), "float32"))), name="out of range"),
                      IndexError, "out of range")
    yield ErrorSample(Sample((x, _long([1, 2]), T(make((1,), "float32"))), name="count"),
                      IndexError, "same number of elements")
    yield ErrorSample(Sample((x, _long([1]), T(make((1,), "float64"))), name="dtype"),
                      RuntimeError, "same dtype")


def nonzero_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)),), name="2-d")
    yield Sample((T(make((5,), dtype)),), {"as_tuple": True}, name="as_tuple")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((), dtype)),), {"as_tuple": True}, name="0-d as_tuple")
    yield Sample((T(make((0, 3), dtype)),), name="empty")


def argwhere_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)),), name="2-d")
    yield Sample((T(make((), dtype)),), name="0-d")


def _scatter_legacy_reduce(lib, *args, **kwargs):
    return lib.scatter(*args, **kwargs)


GRAD = {"supports_autograd": True}

OPINFOS = [
    OpInfo("gather", gather_samples, dtypes=ALL, errors=gather_errors, **GRAD),
    OpInfo("scatter", scatter_samples, dtypes=ALL, inplace=True, errors=scatter_errors,
           **GRAD),
    OpInfo("scatter.reduce", scatter_legacy_reduce_samples, dtypes=NUMERIC,
           call=_scatter_legacy_reduce),
    OpInfo("scatter_add", scatter_add_samples, dtypes=NUMERIC, inplace=True, **GRAD),
    OpInfo("scatter_reduce", scatter_reduce_samples, dtypes=NUMERIC, inplace=True,
           errors=scatter_reduce_errors, **GRAD),
    OpInfo("index_select", index_select_samples, dtypes=ALL, errors=index_select_errors,
           **GRAD),
    OpInfo("index_add", index_add_samples, dtypes=ALL, inplace=True, errors=index_add_errors,
           **GRAD),
    OpInfo("index_copy", index_copy_samples, dtypes=ALL, inplace=True,
           errors=index_copy_errors, **GRAD),
    OpInfo("index_fill", index_fill_samples, dtypes=ALL, inplace=True, supports_out=False,
           errors=index_fill_errors, **GRAD),
    OpInfo("index_reduce", index_reduce_samples, dtypes=NUMERIC, inplace=True,
           errors=index_reduce_errors, **GRAD),
    OpInfo("index_put", index_put_samples, dtypes=ALL, inplace=True, supports_out=False,
           errors=index_put_errors, **GRAD),
    OpInfo("masked_fill", masked_fill_samples, dtypes=ALL, inplace=True, supports_out=False,
           errors=masked_fill_errors, **GRAD),
    OpInfo("masked_select", masked_select_samples, dtypes=ALL, supports_meta=False, **GRAD),
    OpInfo("masked_scatter", masked_scatter_samples, dtypes=ALL, inplace=True,
           supports_out=False, errors=masked_scatter_errors, **GRAD),
    OpInfo("take", take_samples, dtypes=ALL, errors=take_errors, **GRAD),
    OpInfo("take_along_dim", take_along_dim_samples, dtypes=ALL, errors=take_along_dim_errors,
           **GRAD),
    OpInfo("put", put_samples, dtypes=ALL, inplace=True, supports_out=False, errors=put_errors,
           **GRAD),
    OpInfo("nonzero", nonzero_samples, dtypes=ALL, supports_meta=False),
    OpInfo("argwhere", argwhere_samples, dtypes=ALL_FLOAT + ("int64", "bool"),
           supports_out=False, supports_meta=False),
]
