"""Attention: `scaled_dot_product_attention` and `multi_head_attention_forward` (the work of
`nn.MultiheadAttention`), as composites of registry ops (matmul, softmax, dropout), so autograd
gives every gradient.

NOTE [fully masked rows]: in scaled_dot_product_attention a query row whose scores are all -inf
(masked out, or -inf from the inputs' own values) gives zeros, as PyTorch's does, not the NaN of
a plain softmax over -inf; such rows are set to 0 before the softmax (so its backward stays
finite) and their weights to 0 after it. The weights still multiply every value, so an infinite
value beside a zero weight makes NaN, as in PyTorch. multi_head_attention_forward with
need_weights=True takes a plain softmax (PyTorch's NaN rows).
"""
from __future__ import annotations

import math
import warnings

import ember
from ember._core import arguments, upcalls
from ember._core.checked_entry import checked
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._tensor import Tensor

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def _functional():
    from ember.nn import functional
    return functional


def _linear(input, weight, bias):
    return _functional().linear(input, weight, bias)


def _dropout(input, p, training=True):
    # (the ATen dropout, as PyTorch's attention calls it: its RuntimeError for a bad p)
    return upcalls.public("dropout")(input, p, training)


# C++'s names of the element types, as PyTorch's attention messages print them.
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                   "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
                   "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                   "bool": "bool"}


def _cpp_type(dtype) -> str:
    name = str(dtype).rsplit(".", 1)[-1]
    return _CPP_TYPE_NAMES.get(name, name)


def _safe_softmax(scores: Tensor, masked: bool) -> Tensor:
    """Softmax over the last dim; with `masked`, NOTE [fully masked rows]."""
    if not masked:
        return ember.softmax(scores, -1)
    dead = (scores == float("-inf")).all(-1, keepdim=True)
    weights = ember.softmax(ember.where(dead, 0.0, scores), -1)
    return ember.where(dead, 0.0, weights)


@checked("scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
         "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
         "float? scale=None, bool enable_gqa=False)")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, *, scale=None, enable_gqa=False) -> Tensor:
    """softmax(Q K^T * scale + mask) V over the last two dims (batch dims broadcast).

    `attn_mask` is boolean (True keeps a position) or a float added to the scores; `is_causal`
    masks keys after the query's position; `scale` defaults to 1/sqrt(E); `enable_gqa` lets
    query have a multiple of key/value's heads (dim -3)."""
    if _state.entry and _wants(locals()):
        return _handle(scaled_dot_product_attention, locals())
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_type(query.dtype)} key.dtype: {_cpp_type(key.dtype)} and value.dtype: "
            f"{_cpp_type(value.dtype)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} "
            "instead.")
    if attn_mask is not None and attn_mask.dtype != ember.bool and \
            attn_mask.dtype != query.dtype:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_cpp_type(attn_mask.dtype)} and  query.dtype: "
            f"{_cpp_type(query.dtype)} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if query.dtype in (ember.float16, ember.bfloat16):
        # NOTE [half attention in float32]: PyTorch's CPU attention takes float16/bfloat16
        # scores, softmax and sums in float32 and rounds the output once: Q K^T past 65504
        # stays finite there (rounded in float16 it is inf, and the row NaN).
        mask = attn_mask if attn_mask is None or attn_mask.dtype == ember.bool else \
            attn_mask.float()
        wide = _attention(query.float(), key.float(), value.float(), mask, dropout_p,
                          is_causal, scale, enable_gqa)
        return wide.to(query.dtype)
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    target, source = query.size(-2), key.size(-2)
    factor = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    if enable_gqa and query.size(-3) != key.size(-3):        # (IndexError under 3-d)
        repeats = query.size(-3) // key.size(-3)
        key = key.repeat_interleave(repeats, -3)
        value = value.repeat_interleave(repeats, -3)
    scores = ember.matmul(query * factor, key.transpose(-2, -1))
    # NOTE [attention masks add]: a boolean or causal mask is added as 0 / -inf, as PyTorch
    # does, not written over the scores: a NaN or +inf score at a masked position still makes
    # NaN (NaN + -inf, inf + -inf), and so a NaN row.
    if is_causal:
        keep = ember.ones((target, source), dtype=ember.bool, device=query.device).tril()
        attn_mask = keep
    if attn_mask is not None:
        if attn_mask.dtype == ember.bool:
            attn_mask = ember.zeros(attn_mask.shape, dtype=scores.dtype,
                                    device=scores.device).masked_fill(attn_mask.logical_not(),
                                                                      float("-inf"))
        scores = scores + attn_mask
    # (NOTE [fully masked rows]: PyTorch's attention gives zeros for a row of -inf scores
    # whether a mask, the causal rule or the inputs' own values made them so; a plain tensor's
    # scores are looked at once, and tensors without data (meta, subclasses such as fake
    # tensors) take the masked way, which reads no data)
    weights = _safe_softmax(scores, is_causal or attn_mask is not None or
                            type(scores) is not Tensor or scores.device.type == "meta" or
                            bool(scores.isneginf().any()))
    if dropout_p > 0.0:
        weights = _dropout(weights, dropout_p)
    return _in_query_order(ember.matmul(weights, value), query, value)


