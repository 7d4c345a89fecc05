"""The connectionist temporal classification loss: _ctc_loss (the per-sample negative
log-likelihood) and its gradient, _ctc_loss_backward.

NOTE [ctc recursions]: a target of length L becomes the extended sequence l' of 2L + 1 symbols
(blank, l1, blank, l2, ..., blank). alpha[t, s] is the log-probability of the paths over frames
0..t that end in l'[s]; beta[t, s] of those over t..T-1 that start there (both count frame t).
One time step of either is vectorized over the batch and all positions s; each sample stops at
its own input length. As PyTorch's kernels, the gradient is that of the loss with respect to
the logits *before* a log_softmax (exp(log_probs) - occupancy / exp(log_probs)), which equals
the true gradient once it flows back through that log_softmax.
"""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check
from ember._core.host_kernels import host_kernel
from ember._core.registry import register_op

_NEG_INF = -np.inf


def _extended(targets, target_lengths, batch, blank):
    """(l' as (N, 2 Smax + 1) class ids, which s of each sample exist, whether s may skip from
    s - 2) for padded (N, S) or concatenated 1-d targets."""
    longest = max(target_lengths) if target_lengths else 0
    labels = np.full((batch, longest), blank, np.int64)
    if targets.ndim == 1:
        offsets = np.concatenate(([0], np.cumsum(target_lengths)[:-1])).astype(np.int64)
        for b in range(batch):
            labels[b, :target_lengths[b]] = targets[offsets[b]:offsets[b] + target_lengths[b]]
    else:
        for b in range(batch):
            labels[b, :target_lengths[b]] = targets[b, :target_lengths[b]]
    width = 2 * longest + 1
    extended = np.full((batch, width), blank, np.int64)
    extended[:, 1::2] = labels
    exists = np.arange(width)[None, :] <= 2 * np.asarray(target_lengths)[:, None]
    skip = np.zeros((batch, width), bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    return extended, exists, skip


def _logaddexp3(a, b, c):
    top = np.maximum(np.maximum(a, b), c)
    finite = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - finite) + np.exp(b - finite) + np.exp(c - finite)) + finite


def _shifted(values, by):
    out = np.full_like(values, _NEG_INF)
    out[:, by:] = values[:, :-by] if by < values.shape[1] else out[:, by:]
    return out


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank):
    _check(log_probs.ndim == 3, "ctc_loss: log_probs must be 3-d (T, N, C)")
    steps, batch, classes = log_probs.shape
    _check(0 <= blank < classes, "blank must be in label range")
    _check(len(input_lengths) == batch, lambda: (
        f"input_lengths must be of size batch_size, got {len(input_lengths)}"))
    _check(len(target_lengths) == batch, lambda: (
        f"target_lengths must be of size batch_size, got {len(target_lengths)}"))
    for length in input_lengths:
        _check(0 <= length <= steps, lambda length=length: (
            f"Expected input_lengths to have value at most {steps}, but got value {length} "
            "(while checking arguments for ctc_loss_cpu)"))
    if targets.ndim != 1:
        for length in target_lengths:
            _check(length <= targets.shape[1], lambda length=length: (
                f"Expected tensor to have size at least {length} at dimension 1, but got size "
                f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                "ctc_loss_cpu)"))


def _alphas(log_probs, extended, exists, skip, input_lengths):
    """log alpha as (T, N, 2 Smax + 1) (NOTE [ctc recursions])."""
    steps = log_probs.shape[0]
    emit = np.take_along_axis(log_probs, np.broadcast_to(extended, (steps,) + extended.shape),
                              axis=2)
    alpha = np.full(emit.shape, _NEG_INF, log_probs.dtype)
    if steps == 0:
        return alpha, emit
    alpha[0, :, :2] = emit[0, :, :2]
    alpha[0][~exists] = _NEG_INF
    for t in range(1, steps):
        previous = alpha[t - 1]
        two_back = np.where(skip, _shifted(previous, 2), _NEG_INF)
        alpha[t] = np.where(exists, emit[t] + _logaddexp3(previous, _shifted(previous, 1),
                                                          two_back), _NEG_INF)
    return alpha, emit


def _negative_log_likelihood(alpha, input_lengths, target_lengths):
    batch = alpha.shape[1]
    out = np.empty(batch, alpha.dtype)
    for b in range(batch):
        steps, length = input_lengths[b], target_lengths[b]
        if steps == 0:
            out[b] = 0.0 if length == 0 else np.inf
            continue
        last = alpha[steps - 1, b]
        tail = last[2 * length - 1] if length > 0 else _NEG_INF
        out[b] = -np.logaddexp(last[2 * length], tail)
    return out


def _lengths(values):
    return [int(v) for v in values]


