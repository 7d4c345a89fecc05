"""OpInfo entries for convolutions, fold/unfold and padding (src/ember/_ops/nn_conv.py,
nn_conv_api.py, nn_fold.py, nn_padding.py; ember.nn.functional.pad)."""
from opinfo.core import ALL_FLOAT, HALF, ErrorSample, OpInfo, Sample, T

FLOATS = ALL_FLOAT + HALF
# Sums of a few dozen products rounded once to float16/bfloat16.
HALF_TOL = {"float16": (1e-2, 1e-2), "bfloat16": (6e-2, 2e-2)}


def _t(make, shape, d):
    return T(make(shape, d, -2, 3))


# --------------------------------------------------------------------------- convolutions
# The first samples are the smallest: gradcheck and gradgradcheck run on those within their
# budgets (NOTE [finite-difference budget], tests/test_ops_autograd.py).

def conv1d_samples(make, d):
    yield Sample((_t(make, (1, 1, 4), d), _t(make, (1, 1, 2), d)), name="tiny")
    yield Sample((_t(make, (2, 4, 5), d), _t(make, (2, 2, 3), d), _t(make, (2,), d)),
                 {"stride": 2, "padding": 1, "groups": 2}, name="groups stride padding")
    yield Sample((_t(make, (2, 6), d), _t(make, (3, 2, 2), d)),
                 {"padding": "same", "dilation": 2}, name="unbatched same dilation")
    yield Sample((_t(make, (1, 2, 5), d), _t(make, (3, 2, 2), d), _t(make, (3,), d)),
                 {"padding": "same"}, name="same even kernel")


def conv2d_samples(make, d):
    yield Sample((_t(make, (1, 1, 3, 3), d), _t(make, (1, 1, 2, 2), d)), name="tiny")
    yield Sample((_t(make, (1, 2, 4, 4), d), _t(make, (2, 1, 2, 2), d), _t(make, (2,), d)),
                 {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2},
                 name="groups stride dilation")
    yield Sample((_t(make, (1, 2, 3, 4), d), _t(make, (3, 2, 2, 2), d), _t(make, (3,), d)),
                 {"padding": "same"}, name="same even kernel")
    yield Sample((_t(make, (2, 3, 3), d), _t(make, (2, 2, 2, 2), d)), {"padding": "valid"},
                 name="unbatched valid")
    yield Sample((_t(make, (2, 4, 7, 6), d), _t(make, (6, 2, 3, 2), d), _t(make, (6,), d)),
                 {"stride": (2, 3), "padding": (1, 2), "groups": 2}, name="larger")
    yield Sample((_t(make, (0, 2, 4, 4), d), _t(make, (3, 2, 2, 2), d)), name="empty batch")


def conv3d_samples(make, d):
    yield Sample((_t(make, (1, 1, 2, 2, 2), d), _t(make, (1, 1, 2, 2, 2), d)), name="tiny")
    yield Sample((_t(make, (1, 1, 3, 3, 3), d), _t(make, (2, 1, 2, 2, 2), d),
                  _t(make, (2,), d)), {"stride": 2, "padding": 1}, name="stride padding")
    yield Sample((_t(make, (2, 4, 4, 3), d), _t(make, (2, 2, 2, 1, 2), d)),
                 {"groups": 1, "dilation": (1, 2, 1), "padding": (0, 1, 1)},
                 name="unbatched dilation")


def conv_transpose1d_samples(make, d):
    yield Sample((_t(make, (1, 1, 3), d), _t(make, (1, 1, 2), d)), name="tiny")
    yield Sample((_t(make, (1, 2, 3), d), _t(make, (2, 2, 3), d), _t(make, (2,), d)),
                 {"stride": 2, "padding": 1, "output_padding": 1}, name="output padding")
    yield Sample((_t(make, (4, 5), d), _t(make, (4, 1, 2), d)),
                 {"groups": 2, "dilation": 3, "stride": 2}, name="unbatched groups dilation")


def conv_transpose2d_samples(make, d):
    yield Sample((_t(make, (1, 1, 2, 2), d), _t(make, (1, 1, 2, 2), d)), name="tiny")
    yield Sample((_t(make, (1, 2, 2, 3), d), _t(make, (2, 1, 2, 2), d), _t(make, (2,), d)),
                 {"stride": 2, "groups": 2, "output_padding": 1}, name="groups output padding")
    yield Sample((_t(make, (2, 3, 4, 3), d), _t(make, (3, 2, 3, 2), d), _t(make, (2,), d)),
                 {"stride": (2, 3), "padding": (1, 0), "dilation": (1, 2),
                  "output_padding": (1, 2)}, name="larger")


