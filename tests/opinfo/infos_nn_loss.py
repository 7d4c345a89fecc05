"""OpInfo entries for the losses and distances of ember.nn.functional (src/ember/_ops/nn_loss.py,
nn_ctc.py, nn_distance.py and the composites of src/ember/nn/_functional/loss.py, distance.py):
values, meta shapes and gradients (gradcheck on small float64 samples) against PyTorch."""
import numpy as np

from opinfo.core import ALL_FLOAT, ErrorSample, OpInfo, Sample, T

LOSS = {"method": False, "supports_out": False, "supports_autograd": True}


def _targets(make, shape, classes):
    return make(shape, "int64", 0, classes)


def nll_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(_targets(make, (3,), 4))), name="2-d")
    yield Sample((T(make((4,), dtype)), T(_targets(make, (), 4))), name="1-d")
    yield Sample((T(make((2, 3, 2), dtype)), T(_targets(make, (2, 2), 3))),
                 {"reduction": "sum"}, name="3-d sum")
    yield Sample((T(make((2, 3, 1, 2, 1), dtype)), T(_targets(make, (2, 1, 2, 1), 3))),
                 {"reduction": "none", "weight": T(make((3,), dtype, 0.5, 2))}, name="5-d weight")
    t = _targets(make, (4,), 3)
    t[1] = -100
    yield Sample((T(make((4, 3), dtype)), T(t)), {"weight": T(make((3,), dtype, 0.5, 2))},
                 name="ignore_index weight")
    yield Sample((T(make((4, 3), dtype)), T(_targets(make, (4,), 3))), {"ignore_index": 1},
                 name="ignore class 1")


def nll_errors(make):
    x = make((3, 4), "float32")
    yield ErrorSample(Sample((T(x), T(np.array([0, 1, 4]))), name="target too large"),
                      IndexError, "Target 4 is out of bounds.")
    yield ErrorSample(Sample((T(x), T(np.array([0, 1]))), name="batch size"), ValueError,
                      "batch_size")
    yield ErrorSample(Sample((T(x), T(np.array([0, 1, 2], np.int32))), name="int32 target"),
                      RuntimeError, "Long or Byte")


def cross_entropy_samples(make, dtype):
    yield from nll_samples(make, dtype)
    yield Sample((T(make((4, 3), dtype)), T(_targets(make, (4,), 3))),
                 {"label_smoothing": 0.2, "weight": T(make((3,), dtype, 0.5, 2))},
                 name="label smoothing weight")
    yield Sample((T(make((2, 3, 2), dtype)), T(_targets(make, (2, 2), 3))),
                 {"label_smoothing": 0.1, "reduction": "none"}, name="3-d smoothing none")
    p = make((3, 4), dtype, 0, 1)
    yield Sample((T(make((3, 4), dtype)), T(p / p.sum(1, keepdims=True))), name="probabilities")


def pair_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), dtype))), name="2-d")
    yield Sample((T(make((5,), dtype)), T(make((5,), dtype))), {"reduction": "sum"},
                 name="1-d sum")
    yield Sample((T(make((2, 3), dtype)), T(make((2, 3), dtype))), {"reduction": "none"},
                 name="none")


def bce_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype, 0.1, 0.9)), T(make((3, 4), dtype, 0, 1))), name="2-d")
    yield Sample((T(make((5,), dtype, 0.1, 0.9)), T(make((5,), dtype, 0, 1))),
                 {"reduction": "none", "weight": T(make((5,), dtype, 0, 2))}, name="weight")


def bce_logits_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), dtype, 0, 1))), name="2-d")
    yield Sample((T(make((2, 3), dtype)), T(make((2, 3), dtype, 0, 1))),
                 {"reduction": "none", "pos_weight": T(make((3,), dtype, 0, 3)),
                  "weight": T(make((3,), dtype, 0, 2))}, name="pos_weight weight")


