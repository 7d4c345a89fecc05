"""OpInfo entries for the activations of ember.nn.functional (src/ember/_ops/nn_activation.py
and the composites in ember/nn/_functional/activation.py)."""
from opinfo.core import ALL_FLOAT, HALF, OpInfo, Sample, T


def _unary_samples(make, dtype):
    # Small samples first (gradcheck takes the first three); values away from the kinks.
    yield Sample((T(make((2,), dtype, -3, 3)),), name="tiny")
    yield Sample((T(make((3, 4), dtype, -3, 3)),), name="2-d")
    yield Sample((T(make((5,), dtype, -6, 6)),), name="1-d")
    yield Sample((T(make((), dtype)),), name="0-d")
    yield Sample((T(make((2, 3, 2), dtype, -30, 30)),), name="wide range")
    yield Sample((T(make((0, 3), dtype)),), name="empty")


def _with(*args, **kwargs):
    def samples(make, dtype):
        for sample in _unary_samples(make, dtype):
            yield Sample(sample.args + args, dict(kwargs), name=sample.name)
    return samples


def _f(name):
    return lambda lib, *args, **kwargs: getattr(lib.nn.functional, name)(*args, **kwargs)


def _glu_samples(make, dtype):
    yield Sample((T(make((3, 4), dtype)),), name="last dim")
    yield Sample((T(make((4, 3), dtype)), 0), name="dim 0")
    yield Sample((T(make((2, 6, 2), dtype)), 1), name="3-d")


def _prelu_samples(make, dtype):
    yield Sample((T(make((2, 3), dtype)), T(make((3,), dtype, 0.1, 0.5))), name="per channel")
    yield Sample((T(make((2, 3, 4), dtype)), T(make((1,), dtype, 0.1, 0.5))), name="shared")
    yield Sample((T(make((2, 3, 2, 2), dtype)), T(make((3,), dtype, 0.1, 0.5))), name="4-d")


_ACTIVATIONS = [
    ("leaky_relu", _with(0.2)), ("elu", _with(0.7)), ("selu", _with()), ("celu", _with(1.5)),
    ("gelu", _with()), ("gelu", _with(approximate="tanh")), ("silu", _with()),
    ("mish", _with()), ("hardtanh", _with(-2.0, 1.5)), ("relu6", _with()),
    ("hardsigmoid", _with()), ("hardswish", _with()), ("hardshrink", _with(0.3)),
    ("softshrink", _with(0.3)), ("softplus", _with(2.0, 5.0)), ("threshold", _with(0.1, -2.0)),
    ("logsigmoid", _with()), ("tanhshrink", _with()), ("softsign", _with()),
    ("softmin", _with(0)), ("glu", _glu_samples), ("prelu", _prelu_samples),
]

OPINFOS = [
    OpInfo(f"nn.functional.{name}", samples, dtypes=ALL_FLOAT + HALF if name != "prelu"
           else ALL_FLOAT, call=_f(name), method=False, supports_out=False,
           supports_autograd=True)
    for name, samples in _ACTIVATIONS
]
