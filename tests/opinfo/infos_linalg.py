"""OpInfo entries for matrix products (src/ember/_ops/linalg.py) and contractions
(src/ember/_ops/contraction.py)."""
from opinfo.core import ALL_FLOAT, HALF, ErrorSample, OpInfo, Sample, Skip, T

MATMUL_TYPES = ALL_FLOAT + ("int64", "int32", "int8", "uint8", "complex64") + HALF + ("bool",)
FLOAT_TYPES = ALL_FLOAT + HALF
FEW = ("float32", "float64", "int64")
# Products summed in another order than PyTorch's half GEMM (which may round partial sums to
# the half dtype): results of magnitude ~10 differ by a few of their last places.
HALF_TOL = {"float16": (3e-2, 2e-2), "bfloat16": (0.3, 3e-2)}


def _t(make, shape, dtype):
    return T(make(shape, dtype))


# --------------------------------------------------------------------------- samples

def matmul_samples(make, d):
    cases = [((3,), (3,), "1d x 1d"), ((2, 3), (3,), "2d x 1d"), ((3,), (3, 4), "1d x 2d"),
             ((2, 3), (3, 4), "2d x 2d"), ((5, 2, 3), (3,), "3d x 1d"),
             ((5, 2, 3), (3, 4), "3d x 2d"), ((3,), (5, 3, 4), "1d x 3d"),
             ((2, 3), (5, 3, 4), "2d x 3d"), ((2, 1, 2, 3), (5, 3, 4), "batch broadcast"),
             ((0, 3), (3, 2), "empty rows"), ((2, 0), (0, 2), "empty inner")]
    for a, b, name in cases:
        yield Sample((_t(make, a, d), _t(make, b, d)), name=name)


def mm_samples(make, d):
    yield Sample((_t(make, (2, 3), d), _t(make, (3, 4), d)), name="2x3 @ 3x4")
    yield Sample((_t(make, (1, 1), d), _t(make, (1, 5), d)), name="1x1")
    yield Sample((_t(make, (0, 3), d), _t(make, (3, 2), d)), name="empty")
    yield Sample((_t(make, (2, 0), d), _t(make, (0, 2), d)), name="empty inner")


def bmm_samples(make, d):
    yield Sample((_t(make, (4, 2, 3), d), _t(make, (4, 3, 5), d)), name="batched")
    yield Sample((_t(make, (0, 2, 3), d), _t(make, (0, 3, 5), d)), name="empty batch")


def mv_samples(make, d):
    yield Sample((_t(make, (2, 3), d), _t(make, (3,), d)), name="2x3 @ 3")
    yield Sample((_t(make, (0, 3), d), _t(make, (3,), d)), name="empty")


def dot_samples(make, d):
    yield Sample((_t(make, (5,), d), _t(make, (5,), d)), name="5")
    yield Sample((_t(make, (0,), d), _t(make, (0,), d)), name="empty")


def inner_samples(make, d):
    yield Sample((_t(make, (4,), d), _t(make, (4,), d)), name="1d")
    yield Sample((_t(make, (2, 3), d), _t(make, (4, 3), d)), name="2d")
    yield Sample((_t(make, (2, 2, 3), d), _t(make, (3,), d)), name="3d x 1d")
    yield Sample((_t(make, (2, 3), d), _t(make, (), d)), name="0-d")
    yield Sample((_t(make, (2, 3), d), _t(make, (), "float64")), name="0-d other dtype")


def outer_samples(make, d):
    yield Sample((_t(make, (3,), d), _t(make, (4,), d)), name="3 x 4")
    yield Sample((_t(make, (0,), d), _t(make, (4,), d)), name="empty")
    yield Sample((_t(make, (3,), d), _t(make, (2,), "int32")), name="promotes")


def _scaled(make, d, base):
    for sample in base(make, d):
        yield sample
    if d == "bool":
        return
    integral = d in ("int64", "int32", "int8", "uint8")
    for beta, alpha in ((2, 3), (0, 1), (1.5, -0.5)) if not integral else ((2, 3), (0, 1)):
        for sample in base(make, d):
            yield Sample(sample.args, {"beta": beta, "alpha": alpha},
                         f"{sample.name} beta={beta} alpha={alpha}", sample.inplace_ok)
            break


