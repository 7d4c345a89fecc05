"""Bags of embeddings: `_embedding_bag` and `_embedding_bag_forward_only` (PyTorch's four
outputs: the bags' sums, means or maxima, offset2bag, bag_size, max_indices) and the frontend
`embedding_bag` that picks one of them, as PyTorch's does.

NOTE [embedding bag layout]: a 1-D `indices` is cut into bags at `offsets`: bag b holds the
positions from offsets[b] on, up to the next bag's start; the last bag runs to the end of
`indices`, except that its sum and mean stop at offsets[-1] under include_last_offset. The
secondary outputs are PyTorch's CPU ones, quirks included, so that they compare equal:
offset2bag (each position's bag) is empty where PyTorch's CPU sums without it (mode sum,
float32 / float16 / bfloat16 rows of stride 1, no padding_idx); bag_size counts each bag's
non-padding positions (zeros in mode sum), and a mean divides by it; max_indices is each
maximum's row in mode max, bag_size again in mode mean, zeros in mode sum. The forward-only
op's mode-sum bag_size and max_indices have one entry per offset (one more than the bags
under include_last_offset). The gradients are written in ember ops (so they have gradients
too) and recompute each position's bag from `offsets`, since offset2bag may be empty.
"""
from __future__ import annotations

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_frontend, register_op
from ember._ops.nn_embedding import _check_indices

SUM, MEAN, MAX = 0, 1, 2
_FAST_SUM_DTYPES = frozenset(np.dtype(d._np) for d in (dt.float32, dt.float16, dt.bfloat16))
_HALF = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


def _check_args(weight, indices, offsets, mode, per_sample_weights, include_last_offset):
    _check(weight.ndim == 2, lambda: f"weight has to be a 2D Tensor, but got Tensor of "
                                     f"dimension {weight.ndim}")
    _check_indices(indices, "embedding_bag")
    _check_indices(offsets, "embedding_bag")
    _check(indices.ndim == 1, lambda: f"input has to be a 1D Tensor, but got Tensor of "
                                      f"dimension {indices.ndim}")
    _check(offsets.ndim == 1, lambda: f"offsets has to be a 1D Tensor, but got Tensor of "
                                      f"dimension {offsets.ndim}")
    _check(mode in (SUM, MEAN, MAX), "`mode` must be sum, mean, or max.")
    if per_sample_weights is not None:
        _check(mode == SUM, "embedding_bag: per_sample_weights only supported with mode='sum'")
        _check(per_sample_weights.shape == indices.shape, (
            "Expected per_sample_weights.value().numel() == indices.numel() to be true, but "
            "got false."))


def _fast_sum(weight_dtype, weight_row_stride, padding_idx, psw_stride):
    """Whether PyTorch's CPU sums the bags by their offsets rather than by offset2bag (NOTE
    [embedding bag layout])."""
    return weight_dtype in _FAST_SUM_DTYPES and weight_row_stride == 1 and padding_idx < 0 \
        and psw_stride in (None, 1)


def _bag_count(offsets_len, include_last_offset):
    return max(offsets_len - 1, 0) if include_last_offset else offsets_len


