"""PackedSequence utilities and packed input to the recurrent layers, against PyTorch: values,
batch sizes, index permutations and gradients; errors."""
import pytest
import torch
from tests.nn.compare import assert_close, copy_state, to_ember
from torch.nn.utils import rnn as trnn

import ember
import ember.nn.utils.rnn as ernn


def _same_packed(e, t):
    assert_close(e.data, t.data)
    assert e.batch_sizes.tolist() == t.batch_sizes.tolist()
    for name in ("sorted_indices", "unsorted_indices"):
        e_idx, t_idx = getattr(e, name), getattr(t, name)
        assert (e_idx is None) == (t_idx is None)
        if t_idx is not None:
            assert e_idx.tolist() == t_idx.tolist()


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_pad_roundtrip_values_and_grads(batch_first, enforce_sorted):
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    shape = (4, 6, 2) if batch_first else (6, 4, 2)
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    ex = to_ember(x)
    t_packed = trnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    e_packed = ernn.pack_padded_sequence(ex, lengths, batch_first, enforce_sorted)
    _same_packed(e_packed, t_packed)
    t_pad, t_len = trnn.pad_packed_sequence(t_packed, batch_first, padding_value=-2.0,
                                            total_length=7)
    e_pad, e_len = ernn.pad_packed_sequence(e_packed, batch_first, padding_value=-2.0,
                                            total_length=7)
    assert_close(e_pad, t_pad)
    assert e_len.tolist() == t_len.tolist()
    assert e_len.dtype == ember.int64
    weights = torch.randn(t_pad.shape, dtype=torch.float64)
    (t_pad * weights).sum().backward()
    (e_pad * to_ember(weights)).sum().backward()
    assert_close(ex.grad, x.grad)


def test_pack_sequence_unpack_unpad():
    seqs = [torch.randn(n, 3, dtype=torch.float64) for n in (2, 4, 1)]
    e_seqs = [to_ember(s) for s in seqs]
    t_packed = trnn.pack_sequence(seqs, enforce_sorted=False)
    e_packed = ernn.pack_sequence(e_seqs, enforce_sorted=False)
    _same_packed(e_packed, t_packed)
    for e, t in zip(ernn.unpack_sequence(e_packed), trnn.unpack_sequence(t_packed)):
        assert_close(e, t)
    padded = trnn.pad_sequence(seqs)
    e_padded = ernn.pad_sequence(e_seqs)
    assert_close(e_padded, padded)
    lengths = torch.tensor([2, 4, 1])
    for e, t in zip(ernn.unpad_sequence(e_padded, lengths),
                    trnn.unpad_sequence(padded, lengths)):
        assert_close(e, t)
    sorted_seqs = sorted(seqs, key=len, reverse=True)
    _same_packed(ernn.pack_sequence([to_ember(s) for s in sorted_seqs]),
                 trnn.pack_sequence(sorted_seqs))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence(side, batch_first):
    seqs = [torch.randn(n, 2, requires_grad=True) for n in (3, 1, 2)]
    e_seqs = [to_ember(s) for s in seqs]
    t = trnn.pad_sequence(seqs, batch_first, 7.0, side)
    e = ernn.pad_sequence(e_seqs, batch_first, 7.0, side)
    assert_close(e, t)
    (t * torch.arange(t.numel()).reshape(t.shape)).sum().backward()
    (e * ember.arange(e.numel()).reshape(e.shape)).sum().backward()
    for es, ts in zip(e_seqs, seqs):
        assert_close(es.grad, ts.grad)


def _error(fn):
    try:
        fn()
    except Exception as exc:   # noqa: BLE001 - the class and message are what is compared
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("call", [
    lambda lib, m: m.pack_sequence([lib.zeros(2, 1), lib.zeros(3, 1)]),
    lambda lib, m: m.pack_padded_sequence(lib.zeros(3, 2, 2), [3, 0]),
    lambda lib, m: m.pack_padded_sequence(lib.zeros(3, 2, 2), [3, 2, 1]),
    lambda lib, m: m.pad_packed_sequence(m.pack_sequence([lib.zeros(3, 1)]), total_length=2),
    lambda lib, m: m.pad_sequence([lib.zeros(2, 1)], padding_side="x"),
])
def test_errors(call):
    expected = _error(lambda: call(torch, trnn))
    assert expected is not None
    assert _error(lambda: call(ember, ernn)) == expected


def test_packed_sequence_conversions():
    packed = ernn.pack_sequence([ember.ones(3, 2), ember.ones(1, 2)])
    assert isinstance(packed, tuple) and len(packed) == 4
    double = packed.double()
    assert isinstance(double, ernn.PackedSequence)
    assert double.data.dtype == ember.float64
    assert packed.to(ember.float32) is packed
    assert double.batch_sizes.tolist() == [2, 1, 1]
    assert not packed.is_cuda


CASES = [
    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 3}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("RNN", {"bias": False}),
    ("LSTM", {"batch_first": True}),
]


@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("kind,kwargs", CASES)
def test_recurrent_layers_on_packed_input(kind, kwargs, with_state):
    torch.manual_seed(0)
    t = getattr(torch.nn, kind)(3, 5, **kwargs).double()
    e = getattr(ember.nn, kind)(3, 5, **kwargs).double()
    copy_state(t, e)
    batch_first = kwargs.get("batch_first", False)
    lengths = [2, 4, 1, 4]
    x = torch.randn(4, 4, 3, dtype=torch.float64, requires_grad=True)   # T = B = 4
    ex = to_ember(x)
    t_in = trnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted=False)
    e_in = ernn.pack_padded_sequence(ex, lengths, batch_first, enforce_sorted=False)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    t_args, e_args = [t_in], [e_in]
    states = []
    if with_state:
        h = torch.randn(layers, 4, kwargs.get("proj_size") or 5, dtype=torch.float64,
                        requires_grad=True)
        states = [h]
        if kind == "LSTM":
            states.append(torch.randn(layers, 4, 5, dtype=torch.float64, requires_grad=True))
        e_states = [to_ember(s) for s in states]
        t_args.append(tuple(states) if kind == "LSTM" else states[0])
        e_args.append(tuple(e_states) if kind == "LSTM" else e_states[0])
    t_out, t_hidden = t(*t_args)
    e_out, e_hidden = e(*e_args)
    assert isinstance(e_out, ernn.PackedSequence)
    _same_packed(e_out, t_out)
    t_hidden = t_hidden if isinstance(t_hidden, tuple) else (t_hidden,)
    e_hidden = e_hidden if isinstance(e_hidden, tuple) else (e_hidden,)
    for eh, th in zip(e_hidden, t_hidden):
        assert_close(eh, th)
    t_pad, _ = trnn.pad_packed_sequence(t_out)
    e_pad, _ = ernn.pad_packed_sequence(e_out)
    t_total = (t_pad * t_pad).sum() + sum((h * (k + 2)).sum() for k, h in enumerate(t_hidden))
    e_total = (e_pad * e_pad).sum() + sum((h * (k + 2)).sum() for k, h in enumerate(e_hidden))
    t_total.backward()
    e_total.backward()
    assert_close(ex.grad, x.grad)
    if with_state:
        for es, ts in zip(e_states, states):
            assert_close(es.grad, ts.grad)
    t_params = dict(t.named_parameters())
    for name, p in e.named_parameters():
        assert_close(p.grad, t_params[name].grad, what=name)
