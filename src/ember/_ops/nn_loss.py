"""Loss ops with kernels of their own: nll_loss_nd (+ nll_loss_backward) and the fused
cross_entropy_loss for class-index targets. The other losses of `ember.nn.functional` are
composites of registry ops (src/ember/nn/_functional/loss.py).

NOTE [class-index losses]: the input is (C,) or (N, C, d1, ..., dK) and the target () or
(N, d1, ..., dK) of int64 (or uint8) class indices. Positions whose target is `ignore_index`
count for nothing, neither in the sum nor in the mean's denominator, which is the sum of the
picked class weights (the count of kept positions without weights). `reduction` is PyTorch's
enum: 0 none, 1 mean, 2 sum.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check, _check_value
from ember._core.registry import register_op
from ember._ops.grad_utils import where, zeros_grad

NONE, MEAN, SUM = 0, 1, 2
_TARGET_DTYPES = frozenset((np.dtype(np.int64), np.dtype(np.uint8)))
_LOW_PRECISION = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


def _cpp_name(array):
    return dt.NP_TO_DTYPE[np.dtype(array.dtype)]._cpp_name


def _check_class_index_args(self, target, weight):
    """PyTorch's argument checks of nll_loss_nd, in its order (arrays or tensors)."""
    _check_value(self.ndim >= 1, lambda: f"Expected 1 or more dimensions (got {self.ndim})")
    if self.ndim == 1:
        # (a 1-D target only: a 2-D one is nll_loss's multi-target RuntimeError, below)
        _check_value(target.ndim != 1 or target.shape[0] == 1, lambda: (
            f"For 1D input, 1D target must have size 1, but got target size: "
            f"{target.shape[0]}"))
    else:
        _check_value(self.shape[0] == (target.shape[0] if target.ndim else 1), lambda: (
            f"Expected input batch_size ({self.shape[0]}) to match target batch_size "
            f"({target.shape[0] if target.ndim else 1})."))
    classes = self.shape[1] if self.ndim > 1 else self.shape[0]
    if self.ndim <= 2:
        _check(target.ndim <= 1, "0D or 1D target tensor expected, multi-target not supported")
    elif self.ndim == 4:
        _check(tuple(target.shape) == (self.shape[0],) + tuple(self.shape[2:]), lambda: (
            f"size mismatch (got input: {list(self.shape)} , target: {list(target.shape)}"))
    else:
        expected = [self.shape[0]] + list(self.shape[2:])
        _check(list(target.shape) == expected, lambda: (
            f"Expected target size {expected}, got {list(target.shape)}"))
    _check(np.dtype(target.dtype) in _TARGET_DTYPES if not hasattr(target, "_dtype")
           else target._dtype in (dt.int64, dt.uint8), lambda: (
        f"expected target dtype to be Long or Byte, but got {_target_name(target)}"))
    if weight is not None:
        _check(_numel(weight) == classes, lambda: (
            f"weight tensor should be defined either for all {classes} classes or "
            f"no classes but got weight tensor of shape: {list(weight.shape)}"))
        _check(weight.dtype == self.dtype, lambda: (
            f"expected scalar type {_type_name(self)} but found {_type_name(weight)}"))
    return classes


def _numel(x):
    return int(np.prod(x.shape))


def _type_name(x):
    return x._dtype._cpp_name if hasattr(x, "_dtype") else _cpp_name(x)


def _target_name(target):
    return _type_name(target)


def _layout(self, target):
    """(scores as (N, C) or, K-dimensional, (N, C, d1 * ... * dK): a view of a contiguous
    input, the class dim 1 either way; targets as (N,) or (N, d1 * ... * dK)). Reductions and
    gathers along dim 1 of (N, C, S) run along contiguous rows of S."""
    if self.ndim == 1:
        return self.reshape(1, -1), target.reshape(1)
    if self.ndim == 2:
        return self, target
    return self.reshape(self.shape[0], self.shape[1], -1), target.reshape(self.shape[0], -1)


def _at_targets(xp, scores, safe):
    """The index of each position's target class in the (N, C) or (N, C, S) scores (each
    element once: an in-place update through it touches every position once)."""
    if scores.ndim == 2:
        return xp.arange(scores.shape[0]), safe
    return xp.arange(scores.shape[0])[:, None], safe, xp.arange(scores.shape[2])[None, :]