def _check_offsets(xp, indices, offsets, num_weights):
    count = indices.shape[0]
    if offsets.shape[0]:
        first, last = int(offsets[0]), int(offsets[-1])
        _check(first == 0, lambda: (
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {first}"))
        _check(last <= count, lambda: (
            f"offsets[-1] can not be greater than input's length {count} but got offsets[-1] "
            f"of {last}"))
        _check(offsets.shape[0] < 2 or not bool((offsets[1:] < offsets[:-1]).any()),
               "embedding_bag: offsets must be non-decreasing")
    if count:
        bad = xp.flatnonzero((indices < 0) | (indices >= num_weights))
        if bad.size:
            where = int(bad[0])
            _check(False, lambda: (f"Index {where} of input takes value {int(indices[where])} "
                                   f"which is not in the valid range [0, {num_weights})"))


def _segments(xp, bag):
    """(the bags present, where each one's run starts) in `bag` (non-decreasing)."""
    if bag.size == 0:
        return bag, bag
    change = xp.ones(bag.shape, dtype=bool)
    change[1:] = bag[1:] != bag[:-1]
    starts = xp.flatnonzero(change)
    return bag[starts], starts


def _segment_reduce(xp, name, values, bag, bags, fill):
    """Per bag, the `name` ('add', 'maximum', 'minimum') reduction of the rows of `values`
    whose bag is `bag` (non-decreasing); `fill` where a bag has none."""
    out = xp.full((bags,) + values.shape[1:], fill, values.dtype)
    if values.shape[0] == 0 or bags == 0:
        return out
    ufunc = getattr(xp, name)
    if backend_helpers(xp).reduceat:     # NOTE [back-end helpers]
        present, starts = _segments(xp, bag)
        out[present] = ufunc.reduceat(values, starts, axis=0)
        return out
    # CuPy has no reduceat, but ufunc.at: it starts from the reduction's identity, and bags
    # with no rows get `fill` afterwards.
    if name != "add":
        if values.dtype.kind in "iu":
            limits = np.iinfo(values.dtype)
            out[...] = limits.min if name == "maximum" else limits.max
        else:
            out[...] = -np.inf if name == "maximum" else np.inf
    ufunc.at(out, bag, values)
    if name != "add":
        counts = xp.bincount(bag, minlength=bags)[:bags]
        out[counts == 0] = fill
    return out


def _kernel(xp, weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
            include_last_offset, padding_idx, forward_only):
    _check_args(weight, indices, offsets, mode, per_sample_weights, include_last_offset)
    num_weights, dim = weight.shape
    count = indices.shape[0]
    _check_offsets(xp, indices, offsets, num_weights)
    bags = _bag_count(offsets.shape[0], include_last_offset)
    index_dtype = np.result_type(indices.dtype, offsets.dtype)
    positions = xp.arange(count)
    bag = xp.searchsorted(offsets[1:bags], positions, side="right") if bags else \
        xp.zeros(count, np.int64)
    valid = indices != padding_idx if padding_idx >= 0 else xp.ones(count, dtype=bool)
    row_stride = weight.strides[1] // weight.itemsize if weight.shape[1] > 1 else 1
    psw_stride = None if per_sample_weights is None else (
        per_sample_weights.strides[0] // per_sample_weights.itemsize if count > 1 else 1)
    fast = _fast_sum(weight.dtype, row_stride, padding_idx, psw_stride)
    if mode == MAX:
        kept = xp.flatnonzero(valid)
        rows = weight[indices[kept]]
        if rows.dtype in _HALF:
            rows = rows.astype(np.float32)    # (exact: the maxima are rows' own values)
        kept_bag = bag[kept]
        # NOTE [embedding bag max skips NaN]: PyTorch keeps a bag's first row and replaces a
        # value only by a greater one, so a NaN wins only as the bag's first value (no later
        # value compares greater) and is passed over anywhere else: the maximum of the
        # others (fmax), unless the first is NaN.
        top = _segment_reduce(xp, "fmax", rows, kept_bag, bags, 0)
        # The first position holding each maximum (PyTorch keeps the first of equal ones).
        first = xp.where(rows == top[kept_bag], kept[:, None], count)
        first = _segment_reduce(xp, "minimum", first, kept_bag, bags, count)
        start = _segment_reduce(xp, "minimum", kept, kept_bag, bags, count)
        if count:
            opening = rows[xp.searchsorted(kept, xp.minimum(start, kept[-1] if kept.size
                                                                  else 0))] \
                if kept.size else xp.zeros((bags, dim), rows.dtype)
            nan_first = (start < count)[:, None] & xp.isnan(opening)
            first = xp.where(nan_first, start[:, None], first)
            top = xp.where(nan_first, opening, top)
        filled = first < count
        max_indices = xp.where(filled, indices[xp.minimum(first, max(count - 1, 0))], 0) \
            if count else xp.zeros((bags, dim), index_dtype)
        output = xp.where(filled, top, 0).astype(weight.dtype, copy=False)
        max_indices = max_indices.astype(index_dtype, copy=False)
    else:
        end = int(offsets[-1]) if include_last_offset and offsets.shape[0] and fast else count
        kept = xp.flatnonzero(valid & (positions < end))
        rows = weight[indices[kept]]
        if rows.dtype in _HALF:
            rows = rows.astype(np.float32)    # summed in float32, as PyTorch does
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[kept][:, None].astype(rows.dtype, copy=False)
        output = _segment_reduce(xp, "add", rows, bag[kept], bags, 0)
    if mode == SUM:
        sizes = offsets.shape[0] if forward_only else bags
        bag_size = xp.zeros(sizes, index_dtype)
        max_indices = xp.zeros(sizes, index_dtype)
    else:
        bag_size = xp.bincount(bag[valid], minlength=bags)[:bags].astype(index_dtype)
        if mode == MEAN:
            output = output / xp.maximum(bag_size, 1)[:, None].astype(output.dtype)
            max_indices = bag_size.copy()
    output = output.astype(weight.dtype, copy=False)
    if fast and mode == SUM:
        offset2bag = xp.zeros(0, index_dtype)
    else:
        offset2bag = bag.astype(index_dtype)
    return output, offset2bag, bag_size, max_indices


def _meta(forward_only):
    def meta(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
             per_sample_weights=None, include_last_offset=False, padding_idx=-1):
        _check_args(weight._data, indices._data, offsets._data, mode,
                    None if per_sample_weights is None else per_sample_weights._data,
                    include_last_offset)
        bags = _bag_count(offsets.shape[0], include_last_offset)
        index_dtype = promote_types(indices.dtype, offsets.dtype)
        dim = weight.shape[1]
        psw_stride = None if per_sample_weights is None else per_sample_weights.stride(0)
        fast = mode == SUM and _fast_sum(
            np.dtype(weight.dtype._np), weight.stride(1) if dim > 1 else 1, padding_idx,
            psw_stride if indices.shape[0] > 1 or psw_stride is None else 1)
        sizes = offsets.shape[0] if forward_only and mode == SUM else bags
        return [((bags, dim), weight.dtype),
                ((0 if fast else indices.shape[0],), index_dtype),
                ((sizes,), index_dtype),
                ((bags, dim) if mode == MAX else (sizes,), index_dtype)]
    return meta


def _bags_of_positions(c):
    """Each position's bag and whether its row counts in the bag's sum (NOTE [embedding bag
    layout]), as ember tensors on the indices' device."""
    from ember._ops.creation_ranges import arange
    from ember._ops.sorting import searchsorted
    indices, offsets, weight, psw = c.indices, c.offsets, c.weight, c.per_sample_weights
    count = indices.shape[0]
    bags = _bag_count(offsets.shape[0], c.include_last_offset)
    positions = arange(count, device=indices.device)
    bag = searchsorted(offsets[1:bags].contiguous(), positions, right=True)
    fast = _fast_sum(np.dtype(weight.dtype._np), weight.stride(1) if weight.shape[1] > 1 else 1,
                     c.padding_idx, None if psw is None else
                     (psw.stride(0) if count > 1 else 1))
    # (PyTorch's mean backward reads offset2bag, so only mode sum leaves the tail out there.)
    fast = fast and c.mode == SUM
    end = int(offsets[-1]) if c.include_last_offset and offsets.shape[0] and fast else count
    return bag, positions < end


def _weight_grad(c):
    grad, weight, indices = c.grad, c.weight, c.indices
    num_weights = weight.shape[0]
    if grad.shape[0] == 0 or indices.shape[0] == 0:
        return grad.new_zeros(tuple(weight.shape))
    valid = indices != c.padding_idx if c.padding_idx >= 0 else None
    if c.mode == MAX:
        filled = (c.results[2] > 0).unsqueeze(1).to(grad.dtype)
        return grad.new_zeros(tuple(weight.shape)).scatter_add(0, c.results[3].long(),
                                                                grad * filled)
    bag, in_sum = _bags_of_positions(c)
    use = in_sum if valid is None else in_sum & valid
    scale = use.to(grad.dtype)
    if c.per_sample_weights is not None:
        scale = scale * c.per_sample_weights
    if c.mode == MEAN:
        scale = scale / c.results[2].index_select(0, bag).clamp_min(1).to(grad.dtype)
    if c.scale_grad_by_freq:
        counts = indices.bincount(minlength=num_weights).index_select(0, indices)
        scale = scale / counts.to(grad.dtype)
    rows = grad.index_select(0, bag) * scale.unsqueeze(1)
    return grad.new_zeros(tuple(weight.shape)).index_add(0, indices.long(), rows)


def _per_sample_weights_grad(c):
    grad, indices = c.grad, c.indices
    if grad.shape[0] == 0 or indices.shape[0] == 0:
        return c.per_sample_weights.new_zeros(tuple(indices.shape))
    bag, in_sum = _bags_of_positions(c)
    use = in_sum if c.padding_idx < 0 else in_sum & (indices != c.padding_idx)
    dots = (grad.index_select(0, bag) * c.weight.index_select(0, indices)).sum(1)
    return (dots * use.to(dots.dtype)).to(c.per_sample_weights.dtype)


_SCHEMA_ARGS = ("(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, "
                "int mode=0, bool sparse=False, Tensor? per_sample_weights=None, "
                "bool include_last_offset=False, int padding_idx=-1) "
                "-> (Tensor, Tensor, Tensor, Tensor)")


@register_op("_embedding_bag" + _SCHEMA_ARGS, method=False, meta=_meta(False),
             saves=("weight", "indices", "offsets", "per_sample_weights", "result2",
                    "result3"),
             derivatives={"weight": _weight_grad,
                          "per_sample_weights": _per_sample_weights_grad},
             node_name="EmbeddingBagBackward0", tags=("fp_errors",))
def _embedding_bag(xp, weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                   sparse=False, per_sample_weights=None, include_last_offset=False,
                   padding_idx=-1):
    """_embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
    per_sample_weights=None, include_last_offset=False, padding_idx=-1) -> (Tensor, Tensor,
    Tensor, Tensor): the sums (mode 0), means (1) or maxima (2) of the bags of rows of
    `weight` picked by `indices` and cut at `offsets`, with offset2bag, bag_size and
    max_indices (NOTE [embedding bag layout])."""
    return _kernel(xp, weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                   per_sample_weights, include_last_offset, padding_idx, False)


@register_op("_embedding_bag_forward_only" + _SCHEMA_ARGS, method=False, meta=_meta(True),
             differentiable=False, tags=("fp_errors",))
def _embedding_bag_forward_only(xp, weight, indices, offsets, scale_grad_by_freq=False,
                                mode=0, sparse=False, per_sample_weights=None,
                                include_last_offset=False, padding_idx=-1):
    """_embedding_bag without the gradient (what embedding_bag runs when nothing requires
    grad; its mode-sum bag_size and max_indices have one entry per offset)."""
    return _kernel(xp, weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                   per_sample_weights, include_last_offset, padding_idx, True)


@register_frontend("embedding_bag", method=False)
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
    per_sample_weights=None, include_last_offset=False, padding_idx=None) -> (Tensor, Tensor,
    Tensor, Tensor): `_embedding_bag`, or its forward-only form when neither weight nor
    per_sample_weights requires grad (as PyTorch's)."""
    if _state.entry and _wants(locals()):
        return _handle(embedding_bag, locals())
    needs_grad = dispatch.state.grad_enabled() and (
        getattr(weight, "requires_grad", False) or
        getattr(per_sample_weights, "requires_grad", False))
    op = OPS["_embedding_bag" if needs_grad else "_embedding_bag_forward_only"]
    return call(op, (weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                     per_sample_weights, include_last_offset,
                     -1 if padding_idx is None else padding_idx))