def conv_transpose3d_samples(make, d):
    yield Sample((_t(make, (1, 1, 1, 1, 2), d), _t(make, (1, 1, 2, 2, 2), d)), name="tiny")
    yield Sample((_t(make, (1, 1, 2, 2, 2), d), _t(make, (1, 2, 2, 2, 2), d),
                  _t(make, (2,), d)), {"stride": (1, 2, 1)}, name="stride")


def convolution_samples(make, d):
    yield Sample((_t(make, (1, 1, 2, 2), d), _t(make, (1, 1, 2, 2), d), None, [1], [0], [1],
                  False, [0], 1), name="tiny")
    yield Sample((_t(make, (1, 2, 4, 3), d), _t(make, (2, 2, 2, 2), d), _t(make, (2,), d),
                  [1], [0], [1], False, [0], 1), name="one-element lists")
    yield Sample((_t(make, (1, 2, 3, 2), d), _t(make, (2, 1, 2, 2), d), None,
                  [2, 1], [1, 0], [1, 1], True, [1, 0], 2), name="transposed groups")


def conv_errors(make):
    x = make((2, 4, 5, 5), "float32")
    w = make((6, 4, 3, 3), "float32")
    cases = [
        ((x, make((6, 3, 3, 3), "float32")), {}, "to have 3 channels"),
        ((x, make((6, 4, 7, 7), "float32")), {}, "Kernel size can't be greater"),
        ((x, w), {"padding": "foo"}, "Invalid padding string"),
        ((x, w), {"padding": "same", "stride": 2}, "not supported for strided"),
        ((x, w), {"stride": 0}, "non-positive stride"),
        ((x, w), {"padding": -1}, "negative padding"),
        ((x, w), {"dilation": 0}, "non-positive dilation"),
        ((x, w), {"groups": 4}, "divisible by 4"),
        ((x, w), {"stride": (1, 1, 1)}, "expected stride to be a single integer"),
        ((x[0, 0], w), {}, "Expected 3D (unbatched) or 4D (batched) input to conv2d"),
        ((x, w, make((5,), "float32")), {}, "expected bias to be 1-dimensional with 6"),
        ((x.astype("float64"), w), {}, "expected scalar type Double but found Float"),
        ((x, w, make((6,), "float64")), {}, "should be the same"),
    ]
    for args, kwargs, match in cases:
        yield ErrorSample(Sample(tuple(T(a) for a in args), kwargs, name=match), RuntimeError,
                          match)


def conv_transpose_errors(make):
    x = make((2, 4, 5, 5), "float32")
    cases = [
        ((x, make((4, 3, 3, 3), "float32")), {"output_padding": 2}, "output padding must be"),
        ((x, make((5, 3, 3, 3), "float32")), {}, "Given transposed=1"),
        ((x, make((4, 3, 3, 3), "float32"), make((4,), "float32")), {},
         "expected bias to be 1-dimensional with 3"),
    ]
    for args, kwargs, match in cases:
        yield ErrorSample(Sample(tuple(T(a) for a in args), kwargs, name=match), RuntimeError,
                          match)


# --------------------------------------------------------------------------- fold, pad

def unfold_samples(make, d):
    yield Sample((_t(make, (1, 1, 2, 3), d), 2), name="tiny")
    yield Sample((_t(make, (1, 2, 3, 3), d), 2), {"padding": 1, "stride": 2}, name="padded")
    yield Sample((_t(make, (2, 4, 5), d), (2, 3)), {"dilation": (2, 1)}, name="unbatched")


def fold_samples(make, d):
    yield Sample((_t(make, (1, 4, 2), d), (2, 3), 2), name="tiny")
    yield Sample((_t(make, (1, 8, 4), d), (3, 3), 2), name="overlapping")
    yield Sample((_t(make, (18, 9), d), (5, 7), (2, 3)),
                 {"dilation": (2, 1), "padding": (1, 0), "stride": 2}, name="unbatched")


