"""OpInfo entries (view): reshaping, reordering, expanding and slicing views."""

from opinfo.core import BOOL, COMPLEX, DType, ErrorSample, OpInfo, Sample, T

VIEW_DTYPES = ("float32", "float64", "int64", "float16", "bfloat16") + BOOL


def _view(name, samples, errors=None, dtypes=VIEW_DTYPES, **options):
    options.setdefault("supports_autograd", True)
    return OpInfo(name, samples, dtypes=dtypes, supports_out=False, errors=errors, **options)


def _err(make, args, error, match="", kwargs=None, name=""):
    return ErrorSample(Sample(args, kwargs or {}, name=name), error, match)


def _x(make, d, shape=(2, 3, 4)):
    return T(make(shape, d))


def view_samples(make, d):
    yield Sample((_x(make, d), (6, 4)), name="merge")
    yield Sample((_x(make, d), (-1,)), name="infer")
    yield Sample((_x(make, d), (2, 1, 3, 1, 4)), name="ones")
    yield Sample((T(make((), d)), (1, 1)), name="0-d")
    yield Sample((T(make((0, 3), d)), (3, 0, 1)), name="empty")


def view_method(lib, x, *shape):
    return x.view(*shape)


def view_errors(make):
    yield _err(make, (_x(make, "float32"), (5, 5)), RuntimeError, "invalid for input of size")
    yield _err(make, (_x(make, "float32"), (-1, -1)), RuntimeError, "only one dimension")
    x = T(make((4, 3), "float32"), noncontig=True)
    yield _err(make, (x, (12,)), RuntimeError, "Use .reshape")


def view_dtype_samples(make, d):
    target = {"float32": "int32", "int64": "float64", "float16": "bfloat16",
              "bfloat16": "int16", "bool": "uint8"}[d]
    yield Sample((_x(make, d), DType(target)), name="same size")
    yield Sample((T(make((), d)), DType(target)), name="0-d")
    if d == "float32":
        yield Sample((_x(make, d), DType("float16")), name="smaller")
        yield Sample((_x(make, d), DType("float64")), name="larger")


def view_dtype_errors(make):
    yield _err(make, (T(make((), "float32")), DType("float64")), RuntimeError, "dim()")
    yield _err(make, (T(make((3, 3), "float32")), DType("float64")), RuntimeError,
               "divisible")


def _shape_pairs(make, d):
    yield _x(make, d), T(make((6, 4), d))
    yield T(make((), d)), T(make((1,), d))


def view_as_samples(make, d):
    for x, other in _shape_pairs(make, d):
        yield Sample((x, other))


def reshape_samples(make, d):
    yield Sample((_x(make, d), (6, 4)))
    yield Sample((_x(make, d), (4, -1)), name="infer")
    yield Sample((_x(make, d), (3, 8)), name="copy when noncontig")
    yield Sample((T(make((), d)), ()), name="0-d")
    yield Sample((T(make((0, 2), d)), (2, 0)), name="empty")


def flatten_samples(make, d):
    yield Sample((_x(make, d),))
    yield Sample((_x(make, d), 1), name="start")
    yield Sample((_x(make, d), 0, 1), name="range")
    yield Sample((_x(make, d), -2, -1), name="negative")
    yield Sample((T(make((), d)),), name="0-d")


def ravel_samples(make, d):
    yield Sample((_x(make, d),), name="3-d")
    yield Sample((T(make((), d)),), name="0-d")
    yield Sample((T(make((0, 3), d)),), name="empty")


def unflatten_samples(make, d):
    yield Sample((_x(make, d), 2, (2, 2)))
    yield Sample((_x(make, d), -1, (2, -1)), name="infer")
    yield Sample((_x(make, d), 0, (1, 2, 1)), name="ones")
    yield Sample((T(make((2, 4), d)), 1, (2, 2)), name="small")


def squeeze_samples(make, d):
    yield Sample((T(make((2, 1, 3, 1), d)),), name="all")
    yield Sample((T(make((2, 1, 3, 1), d)), 1), name="dim")
    yield Sample((T(make((2, 1, 3, 1), d)), 0), name="not size 1")
    yield Sample((T(make((2, 1, 3, 1), d)), (1, -1)), name="dims")
    yield Sample((T(make((), d)), 0), name="0-d")
    yield Sample((T(make((1, 0), d)),), name="empty")