def addmm_samples(make, d):
    def base(make, d):
        yield Sample((_t(make, (2, 4), d), _t(make, (2, 3), d), _t(make, (3, 4), d)), name="full")
        yield Sample((_t(make, (4,), d), _t(make, (2, 3), d), _t(make, (3, 4), d)),
                     name="broadcast input", inplace_ok=False)
        yield Sample((_t(make, (), d), _t(make, (2, 0), d), _t(make, (0, 4), d)),
                     name="0-d input, empty inner", inplace_ok=False)
    yield from _scaled(make, d, base)


def addmv_samples(make, d):
    def base(make, d):
        yield Sample((_t(make, (2,), d), _t(make, (2, 3), d), _t(make, (3,), d)), name="full")
        yield Sample((_t(make, (1,), d), _t(make, (2, 3), d), _t(make, (3,), d)),
                     name="broadcast input", inplace_ok=False)
    yield from _scaled(make, d, base)


def addr_samples(make, d):
    def base(make, d):
        yield Sample((_t(make, (2, 3), d), _t(make, (2,), d), _t(make, (3,), d)), name="full")
        yield Sample((_t(make, (3,), d), _t(make, (2,), d), _t(make, (3,), d)),
                     name="broadcast input", inplace_ok=False)
    yield from _scaled(make, d, base)
    if d == "float32":
        yield Sample((_t(make, (2, 3), "int64"), _t(make, (2,), d), _t(make, (3,), d)),
                     name="promotes", inplace_ok=False)


def addbmm_samples(make, d):
    def base(make, d):
        yield Sample((_t(make, (2, 4), d), _t(make, (3, 2, 5), d), _t(make, (3, 5, 4), d)),
                     name="full")
        yield Sample((_t(make, (1, 4), d), _t(make, (3, 2, 5), d), _t(make, (3, 5, 4), d)),
                     name="broadcast input", inplace_ok=False)
        # Small enough for gradgradcheck (NOTE [finite-difference budget]).
        yield Sample((_t(make, (2, 2), d), _t(make, (2, 2, 1), d), _t(make, (2, 1, 2), d)),
                     name="small")
    yield from _scaled(make, d, base)


def baddbmm_samples(make, d):
    def base(make, d):
        yield Sample((_t(make, (3, 2, 4), d), _t(make, (3, 2, 5), d), _t(make, (3, 5, 4), d)),
                     name="full")
        yield Sample((_t(make, (2, 4), d), _t(make, (3, 2, 5), d), _t(make, (3, 5, 4), d)),
                     name="broadcast input", inplace_ok=False)
        yield Sample((_t(make, (2, 2, 2), d), _t(make, (2, 2, 1), d), _t(make, (2, 1, 2), d)),
                     name="small")
    yield from _scaled(make, d, base)


def einsum_samples(make, d):
    a, b, c = make((2, 3), d), make((3, 4), d), make((4, 2), d)
    yield Sample(("ij,jk->ik", T(a), T(b)), name="matmul")
    yield Sample(("ij,jk", [T(a), T(b)]), name="list, implicit output")
    yield Sample(("ij,jk,kl->il", T(a), T(b), T(c)), name="three operands")
    yield Sample(("ii->i", T(make((3, 3), d))), name="diagonal")
    yield Sample(("ij->", T(a)), name="full sum")
    yield Sample(("...ij->...ji", T(make((2, 3, 4), d))), name="ellipsis transpose")
    yield Sample(("bij,bjk->bik", T(make((1, 2, 3), d)), T(make((5, 3, 4), d))),
                 name="size-1 broadcast")
    yield Sample(("i,j->ij", T(make((3,), d)), T(make((2,), d))), name="outer")
    yield Sample(("i j , j k -> i k", T(a), T(b)), name="spaces")
    yield Sample(("iij,j->i", T(make((3, 3, 2), d)), T(make((2,), d))), name="diagonal product")
    yield Sample(("iij->", T(make((2, 2, 3), d))), name="diagonal summed away")
    yield Sample(("...ij,...jk->...ik", T(make((2, 1, 2, 3), d)), T(make((5, 3, 2), d))),
                 name="ellipsis broadcast")
    yield Sample(("...ij,jk", T(make((2, 2, 3), d)), T(make((3, 4), d))),
                 name="ellipsis implicit output")
    if d != "bool":
        # (PyTorch sums a bool operand over a label of size 1 in the other first, which makes
        # its result int64: that quirk is not copied.)
        yield Sample(("ij,jk->ik", T(make((2, 3), d)), T(make((1, 4), d))), name="size-1 label")
    yield Sample(("ijl,jk->k", T(make((2, 3, 2), d)), T(make((3, 4), d))),
                 name="labels of one operand summed")


