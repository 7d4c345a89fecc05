"""OpInfo entries (shape): flip/roll/rot90, repeat/tile/repeat_interleave, triangles, diagonals,
trace, and the joining and broadcasting family (cat, stack, meshgrid, atleast_*, ...)."""
import numpy as np

from opinfo.core import BOOL, DType, ErrorSample, OpInfo, Sample, Skip, T

SOME = ("float32", "float64", "int64", "float16", "bfloat16") + BOOL


def _err(args, error, match="", kwargs=None):
    return ErrorSample(Sample(args, kwargs or {}), error, match)


def _x(make, d, shape=(2, 3, 4)):
    return T(make(shape, d))


def flip_samples(make, d):
    yield Sample((_x(make, d), (0, 2)))
    yield Sample((_x(make, d), (-1,)), name="negative")
    yield Sample((_x(make, d), ()), name="no dims")
    yield Sample((T(make((), d)), (0,)), name="0-d")
    yield Sample((T(make((0, 2), d)), (1,)), name="empty")
    yield Sample((T(make((3, 4), d)), (0, 1)), name="small")


def one_arg(shapes):
    def samples(make, d):
        for shape in shapes:
            yield Sample((T(make(shape, d)),), name=str(shape))
    return samples


def roll_samples(make, d):
    yield Sample((_x(make, d), 2))
    yield Sample((_x(make, d), (1, -2), (0, 2)), name="dims")
    yield Sample((_x(make, d), 5, 1), name="wraps")
    yield Sample((T(make((), d)), 1), name="0-d")
    yield Sample((T(make((3, 4), d)), (1, 3), (0, 1)), name="small")
    yield Sample((T(make((3, 4), d)), -2), name="small flat")


def rot90_samples(make, d):
    for k in (1, 2, -1, 4):
        yield Sample((_x(make, d), k), name=f"k={k}")
    yield Sample((_x(make, d), 1, (2, 0)), name="dims")
    yield Sample((T(make((3, 4), d)), 1), name="small")
    yield Sample((T(make((3, 4), d)), 3, (1, 0)), name="small k=3")


def repeat_samples(make, d):
    yield Sample((T(make((2, 3), d)), (2, 1)))
    yield Sample((T(make((2, 3), d)), (1, 2, 2)), name="more dims")
    yield Sample((T(make((), d)), (3,)), name="0-d")
    yield Sample((T(make((2, 3), d)), (0, 1)), name="zero")


def tile_samples(make, d):
    yield Sample((T(make((2, 3), d)), (2,)))
    yield Sample((T(make((2, 3), d)), (2, 1, 2)), name="more dims")
    yield Sample((T(make((), d)), (2,)), name="0-d")


def interleave_samples(make, d):
    yield Sample((_x(make, d), 2))
    yield Sample((_x(make, d), 2, 1), name="dim")
    yield Sample((_x(make, d), 3, -1), kwargs={"output_size": 12}, name="output_size")
    yield Sample((T(make((), d)), 3), name="0-d")
    yield Sample((T(make((2, 3), d)), 2, 0), name="small")
    yield Sample((T(make((2, 3), d)), 0, 1), name="zero")


def interleave_tensor_samples(make, d):
    yield Sample((T(make((3, 2), d)), T(np.array([1, 0, 2])), 0))
    yield Sample((T(make((3, 2), d)), T(np.array(2))), name="0-d repeats")
    yield Sample((T(make((3, 2), d)), T(np.array([2])), 1), name="one repeat")
    yield Sample((T(make((3, 2), d)), T(np.array([2, 1]))), {"dim": -1}, name="columns")
    yield Sample((T(make((2, 2), d)), T(np.array([1, 3, 0, 2]))), name="flattened")


def interleave_errors(make):
    yield _err((_x(make, "float32"), -1), RuntimeError, "non-negative")
    yield _err((T(make((3,), "float32")), T(np.array([1, 2]))), RuntimeError, "same size")
    yield _err((T(make((3,), "float32")), T(np.array([1, -2, 1]))), RuntimeError, "negative")
    yield _err((T(np.array([[1, 2]])),), RuntimeError, "1D")