def kl_samples(make, dtype):
    x = make((2, 3), dtype)
    x = x - np.log(np.exp(x).sum(1, keepdims=True))
    t = make((2, 3), dtype, 0.05, 1)
    yield Sample((T(x), T(t / t.sum(1, keepdims=True))), {"reduction": "batchmean"},
                 name="batchmean")
    yield Sample((T(x), T(make((2, 3), dtype, -2, 0))), {"reduction": "none",
                                                         "log_target": True}, name="log target")


def ctc_samples(make, dtype):
    x = make((4, 2, 3), dtype)
    log_probs = x - np.log(np.exp(x).sum(2, keepdims=True))
    yield Sample((T(log_probs), T(np.array([[1, 2], [2, 2]])), [4, 4], [2, 1]), name="padded")
    yield Sample((T(log_probs), T(np.array([1, 1, 2])), [4, 3], [2, 1]),
                 {"reduction": "sum"}, name="concatenated, repeated label")


def distance_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), T(make((3, 4), dtype))), name="2-d")
    yield Sample((T(make((3, 4), dtype)), T(make((4,), dtype))), name="broadcast")


def pdist_samples(make, dtype):
    yield Sample((T(make((4, 3), dtype)),), name="2-norm")
    yield Sample((T(make((3, 2), dtype)), 1.0), name="1-norm")


def one_hot_samples(make, dtype):
    yield Sample((T(make((4,), "int64", 0, 5)),), name="inferred classes")
    yield Sample((T(make((2, 3), "int64", 0, 3)), 4), name="4 classes")


def one_hot_errors(make):
    yield ErrorSample(Sample((T(np.array([1, -1])),), name="negative"), RuntimeError,
                      "non-negative")
    yield ErrorSample(Sample((T(np.array([1, 3])), 3), name="too large"), RuntimeError,
                      "smaller than num_classes")


OPINFOS = [
    # (4-d inputs are left to tests/nn/test_loss.py: PyTorch's nll_loss2d backward refuses
    # the non-contiguous twin, 'grad_input must be contiguous'.)
    OpInfo("nn.functional.nll_loss", nll_samples, errors=nll_errors, grad_args=(0,), **LOSS),
    OpInfo("nn.functional.cross_entropy", cross_entropy_samples, grad_args=(0,), **LOSS),
    OpInfo("nn.functional.mse_loss", pair_samples, **LOSS),
    OpInfo("nn.functional.l1_loss", pair_samples, **LOSS),
    OpInfo("nn.functional.smooth_l1_loss", pair_samples, **LOSS),
    OpInfo("nn.functional.huber_loss", pair_samples, **LOSS),
    OpInfo("nn.functional.soft_margin_loss", pair_samples, grad_args=(0,), **LOSS),
    OpInfo("nn.functional.binary_cross_entropy", bce_samples, grad_args=(0,),
           supports_meta=False, **LOSS),
    OpInfo("nn.functional.binary_cross_entropy_with_logits", bce_logits_samples, **LOSS),
    OpInfo("nn.functional.kl_div", kl_samples, **LOSS),
    # Through a log_softmax: PyTorch's ctc gradient is the one with respect to the logits
    # (NOTE [ctc recursions] in src/ember/_ops/nn_ctc.py), so gradcheck needs the softmax.
    OpInfo("nn.functional.ctc_loss", ctc_samples, grad_args=(0,), gradgradcheck=False,
           supports_meta=False, call=lambda lib, x, *args, **kwargs: lib.nn.functional.ctc_loss(
               x.log_softmax(2), *args, **kwargs), **LOSS),
    OpInfo("nn.functional.pairwise_distance", distance_samples, **LOSS),
    OpInfo("nn.functional.cosine_similarity", distance_samples, **LOSS),
    OpInfo("nn.functional.pdist", pdist_samples, **LOSS),
    OpInfo("nn.functional.one_hot", one_hot_samples, dtypes=("int64",), method=False,
           supports_out=False, supports_meta=False, errors=one_hot_errors),
]
assert all(info.dtypes == ALL_FLOAT for info in OPINFOS[:-1])
