"""Functional embeddings: embedding (the registry op in ember/_ops/nn_embedding.py, after the
max_norm renormalisation) and embedding_bag (sums, means or maxima of bags of embeddings,
written from embedding, index_add and scatter_reduce)."""
from __future__ import annotations

import numpy as np

from ember._core.dispatch import call
from ember._core.registry import OPS
from ember._ops.nn_embedding import embedding_renorm_

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
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    if max_norm is not None:
        input = input.contiguous()
        embedding_renorm_(weight, input, max_norm, norm_type)
    return call(_EMBEDDING, (weight, input, padding_idx, scale_grad_by_freq, sparse))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings: a 2-D input is one bag per row; a 1-D
    input is cut into bags starting at `offsets`. padding_idx entries are left out of the bags
    (and of the means' counts); empty bags give zeros. `sparse=True` gives a dense gradient."""
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
        bags, length = input.shape
        starts = np.arange(0, bags * length, length, dtype=np.int64) if length else \
            np.zeros(bags, np.int64)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets.detach()._host().astype(np.int64)
        if include_last_offset:
            starts = starts[:-1]
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "the Pytorch GitHub.")
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    return _bags(input, weight, starts, mode, per_sample_weights, padding_idx,
                 scale_grad_by_freq, include_last_offset, offsets)


def _bags(input, weight, starts, mode, per_sample_weights, padding_idx, scale_grad_by_freq,
          include_last_offset, offsets):
    count = input.shape[0]
    bags = starts.shape[0]
    indices = input.detach()._host()
    positions = np.arange(count)
    bag_of = np.searchsorted(starts, positions, side="right") - 1
    keep = bag_of >= 0
    if include_last_offset and offsets is not None and offsets.shape[0]:
        keep &= positions < int(offsets[-1])
    if padding_idx >= 0:
        keep &= indices != padding_idx
    kept = input.new_tensor(np.flatnonzero(keep))
    bag_index = input.new_tensor(bag_of[keep])
    rows = call(_EMBEDDING, (weight, input.index_select(0, kept), -1, scale_grad_by_freq,
                             False))
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.index_select(0, kept).unsqueeze(1)
    out = weight.new_zeros((bags, weight.shape[1]))
    if mode == "max":
        spread = bag_index.unsqueeze(1).expand(rows.shape)
        return out.scatter_reduce(0, spread, rows, "amax", include_self=False)
    out = out.index_add(0, bag_index, rows)
    if mode == "mean":
        sizes = np.bincount(bag_of[keep], minlength=bags).clip(min=1)
        out = out / out.new_tensor(sizes[:, None])
    return out
