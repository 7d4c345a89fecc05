"""OpInfo entries for the bags of embeddings (src/ember/_ops/nn_embedding_bag.py): the registry
ops `_embedding_bag` and `_embedding_bag_forward_only` (all four outputs: the bags, offset2bag,
bag_size, max_indices), the frontend `embedding_bag` and `nn.functional.embedding_bag`, against
PyTorch's CPU results; gradients of weight and per_sample_weights, gradcheck."""
import numpy as np

from opinfo.core import ALL_FLOAT, HALF, ErrorSample, OpInfo, Sample, Skip, T

_INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 9])
SUM, MEAN, MAX = 0, 1, 2


def _bag_samples(make, dtype):
    """(weight, indices, offsets, ...) in the aten argument order."""
    def weight():
        return T(make((10, 3), dtype))
    idx, offsets = T(_INDICES), T(np.array([0, 2, 5]))
    yield Sample((weight(), idx, offsets), name="sum")
    yield Sample((weight(), idx, offsets), {"mode": MEAN}, name="mean")
    yield Sample((weight(), idx, offsets), {"mode": MAX}, name="max")
    yield Sample((weight(), idx, offsets), {"per_sample_weights": T(make((8,), dtype))},
                 name="sum weights")
    yield Sample((weight(), idx, offsets), {"mode": MEAN, "padding_idx": 4}, name="mean padding")
    yield Sample((weight(), idx, offsets), {"mode": MAX, "padding_idx": 4}, name="max padding")
    yield Sample((weight(), idx, offsets), {"per_sample_weights": T(make((8,), dtype)),
                                           "padding_idx": 2}, name="sum weights padding")
    yield Sample((weight(), idx, T(np.array([0, 2, 5, 8]))), {"include_last_offset": True},
                 name="last offset")
    yield Sample((weight(), idx, T(np.array([0, 2, 5, 8]))),
                 {"include_last_offset": True, "mode": MAX}, name="last offset max")
    # The last bag's tail past offsets[-1]: PyTorch's mean sums up to offsets[-1] but counts
    # the tail in bag_size (NOTE [embedding bag layout]).
    yield Sample((weight(), idx, offsets), {"include_last_offset": True, "mode": MEAN},
                 name="last offset mean tail")
    yield Sample((weight(), idx, T(np.array([0, 3, 3]))), {"mode": MAX}, name="max empty bag")
    yield Sample((weight(), idx, T(np.array([0, 3, 3]))), {"mode": MEAN}, name="mean empty bag")
    yield Sample((weight(), T(_INDICES.astype(np.int32)), T(np.array([0, 4], np.int32))),
                 {"mode": MEAN}, name="int32")
    yield Sample((weight(), T(np.array([], np.int64)), T(np.array([0, 0]))), name="no indices")
    yield Sample((weight(), idx, offsets), {"scale_grad_by_freq": True},
                 name="scaled by frequency")
    # Small enough for gradgradcheck (NOTE [finite-difference budget]).
    small, few = T(np.array([0, 1, 3, 1])), T(np.array([0, 2]))
    yield Sample((T(make((4, 2), dtype)), small, few), {"mode": MEAN}, name="small mean")
    yield Sample((T(make((4, 2), dtype)), small, few), {"mode": MAX}, name="small max")
    yield Sample((T(make((4, 2), dtype)), small, few), {"per_sample_weights": T(make(
        (4,), dtype))}, name="small weights")


_ORDER = ("scale_grad_by_freq", "mode", "sparse", "per_sample_weights", "include_last_offset",
          "padding_idx")
_DEFAULTS = (False, SUM, False, None, False, -1)


def _positional_samples(make, dtype):
    """The samples with every argument positional (torch.embedding_bag takes padding_idx only
    so: its overload with padding_idx has no keyword for it)."""
    for sample in _bag_samples(make, dtype):
        rest = tuple(sample.kwargs.get(name, default) for name, default in zip(_ORDER, _DEFAULTS))
        if "padding_idx" not in sample.kwargs:
            rest = rest[:-1]
        yield Sample(sample.args + rest, {}, sample.name)