def tensordot_samples(make, d):
    a, b = make((2, 3, 4), d), make((3, 4, 5), d)
    yield Sample((T(a), T(b)), name="default dims=2")
    yield Sample((T(make((2, 3), d)), T(make((3, 4), d)), 1), name="dims=1")
    yield Sample((T(a), T(b)), {"dims": ([1, 2], [0, 1])}, name="lists")
    yield Sample((T(a), T(make((4, 3), d))), {"dims": [[2, 1], [0, 1]]}, name="list of lists")
    yield Sample((T(make((2, 3), d)), T(make((3,), d))), {"dims": 0}, name="dims=0")
    yield Sample((T(make((2, 3, 2), d)), T(make((2, 2, 2), d))), {"dims": ([2, 0], [0, 2])},
                 name="dims out of order")
    yield Sample((T(make((2, 2), d)), T(make((2, 3), d)), 1), name="small")


def kron_samples(make, d):
    yield Sample((_t(make, (2, 3), d), _t(make, (3, 2), d)), name="2d")
    # (PyTorch's kron fails on some non-contiguous operands: those shapes are left out.)
    yield Sample((_t(make, (2,), d), _t(make, (3,), d)), name="1d")
    yield Sample((_t(make, (), d), _t(make, (3,), d)), name="0-d")
    yield Sample((_t(make, (0, 2), d), _t(make, (2,), d)), name="empty")
    yield Sample((_t(make, (2,), d), _t(make, (2,), "float64")), name="promotes")


def cross_samples(make, d):
    yield Sample((_t(make, (4, 3), d), _t(make, (4, 3), d)), {"dim": 1}, name="dim=1")
    yield Sample((_t(make, (3, 2), d), _t(make, (3, 2), d)), {"dim": 0}, name="dim=0")
    yield Sample((_t(make, (1, 3), d), _t(make, (4, 3), d)), {"dim": -1}, name="broadcast",
                 inplace_ok=False)
    yield Sample((_t(make, (3,), d), _t(make, (3,), d)), name="default dim")


def cdist_samples(make, d):
    # Small ones first: gradcheck takes the first few with at most 12 elements per operand.
    for p in (2.0, 1.5, 3.0):
        yield Sample((_t(make, (2, 1, 3, 2), d), _t(make, (2, 2, 2), d)), {"p": p},
                     name=f"small batch broadcast p={p}")
    # A shared row (zero distance) and a shared component: PyTorch's gradient there is 0.
    a, b = make((4, 3), d), make((3, 3), d)
    b[0] = a[1]
    b[2, 0] = a[0, 0]
    for p in (2.0, 1.0, 0.5, 1.5, float("inf")):
        yield Sample((T(a), T(b)), {"p": p}, name=f"zero distance p={p}")
    yield Sample((_t(make, (5, 3), d), _t(make, (4, 3), d)), name="p=2")
    for p in (0.0, 1.0, 1.5, float("inf")):
        yield Sample((_t(make, (5, 3), d), _t(make, (4, 3), d)), {"p": p}, name=f"p={p}")
    yield Sample((_t(make, (30, 3), d), _t(make, (4, 3), d)), name="mm path")
    yield Sample((_t(make, (5, 3), d), _t(make, (4, 3), d)),
                 {"compute_mode": "use_mm_for_euclid_dist"}, name="forced mm")
    yield Sample((_t(make, (2, 1, 5, 3), d), _t(make, (3, 4, 3), d)), name="batch broadcast")
    yield Sample((_t(make, (0, 3), d), _t(make, (4, 3), d)), name="empty")


