"""`MultiheadAttention`: projections of query, key and value into `num_heads` heads, scaled
dot-product attention per head, and an output projection (the work is
`F.multi_head_attention_forward`). Parameter names and initialisation are PyTorch's."""
from __future__ import annotations

from typing import ClassVar

import ember
from ember._tensor import Tensor
from ember.nn import init
from ember.nn._functional import attention as _attention
from ember.nn.modules import linear as _linear_module
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["MultiheadAttention"]

Linear = _linear_module.Linear


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear that PyTorch's quantization passes leave alone (MultiheadAttention.out_proj)."""


class MultiheadAttention(Module):
    """Attention from `query` to (`key`, `value`) in `num_heads` parallel heads."""

    __constants__: ClassVar[list[str]] = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(ember.empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(ember.empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(ember.empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(ember.empty((3 * embed_dim, embed_dim), **factory))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(ember.empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory)
        if add_bias_kv:
            self.bias_k = Parameter(ember.empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(ember.empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state) -> None:
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask=None,
                need_weights: bool = True, attn_mask=None, average_attn_weights: bool = True,
                is_causal: bool = False):
        """(attention output, weights or None); inputs (L, N, E) (or (N, L, E) with
        batch_first, or unbatched (L, E)). Masks: True or -inf marks a position left out."""
        batched = query.dim() == 3
        # NOTE [attention's inference path]: PyTorch answers an inference call (eval mode, no
        # gradient wanted, batch_first self-attention on one 3-d tensor, the default
        # projections, masks boolean if any) with its fused kernel, whose softmax is the
        # plain one: a fully masked row is NaN there, where scaled_dot_product_attention
        # (NOTE [fully masked rows]) gives zeros. Such a call takes the path that forms the
        # weights (a plain softmax) whether or not they are returned.
        fused = not self.training and self._inference_path(query, key, value, batched,
                                                            key_padding_mask, attn_mask)
        key_padding_mask = _attention._canonical_mask(
            key_padding_mask, "key_padding_mask", _attention._none_or_dtype(attn_mask),
            "attn_mask", query.dtype)
        attn_mask = _attention._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                               check_other=False)
        if self.batch_first and batched:
            # Keep `key is value` / `query is key`: self-attention projects once.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        output, weights = _attention.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights or fused,
            attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not need_weights:
            weights = None
        if self.batch_first and batched:
            return output.transpose(1, 0), weights
        return output, weights

    def _inference_path(self, query, key, value, batched, key_padding_mask, attn_mask) -> bool:
        """NOTE [attention's inference path] (the training flag checked by the caller)."""
        if not (self.batch_first and batched and query is key and key is value and
                self._qkv_same_embed_dim and self.in_proj_bias is not None and
                self.bias_k is None and not self.add_zero_attn):
            return False
        if any(mask is not None and mask.dtype != ember.bool
               for mask in (key_padding_mask, attn_mask)):
            return False
        return not ember.is_grad_enabled() or not (
            query.requires_grad or any(p.requires_grad for p in self.parameters()))

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One additive mask of shape (N, H, L, S) from an attention mask and a padding mask,
        and its type (0: 2-D attn mask, 1: padding mask, 2: merged)."""
        mask_type = None
        merged = None
        if key_padding_mask is not None:
            mask_type = 1
            merged = key_padding_mask
        if attn_mask is not None:
            batch, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_mask = attn_mask.reshape(batch, -1, seq_len, seq_len)
            else:
                attn_mask = attn_mask.reshape(1, 1, seq_len, seq_len).expand(
                    batch, self.num_heads, -1, -1)
            merged = attn_mask
            if key_padding_mask is not None:
                padding = key_padding_mask.reshape(batch, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1)
                merged = attn_mask + padding
        return merged, mask_type