def _picked_weights(xp, targets, weight, ignore_index, classes, dtype):
    """(the kept positions' mask, each position's class weight (0 where ignored), the targets
    with ignored positions pointing at class 0); IndexError for a target out of range."""
    targets = targets.astype(np.int64, copy=False)
    kept = targets != ignore_index
    outside = kept & ((targets < 0) | (targets >= classes))
    if outside.any():
        raise IndexError(f"Target {int(targets[outside][0])} is out of bounds.")
    safe = np.where(kept, targets, 0)
    if weight is None:
        picked = kept.astype(dtype)
    else:
        picked = xp.where(kept, weight[safe], 0).astype(dtype, copy=False)
    return kept, picked, safe


def _reduce(xp, per_position, picked, reduction, shape):
    if reduction == NONE:
        return per_position.reshape(shape)
    total = per_position.sum()
    if reduction == SUM:
        return xp.asarray(total, per_position.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(total / picked.sum(), per_position.dtype)


def _reduction_shape(self, target, reduction):
    if reduction != NONE:
        return ()
    return () if self.ndim == 1 else tuple(target.shape)


def _check_reduction(reduction):
    _check(reduction in (NONE, MEAN, SUM), lambda: f"{reduction} is not a valid value for reduction")


# --------------------------------------------------------------------------- nll_loss

def _nll_meta(self, target, weight=None, reduction=MEAN, ignore_index=-100):
    _check_class_index_args(self, target, weight)
    return _reduction_shape(self, target, reduction), self._dtype


def _nll_grad(c):
    from ember._core.dispatch import call
    from ember._core.registry import OPS
    return call(OPS["nll_loss_backward"], (c.grad, c.self, c.target, c.weight, c.reduction,
                                            c.ignore_index))


@register_op("nll_loss_nd(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
             "SymInt ignore_index=-100) -> Tensor", function=False, method=False,
             meta=_nll_meta, saves=("self", "target", "weight"),
             derivatives={"self": _nll_grad}, node_name="NllLossBackward0",
             tags=("fp_errors",))
def nll_loss_nd(xp, self, target, weight=None, reduction=MEAN, ignore_index=-100):
    """The negative log-likelihood of class-index targets: -weight[t] * input[t] at each
    position (NOTE [class-index losses])."""
    _check_reduction(reduction)
    classes = _check_class_index_args(self, target, weight)
    scores, targets = _layout(self, target)
    _, picked, safe = _picked_weights(xp, targets, weight, ignore_index, classes, self.dtype)
    chosen = scores[_at_targets(xp, scores, safe)]
    per_position = -(chosen * picked)
    return _reduce(xp, per_position, picked, reduction,
                   _reduction_shape(self, target, reduction))


def _nll_forward_meta(self, target, weight, reduction, ignore_index):
    _check(self.ndim in (1, 2), lambda: "input tensor should be 1D or 2D")
    _check_class_index_args(self, target, weight)
    return [(_reduction_shape(self, target, reduction), self._dtype), ((), self._dtype)]


def _nll_forward_grad(c):
    from ember._core.dispatch import call
    from ember._core.registry import OPS
    grad = c.grad
    if grad is None:
        return None
    return call(OPS["nll_loss_backward"], (grad, c.self, c.target, c.weight, c.reduction,
                                            c.ignore_index))


@register_op("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
             "SymInt ignore_index) -> (Tensor output, Tensor total_weight)", function=False,
             method=False, meta=_nll_forward_meta, saves=("self", "target", "weight"),
             derivatives={"self": _nll_forward_grad}, node_name="NllLossBackward0",
             tags=("fp_errors",))
def nll_loss_forward(xp, self, target, weight, reduction, ignore_index):
    """nll_loss_nd for a 1-D or 2-D input, with the total weight of the kept positions
    (zero for reduction none, as PyTorch): what nll_loss_nd decomposes into."""
    _check(self.ndim in (1, 2), lambda: "input tensor should be 1D or 2D")
    output = nll_loss_nd(xp, self, target, weight, reduction, ignore_index)
    if reduction == NONE:
        return output, xp.zeros((), self.dtype)
    classes = self.shape[-1]
    _, targets = _layout(self, target)
    _, picked, _ = _picked_weights(xp, targets, weight, ignore_index, classes, self.dtype)
    return output, xp.asarray(picked.sum(), self.dtype)


def _nll_backward_meta(grad_output, self, target, weight, reduction, ignore_index):
    return tuple(self.shape), self._dtype


def _nll_backward_grad_output_grad(c):
    from ember._core.dispatch import call
    from ember._core.registry import OPS
    return call(OPS["nll_loss_nd"], (c.grad, c.target, c.weight, c.reduction, c.ignore_index))


@register_op("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, "
             "int reduction, SymInt ignore_index) -> Tensor", function=False, method=False,
             meta=_nll_backward_meta, saves=("target", "weight"),
             derivatives={"grad_output": _nll_backward_grad_output_grad, "self": zeros_grad},
             tags=("fp_errors",))
def nll_loss_backward(xp, grad_output, self, target, weight, reduction, ignore_index):
    """The gradient of nll_loss_nd with respect to its input: -weight[t] * grad (over the
    kept weight total for a mean) at each position's target class, zero elsewhere."""
    classes = self.shape[1] if self.ndim > 1 else self.shape[0]
    scores, targets = _layout(self, target)
    _, picked, safe = _picked_weights(xp, targets, weight, ignore_index, classes, self.dtype)
    if reduction == NONE:
        scale = grad_output.reshape(picked.shape) * picked
    elif reduction == SUM:
        scale = grad_output.reshape(()) * picked
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = grad_output.reshape(()) * picked / picked.sum()
    grad = xp.zeros(scores.shape, self.dtype)
    grad[_at_targets(xp, grad, safe)] = -scale.astype(self.dtype)
    return grad.reshape(self.shape)


# --------------------------------------------------------------------------- cross_entropy
# NOTE [cross-entropy gradient]: with q[i, c] the weight of log p[i, c] in the loss at position
# i (w[t] (1 - eps) on the target class plus w[c] eps / C everywhere, zero where ignored) and
# s[i] the incoming gradient's scale there (over the weight total for a mean), the gradient is
# s (p * sum_c q - q), p = softmax(input): cross_entropy_loss_backward computes it in one pass
# over the input. Its own derivatives (for double backward) are in ember ops: in the input,
# s * sum_c q * p * (gg - <gg, p>); in the incoming gradient, the same op at gradient one
# contracted with gg (it is linear in that gradient).

def _ce_meta(self, target, weight=None, reduction=MEAN, ignore_index=-100,
             label_smoothing=0.0):
    _check_class_index_args(self, target, weight)
    return _reduction_shape(self, target, reduction), self._dtype


def _ce_grad(c):
    from ember._core.dispatch import call
    from ember._core.registry import OPS
    return call(OPS["cross_entropy_loss_backward"], (
        c.grad, c.self, c.target, c.weight, c.reduction, c.ignore_index, c.label_smoothing))


@register_op("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, "
             "int reduction=Mean, SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor",
             function=False, method=False, meta=_ce_meta, saves=("self", "target", "weight"),
             derivatives={"self": _ce_grad}, node_name="NllLossBackward0",
             tags=("fp_errors",))
def cross_entropy_loss(xp, self, target, weight=None, reduction=MEAN, ignore_index=-100,
                       label_smoothing=0.0):
    """Cross-entropy of class-index targets in one pass: log-sum-exp along the class dim and
    one gather (NOTE [class-index losses]); label smoothing mixes in the uniform target."""
    _check_reduction(reduction)
    classes = _check_class_index_args(self, target, weight)
    result = self.dtype
    scores, targets, x_dtype = _class_layout(xp, self, target)
    kept, picked, safe = _picked_weights(xp, targets, weight, ignore_index, classes, x_dtype)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        log_norm = _log_sum_exp(xp, scores)
        chosen = scores[_at_targets(xp, scores, safe)] - log_norm
        per_position = -(chosen * picked)
        if label_smoothing > 0.0:
            # sum_c w_c log p_c = sum_c w_c x_c - log_norm * sum_c w_c: no (N, C) temporary.
            if weight is None:
                smooth = -(scores.sum(axis=1) - classes * log_norm) * kept
            else:
                w = weight.astype(x_dtype)
                smooth = -(xp.tensordot(w, scores, axes=([0], [1])) - log_norm * w.sum()) * kept
            per_position = (1.0 - label_smoothing) * per_position + \
                smooth * (label_smoothing / classes)
        out = _reduce(xp, per_position, picked, reduction,
                      _reduction_shape(self, target, reduction))
    return out.astype(result, copy=False)


def _class_layout(xp, self, target):
    """(scores, targets, the compute dtype): _layout in the compute dtype."""
    x = self.astype(np.float32) if self.dtype in _LOW_PRECISION else self
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f'"log_softmax_lastdim_kernel_impl" not implemented for \'{_cpp_name(x)}\'')
    scores, targets = _layout(x, target)
    return scores, targets, x.dtype