def interleave_indices_samples(make, d):
    yield Sample((T(np.array([2, 0, 3], dtype=d)),))
    yield Sample((T(np.array([], dtype=d)),), name="empty")


def tri_samples(make, d):
    yield Sample((T(make((3, 4), d)),))
    yield Sample((T(make((3, 4), d)), 1), name="above")
    yield Sample((T(make((2, 3, 4), d)), -1), name="batched below")
    yield Sample((T(make((0, 3), d)), 0), name="empty")


def tri_errors(make):
    yield _err((T(make((3,), "float32")),), RuntimeError, "at least 2 dimensions")


def tri_indices_samples(make, d):
    yield Sample((3, 4))
    yield Sample((3, 4, -1), {"dtype": DType("int32")}, name="below")
    yield Sample((4, 3, 2), name="above")
    yield Sample((0, 3), name="empty")


def tri_indices_errors(make):
    yield _err((-1, 3), RuntimeError, "row")
    yield _err((3, 3), NotImplementedError, "not implemented", {"dtype": DType("float32")})


def diag_samples(make, d):
    yield Sample((T(make((3,), d)),), name="vector")
    yield Sample((T(make((3,), d)), -2), name="vector below")
    yield Sample((T(make((3, 4), d)),), name="matrix")
    yield Sample((T(make((3, 4), d)), 2), name="matrix above")
    yield Sample((T(make((3, 4), d)), -5), name="matrix past the end")


def diag_errors(make):
    yield _err((_x(make, "float32"),), RuntimeError, "1D or 2D")
    yield _err((T(make((), "float32")),), RuntimeError, "1D or 2D")


def diag_embed_samples(make, d):
    yield Sample((T(make((2, 3), d)),))
    yield Sample((T(make((2, 3), d)), 1, 0, 2), name="dims")
    yield Sample((T(make((3,), d)), -1, -1, 0), name="below")
    yield Sample((T(make((), d)), 1), name="0-d")


def diagflat_samples(make, d):
    yield Sample((T(make((2, 2), d)),))
    yield Sample((T(make((3,), d)), 1), name="offset")
    yield Sample((T(make((), d)),), name="0-d")


def trace_samples(make, d):
    yield Sample((T(make((3, 4), d)),))
    yield Sample((T(make((0, 2), d)),), name="empty")


def trace_errors(make):
    yield _err((T(make((3,), "float32")),), RuntimeError, "matrix")
    yield _err((T(make((2, 2), "bool")),), NotImplementedError, "Bool")


def cat_samples(make, d):
    yield Sample(([T(make((2, 3), d)), T(make((1, 3), d))],))
    yield Sample(([T(make((2, 3), d)), T(make((2, 1), d))], -1), name="last dim")
    yield Sample(([T(make((2, 3), d)), T(make((0,), d)), T(make((2, 2), d))], 1),
                 name="legacy empty")
    yield Sample(([T(make((2, 3), d)), T(make((2, 3), "float64"))],), name="promotion")
    yield Sample(([T(make((2,), d))],), name="one")


def cat_errors(make):
    x = T(make((2, 3), "float32"))
    yield _err(([],), ValueError, "non-empty")
    yield _err(([x, T(make((2, 3, 1), "float32"))],), RuntimeError, "same number of dim")
    yield _err(([x, T(make((3, 3), "float32"))], 1), RuntimeError, "Sizes of tensors")
    yield _err(([x, T(make((), "float32"))],), RuntimeError, "zero-dimensional")
    yield _err(([x, x], 2), IndexError, "Dimension out of range")


def stack_samples(make, d):
    yield Sample(([T(make((2, 3), d)), T(make((2, 3), d))],))
    yield Sample(([T(make((2, 3), d)), T(make((2, 3), d))], -1), name="last")
    yield Sample(([T(make((), d)), T(make((), "int32"))],), name="0-d promotion")


