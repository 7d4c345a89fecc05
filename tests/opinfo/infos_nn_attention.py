"""OpInfo entries for attention (src/ember/nn/_functional/attention.py)."""
import numpy as np

from opinfo.core import ALL_FLOAT, OpInfo, Sample, T


def _t(make, shape, dtype):
    return T(make(shape, dtype, low=-2.0, high=2.0))


def sdpa_samples(make, d):
    # Tiny ones first: small enough for gradcheck's and gradgradcheck's budgets.
    yield Sample((_t(make, (1, 2, 2), d), _t(make, (1, 3, 2), d), _t(make, (1, 3, 2), d)),
                 name="tiny")
    keep = np.array([[True, False, True], [False, False, False]])
    yield Sample((_t(make, (1, 2, 2), d), _t(make, (1, 3, 2), d), _t(make, (1, 3, 2), d),
                  T(keep)), {"scale": 0.7}, name="tiny masked")
    yield Sample((_t(make, (1, 3, 2), d), _t(make, (1, 3, 2), d), _t(make, (1, 3, 1), d)),
                 {"is_causal": True}, name="tiny causal")
    q, k, v = (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 3)
    yield Sample((_t(make, q, d), _t(make, k, d), _t(make, v, d)), name="plain")
    yield Sample((_t(make, q, d), _t(make, k, d), _t(make, v, d)), {"scale": 0.25},
                 name="scale")
    yield Sample((_t(make, q, d), _t(make, q, d), _t(make, (2, 3, 4, 3), d)),
                 {"is_causal": True}, name="causal")
    keep = np.ones((4, 6), dtype=bool)
    keep[1, 2:] = False
    keep[3] = False                              # a fully masked row gives zeros
    yield Sample((_t(make, q, d), _t(make, k, d), _t(make, v, d), T(keep)), name="bool mask")
    yield Sample((_t(make, q, d), _t(make, k, d), _t(make, v, d),
                  _t(make, (1, 3, 4, 6), d)), name="float mask")
    yield Sample((_t(make, (4, 5), d), _t(make, (6, 5), d), _t(make, (6, 3), d)),
                 name="unbatched")
    yield Sample((_t(make, (2, 4, 3, 5), d), _t(make, (2, 2, 6, 5), d),
                  _t(make, (2, 2, 6, 3), d)), {"enable_gqa": True}, name="grouped query")


OPINFOS = [
    OpInfo("nn.functional.scaled_dot_product_attention", sdpa_samples, dtypes=ALL_FLOAT,
           method=False, supports_out=False, supports_autograd=True),
]