def _log_sum_exp(xp, scores):
    """log(sum(exp(.))) along dim 1, shifted by the maximum there."""
    if scores.size == 0:
        return xp.zeros(scores.shape[:1] + scores.shape[2:], scores.dtype)
    top = scores.max(axis=1, keepdims=True)
    shifted = scores - top
    xp.exp(shifted, out=shifted)
    return xp.log(shifted.sum(axis=1)) + top[:, 0]


def _ce_scale(xp, grad_output, kept, picked, reduction):
    """The incoming gradient's scale at each position (zero where ignored)."""
    if reduction == NONE:
        scale = grad_output.reshape(kept.shape)
    elif reduction == SUM:
        scale = grad_output.reshape(())
    else:
        scale = grad_output.reshape(()) / picked.sum()
    return xp.where(kept, scale, 0)


def _ce_backward_meta(grad_output, self, target, weight, reduction, ignore_index,
                      label_smoothing):
    return tuple(self.shape), self._dtype


def _ce_backward_terms(c):
    """In ember ops: (softmax of the input, sum_c q times the scale s) (NOTE [cross-entropy
    gradient])."""
    x, target, weight = c.self, c.target, c.weight
    class_dim = 1 if x.ndim > 1 else 0
    classes = x.shape[class_dim]
    kept = target != c.ignore_index
    safe = target.masked_fill(kept.logical_not(), 0)
    picked = kept.to(x.dtype) if weight is None else weight.take(safe) * kept
    scale = c.grad_output / picked.sum() if c.reduction == MEAN else c.grad_output
    scale = where(kept, scale, 0.0)
    eps = c.label_smoothing
    spread_total = (eps / classes) * (classes if weight is None else weight.sum())
    total = scale * (picked * (1.0 - eps) + kept * spread_total)
    return x.softmax(class_dim), total.unsqueeze(class_dim), class_dim