@register_op("_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, "
             "int[] target_lengths, int blank=0, bool zero_infinity=False) -> Tensor",
             function=False, method=False, tags=("fp_errors",),
             meta=lambda log_probs, *args, **kwargs: ((log_probs.shape[1],), log_probs._dtype),
             saves=("log_probs", "targets"),
             derivatives={"log_probs": lambda c: _ctc_grad(c)}, node_name="CtcLossBackward0")
@host_kernel
def _ctc_loss(xp, log_probs, targets, input_lengths, target_lengths, blank=0,
              zero_infinity=False):
    """The negative log-likelihood of each sample's target under log_probs (T, N, C)."""
    if log_probs.dtype != np.float32 and log_probs.dtype != np.float64:
        # (PyTorch's CPU kernel picks its dtype before it checks anything)
        from ember._core import dtype as dt
        raise NotImplementedError('"ctc_loss_cpu" not implemented for '
                                  f"'{dt.from_numpy_dtype(log_probs.dtype)._cpp_name}'")
    input_lengths, target_lengths = _lengths(input_lengths), _lengths(target_lengths)
    _check_ctc(log_probs, targets, input_lengths, target_lengths, blank)
    extended, exists, skip = _extended(targets, target_lengths, log_probs.shape[1], blank)
    alpha, _ = _alphas(log_probs, extended, exists, skip, input_lengths)
    return _negative_log_likelihood(alpha, input_lengths, target_lengths)


def _ctc_grad(c):
    from ember._core.dispatch import call
    from ember._core.registry import OPS
    return call(OPS["_ctc_loss_backward"], (c.grad, c.log_probs, c.targets, c.input_lengths,
                                             c.target_lengths, c.blank, c.zero_infinity))


@register_op("_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, "
             "int[] input_lengths, int[] target_lengths, int blank, bool zero_infinity=False) "
             "-> Tensor", function=False, method=False, tags=("fp_errors",),
             meta=lambda grad, log_probs, *args, **kwargs: (tuple(log_probs.shape),
                                                            log_probs._dtype),
             differentiable=False)
@host_kernel
def _ctc_loss_backward(xp, grad, log_probs, targets, input_lengths, target_lengths, blank,
                       zero_infinity=False):
    """The gradient of _ctc_loss (NOTE [ctc recursions])."""
    input_lengths, target_lengths = _lengths(input_lengths), _lengths(target_lengths)
    steps, batch, classes = log_probs.shape
    extended, exists, skip = _extended(targets, target_lengths, batch, blank)
    alpha, emit = _alphas(log_probs, extended, exists, skip, input_lengths)
    nll = _negative_log_likelihood(alpha, input_lengths, target_lengths)
    beta = np.full(alpha.shape, _NEG_INF, log_probs.dtype)
    last = np.asarray(input_lengths) - 1
    ends = 2 * np.asarray(target_lengths)
    width = extended.shape[1]
    may_skip_forward = np.zeros_like(skip)
    may_skip_forward[:, :-2] = skip[:, 2:]
    for t in range(steps - 1, -1, -1):
        if t + 1 < steps:
            following = beta[t + 1]
            two_ahead = np.full_like(following, _NEG_INF)
            two_ahead[:, :-2] = following[:, 2:]
            one_ahead = np.full_like(following, _NEG_INF)
            one_ahead[:, :-1] = following[:, 1:]
            two_ahead = np.where(may_skip_forward, two_ahead, _NEG_INF)
            beta[t] = np.where(exists, emit[t] + _logaddexp3(following, one_ahead, two_ahead),
                               _NEG_INF)
        starting = last == t
        if starting.any():
            fresh = np.full((batch, width), _NEG_INF, log_probs.dtype)
            rows = np.nonzero(starting)[0]
            fresh[rows, ends[rows]] = emit[t, rows, ends[rows]]
            inner = rows[ends[rows] > 0]
            fresh[inner, ends[inner] - 1] = emit[t, inner, ends[inner] - 1]
            beta[t][starting] = fresh[starting]
    # occupancy[t, n, c] = log sum over s with l'[s] == c of alpha + beta
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        both = alpha + beta
        top = np.max(np.where(np.isfinite(both), both, _NEG_INF), axis=2, keepdims=True,
                     initial=_NEG_INF)
        shift = np.where(np.isfinite(top), top, 0.0)
        weights = np.exp(both - shift)
        occupancy = np.zeros((steps, batch, classes), log_probs.dtype)
        for b in range(batch):
            np.add.at(occupancy[:, b, :], (slice(None), extended[b]), weights[:, b])
        log_occupancy = np.log(occupancy) + shift
        out = np.exp(log_probs) - np.exp(log_occupancy + nll[None, :, None] - log_probs)
        frames = np.arange(steps)[:, None] < np.asarray(input_lengths)[None, :]
        out = np.where(frames[:, :, None], out, 0.0)
        out = out * grad.reshape(1, batch, 1)
        if zero_infinity:
            out = np.where(np.isinf(nll)[None, :, None], 0.0, out)
    return out.astype(log_probs.dtype, copy=False)