def _bag_errors(make):
    w = make((10, 3), "float32")
    idx = T(_INDICES)
    yield ErrorSample(Sample((T(w), T(np.array([1, 10])), T(np.array([0]))),
                             name="index too large"), RuntimeError, "not in the valid range")
    yield ErrorSample(Sample((T(w), idx, T(np.array([1, 3]))), name="first offset"),
                      RuntimeError, "offsets[0] has to be 0")
    yield ErrorSample(Sample((T(w), idx, T(np.array([0, 9]))), name="offset past the end"),
                      RuntimeError, "can not be greater than input's length")
    yield ErrorSample(Sample((T(w), idx, T(np.array([0, 2])), False, 3), name="mode 3"),
                      RuntimeError, "`mode` must be sum, mean, or max")
    yield ErrorSample(Sample((T(w), idx, T(np.array([0, 2]))),
                             {"mode": MEAN, "per_sample_weights": T(make((8,), "float32"))},
                             name="weights with mean"), RuntimeError, "only supported with")
    yield ErrorSample(Sample((T(w), T(_INDICES.astype(np.float32)), T(np.array([0, 2]))),
                             name="float indices"), RuntimeError, "Long, Int")


def _functional_samples(make, dtype):
    idx, offsets = T(_INDICES), T(np.array([0, 2, 5]))
    for mode in ("sum", "mean", "max"):
        yield Sample((idx, T(make((10, 3), dtype)), offsets), {"mode": mode}, name=mode)
        yield Sample((T(_INDICES.reshape(2, 4)), T(make((10, 3), dtype))), {"mode": mode},
                     name=f"2-d {mode}")
    yield Sample((T(_INDICES.reshape(4, 2)), T(make((10, 3), dtype))),
                 {"mode": "sum", "per_sample_weights": T(make((4, 2), dtype))},
                 name="2-d weights")
    yield Sample((idx, T(make((10, 3), dtype)), offsets), {"padding_idx": 2}, name="padding")
    yield Sample((idx, T(make((10, 3), dtype)), T(np.array([0, 2, 5, 8]))),
                 {"include_last_offset": True, "mode": "max"}, name="last offset")


# PyTorch's CPU backward of scale_grad_by_freq divides some rows by another index's count
# (x = [0, 0, 1] gives row 1 half its gradient); ember divides by each row's own count, as
# embedding does. Neither is the Jacobian.
_KNOWN = (
    Skip("grad", "PyTorch's CPU embedding_bag backward divides rows by other indices' counts "
                 "under scale_grad_by_freq", samples=("scaled by frequency",)),
    Skip("gradcheck", "scale_grad_by_freq: by design the gradient is not the Jacobian",
         samples=("scaled by frequency",)),
    Skip("forward_ad", "scale_grad_by_freq: by design the gradient is not the Jacobian",
         samples=("scaled by frequency",)),
)


def _call(name):
    def call(lib, *args, **kwargs):
        return getattr(lib, name)(*args, **kwargs)
    return call


def _functional(lib, *args, **kwargs):
    return lib.nn.functional.embedding_bag(*args, **kwargs)


_COMMON = {"method": False, "supports_out": False, "dtypes": ALL_FLOAT + HALF}

OPINFOS = [
    OpInfo("_embedding_bag", _bag_samples, call=_call("_embedding_bag"), **_COMMON,
           supports_autograd=True, grad_args=(0,), errors=_bag_errors,
           known=_KNOWN),
    OpInfo("_embedding_bag_forward_only", _bag_samples,
           call=_call("_embedding_bag_forward_only"), **_COMMON),
    OpInfo("embedding_bag", _positional_samples, call=_call("embedding_bag"), **_COMMON,
           supports_autograd=True, grad_args=(0, 6), known=_KNOWN),
    OpInfo("nn.functional.embedding_bag", _functional_samples, call=_functional, **_COMMON,
           supports_autograd=True, grad_args=(1,), gradgradcheck=False),
]
