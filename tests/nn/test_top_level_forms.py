"""The `torch.*` forms of layers (torch.max_pool1d, torch.batch_norm, torch.lstm ...), with
PyTorch's positional signatures, against the oracle."""
import numpy as np
import pytest
import torch
from opinfo.core import tolerance

import ember


def _e(t):
    return ember.tensor(t.detach().numpy())


def _close(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    assert tuple(got.shape) == tuple(want.shape)
    dtype_name = str(want.dtype).split(".")[1]
    assert str(got.dtype).split(".")[1] == dtype_name
    atol, rtol = tolerance(dtype_name)      # PyTorch's for the dtype (NOTE [tolerances by dtype])
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), atol=atol, rtol=rtol)


def _randn(*shape, seed=0):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=torch.float32)


X3, X4, X5 = _randn(2, 3, 9), _randn(2, 3, 6, 7), _randn(1, 2, 4, 4, 5)
W3, B3 = _randn(3, seed=1), _randn(3, seed=2)

CASES = [
    ("max_pool1d", (X3, 2)), ("max_pool1d", (X3, 3, [], 1, 1, True)),
    ("max_pool1d", (X3, [3], [2], [1], [2])), ("max_pool1d_with_indices", (X3, 2)),
    ("max_pool2d", (X4, 2)), ("max_pool2d", (X4, (3, 2), (1, 2), 1)), ("max_pool3d", (X5, 2)),
    ("avg_pool1d", (X3, 2)), ("avg_pool1d", (X3, 3, 2, 1, True, False)),
    ("adaptive_avg_pool1d", (X3, 4)), ("adaptive_max_pool1d", (X3, 4)),
    ("batch_norm", (X3, W3, B3, None, None, True, 0.1, 1e-5, False)),
    ("batch_norm", (X3, None, None, torch.zeros(3), torch.ones(3), False, 0.1, 1e-3, True)),
    ("instance_norm", (X3, W3, B3, None, None, True, 0.1, 1e-5, False)),
    ("layer_norm", (X3, (9,))), ("layer_norm", (X3, [3, 9], None, None, 1e-3)),
    ("group_norm", (X4, 3, W3, B3)), ("rms_norm", (X3, (9,))),
    ("rms_norm", (X3, [9], _randn(9, seed=3), 1e-3)),
    ("selu", (X3,)), ("celu", (X3, 0.7)), ("rrelu", (X3,)), ("prelu", (X3, W3)),
    ("grid_sampler", (X4, torch.rand(2, 3, 4, 2) * 2 - 1, 0, 0, False)),
    ("grid_sampler", (X4, torch.rand(2, 3, 4, 2) * 2 - 1, 1, 2, True)),
    ("conv_tbc", (_randn(5, 2, 3), _randn(3, 3, 4, seed=4), _randn(4, seed=5), 1)),
]


@pytest.mark.parametrize("name, args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_matches_torch(name, args):
    want = getattr(torch, name)(*args)
    got = getattr(ember, name)(*[_e(a) if isinstance(a, torch.Tensor) else a for a in args])
    _close(got, want)


@pytest.mark.parametrize("name, args", [("selu_", ()), ("celu_", (0.5,)),
                                        ("threshold_", (0.1, -2.0)), ("rrelu_", ())])
def test_inplace_forms(name, args):
    t, e = X3.clone(), _e(X3)
    want = getattr(torch, name)(t, *args)
    got = getattr(ember, name)(e, *args)
    assert got is e
    _close(got, want)


def test_prelu_method():
    _close(_e(X3).prelu(_e(W3)), X3.prelu(W3))


def test_conv_tbc_checks_dims():
    for lib, wrap in ((torch, lambda t: t), (ember, _e)):
        with pytest.raises(RuntimeError, match="3 dims"):
            lib.conv_tbc(wrap(X4), wrap(_randn(3, 3, 4)), wrap(_randn(4)))


def _rnn_args(module, mode):
    params = [p.detach() for p in module._flat_weights]
    return params


@pytest.mark.parametrize("mode, kwargs", [
    ("lstm", {"num_layers": 2, "bidirectional": True}), ("lstm", {"proj_size": 3}),
    ("lstm", {"batch_first": True, "bias": False}), ("gru", {"num_layers": 2}),
    ("rnn_tanh", {"bidirectional": True}), ("rnn_relu", {"batch_first": True}),
])
def test_recurrent_forms(mode, kwargs):
    torch.manual_seed(0)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU}.get(mode, torch.nn.RNN)
    extra = {"nonlinearity": mode.split("_")[1]} if mode.startswith("rnn") else {}
    module = cls(4, 5, **kwargs, **extra)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    batch_first = kwargs.get("batch_first", False)
    x = _randn(3, 6, 4) if batch_first else _randn(6, 3, 4)
    h = _randn(layers, 3, kwargs.get("proj_size") or 5, seed=7)
    hx = [h, _randn(layers, 3, 5, seed=8)] if mode == "lstm" else h
    flags = (kwargs.get("bias", True), kwargs.get("num_layers", 1), 0.0, False,
             kwargs.get("bidirectional", False), batch_first)
    params = _rnn_args(module, mode)
    want = getattr(torch, mode)(x, hx, params, *flags)
    ehx = [_e(t) for t in hx] if mode == "lstm" else _e(hx)
    got = getattr(ember, mode)(_e(x), ehx, [_e(p) for p in params], *flags)
    _close(got, want)


def test_lstm_packed_form():
    torch.manual_seed(0)
    module = torch.nn.LSTM(4, 5)
    packed = torch.nn.utils.rnn.pack_padded_sequence(_randn(6, 3, 4), [6, 4, 2])
    hx = [_randn(1, 3, 5, seed=1), _randn(1, 3, 5, seed=2)]
    params = [p.detach() for p in module._flat_weights]
    want = torch.lstm(packed.data, packed.batch_sizes, hx, params, True, 1, 0.0, False, False)
    got = ember.lstm(_e(packed.data), ember.tensor(packed.batch_sizes.numpy()),
                     [_e(t) for t in hx], [_e(p) for p in params], True, 1, 0.0, False, False)
    _close(got, want)


def test_rrelu_training_with_generator():
    results = []
    for lib in (torch, ember):
        g = lib.Generator().manual_seed(11)
        x = lib.arange(-20.0, 20.0) * 0.1
        results.append((lib.rrelu(x, 0.1, 0.5, True, g).numpy(),
                        lib.rrelu_(x.clone(), 0.1, 0.5, True, g).numpy()))
    for got, want in zip(results[1], results[0]):
        assert np.array_equal(got, want)