def _in_query_order(out, query, value):
    """PyTorch's CPU kernel (flash attention: 4-D inputs of one head size) lays its output out
    in the query's order of dims, where the matmul gives row-major; on the meta device it runs
    the matmuls (row-major)."""
    if query.dim() != 4 or value.size(-1) != query.size(-1) or query.is_contiguous() or \
            query.device.type == "meta":
        return out
    order = sorted(range(4), key=lambda d: -query.stride(d))      # slowest dim first
    inverse = [order.index(d) for d in range(4)]
    return out.permute(order).contiguous().permute(inverse)


# --------------------------------------------------------------------------- masks

def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask (True = masked out) as an additive float mask of `target_type`; float
    masks pass through."""
    if mask is None:
        return None
    if mask.dtype != ember.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=2)
    if mask.dtype == ember.bool:
        return ember.zeros(mask.shape, dtype=target_type, device=mask.device).masked_fill(
            mask, float("-inf"))
    return mask


def _pad_last(mask):
    """One more (zero) column at the end of the last dim."""
    extra = ember.zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype, device=mask.device)
    return ember.cat([mask, extra], -1)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """Whether the call is batched; AssertionErrors as PyTorch's for inconsistent ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{tuple(attn_mask.shape)}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _in_projection(query, key, value, weight, bias, separate):
    """q, k, v projections: one packed (3E, E) weight, or three separate ones."""
    if separate is not None:
        w_q, w_k, w_v = separate
        b_q, b_k, b_v = (None, None, None) if bias is None else bias.chunk(3)
        return (_linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v))
    if key is value and query is key:      # self-attention: one product for all three
        return _linear(query, weight, bias).chunk(3, -1)
    w_q, w_k, w_v = weight.chunk(3)
    b_q, b_k, b_v = (None, None, None) if bias is None else bias.chunk(3)
    return (_linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v))


def multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
        bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
        training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
        use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
        v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
        is_causal=False):
    """Multi-head attention of (L, N, E) query over (S, N, E_k) keys and (S, N, E_v) values
    (unbatched: no N): (output (L, N, E), weights (N, L, S) averaged over heads, per head
    (N, H, L, S), or None without `need_weights`)."""
    if _state.entry and _wants(locals()):
        return _handle(multi_head_attention_forward, locals())
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_len, batch, embed_dim = query.shape
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None      # the causal flag alone says it (scaled_dot_product_attention)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                 f"match value's {tuple(value.shape[:2])}")
        separate = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                                 f"{tuple(value.shape)}")
        separate = None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            expected = (target_len, key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask)}, but "
                                   f"should be {expected}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            expected = (batch * num_heads, target_len, key.shape[0])
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask)}, but "
                                   f"should be {expected}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key/value.")
        k = ember.cat([k, bias_k.repeat(1, batch, 1)])
        v = ember.cat([v, bias_v.repeat(1, batch, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    heads = batch * num_heads
    q = q.reshape(target_len, heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], heads, head_dim).transpose(0, 1) if static_k is None
         else static_k)
    v = (v.reshape(v.shape[0], heads, head_dim).transpose(0, 1) if static_v is None
         else static_v)
    if add_zero_attn:
        zeros = ember.zeros((heads, 1, head_dim), dtype=q.dtype, device=q.device)
        k = ember.cat([k, zeros], 1)
        v = ember.cat([v, zeros], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    source_len = k.size(1)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch, source_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(batch, source_len)}, "
                                 f"but got {tuple(key_padding_mask.shape)}")
        key_padding_mask = key_padding_mask.reshape(batch, 1, 1, source_len).expand(
            -1, num_heads, -1, -1).reshape(heads, 1, source_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = ember.bmm(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        # (a plain softmax, as PyTorch's multi_head_attention_forward takes where it returns
        # the weights: a fully masked row is NaN there, unlike NOTE [fully masked rows])
        weights = ember.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = _functional().dropout(weights, dropout_p)   # (F.dropout there)
        output = ember.bmm(weights, v)
        output = output.transpose(0, 1).reshape(target_len * batch, embed_dim)
        output = _linear(output, out_proj_weight, out_proj_bias)
        output = output.reshape(target_len, batch, embed_dim)
        weights = weights.reshape(batch, num_heads, target_len, source_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(batch, num_heads, -1, source_len)
    q = q.reshape(batch, num_heads, target_len, head_dim)
    k = k.reshape(batch, num_heads, source_len, head_dim)
    v = v.reshape(batch, num_heads, source_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(batch * target_len, embed_dim)
    output = _linear(output, out_proj_weight, out_proj_bias)
    output = output.reshape(target_len, batch, embed_dim)
    if not batched:
        output = output.squeeze(1)
    return output, None


def _size(t) -> str:
    return str(t.shape)
