"""RNN, LSTM, GRU and their cells against PyTorch: values, every gradient, state layout, repr,
batched/unbatched, multi-layer, bidirectional, projections, initial states, errors."""
import pytest
import torch
from tests.nn.compare import assert_close, check_module, copy_state, to_ember

import ember

CASES = [
    ("RNN", {"num_layers": 2, "bidirectional": True}),
    ("RNN", {"nonlinearity": "relu", "bias": False, "batch_first": True}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 3}),
    ("LSTM", {"batch_first": True, "num_layers": 2}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("GRU", {"bias": False}),
    ("LSTM", {"bias": False, "bidirectional": True}),   # the transposed projection, no bias
]


class _TorchWithState(torch.nn.Module):
    """Calls an LSTM(-cell) with (h, c) given as two arguments, as check_module passes them."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, h, c):
        return self.inner(x, (h, c))


class _EmberWithState(ember.nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, h, c):
        return self.inner(x, (h, c))


def check_with_state(t, e, x, h, c):
    check_module(_TorchWithState(t), _EmberWithState(e), x, h, c, check_repr=False)


def _pair(kind, kwargs, dtype):
    torch.manual_seed(0)
    t = getattr(torch.nn, kind)(4, 5, **kwargs).to(dtype)
    e = getattr(ember.nn, kind)(4, 5, **kwargs).to(getattr(ember, str(dtype).split(".")[1]))
    return t, e


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("kind,kwargs", CASES)
def test_module_matches_torch(kind, kwargs, dtype):
    t, e = _pair(kind, kwargs, dtype)
    batch_first = kwargs.get("batch_first", False)
    x = torch.randn((3, 6, 4) if batch_first else (6, 3, 4), dtype=dtype)
    check_module(t, e, x)
    check_module(t, e, x[0])                          # unbatched (T, I)
    directions = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1) * directions
    h = torch.randn(layers, 3, kwargs.get("proj_size") or 5, dtype=dtype)
    if kind == "LSTM":
        c = torch.randn(layers, 3, 5, dtype=dtype)
        check_with_state(t, e, x, h, c)
        check_with_state(t, e, x[0] if batch_first else x[:, 0], h[:, 0], c[:, 0])
    else:
        check_module(t, e, x, h)
        check_module(t, e, x[0] if batch_first else x[:, 0], h[:, 0])


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(kind, bias):
    torch.manual_seed(1)
    t = getattr(torch.nn, kind)(4, 5, bias=bias).double()
    e = getattr(ember.nn, kind)(4, 5, bias=bias).double()
    x = torch.randn(3, 4, dtype=torch.float64)
    h = torch.randn(3, 5, dtype=torch.float64)
    check_module(t, e, x)
    check_module(t, e, x[0])
    if kind == "LSTMCell":
        check_with_state(t, e, x, h, h * 0.5)
        check_with_state(t, e, x[0], h[0], h[0] * 0.5)
    else:
        check_module(t, e, x, h)


def test_relu_cell_and_repr():
    t = torch.nn.RNNCell(3, 4, nonlinearity="relu", bias=False)
    e = ember.nn.RNNCell(3, 4, nonlinearity="relu", bias=False)
    check_module(t, e, torch.randn(2, 3))


def test_parameter_layout_and_init_bounds():
    e = ember.nn.LSTM(3, 6, num_layers=2, bidirectional=True, proj_size=2)
    t = torch.nn.LSTM(3, 6, num_layers=2, bidirectional=True, proj_size=2)
    assert e._flat_weights_names == t._flat_weights_names
    assert [[n for n in names] for names in e._all_weights] == t._all_weights
    bound = 1 / 6 ** 0.5
    for p in e.parameters():
        assert float(p.abs().max()) <= bound
    assert len(e.all_weights) == 4
    e.flatten_parameters()
    e.double()
    assert all(w.dtype == ember.float64 for w in e._flat_weights)


def _error(fn):
    try:
        fn()
    except Exception as exc:   # noqa: BLE001 - the class and message are what is compared
        return type(exc), str(exc).replace("torch.", "").replace("ember.", "")
    return None


@pytest.mark.parametrize("call", [
    lambda nn: nn.RNN(3, 4, nonlinearity="x"),
    lambda nn: nn.RNN(3, 4, proj_size=2),
    lambda nn: nn.GRU(3, 4, proj_size=2),
    lambda nn: nn.LSTM(3, 4, proj_size=4),
    lambda nn: nn.LSTM(3, 4, proj_size=-1),
    lambda nn: nn.LSTM(3, 0),
    lambda nn: nn.LSTM(3, 4.0),
    lambda nn: nn.LSTM(3, 4, num_layers=0),
    lambda nn: nn.LSTM(3, 4, dropout=1.5),
    lambda nn: nn.RNNBase("X", 3, 4),
])
def test_constructor_errors(call):
    assert _error(lambda: call(torch.nn)) == _error(lambda: call(ember.nn))


@pytest.mark.parametrize("kind,args", [
    ("GRU", ((5, 2, 4),)),
    ("GRU", ((5, 2, 2, 3),)),
    ("LSTM", ((5, 2, 2, 3),)),
    ("RNN", ((5, 2, 2, 3),)),
    ("RNN", ((5, 2, 3), (1, 3, 4))),
    ("RNN", ((5, 2, 3), (3, 4))),
    ("RNN", ((5, 3), (1, 3, 4))),
    ("LSTM", ((5, 2, 3), ((1, 3, 4), (1, 2, 4)))),
    ("LSTM", ((5, 2, 3), ((1, 2, 4), (1, 3, 4)))),
    ("LSTM", ((5, 3), ((1, 2, 4), (1, 3, 4)))),
    ("LSTM", ((5, 2, 3), ((2, 4), (1, 3, 4)))),
    ("LSTMCell", ((5, 2, 3),)),
    ("LSTMCell", ((2, 4),)),
    ("LSTMCell", ((2, 3), ((3, 4), (2, 4)))),
    ("LSTMCell", ((2, 3), ((2, 4), (2, 5)))),
    ("GRUCell", ((2, 3), (3, 4))),
    ("GRUCell", ((2, 3), (2, 2, 3))),
])
def test_forward_errors(kind, args):
    def build(lib):
        def make(spec):
            if isinstance(spec[0], tuple):
                return tuple(make(s) for s in spec)
            return lib.zeros(spec)
        return getattr(lib.nn, kind)(3, 4), [make(a) for a in args]
    t_mod, t_args = build(torch)
    e_mod, e_args = build(ember)
    expected = _error(lambda: t_mod(*t_args))
    assert expected is not None
    assert _error(lambda: e_mod(*e_args)) == expected


def test_dtype_mismatch():
    t = _error(lambda: torch.nn.GRU(3, 4)(torch.zeros(5, 2, 3, dtype=torch.float64)))
    e = _error(lambda: ember.nn.GRU(3, 4)(ember.zeros(5, 2, 3, dtype=ember.float64)))
    assert t == e


def test_dropout_between_layers_only_in_training():
    e = ember.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    t = torch.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    copy_state(t, e)
    x = torch.randn(5, 2, 3)
    e.eval()
    t.eval()
    assert_close(e(to_ember(x))[0], t(x)[0])
    e.train()
    out, _ = e(to_ember(x))
    assert out.shape == (5, 2, 4)


@pytest.mark.parametrize("kind,kwargs", [("LSTM", {"bidirectional": True}), ("GRU", {}),
                                         ("RNN", {"nonlinearity": "relu"})])
def test_fused_layer_gradcheck(kind, kwargs):
    """The fused padded path (_fused_rnn_direction) against numerical derivatives."""
    ember.manual_seed(0)
    module = getattr(ember.nn, kind)(2, 3, **kwargs).double()
    directions = 2 if kwargs.get("bidirectional") else 1
    x = ember.randn(4, 2, 2, dtype=ember.float64, requires_grad=True)
    h = ember.randn(directions, 2, 3, dtype=ember.float64, requires_grad=True)
    if kind == "LSTM":
        c = ember.randn(directions, 2, 3, dtype=ember.float64, requires_grad=True)
        assert ember.autograd.gradcheck(lambda x, h, c: module(x, (h, c))[0], (x, h, c))
        assert ember.autograd.gradcheck(lambda x, h, c: module(x, (h, c))[1][1], (x, h, c))
    else:
        assert ember.autograd.gradcheck(lambda x, h: module(x, h), (x, h))


@pytest.mark.parametrize("kind,kwargs", [("LSTM", {"bidirectional": True}), ("GRU", {}),
                                         ("RNN", {})])
def test_double_backward_matches_torch(kind, kwargs):
    """Second-order gradients through the fused layers (rerun as recorded steps)."""
    torch.manual_seed(2)
    t = getattr(torch.nn, kind)(2, 3, **kwargs).double()
    e = getattr(ember.nn, kind)(2, 3, **kwargs).double()
    copy_state(t, e)
    x = torch.randn(4, 2, 2, dtype=torch.float64, requires_grad=True)
    ex = to_ember(x)
    t_out = t(x)[0]
    e_out = e(ex)[0]
    t_grad, = torch.autograd.grad((t_out * t_out).sum(), x, create_graph=True)
    e_grad, = ember.autograd.grad((e_out * e_out).sum(), ex, create_graph=True)
    assert_close(e_grad, t_grad)
    t_second = torch.autograd.grad(t_grad.sum(), [x, *t.parameters()])
    e_second = ember.autograd.grad(e_grad.sum(), [ex, *e.parameters()])
    for k, (eg, tg) in enumerate(zip(e_second, t_second)):
        assert_close(eg, tg, what=f"second-order grad {k}")


@pytest.mark.parametrize("name,gates", [("lstm_cell", 4), ("gru_cell", 3),
                                        ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_top_level_cell_functions(name, gates, bias):
    torch.manual_seed(3)
    shapes = [(2, 3), (2, 4), (gates * 4, 3), (gates * 4, 4)] + \
        ([(gates * 4,), (gates * 4,)] if bias else [])
    t_args = [torch.randn(s, dtype=torch.float64, requires_grad=True) for s in shapes]
    e_args = [to_ember(a) for a in t_args]
    if name == "lstm_cell":
        c = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
        ec = to_ember(c)
        t_out = getattr(torch, name)(t_args[0], (t_args[1], c), *t_args[2:])
        e_out = getattr(ember, name)(e_args[0], (e_args[1], ec), *e_args[2:])
        t_args.append(c)
        e_args.append(ec)
    else:
        t_out = (getattr(torch, name)(*t_args),)
        e_out = (getattr(ember, name)(*e_args),)
    for k, (e, t) in enumerate(zip(e_out, t_out)):
        assert_close(e, t)
    sum((o * (k + 1)).sum() for k, o in enumerate(t_out)).backward()
    sum((o * (k + 1)).sum() for k, o in enumerate(e_out)).backward()
    for e, t in zip(e_args, t_args):
        assert_close(e.grad, t.grad)
    bad = torch.zeros(2, 5, dtype=torch.float64)
    t_err = _error(lambda: getattr(torch, name)(bad, *([(t_args[1], t_args[1])]
                                                         if name == "lstm_cell" else
                                                         [t_args[1]]), *t_args[2:4]))
    e_err = _error(lambda: getattr(ember, name)(to_ember(bad), *([(e_args[1], e_args[1])]
                                                                  if name == "lstm_cell" else
                                                                  [e_args[1]]), *e_args[2:4]))
    assert t_err is not None and e_err == t_err


@pytest.mark.parametrize("build", [
    lambda nn: nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2),
    lambda nn: nn.GRU(3, 4), lambda nn: nn.RNNCell(3, 4), lambda nn: nn.LSTMCell(3, 4)])
def test_seeded_initialisation_is_torchs(build):
    torch.manual_seed(0)
    ember.manual_seed(0)
    t, e = build(torch.nn), build(ember.nn)
    for (name, tp), ep in zip(t.named_parameters(), e.parameters()):
        assert_close(ep, tp, rtol=0, atol=0, what=name)
