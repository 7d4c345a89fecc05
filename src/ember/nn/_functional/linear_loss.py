"""linear_cross_entropy: the cross entropy of a linear layer's logits, in one call."""
from __future__ import annotations

import warnings

from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...) for input (N, in)
    or (in,) and linear_weight (C, d1, ..., dK, in): logits (N, C, d1, ..., dK). `ignore_index`
    None means -100 for class-index targets. `options` (PyTorch's chunked evaluation) gives
    the same values; ember computes the logits whole."""
    if _state.entry and _wants(locals()):
        return _handle(linear_cross_entropy, locals())
    import ember
    from ember.nn._functional.loss import cross_entropy
    _check(1 <= input.dim() <= 2, lambda: (
        f"expected input with dimensionality 1 or 2, got {input.dim()}"))
    _check(linear_weight.dim() >= 2, lambda: (
        f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"))
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    _check(in_features == linear_weight.shape[-1], lambda: (
        "expected equal input and linear_weight last dimensions (in_features), got "
        f"{in_features} and {linear_weight.shape[-1]}, respectively"))
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    _check(linear_bias is None or tuple(linear_bias.shape) == (classes, *out_features),
           lambda: (f"expected linear_bias shape {(classes, *out_features)}, got "
                    f"{tuple(linear_bias.shape)}"))
    _check(not (out_features and not batches), lambda: (
        f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
        f"requires batched input, (N, {in_features}), got unbatched input with shape "
        f"{tuple(input.shape)}"))
    logits_shape = (*batches, classes, *out_features)
    probabilities = tuple(target.shape) == logits_shape
    _check(not (probabilities and ignore_index is not None),
           "ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and (out_features or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0 or target.dtype != ember.int64):
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
            "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features "
            f"== (). Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={out_features}, tracing=False, "
            "linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    flat_weight = linear_weight.reshape(-1, in_features)
    flat_bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = ember.nn.functional.linear(input, flat_weight, flat_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, ignore_index=ignore_index,
                         reduction=reduction, label_smoothing=label_smoothing)