def fold_errors(make):
    yield ErrorSample(Sample((T(make((2, 13, 20), "float32")), (5, 6), 2), name="rows"),
                      RuntimeError, "divisible by the product of kernel_size")
    yield ErrorSample(Sample((T(make((2, 12, 20), "float32")), (5, 6), 2), {"stride": 7},
                             name="blocks"), RuntimeError, "number of sliding blocks")


def unfold_errors(make):
    yield ErrorSample(Sample((T(make((2, 3, 4, 5), "float32")), 7), name="kernel too big"),
                      RuntimeError, "must be at least one")


def pad_samples(make, d):
    yield Sample((_t(make, (1, 2, 4), d), (2, 1)), {"mode": "reflect"}, name="reflect 1d")
    yield Sample((_t(make, (1, 2, 3, 3), d), (1, 0, 2, 1)), {"mode": "replicate"},
                 name="replicate 2d")
    yield Sample((_t(make, (1, 1, 3, 3), d), (1, 1, 2, 0)), {"mode": "circular"},
                 name="circular 2d")
    yield Sample((_t(make, (2, 3), d), (1, -1, 2, 0)), {"value": 1.5}, name="constant crop")
    yield Sample((_t(make, (1, 2, 2, 3, 3), d), (1, 1, 0, 2, 1, 0)), {"mode": "reflect"},
                 name="reflect 3d")
    yield Sample((_t(make, (2, 3, 4), d), (-1, 3, 1, 1)), {"mode": "replicate"},
                 name="replicate unbatched crop")
    yield Sample((_t(make, (2, 3, 4), d), (2, -1)), {"mode": "circular"},
                 name="circular crop")


def pad_errors(make):
    x = make((2, 3, 4, 5), "float32")
    cases = [
        ((1, 2, 3), {}, RuntimeError, "divisible by 2"),
        ((1,) * 10, {}, RuntimeError, "less than or equal to two times"),
        ((1, 5, 1, 1), {"mode": "reflect"}, RuntimeError, "Padding size should be less"),
        ((1, 2), {"mode": "foo"}, NotImplementedError, "Unrecognised padding mode"),
        ((1, 2), {"mode": "reflect"}, NotImplementedError, "not supported for 4D"),
        ((1, 2, 1, 1), {"mode": "reflect", "value": 2.0}, RuntimeError,
         "doesn't take in value"),
        ((6, 0, 1, 1), {"mode": "circular"}, RuntimeError, "wrapping around more than once"),
    ]
    for padding, kwargs, error, match in cases:
        yield ErrorSample(Sample((T(x), padding), kwargs, name=match), error, match)


def conv_dtype_errors(make):
    yield from conv_errors(make)
    x = make((1, 2, 4, 4), "bool")
    yield ErrorSample(Sample((T(x), T(x[:, :, :2, :2])), name="bool conv"),
                      NotImplementedError, "not implemented for 'Bool'")


def unfold_dtype_errors(make):
    yield from unfold_errors(make)
    yield ErrorSample(Sample((T(make((1, 2, 4, 4), "int32")), 2), name="int unfold"),
                      NotImplementedError, "not implemented for 'Int'")


def pad_dtype_errors(make):
    yield from pad_errors(make)
    yield ErrorSample(Sample((T(make((1, 2, 4), "bool")), (1, 1)), {"mode": "reflect"},
                             name="bool reflect"), NotImplementedError,
                      "not implemented for 'Bool'")


def _info(name, samples, errors=None, dtypes=FLOATS):
    return OpInfo(f"nn.functional.{name}", samples, dtypes=dtypes, method=False,
                  supports_out=False, supports_autograd=True, errors=errors,
                  tolerances=HALF_TOL)


OPINFOS = [
    OpInfo("convolution", convolution_samples, dtypes=FLOATS, method=False,
           supports_out=False, supports_autograd=True, tolerances=HALF_TOL),
    _info("conv1d", conv1d_samples),
    _info("conv2d", conv2d_samples, conv_dtype_errors, FLOATS + ("int64",)),
    _info("conv3d", conv3d_samples),
    _info("conv_transpose1d", conv_transpose1d_samples),
    _info("conv_transpose2d", conv_transpose2d_samples, conv_transpose_errors,
          FLOATS + ("int64",)),
    _info("conv_transpose3d", conv_transpose3d_samples),
    _info("unfold", unfold_samples, unfold_dtype_errors),
    _info("fold", fold_samples, fold_errors),
    _info("pad", pad_samples, pad_dtype_errors, FLOATS + ("int64",)),
]