def chain_samples(make, d):
    yield Sample((_t(make, (2, 3), d), _t(make, (3, 4), d), _t(make, (4, 2), d)), name="three")
    yield Sample((_t(make, (2, 3), d),), name="one")


# --------------------------------------------------------------------------- errors

def _e(args, error, match, kwargs=None, name=""):
    return ErrorSample(Sample(tuple(args), kwargs or {}, name or match), error, match)


def matmul_errors(make):
    f, d = make((2, 3), "float32"), make((3, 2), "float64")
    yield _e([T(f), T(d)], RuntimeError, "same dtype")
    yield _e([T(make((3,), "float32")), T(make((4,), "float32"))], RuntimeError,
             "inconsistent tensor size")
    yield _e([T(make((), "float32")), T(f)], RuntimeError, "at least 1D")
    yield _e([T(f), T(make((4, 2), "float32"))], RuntimeError, "cannot be multiplied")
    yield _e([T(make((5, 2, 3), "float32")), T(make((4, 3, 2), "float32"))], RuntimeError,
             "must match")
    yield _e([T(make((2, 3), "float32")), T(make((4, 4, 2), "float32"))], RuntimeError,
             "Expected size")
    yield _e([T(make((2, 3), "bool")), T(make((3, 2), "bool"))], NotImplementedError, "Bool")


def mm_errors(make):
    yield _e([T(make((2, 3), "float32")), T(make((3, 2), "float64"))], RuntimeError,
             "expected m1 and m2 to have the same dtype, but got: float != double")
    yield _e([T(make((3,), "float32")), T(make((3, 2), "float32"))], RuntimeError,
             "self must be a matrix")
    yield _e([T(make((2, 3), "float32")), T(make((4, 2), "float32"))], RuntimeError,
             "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)")


def bmm_errors(make):
    yield _e([T(make((2, 2, 3), "float32")), T(make((2, 3, 2), "float64"))], RuntimeError,
             "expected scalar type Float but found Double")
    yield _e([T(make((2, 3), "float32")), T(make((2, 3, 2), "float32"))], RuntimeError,
             "batch1 must be a 3D tensor")
    yield _e([T(make((2, 2, 3), "float32")), T(make((3, 3, 2), "float32"))], RuntimeError,
             "Expected size for first two dimensions of batch2 tensor")


def mv_errors(make):
    yield _e([T(make((2, 3), "float32")), T(make((4,), "float32"))], RuntimeError,
             "size mismatch")
    yield _e([T(make((2, 3), "float32")), T(make((3,), "float64"))], RuntimeError,
             "addmv input tensors must have the same dtype")
    yield _e([T(make((2, 3), "float32")), T(make((3, 1), "float32"))], RuntimeError,
             "vector + matrix @ vector expected")


def dot_errors(make):
    yield _e([T(make((2,), "float32")), T(make((2,), "float64"))], RuntimeError,
             "expected both vectors to have same dtype")
    yield _e([T(make((2, 1), "float32")), T(make((2,), "float32"))], RuntimeError,
             "1D tensors expected")
    yield _e([T(make((2,), "float32")), T(make((3,), "float32"))], RuntimeError,
             "inconsistent tensor size")


def addmm_errors(make):
    yield _e([T(make((3, 4), "float32")), T(make((2, 3), "float32")),
              T(make((3, 4), "float32"))], RuntimeError, "The expanded size of the tensor")
    yield _e([T(make((2, 4), "float64")), T(make((2, 3), "float32")),
              T(make((3, 4), "float32"))], RuntimeError, "self and mat2 must have the same dtype")
    yield _e([T(make((2, 4), "float32")), T(make((2, 3), "float32")),
              T(make((3, 4), "float32"))], RuntimeError, "value cannot be converted",
             {"beta": 1j})
    yield _e([T(make((2, 4), "float32")), T(make((3,), "float32")),
              T(make((3, 4), "float32"))], RuntimeError, "mat1 must be a matrix")