def unsqueeze_samples(make, d):
    for dim in (0, 1, 3, -1):
        yield Sample((_x(make, d), dim), name=f"dim {dim}")
    yield Sample((T(make((), d)), 0), name="0-d")


def transpose_samples(make, d):
    yield Sample((_x(make, d), 0, 2))
    yield Sample((_x(make, d), -1, 1), name="negative")
    yield Sample((T(make((), d)), 0, -1), name="0-d")


def t_samples(make, d):
    yield Sample((T(make((2, 3), d)),))
    yield Sample((T(make((3,), d)),), name="1-d")
    yield Sample((T(make((), d)),), name="0-d")


def adjoint_samples(make, d):
    yield Sample((T(make((2, 3), d)),))
    yield Sample((_x(make, d),), name="batched")


def permute_samples(make, d):
    yield Sample((_x(make, d), (2, 0, 1)))
    yield Sample((_x(make, d), (-1, 0, 1)), name="negative")
    yield Sample((T(make((), d)), ()), name="0-d")


def movedim_samples(make, d):
    yield Sample((_x(make, d), 0, 2))
    yield Sample((_x(make, d), (0, 1), (2, 0)), name="tuples")
    yield Sample((_x(make, d), -1, 0), name="negative")
    yield Sample((T(make((2, 3, 2), d)), 0, -1), name="small")


def movedim_errors(make):
    yield _err(make, (_x(make, "float32"), (0, 0), (1, 2)), RuntimeError, "repeated dim")
    yield _err(make, (_x(make, "float32"), (0, 1), (1,)), RuntimeError, "same number")


def expand_samples(make, d):
    yield Sample((T(make((3, 1), d)), (3, 4)))
    yield Sample((T(make((3, 1), d)), (2, 3, -1)), name="new dims")
    yield Sample((T(make((), d)), (2, 2)), name="0-d")
    yield Sample((T(make((1,), d)), (0,)), name="to empty")


def expand_errors(make):
    yield _err(make, (T(make((3, 2), "float32")), (3, 4)), RuntimeError, "must match")
    yield _err(make, (T(make((3, 2), "float32")), (2,)), RuntimeError, "number of sizes")
    yield _err(make, (T(make((3,), "float32")), (-1, 3)), RuntimeError, "non-existing")


def expand_as_samples(make, d):
    yield Sample((T(make((3, 1), d)), T(make((2, 3, 4), d))))
    yield Sample((T(make((), d)), T(make((2,), d))), name="0-d")


def narrow_samples(make, d):
    yield Sample((_x(make, d), 1, 1, 2))
    yield Sample((_x(make, d), -1, -3, 2), name="negative")
    yield Sample((_x(make, d), 0, 2, 0), name="empty")
    yield Sample((T(make((3, 4), d)), 1, 1, 2), name="small")


def narrow_errors(make):
    yield _err(make, (_x(make, "float32"), 0, 1, 5), RuntimeError, "exceeds dimension size")
    yield _err(make, (_x(make, "float32"), 0, 5, 1), IndexError, "start out of range")
    yield _err(make, (T(make((), "float32")), 0, 0, 1), RuntimeError, "0-dim")


def reshape_errors(make):
    yield _err(make, (_x(make, "float32"), (5, 5)), RuntimeError, "invalid for input of size")
    yield _err(make, (_x(make, "float32"), (-1, -1)), RuntimeError, "only one dimension")


def tensor_arg_samples(make, d):
    """Ops taking a CPU tensor for an int argument (built by the call, so it stays on CPU)."""
    yield Sample((_x(make, d), 2, 1, 3), name="start")
    yield Sample((_x(make, d), 1, 0, 2), name="start 0")
    yield Sample((T(make((3, 4), d)), 0, 1, 2), name="small")


def narrow_tensor_start(lib, x, dim, start, length):
    return lib.narrow(x, dim, lib.tensor(start), length)


def tensor_split_tensor_samples(make, d):
    yield Sample((T(make((2, 6), d)), 4, 1), name="sections")
    yield Sample((T(make((8,), d)), [2, 5]), name="indices")


