"""OpInfo entries for ember.nn.functional's normalisation, linear, embedding and (deterministic)
dropout functions (src/ember/_ops/nn_norm.py, nn_linear.py, nn_embedding.py, nn_dropout.py)."""
import numpy as np

from opinfo.core import OpInfo, Sample, Skip, T


def _f(name):
    return lambda lib, *args, **kwargs: getattr(lib.nn.functional, name)(*args, **kwargs)


def _layer_norm_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), [4]), name="plain")
    yield Sample((T(make((2, 3, 4), dtype)), [3, 4], T(make((3, 4), dtype)),
                  T(make((3, 4), dtype))), name="affine 2 dims")
    yield Sample((T(make((4,), dtype)), [4], T(make((4,), dtype))), {"eps": 1e-3},
                 name="1-d weight only")
    yield Sample((T(make((0, 4), dtype)), [4]), name="empty batch")


def _group_norm_samples(make, dtype):
    yield Sample((T(make((1, 4, 2), dtype)), 2), name="small")      # within gradgradcheck's budget
    yield Sample((T(make((2, 4, 3), dtype)), 2), name="plain")
    yield Sample((T(make((2, 4, 2, 2), dtype)), 2, T(make((4,), dtype)), T(make((4,), dtype))),
                 name="affine")
    yield Sample((T(make((3, 6), dtype)), 3, T(make((6,), dtype))), {"eps": 1e-3},
                 name="2-d weight only")


def _batch_norm_samples(make, dtype):
    mean, var = T(make((3,), dtype)), T(make((3,), dtype, 0.5, 2))
    yield Sample((T(make((4, 3), dtype)), None, None), {"training": True}, name="train 2-d")
    yield Sample((T(make((2, 3, 4), dtype)), None, None, T(make((3,), dtype)),
                  T(make((3,), dtype))), {"training": True}, name="train affine")
    yield Sample((T(make((2, 3, 2, 2), dtype)), mean, var, T(make((3,), dtype)),
                  T(make((3,), dtype))), name="eval")


def _instance_norm_samples(make, dtype):
    yield Sample((T(make((1, 2, 3), dtype)),), name="small")       # within gradgradcheck's budget
    yield Sample((T(make((2, 3, 4), dtype)),), name="plain")
    yield Sample((T(make((2, 3, 2, 2), dtype)), None, None, T(make((3,), dtype)),
                  T(make((3,), dtype))), name="affine")


def _rms_norm_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)), [4]), name="plain")
    yield Sample((T(make((2, 3, 4), dtype)), [3, 4], T(make((3, 4), dtype))), {"eps": 1e-3},
                 name="weight")


def _lrn_samples(make, dtype):
    yield Sample((T(make((1, 3, 2), dtype)), 2), name="tiny")
    yield Sample((T(make((2, 5, 3), dtype)), 3), name="3-d")
    yield Sample((T(make((1, 4, 2, 2), dtype)), 2), {"alpha": 0.1, "beta": 0.5, "k": 2.0},
                 name="4-d")


def _linear_samples(make, dtype):
    yield Sample((T(make((4, 5), dtype)), T(make((3, 5), dtype)), T(make((3,), dtype))),
                 name="2-d bias")
    yield Sample((T(make((4, 5), dtype)), T(make((3, 5), dtype))), name="2-d")
    yield Sample((T(make((5,), dtype)), T(make((3, 5), dtype)), T(make((3,), dtype))),
                 name="1-d")
    yield Sample((T(make((2, 4, 5), dtype)), T(make((3, 5), dtype)), T(make((3,), dtype))),
                 name="3-d")
    yield Sample((T(make((0, 5), dtype)), T(make((3, 5), dtype)), T(make((3,), dtype))),
                 name="empty")


def _bilinear_samples(make, dtype):
    yield Sample((T(make((1, 2), dtype)), T(make((1, 2), dtype)), T(make((1, 2, 2), dtype))),
                 name="tiny")
    yield Sample((T(make((4, 2), dtype)), T(make((4, 3), dtype)), T(make((5, 2, 3), dtype)),
                  T(make((5,), dtype))), name="bias")
    yield Sample((T(make((2, 2, 2), dtype)), T(make((2, 2, 3), dtype)),
                  T(make((1, 2, 3), dtype))), name="3-d")


def _embedding_samples(make, dtype):
    idx = np.array([[0, 2, 2], [5, 1, 0]])
    yield Sample((T(idx), T(make((6, 3), dtype))), name="2-d indices")
    yield Sample((T(np.array([4, 4, 1])), T(make((6, 3), dtype))), {"padding_idx": 4},
                 name="padding")
    yield Sample((T(np.array([3, 3, 0, 2])), T(make((6, 3), dtype))),
                 {"scale_grad_by_freq": True}, name="scaled by frequency")


def _dropout_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)),), {"p": 0.3, "training": False}, name="eval")
    yield Sample((T(make((3, 4), dtype)),), {"p": 0.0}, name="p zero")


_EMBEDDING_KNOWN = (
    Skip("gradcheck", "by design the gradient is not the Jacobian: the padding row gets none, "
                      "frequent rows are scaled down", samples=("padding", "scaled by frequency")),
    Skip("forward_ad", "the tangent is the Jacobian's, which the padding row and the frequency "
                       "scaling do not follow", samples=("padding", "scaled by frequency")),
)

OPINFOS = [
    OpInfo("nn.functional.layer_norm", _layer_norm_samples, call=_f("layer_norm"),
           method=False, supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.group_norm", _group_norm_samples, call=_f("group_norm"),
           method=False, supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.batch_norm", _batch_norm_samples, call=_f("batch_norm"),
           method=False, supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.instance_norm", _instance_norm_samples, call=_f("instance_norm"),
           method=False, supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.rms_norm", _rms_norm_samples, call=_f("rms_norm"), method=False,
           supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.local_response_norm", _lrn_samples,
           call=_f("local_response_norm"), method=False, supports_out=False,
           supports_autograd=True),
    OpInfo("nn.functional.linear", _linear_samples, call=_f("linear"), method=False,
           supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.bilinear", _bilinear_samples, call=_f("bilinear"), method=False,
           supports_out=False, supports_autograd=True),
    OpInfo("nn.functional.embedding", _embedding_samples, call=_f("embedding"), method=False,
           supports_out=False, supports_autograd=True, grad_args=(1,),
           gradgradcheck=False, known=_EMBEDDING_KNOWN),
    OpInfo("nn.functional.dropout", _dropout_samples, call=_f("dropout"), method=False,
           supports_out=False, supports_autograd=True),
]