def addr_errors(make):
    yield _e([T(make((2, 3), "int64")), T(make((2,), "int64")), T(make((3,), "int64"))],
             RuntimeError, "argument beta must not be a floating point", {"beta": 2.5})
    yield _e([T(make((2, 3), "int64")), T(make((2,), "int64")), T(make((3,), "int64"))],
             RuntimeError, "Boolean alpha only supported", {"alpha": True})
    yield _e([T(make((2, 3), "float32")), T(make((2, 2), "float32")),
              T(make((3,), "float32"))], RuntimeError, "Expected 1-D argument vec1")


def baddbmm_errors(make):
    yield _e([T(make((2, 2, 4), "float64")), T(make((2, 2, 3), "float32")),
              T(make((2, 3, 4), "float32"))], RuntimeError, "input double, batch1: float")
    yield _e([T(make((3, 2, 4), "float32")), T(make((2, 2, 3), "float32")),
              T(make((2, 3, 4), "float32"))], RuntimeError, "The expanded size")


def addbmm_errors(make):
    yield _e([T(make((2, 4), "float32")), T(make((5, 2, 3), "float32")),
              T(make((4, 3, 4), "float32"))], RuntimeError, "same number of batches")


def einsum_errors(make):
    a, b = T(make((2, 3), "float32")), T(make((3, 4), "float32"))
    yield _e(["ij,jk->ik", a], RuntimeError, "fewer operands")
    yield _e(["ij->ik", a, b], RuntimeError, "more operands")
    yield _e(["ij,ik->ik", a, b], RuntimeError, "does not broadcast")
    yield _e(["ij->ijk", a], RuntimeError, "does not appear")
    yield _e(["ijk->ij", a], RuntimeError, "does not match the number of dimensions")
    yield _e(["ij->ii", a], RuntimeError, "appears more than once")
    yield _e(["i1", a], RuntimeError, "invalid subscript")
    yield _e(["ii", T(make((3, 2), "float32"))], RuntimeError, "is repeated")
    yield _e(["ij,jk->ik", a, T(make((3, 4), "float64"))], RuntimeError, "expected scalar type")
    yield _e(["ij", [a, 1]], TypeError, "")
    yield _e(["ij"], ValueError, "")


def tensordot_errors(make):
    a, b = T(make((2, 3), "float32")), T(make((3, 4), "float32"))
    yield _e([a, b], RuntimeError, "contracted dimensions need to match", {"dims": ([1], [1])})
    yield _e([a, T(make((3, 4), "float64"))], RuntimeError, "same dtype", {"dims": 1})
    yield _e([a, b], RuntimeError, "dims >= 0", {"dims": -1})
    yield _e([a, b], RuntimeError, "dims < ndim_a", {"dims": 3})
    yield _e([a, b], RuntimeError, "same length", {"dims": ([1, 0], [0])})
    yield _e([a, b], IndexError, "Dimension out of range", {"dims": ([3], [0])})


def cross_errors(make):
    yield _e([T(make((2, 4), "float32")), T(make((2, 4), "float32"))], RuntimeError,
             "no dimension of size 3")
    yield _e([T(make((4, 3), "float32")), T(make((4, 3), "float32"))], RuntimeError,
             "must have length 3", {"dim": 0})
    yield _e([T(make((4, 3), "float32")), T(make((3,), "float32"))], RuntimeError,
             "same number of dimensions", {"dim": 1})
    yield _e([T(make((4, 3), "float32")), T(make((4, 3), "float32"))], IndexError,
             "Dimension out of range", {"dim": 2})
    yield _e([T(make((4, 3), "bool")), T(make((4, 3), "bool"))], NotImplementedError, "cross",
             {"dim": 1})


def cdist_errors(make):
    a, b = T(make((5, 3), "float32")), T(make((4, 3), "float32"))
    yield _e([a, b], RuntimeError, "non-negative p", {"p": -1})
    yield _e([T(make((5, 3), "int64")), T(make((4, 3), "int64"))], RuntimeError,
             "floating-point dtypes, X1 got: Long")
    yield _e([a, T(make((4, 2), "float32"))], RuntimeError, "same number of columns")
    yield _e([T(make((3,), "float32")), b], RuntimeError, "at least 2D")
    yield _e([a, T(make((4, 3), "float64"))], RuntimeError, "expected scalar type")
    yield _e([a, b], ValueError, "not a valid value", {"compute_mode": "foo"})
    yield _e([T(make((5, 3), "float16")), T(make((4, 3), "float16"))], NotImplementedError,
             "Half")