def tensor_split_tensor(lib, x, indices_or_sections, dim=0):
    return lib.tensor_split(x, lib.tensor(indices_or_sections), dim)


def select_samples(make, d):
    yield Sample((_x(make, d), 1, 2))
    yield Sample((_x(make, d), -1, -1), name="negative")
    yield Sample((T(make((3, 4), d)), 0, 1), name="small")
    yield Sample((T(make((4,), d)), 0, -2), name="1-d")


def select_errors(make):
    yield _err(make, (_x(make, "float32"), 0, 2), IndexError, "out of range")
    yield _err(make, (_x(make, "float32"), 3, 0), IndexError, "Dimension out of range")
    yield _err(make, (T(make((), "float32")), 0, 0), IndexError, "0-dim")


def unbind_samples(make, d):
    yield Sample((_x(make, d),))
    yield Sample((_x(make, d), -1), name="last")
    yield Sample((T(make((0, 2), d)), 1), name="empty")


def chunk_samples(make, d):
    yield Sample((T(make((7, 2), d)), 3))
    yield Sample((T(make((2, 6), d)), 4, 1), name="fewer chunks")
    yield Sample((T(make((0, 2), d)), 2), name="empty")


def chunk_errors(make):
    yield _err(make, (_x(make, "float32"), 0), RuntimeError, "greater than 0")


def split_samples(make, d):
    yield Sample((T(make((7, 2), d)), 3))
    yield Sample((T(make((2, 6), d)), [1, 0, 5], 1), name="sizes")
    yield Sample((T(make((2, 6), d)), 10, -1), name="bigger")


def split_errors(make):
    yield _err(make, (_x(make, "float32"), -1), RuntimeError, "non-negative")
    yield _err(make, (_x(make, "float32"), [1, 2]), RuntimeError, "sum exactly")


def tensor_split_samples(make, d):
    yield Sample((T(make((7, 2), d)), 3))
    yield Sample((T(make((2, 6), d)), [1, 4], 1), name="indices")
    yield Sample((T(make((2, 6), d)), [4, 1, -1, 9], 1), name="odd indices")


def tensor_split_errors(make):
    yield _err(make, (_x(make, "float32"), 0), RuntimeError, "larger than 0")
    yield _err(make, (T(make((), "float32")), 2), RuntimeError, "1-dimensional")


def hsplit_samples(make, d):
    yield Sample((T(make((2, 6), d)), 3))
    yield Sample((T(make((6,), d)), [1, 4]), name="1-d indices")


def vsplit_samples(make, d):
    yield Sample((T(make((4, 2), d)), 2))
    yield Sample((T(make((4, 2), d)), [3]), name="indices")


def dsplit_samples(make, d):
    yield Sample((T(make((1, 2, 4), d)), 2))
    yield Sample((T(make((1, 2, 4), d)), [1, 2]), name="indices")


def hvd_split_errors(name):
    def errors(make):
        yield _err(make, (T(make((), "float32")), 1), RuntimeError, "at least")
        yield _err(make, (T(make((5, 5, 5), "float32")), 2), RuntimeError, "not divisible")
    return errors


def diagonal_samples(make, d):
    yield Sample((T(make((3, 4), d)),))
    yield Sample((T(make((3, 4), d)), 1), name="above")
    yield Sample((T(make((3, 4), d)), -2), name="below")
    yield Sample((T(make((3, 4), d)), 9), name="past the end")
    yield Sample((_x(make, d), 0, 2, 0), name="dims")


def diagonal_errors(make):
    yield _err(make, (_x(make, "float32"), 0, 1, 1), RuntimeError, "cannot be identical")


def unfold_samples(make, d):
    yield Sample((T(make((7,), d)), 0, 2, 1))
    yield Sample((_x(make, d), 2, 2, 2), name="step")
    yield Sample((_x(make, d), 1, 3, 1), name="whole")
    yield Sample((T(make((), d)), 0, 1, 1), name="0-d")


def unfold_errors(make):
    yield _err(make, (_x(make, "float32"), 1, 4, 1), RuntimeError, "maximum size")
    yield _err(make, (_x(make, "float32"), 1, 2, 0), RuntimeError, "step")


