"""scaled_dot_product_attention, multi_head_attention_forward and MultiheadAttention against
PyTorch: values and gradients with every kind of mask, kdim/vdim, bias_kv, zero attention,
batch_first, unbatched input; errors; ember.nn.attention."""
import pytest
import torch
import torch.nn.functional as TF
from tests._capability import UNIFORM_ULPS, assert_same_draws
from tests.nn.compare import assert_close, check_module, to_ember

import ember
import ember.nn.attention
import ember.nn.functional as F


def _sdpa_case(shape_q, shape_k, shape_v, dtype=torch.float64, **kwargs):
    torch.manual_seed(0)
    q, k, v = (torch.randn(s, dtype=dtype, requires_grad=True) for s in (shape_q, shape_k,
                                                                           shape_v))
    mask = kwargs.get("attn_mask")
    e_kwargs = dict(kwargs)
    if mask is not None:
        e_kwargs["attn_mask"] = to_ember(mask)
    expected = TF.scaled_dot_product_attention(q, k, v, **kwargs)
    eq, ek, ev = (to_ember(t) for t in (q, k, v))
    actual = F.scaled_dot_product_attention(eq, ek, ev, **e_kwargs)
    assert_close(actual, expected)
    weights = torch.randn(expected.shape, dtype=dtype)
    (expected * weights).sum().backward()
    (actual * to_ember(weights)).sum().backward()
    for e, t in ((eq, q), (ek, k), (ev, v)):
        assert_close(e.grad, t.grad)
    if mask is not None and mask.requires_grad:
        assert_close(e_kwargs["attn_mask"].grad, mask.grad)


def test_sdpa_plain_scale_and_unbatched():
    _sdpa_case((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6))
    _sdpa_case((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), scale=0.3)
    _sdpa_case((4, 8), (5, 8), (5, 6))
    _sdpa_case((2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 6))     # batch dims broadcast
    _sdpa_case((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), dtype=torch.float32)


def test_sdpa_masks():
    bool_mask = torch.rand(4, 5) > 0.4
    bool_mask[1] = False                                        # a fully masked row -> zeros
    bool_mask[0, 0] = True
    _sdpa_case((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), attn_mask=bool_mask)
    float_mask = torch.randn(2, 1, 4, 5, dtype=torch.float64, requires_grad=True)
    _sdpa_case((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), attn_mask=float_mask)
    _sdpa_case((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6), is_causal=True)
    _sdpa_case((2, 3, 6, 8), (2, 3, 6, 8), (2, 3, 6, 6), is_causal=True, scale=2.0)


def test_sdpa_grouped_query():
    _sdpa_case((2, 4, 3, 8), (2, 2, 5, 8), (2, 2, 5, 6), enable_gqa=True)


def _error(fn):
    try:
        fn()
    except Exception as exc:   # noqa: BLE001 - the class and message are what is compared
        return type(exc), str(exc).replace("torch.", "").replace("ember.", "")
    return None


@pytest.mark.parametrize("make", [
    lambda lib, q, k, v: (q, k, v.double()),
    lambda lib, q, k, v: (q, k, v, lib.ones(3, 5, dtype=lib.bool), 0.0, True),
    lambda lib, q, k, v: (q, k, v, lib.zeros(3, 5, dtype=lib.int64)),
    lambda lib, q, k, v: (q, k, v, lib.zeros(3, 5, dtype=lib.float64)),
])
def test_sdpa_errors(make):
    shapes = ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 6))
    t_args = make(torch, *(torch.zeros(s) for s in shapes))
    e_args = make(ember, *(ember.zeros(s) for s in shapes))
    expected = _error(lambda: TF.scaled_dot_product_attention(*t_args))
    assert expected is not None
    assert _error(lambda: F.scaled_dot_product_attention(*e_args)) == expected


def test_sdpa_kernel_context():
    from torch.nn.attention import SDPBackend as TorchBackend

    from ember.nn.attention import SDPBackend, sdpa_kernel
    for name in ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION",
                 "ERROR", "OVERRIDEABLE"):
        assert int(getattr(SDPBackend, name)) == int(getattr(TorchBackend, name))
    q = ember.randn(1, 2, 3, 4)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        out = F.scaled_dot_product_attention(q, q, q)
    with sdpa_kernel(SDPBackend.MATH):
        assert_close(F.scaled_dot_product_attention(q, q, q), out)
    with pytest.raises(AssertionError), sdpa_kernel("math"):
        pass