def chain_errors(make):
    yield _e([T(make((3,), "float32")), T(make((3, 2), "float32"))], RuntimeError,
             "Tensor dimension is 1")
    yield _e([T(make((2, 3), "float32")), T(make((3, 2), "float64"))], RuntimeError,
             "all tensors must have be the same dtype")
    yield _e([T(make((2, 3), "float32")), T(make((4, 2), "float32"))], RuntimeError,
             "cannot be multiplied")


# --------------------------------------------------------------------------- the table

_ADD_TYPES = ALL_FLOAT + ("int64", "int32") + HALF + ("bool",)

OPINFOS = [
    OpInfo("matmul", matmul_samples, dtypes=MATMUL_TYPES, errors=matmul_errors,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("mm", mm_samples, dtypes=MATMUL_TYPES, errors=mm_errors, tolerances=HALF_TOL,
           supports_autograd=True),
    OpInfo("bmm", bmm_samples, dtypes=MATMUL_TYPES, errors=bmm_errors, tolerances=HALF_TOL,
           supports_autograd=True),
    OpInfo("mv", mv_samples, dtypes=MATMUL_TYPES, errors=mv_errors, tolerances=HALF_TOL,
           supports_autograd=True),
    OpInfo("dot", dot_samples, dtypes=MATMUL_TYPES, errors=dot_errors, tolerances=HALF_TOL,
           supports_autograd=True),
    OpInfo("vdot", dot_samples, dtypes=MATMUL_TYPES + ("complex128",), errors=dot_errors,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("inner", inner_samples, dtypes=ALL_FLOAT + ("int64", "complex64") + HALF,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("outer", outer_samples, dtypes=ALL_FLOAT + ("int64", "bool") + HALF,
           supports_autograd=True),
    OpInfo("ger", outer_samples, dtypes=FEW, supports_autograd=True),
    OpInfo("addmm", addmm_samples, dtypes=_ADD_TYPES, inplace=True, errors=addmm_errors,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("addmv", addmv_samples, dtypes=_ADD_TYPES, inplace=True, tolerances=HALF_TOL,
           supports_autograd=True),
    OpInfo("addr", addr_samples, dtypes=_ADD_TYPES, inplace=True, errors=addr_errors,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("addbmm", addbmm_samples, dtypes=_ADD_TYPES, inplace=True, errors=addbmm_errors,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("baddbmm", baddbmm_samples, dtypes=_ADD_TYPES, inplace=True, errors=baddbmm_errors,
           tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("einsum", einsum_samples, dtypes=ALL_FLOAT + ("int64", "bool") + HALF,
           method=False, supports_out=False, errors=einsum_errors, tolerances=HALF_TOL,
           supports_autograd=True, known=(
               Skip("layout", "PyTorch's einsum hands back a view of its operand where the "
                    "equation only transposes or takes a diagonal; an undocumented detail of "
                    "its implementation (ember computes a new tensor)",
                    ("diagonal", "ellipsis transpose")),)),
    OpInfo("tensordot", tensordot_samples, dtypes=ALL_FLOAT + ("int64",) + HALF, method=False,
           errors=tensordot_errors, tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("kron", kron_samples, dtypes=ALL_FLOAT + ("int64", "bool") + HALF,
           supports_autograd=True),
    OpInfo("cross", cross_samples, dtypes=ALL_FLOAT + ("int64", "int8") + HALF,
           errors=cross_errors, tolerances=HALF_TOL, supports_autograd=True),
    OpInfo("cdist", cdist_samples, dtypes=ALL_FLOAT, method=False, supports_out=False,
           errors=cdist_errors, supports_autograd=True),
    OpInfo("chain_matmul", chain_samples, dtypes=FEW, method=False, errors=chain_errors,
           supports_autograd=True),
]