def view_as_real_samples(make, d):
    yield Sample((T(make((2, 3), d)),))
    yield Sample((T(make((), d)),), name="0-d")


def view_as_complex_samples(make, d):
    yield Sample((T(make((3, 2), d)),))
    yield Sample((T(make((2,), d)),), name="one number")


def view_as_complex_errors(make):
    yield _err(make, (T(make((3, 3), "float32")),), RuntimeError, "last dimension of size 2")
    yield _err(make, (T(make((3, 2), "int32")),), RuntimeError, "scalar type")


def as_strided_samples(make, d):
    yield Sample((_x(make, d), (2, 2), (1, 2)))
    yield Sample((_x(make, d), (3, 3), (4, 1), 5), name="offset")
    yield Sample((_x(make, d), (2, 2), (0, 1)), name="overlapping")
    yield Sample((_x(make, d), (), ()), name="0-d")
    yield Sample((T(make((3, 4), d)), (2, 3), (4, 2), 1), name="small")
    yield Sample((T(make((3, 4), d)), (3, 3), (1, 2), 1), name="small overlapping")
    yield Sample((T(make((2, 2), d)), (2, 2), (0, 1)), name="small broadcast")


def as_strided_errors(make):
    yield _err(make, (_x(make, "float32"), (2, 2), (1, 1), 100), RuntimeError, "out of bounds")


def slice_scatter_samples(make, d):
    yield Sample((T(make((3, 4), d)), T(make((3, 2), d)), 1, 0, 4, 2))
    yield Sample((T(make((4, 3), d)), T(make((2, 3), d))), {"start": 1, "end": 3}, name="kwargs")
    yield Sample((T(make((3, 4), d)), T(make((3, 2), d)), -1, -2), name="negative")
    yield Sample((T(make((3, 4), d)), T(make((3, 0), d)), 1, 9), name="empty")


def select_scatter_samples(make, d):
    yield Sample((T(make((3, 4), d)), T(make((4,), d)), 0, 1))
    yield Sample((T(make((3, 4), d)), T(make((3,), d)), -1, -1), name="negative")
    yield Sample((T(make((4,), d)), T(make((), d)), 0, 2), name="1-d")


def diagonal_scatter_samples(make, d):
    yield Sample((T(make((3, 4), d)), T(make((3,), d))))
    yield Sample((T(make((3, 4), d)), T(make((2,), d)), 2), name="above")
    yield Sample((T(make((3, 4), d)), T(make((2,), d)), -1), name="below")
    yield Sample((_x(make, d), T(make((3, 2), d)), 0, 0, 2), name="dims")
    yield Sample((T(make((2, 3), d)), T(make((2,), d))), name="small")


def as_strided_scatter_samples(make, d):
    yield Sample((T(make((3, 4), d)), T(make((2, 3), d)), (2, 3), (4, 1), 1))
    yield Sample((T(make((3, 4), d)), T(make((2,), d)), (2,), (5,)), name="no offset")
    yield Sample((T(make((3, 4), d)), T(make((), d)), (), (), 7), name="0-d")
    yield Sample((T(make((2, 3), d)), T(make((2,), d)), (2,), (3,), 1), name="small")


def as_strided_scatter_call(lib, x, src, size, stride, storage_offset=None):
    if lib.__name__ != "torch":
        return lib.as_strided_scatter(x, src, size, stride, storage_offset)
    # PyTorch 2.13's own as_strided_scatter gives `self` a wrong gradient (it fails its own
    # gradcheck); writing through a strided view of a clone computes the same values with the
    # right gradients.
    out = x.clone()
    out.as_strided(size, stride, storage_offset).copy_(src)
    return out


def _m(make, *shape):
    return T(make(shape, "float32"))


def scatter_errors(args):
    def errors(make):
        yield _err(make, args(make), RuntimeError, "expected src to have a size equal")
    return errors


def broadcast_to_samples(make, d):
    yield Sample((T(make((3, 1), d)), (2, 3, 5)))
    yield Sample((T(make((), d)), (2,)), name="0-d")