def _mha_pair(*args, dtype=torch.float64, **kwargs):
    torch.manual_seed(0)
    t = torch.nn.MultiheadAttention(*args, **kwargs).to(dtype)
    for p in t.parameters():          # nonzero biases so their gradients mean something
        torch.nn.init.normal_(p, std=0.5)
    e = ember.nn.MultiheadAttention(*args, **kwargs).to(getattr(ember, str(dtype)[6:]))
    return t, e


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_mha_self_and_cross(dtype):
    t, e = _mha_pair(8, 2, dtype=dtype)
    q = torch.randn(4, 3, 8, dtype=dtype)
    kv = torch.randn(5, 3, 8, dtype=dtype)
    check_module(t, e, q, kv, kv)
    check_module(t, e, q, kv, kv, None, True, None, False)        # per-head weights
    check_module(t, e, q, kv, kv, None, False)                     # no weights (sdpa path)
    check_module(t, e, q[:, 0], kv[:, 0], kv[:, 0])                # unbatched
    t.eval()
    check_module(t, e, q, q, q, None, False)


def test_mha_self_attention_shares_projection():
    t, e = _mha_pair(8, 4, batch_first=True)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    expected, expected_w = t(x, x, x)
    ex = to_ember(x)
    e.load_state_dict({k: to_ember(v) for k, v in t.state_dict().items()})
    actual, actual_w = e(ex, ex, ex)
    assert_close(actual, expected)
    assert_close(actual_w, expected_w)


def test_mha_kdim_vdim_bias_kv_zero_attn():
    t, e = _mha_pair(8, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True)
    q = torch.randn(4, 2, 8, dtype=torch.float64)
    k = torch.randn(6, 2, 3, dtype=torch.float64)
    v = torch.randn(6, 2, 5, dtype=torch.float64)
    padding = torch.tensor([[False] * 5 + [True], [False] * 6])
    check_module(t, e, q, k, v)
    check_module(t, e, q, k, v, padding)
    check_module(t, e, q, k, v, padding, False)


def test_mha_masks():
    t, e = _mha_pair(8, 2, batch_first=True, bias=False)
    q = torch.randn(3, 4, 8, dtype=torch.float64)
    kv = torch.randn(3, 5, 8, dtype=torch.float64)
    padding = torch.zeros(3, 5, dtype=torch.bool)
    padding[0, 3:] = True
    bool_mask = torch.rand(4, 5) > 0.7
    float_mask = torch.randn(3 * 2, 4, 5, dtype=torch.float64)
    check_module(t, e, q, kv, kv, padding, True, bool_mask)
    check_module(t, e, q, kv, kv, padding, False, bool_mask)
    check_module(t, e, q, kv, kv, None, True, float_mask)
    check_module(t, e, q, kv, kv, None, False, float_mask)
    check_module(t, e, q, kv, kv, padding.double() * -1e4, False)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    check_module(t, e, q, q, q, None, False, causal, True, True)


def test_mha_layout_and_errors():
    for kwargs in ({}, {"kdim": 3, "vdim": 5}, {"bias": False, "add_bias_kv": True}):
        t = torch.nn.MultiheadAttention(4, 2, **kwargs)
        e = ember.nn.MultiheadAttention(4, 2, **kwargs)
        assert [n for n, _ in t.named_parameters()] == [n for n, _ in e.named_parameters()]
        assert list(t.state_dict()) == list(e.state_dict())
        assert repr(t) == repr(e)
    for args in ((4, 3), (0, 3)):
        assert _error(lambda a=args: ember.nn.MultiheadAttention(*a)) == \
            _error(lambda a=args: torch.nn.MultiheadAttention(*a))
    t, e = _mha_pair(8, 2)
    for shapes in (((4, 2, 8), (5, 8), (5, 8)), ((4, 8), (5, 2, 8), (5, 2, 8)),
                   ((4, 2, 2, 8), (5, 8), (5, 8))):
        t_args = [torch.zeros(s, dtype=torch.float64) for s in shapes]
        e_args = [ember.zeros(s, dtype=ember.float64) for s in shapes]
        expected = _error(lambda a=t_args: t(*a))
        assert expected is not None
        assert _error(lambda a=e_args: e(*a)) == expected
    q = torch.zeros(4, 2, 8, dtype=torch.float64)
    eq = to_ember(q)
    for mask in (torch.zeros(3, 3, dtype=torch.bool), torch.zeros(5, 4, 4, dtype=torch.bool)):
        expected = _error(lambda m=mask: t(q, q, q, attn_mask=m))
        assert expected is not None
        em = to_ember(mask)
        assert _error(lambda m=em: e(eq, eq, eq, attn_mask=m)) == expected
    expected = _error(lambda: t(q, q, q, need_weights=False, is_causal=True))
    assert _error(lambda: e(to_ember(q), to_ember(q), to_ember(q), need_weights=False,
                            is_causal=True)) == expected


def test_seeded_initialisation_is_torchs():
    for kwargs in ({}, {"kdim": 3, "add_bias_kv": True}):
        torch.manual_seed(0)
        ember.manual_seed(0)
        t = torch.nn.MultiheadAttention(4, 2, **kwargs)
        e = ember.nn.MultiheadAttention(4, 2, **kwargs)
        for tp, ep in zip(t.parameters(), e.parameters()):
            assert_same_draws(ep.detach().numpy(), tp.detach().numpy(), UNIFORM_ULPS)
