"""Functional embeddings: embedding (the registry op in ember/_ops/nn_embedding.py, after the
max_norm renormalisation) and embedding_bag (sums, means or maxima of bags of embeddings: the
registry ops of ember/_ops/nn_embedding_bag.py, through its `embedding_bag` frontend)."""
from __future__ import annotations

import ember
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.lazy_method import LazyModule
from ember._core.registry import OPS

# (the op families load on first use)
_nn_embedding = LazyModule("ember._ops.nn_embedding", globals(), "_nn_embedding")
_nn_embedding_bag = LazyModule("ember._ops.nn_embedding_bag", globals(), "_nn_embedding_bag")

__all__ = ["embedding", "embedding_bag"]

_EMBEDDING = OPS["embedding"]


def _padding_index(padding_idx, num_embeddings):
    if padding_idx is None:
        return -1
    if padding_idx > 0:
        assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of `weight` at the indices `input`.

    padding_idx's row gets no gradient; max_norm rescales the looked-up rows of `weight` in
    place so that their norm_type-norms are at most max_norm. `sparse=True` is accepted, but
    the gradient is a dense tensor (ember has no sparse layout).
    """
    if _state.entry and _wants(locals()):
        return _handle(embedding, locals())
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    if max_norm is not None:
        input = input.contiguous()
        _nn_embedding.embedding_renorm_(weight, input, max_norm, norm_type)
    return call(_EMBEDDING, (weight, input, padding_idx, scale_grad_by_freq, sparse))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings: a 2-D input is one bag per row; a 1-D
    input is cut into bags starting at `offsets`. padding_idx entries are left out of the bags
    (and of the means' counts); empty bags give zeros. `sparse=True` gives a dense gradient.
    The bags are the registry op `_embedding_bag` (ember/_ops/nn_embedding_bag.py)."""
    if _state.entry and _wants(locals()):
        return _handle(embedding_bag, locals())
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.ndim != 2:
        raise ValueError("weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {offsets.type()}")
        offsets = ember.arange(0, input.numel(), input.shape[1], dtype=input.dtype,
                               device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _nn_embedding.embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "the Pytorch GitHub.")
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    return _nn_embedding_bag.embedding_bag(
        weight, input, offsets, scale_grad_by_freq, modes[mode], sparse, per_sample_weights,
        include_last_offset, padding_idx)[0]