OPINFOS = [
    _view("view", view_samples, view_errors, call=view_method),
    # A view as another dtype has no gradient in PyTorch.
    _view("view", view_dtype_samples, view_dtype_errors, call=view_method,
          dtypes=("float32", "int64", "float16", "bfloat16") + BOOL, supports_autograd=False),
    _view("view_as", view_as_samples, call=lambda lib, x, other: x.view_as(other)),
    _view("reshape", reshape_samples, reshape_errors),
    _view("reshape_as", view_as_samples, call=lambda lib, x, other: x.reshape_as(other)),
    _view("flatten", flatten_samples),
    _view("ravel", ravel_samples),
    _view("unflatten", unflatten_samples),
    _view("squeeze", squeeze_samples),
    _view("unsqueeze", unsqueeze_samples),
    _view("transpose", transpose_samples),
    _view("swapaxes", transpose_samples, dtypes=("float32",)),
    _view("swapdims", transpose_samples, dtypes=("float32",)),
    _view("t", t_samples,
          lambda make: [_err(make, (_x(make, "float32"),), RuntimeError, "<= 2 dimensions")]),
    _view("adjoint", adjoint_samples,
          lambda make: [_err(make, (T(make((3,), "float32")),), RuntimeError, "matrices")]),
    _view("permute", permute_samples,
          lambda make: [_err(make, (_x(make, "float32"), (0, 1)), RuntimeError, "permute")]),
    _view("movedim", movedim_samples, movedim_errors),
    _view("moveaxis", movedim_samples, dtypes=("float32",)),
    _view("expand", expand_samples, expand_errors, call=lambda lib, x, s: x.expand(*s)),
    _view("expand_as", expand_as_samples, method=False,
          call=lambda lib, x, other: x.expand_as(other)),
    _view("broadcast_to", broadcast_to_samples),
    _view("narrow", narrow_samples, narrow_errors),
    _view("narrow", tensor_arg_samples, call=narrow_tensor_start),
    _view("select", select_samples, select_errors),
    _view("unbind", unbind_samples,
          lambda make: [_err(make, (T(make((), "float32")),), IndexError, "no dimensions")]),
    _view("chunk", chunk_samples, chunk_errors),
    _view("split", split_samples, split_errors),
    _view("tensor_split", tensor_split_samples, tensor_split_errors),
    _view("tensor_split", tensor_split_tensor_samples, call=tensor_split_tensor),
    _view("hsplit", hsplit_samples, hvd_split_errors("hsplit")),
    _view("vsplit", vsplit_samples, hvd_split_errors("vsplit")),
    _view("dsplit", dsplit_samples, hvd_split_errors("dsplit")),
    _view("diagonal", diagonal_samples, diagonal_errors),
    _view("unfold", unfold_samples, unfold_errors, call=lambda lib, x, *a: x.unfold(*a)),
    _view("view_as_real", view_as_real_samples, dtypes=COMPLEX, method=False,
          errors=lambda make: [_err(make, (_x(make, "float32"),), RuntimeError, "complex")]),
    _view("view_as_complex", view_as_complex_samples, view_as_complex_errors,
          dtypes=("float32", "float64"), method=False),
    # view_as_real's gradient, from real inputs (the test compares gradients of float inputs).
    _view("view_as_real", view_as_complex_samples, dtypes=("float32", "float64"), method=False,
          call=lambda lib, x: lib.view_as_real(lib.view_as_complex(x))),
    _view("as_strided", as_strided_samples, as_strided_errors),
    _view("slice_scatter", slice_scatter_samples, scatter_errors(
        lambda make: (_m(make, 3, 4), _m(make, 3, 3), 1, 0, 2))),
    _view("select_scatter", select_scatter_samples, scatter_errors(
        lambda make: (_m(make, 3, 4), _m(make, 3), 0, 0))),
    _view("diagonal_scatter", diagonal_scatter_samples, scatter_errors(
        lambda make: (_m(make, 3, 4), _m(make, 4)))),
    _view("as_strided_scatter", as_strided_scatter_samples, scatter_errors(
        lambda make: (_m(make, 3, 4), _m(make, 3), (2,), (1,))), call=as_strided_scatter_call),
]