def _ce_backward_self_grad(c):
    probabilities, total, class_dim = _ce_backward_terms(c)
    g = c.grad
    return total * probabilities * (g - (g * probabilities).sum(class_dim, keepdim=True))


def _ce_backward_grad_output_grad(c):
    from ember._core.dispatch import call
    from ember._core.registry import OPS
    unit = call(OPS["cross_entropy_loss_backward"], (
        c.grad_output.new_ones(c.grad_output.shape), c.self, c.target, c.weight, c.reduction,
        c.ignore_index, c.label_smoothing))
    contracted = c.grad * unit
    if c.reduction != NONE:
        return contracted.sum()
    return contracted.sum(1 if c.self.ndim > 1 else 0)


@register_op("cross_entropy_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
             "Tensor? weight, int reduction, SymInt ignore_index, float label_smoothing) -> Tensor",
             function=False, method=False, meta=_ce_backward_meta,
             saves=("grad_output", "self", "target", "weight"),
             derivatives={"self": _ce_backward_self_grad,
                          "grad_output": _ce_backward_grad_output_grad},
             tags=("fp_errors",))
def cross_entropy_loss_backward(xp, grad_output, self, target, weight, reduction, ignore_index,
                                label_smoothing):
    """The gradient of cross_entropy_loss with respect to its input, in one pass over it
    (NOTE [cross-entropy gradient])."""
    classes = self.shape[1] if self.ndim > 1 else self.shape[0]
    scores, targets, x_dtype = _class_layout(xp, self, target)
    kept, picked, safe = _picked_weights(xp, targets, weight, ignore_index, classes, x_dtype)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scale = _ce_scale(xp, grad_output.astype(x_dtype), kept, picked, reduction)
        on_target = (picked * scale * (1.0 - label_smoothing))[:, None]
        if scores.size:
            grad = scores - scores.max(axis=1, keepdims=True)
            xp.exp(grad, out=grad)
            grad *= 1.0 / grad.sum(axis=1, keepdims=True)
        else:
            grad = scores.copy()
        if label_smoothing > 0.0:
            w = xp.ones(classes, x_dtype) if weight is None else weight.astype(x_dtype)
            w = (w * (label_smoothing / classes)).reshape((classes,) + (1,) * (grad.ndim - 2))
            spread = scale[:, None] * w
            grad *= on_target + scale[:, None] * w.sum()
            grad -= spread
        else:
            grad *= on_target
        grad[_at_targets(xp, grad, safe)] -= on_target[:, 0]
    return grad.reshape(self.shape).astype(self.dtype, copy=False)