def stack_errors(make):
    yield _err(([],), RuntimeError, "non-empty")
    yield _err(([T(make((2,), "float32")), T(make((3,), "float32"))],), RuntimeError,
               "equal size")


def many(shapes_list):
    def samples(make, d):
        for shapes in shapes_list:
            yield Sample(([T(make(s, d)) for s in shapes],), name=str(shapes))
    return samples


STACKS = [[(3,), (2,)], [(2, 3), (2, 1)], [(), (1,)], [(2, 3, 1), (2, 3, 2)]]
VSTACKS = [[(3,), (3,)], [(2, 3), (1, 3)], [(), ()], [(2, 3, 1), (1, 3, 1)]]
DSTACKS = [[(3,), (3,)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 1), (2, 3, 2)]]
COLUMNS = [[(3,), (3,)], [(3, 2), (3,)], [(), ()]]


def block_diag_samples(make, d):
    yield Sample((T(make((2, 3), d)), T(make((1,), d)), T(make((), d))))
    yield Sample((T(make((2, 2), d)), T(make((0, 2), d))), name="empty block")


def cartesian_samples(make, d):
    yield Sample((T(make((2,), d)), T(make((3,), d))))
    yield Sample((T(make((2,), d)), T(make((3,), d)), T(make((2,), d))), name="three")
    yield Sample((T(make((3,), d)),), name="one")


def combinations_samples(make, d):
    yield Sample((T(make((4,), d)),))
    yield Sample((T(make((4,), d)), 3), name="r=3")
    yield Sample((T(make((3,), d)), 2, True), name="with replacement")
    yield Sample((T(make((2,), d)), 3), name="r > n")
    yield Sample((T(make((3,), d)), 0), name="r=0")


def broadcast_tensors_samples(make, d):
    yield Sample((T(make((3, 1), d)), T(make((4,), d)), T(make((), d))))
    yield Sample((T(make((2, 0), d)), T(make((1,), d))), name="empty")


def broadcast_shapes_samples(make, d):
    yield Sample(((3, 1), (4,), ()))
    yield Sample((2, (3, 1)), name="ints")
    yield Sample((), name="none")


def meshgrid_samples(make, d):
    yield Sample((T(make((2,), d)), T(make((3,), d))), {"indexing": "ij"})
    yield Sample((T(make((2,), d)), T(make((3,), d)), T(make((), d))), {"indexing": "xy"},
                 name="xy")
    yield Sample(([T(make((2,), d)), T(make((1,), d))],), {"indexing": "ij"}, name="list")


def meshgrid_errors(make):
    yield _err((T(make((2,), "float32")), T(make((2,), "int64"))), RuntimeError, "dtype",
               {"indexing": "ij"})
    yield _err((T(make((2,), "float32")),), RuntimeError, "indexing", {"indexing": "yx"})


def atleast_samples(make, d):
    for shape in [(), (3,), (2, 3), (2, 3, 4)]:
        yield Sample((T(make(shape, d)),), name=str(shape))
    yield Sample((T(make((), d)), T(make((3,), d))), name="several")
    yield Sample(([T(make((2, 3), d)), T(make((), d))],), name="list")


# Integer-valued results and shapes: nothing to differentiate.
NOT_DIFFERENTIABLE = {"tril_indices", "triu_indices", "broadcast_shapes"}


# Their samples start with a list of tensors, or with no tensor at all: no Tensor method.
NOT_METHODS = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack",
               "dstack", "column_stack", "tril_indices", "triu_indices", "broadcast_shapes"}


def _op(name, samples, errors=None, dtypes=SOME, supports_out=False, **options):
    options.setdefault("supports_autograd", name not in NOT_DIFFERENTIABLE)
    options.setdefault("method", name not in NOT_METHODS)
    return OpInfo(name, samples, dtypes=dtypes, supports_out=supports_out, errors=errors,
                  **options)


def _errors(*items):
    return lambda make: [_err(*item) for item in items]


