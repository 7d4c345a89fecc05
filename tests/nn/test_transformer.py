"""Transformer, its encoder/decoder stacks and layers against PyTorch: values and gradients
(train with dropout 0, eval with the default dropout), norm_first, activations, batch_first,
unbatched input, masks; layout, repr, errors and warnings."""
import warnings

import pytest
import torch
from tests.nn.compare import assert_close, check_module

import ember

D, HEADS, FF = 8, 2, 16


def _both(build):
    torch.manual_seed(0)
    return build(torch.nn), build(ember.nn)


def _randn(*shape):
    return torch.randn(*shape, dtype=torch.float64)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer(norm_first, activation):
    t, e = _both(lambda nn: nn.TransformerEncoderLayer(
        D, HEADS, FF, dropout=0.0, activation=activation, norm_first=norm_first).double())
    src = _randn(5, 3, D)
    check_module(t, e, src)
    padding = torch.zeros(3, 5, dtype=torch.bool)
    padding[1, 3:] = True
    causal = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    check_module(t, e, src, causal, padding)
    check_module(t, e, src[:, 0], causal)                     # unbatched
    t.eval()
    check_module(t, e, src, None, padding)


def test_encoder_layer_callable_activation_and_batch_first():
    t, e = _both(lambda nn: nn.TransformerEncoderLayer(
        D, HEADS, FF, dropout=0.0, activation=nn.GELU(), batch_first=True, bias=False).double())
    check_module(t, e, _randn(3, 5, D))
    t, e = _both(lambda nn: nn.TransformerEncoderLayer(
        D, HEADS, FF, dropout=0.0, activation=torch.tanh if nn is torch.nn else ember.tanh)
        .double())
    check_module(t, e, _randn(5, 2, D), check_repr=False)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer(norm_first):
    t, e = _both(lambda nn: nn.TransformerDecoderLayer(
        D, HEADS, FF, dropout=0.0, norm_first=norm_first, batch_first=True).double())
    tgt, memory = _randn(2, 4, D), _randn(2, 6, D)
    check_module(t, e, tgt, memory)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    memory_padding = torch.zeros(2, 6, dtype=torch.bool)
    memory_padding[0, 4:] = True
    check_module(t, e, tgt, memory, causal, None, None, memory_padding, True)
    t.eval()
    check_module(t, e, tgt, memory, causal)


def test_encoder_and_decoder_stacks():
    t, e = _both(lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(D, HEADS, FF, dropout=0.0), 2, nn.LayerNorm(D),
        enable_nested_tensor=False).double())
    src = _randn(5, 2, D)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    check_module(t, e, src)
    check_module(t, e, src, causal)
    layers = list(e.layers)
    assert layers[0].linear1.weight is not layers[1].linear1.weight       # deep copies
    t, e = _both(lambda nn: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(D, HEADS, FF, dropout=0.0), 2).double())
    check_module(t, e, _randn(4, 2, D), src)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer(batch_first):
    t, e = _both(lambda nn: nn.Transformer(D, HEADS, 2, 1, FF, dropout=0.0,
                                           batch_first=batch_first).double())
    src = _randn(2, 5, D) if batch_first else _randn(5, 2, D)
    tgt = _randn(2, 4, D) if batch_first else _randn(4, 2, D)
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    padding = torch.zeros(2, 5, dtype=torch.bool)
    padding[1, 3:] = True
    check_module(t, e, src, tgt)
    check_module(t, e, src, tgt, None, tgt_mask, None, padding, None, padding)
    t.eval()
    check_module(t, e, src, tgt, None, tgt_mask)


def test_transformer_unbatched_and_eval_dropout():
    t, e = _both(lambda nn: nn.Transformer(D, HEADS, 1, 1, FF).double())
    t.eval()
    check_module(t, e, _randn(5, D), _randn(3, D))


def test_generate_square_subsequent_mask():
    for dtype in (None, torch.float64):
        expected = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=dtype)
        actual = ember.nn.Transformer.generate_square_subsequent_mask(
            4, dtype=None if dtype is None else ember.float64)
        assert_close(actual, expected)
        assert str(actual.dtype)[6:] == str(expected.dtype)[6:]


def _error(fn):
    try:
        fn()
    except Exception as exc:   # noqa: BLE001 - the class and message are what is compared
        return type(exc), str(exc)
    return None


def test_errors():
    assert _error(lambda: ember.nn.TransformerEncoderLayer(D, HEADS, activation="tanh")) == \
        _error(lambda: torch.nn.TransformerEncoderLayer(D, HEADS, activation="tanh"))
    t, e = _both(lambda nn: nn.Transformer(D, HEADS, 1, 1, FF))
    for src, tgt in (((5, 2, D), (4, 3, D)), ((5, 2, D), (4, 2, D + 1))):
        expected = _error(lambda s=src, g=tgt: t(torch.zeros(s), torch.zeros(g)))
        assert expected is not None
        assert _error(lambda s=src, g=tgt: e(ember.zeros(s), ember.zeros(g))) == expected


def test_nested_tensor_warning_matches():
    def warned(nn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nn.TransformerEncoder(nn.TransformerEncoderLayer(D, HEADS, FF), 2)
        return [str(w.message) for w in caught if "nested" in str(w.message)]
    assert warned(ember.nn) == warned(torch.nn)
    assert warned(torch.nn)