OPINFOS = [
    _op("flip", flip_samples, lambda make: [
        _err((_x(make, "float32"), (0, 0)), RuntimeError, "multiple times")]),
    _op("fliplr", one_arg([(2, 3), (2, 3, 4)]), lambda make: [
        _err((T(make((3,), "float32")),), RuntimeError, ">= 2-d")]),
    _op("flipud", one_arg([(2,), (2, 3)]), lambda make: [
        _err((T(make((), "float32")),), RuntimeError, ">= 1-d")]),
    _op("roll", roll_samples, lambda make: [
        _err((_x(make, "float32"), (1, 2), (0,)), RuntimeError, "must align"),
        _err((_x(make, "float32"), (1, 2)), RuntimeError, "must align")]),
    _op("rot90", rot90_samples, lambda make: [
        _err((_x(make, "float32"), 1, (0, 0)), RuntimeError, "different"),
        _err((T(make((3,), "float32")), 1), RuntimeError, "total dims"),
        _err((_x(make, "float32"), 1, (0, 1, 2)), RuntimeError, "rotation dims")]),
    _op("repeat", repeat_samples, lambda make: [
        _err((T(make((2, 3), "float32")), (2,)), RuntimeError, "can not be smaller"),
        _err((T(make((2, 3), "float32")), (-1, 2)), RuntimeError, "negative dimension")],
        call=lambda lib, x, r: x.repeat(*r)),
    _op("tile", tile_samples),
    _op("repeat_interleave", interleave_samples, interleave_errors),
    _op("repeat_interleave", interleave_tensor_samples, supports_meta=False),
    _op("repeat_interleave", interleave_indices_samples, dtypes=("int64", "int32"),
        supports_meta=False),
    _op("tril", tri_samples, tri_errors, supports_out=True, inplace=True),
    _op("triu", tri_samples, tri_errors, supports_out=True, inplace=True),
    _op("tril_indices", tri_indices_samples, tri_indices_errors, dtypes=("int64",),
        supports_meta=False),
    _op("triu_indices", tri_indices_samples, tri_indices_errors, dtypes=("int64",),
        supports_meta=False),
    _op("diag", diag_samples, diag_errors, supports_out=True),
    _op("diag_embed", diag_embed_samples, lambda make: [
        _err((T(make((2, 3), "float32")), 0, 1, 1), RuntimeError, "identical")]),
    _op("diagflat", diagflat_samples),
    _op("trace", trace_samples, trace_errors,
        dtypes=("float32", "float64", "int64", "int8", "float16")),
    _op("cat", cat_samples, cat_errors, supports_out=True),
    _op("concat", cat_samples, dtypes=("float32",), supports_out=True),
    _op("concatenate", cat_samples, dtypes=("float32",), supports_out=True),
    _op("stack", stack_samples, stack_errors, supports_out=True),
    _op("hstack", many(STACKS), supports_out=True),
    _op("vstack", many(VSTACKS), supports_out=True),
    _op("row_stack", many(VSTACKS), dtypes=("float32",), supports_out=True),
    _op("dstack", many(DSTACKS), supports_out=True),
    _op("column_stack", many(COLUMNS), supports_out=True),
    _op("block_diag", block_diag_samples, lambda make: [
        _err((_x(make, "float32"),), RuntimeError, "2 or fewer dimensions")]),
    _op("cartesian_prod", cartesian_samples, lambda make: [
        _err((T(make((2, 2), "float32")),), RuntimeError, "1D")], known=(
            Skip("layout", "PyTorch returns a lone input itself, undocumented; ember copies",
                 ("one",)),)),
    _op("combinations", combinations_samples, lambda make: [
        _err((T(make((2, 2), "float32")),), RuntimeError, "1D")]),
    _op("broadcast_tensors", broadcast_tensors_samples, dtypes=("float32", "float64")),
    _op("broadcast_shapes", broadcast_shapes_samples, lambda make: [
        _err(((2, 3), (4,)), RuntimeError, "Shape mismatch")], dtypes=("float32",)),
    _op("meshgrid", meshgrid_samples, meshgrid_errors),
    _op("atleast_1d", atleast_samples),
    _op("atleast_2d", atleast_samples),
    _op("atleast_3d", atleast_samples),
]
