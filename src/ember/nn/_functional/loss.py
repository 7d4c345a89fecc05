"""The loss functions of `ember.nn.functional`. Where PyTorch has an op, the function checks
and broadcasts as PyTorch's wrapper does and calls it: nll_loss and cross_entropy
(_ops/nn_loss.py), mse/smooth_l1/huber/soft_margin (_ops/nn_loss_pointwise.py), the binary
cross-entropies and logsigmoid (_ops/nn_loss_bce.py). The others are composites of registry
ops, as PyTorch's are, so autograd differentiates them (twice, too) with no formulas of their
own.

`reduction` is 'none', 'mean' or 'sum'; the deprecated `size_average` / `reduce` flags, when
given, override it (with PyTorch's deprecation warning, src/ember/nn/_reduction.py).
"""
from __future__ import annotations

import functools
import math
import warnings

import ember
from ember._core import arguments, dispatch
from ember._core.checked_entry import checked
from ember._core.dispatch import autocast, call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS
from ember.nn import _reduction

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cosine_embedding_loss",
    "cross_entropy",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "margin_ranking_loss",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]



def _float32_under_autocast(fn):
    """PyTorch's autocast runs these losses in float32 (its CPU and CUDA "fp32" lists name
    them; ember composes them from several ops, so no single op can carry the policy): under
    an enabled autocast their float16/bfloat16 tensor arguments are cast up first (the casts
    are recorded, so the gradients return in the inputs' dtypes). Free when autocast is off:
    `state.slow` is False then."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _state.entry and _wants(locals()):
            return _handle(wrapper, locals())
        if dispatch.state.slow and autocast.local.enabled:
            args = tuple(_up(a) for a in args)
            kwargs = {k: _up(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    return wrapper


def _up(value):
    if isinstance(value, ember.Tensor) and value.dtype in (ember.float16, ember.bfloat16) \
            and autocast.is_enabled(value.device.type):
        return value.float()
    return value


def _tensors(name, *named):
    """PyTorch's parser's TypeError for a tensor argument given something else; each loss
    checks after reading its reduction, as PyTorch's Python wrappers read it first."""
    for position, (arg, value) in enumerate(named, 1):
        arguments.tensor_(value, (name, arg, position))


def _floats_and_bools(name, *checked):
    """PyTorch's parser's TypeError for (position, name, value) arguments that are floats
    (a name other than the bools') or bools (`log_target`, `log_input`, `full`, `swap`)."""
    for position, arg, value in checked:
        if arg in ("log_target", "log_input", "full", "swap"):
            if value is not True and value is not False:
                arguments.bool_(value, (name, arg, position))
        elif type(value) is not float and type(value) is not int:
            arguments.float_(value, (name, arg, position))


def _reduction_name(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _reduction.legacy_get_string(size_average, reduce)
    return reduction


def _reduced(loss, reduction):
    """loss reduced as `reduction` names (ValueError for another name)."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_if_broadcast(input, target):
    # (size() as PyTorch calls it: a non-tensor fails here with PyTorch's class)
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", stacklevel=3)


def _weighted(loss, weight, input, reduction, mean_over_weight):
    """An elementwise loss times a per-element weight of the input's size, reduced."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "mean" and mean_over_weight:
        return loss.sum() / weight.sum()
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")
    return _reduced(loss, reduction)


def _log_sigmoid(x):
    return call(OPS["log_sigmoid_forward"], (x,))[0]


def _difference(input, target):
    _warn_if_broadcast(input, target)
    return input - target


# --------------------------------------------------------------------------- class indices

def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log-likelihood of class-index targets (input holds log-probabilities,
    class dim 1): -weight[target] * input[target] per position, reduced."""
    if _state.entry and _wants(locals()):
        return _handle(nll_loss, locals())
    reduction = _reduction_name(size_average, reduce, reduction)
    return call(OPS["nll_loss_nd"], (input, target, weight, _reduction.get_enum(reduction),
                                      ignore_index))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross-entropy between softmax(input) along dim 1 and the target: class indices (with
    `weight`, `ignore_index`, `label_smoothing`) or class probabilities of input's shape."""
    if _state.entry and _wants(locals()):
        return _handle(cross_entropy, locals())
    reduction = _reduction_name(size_average, reduce, reduction)
    enum = _reduction.get_enum(reduction)
    _tensors("cross_entropy_loss", ("input", input), ("target", target))
    if weight is not None and not isinstance(weight, dispatch.Tensor) or \
            type(ignore_index) is not int or type(label_smoothing) is not float:
        # (only an unusual value pays for PyTorch's parser)
        _, _, weight, _, ignore_index, label_smoothing = _cross_entropy_arguments(
            input, target, weight, enum, ignore_index, label_smoothing)
    if not label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    if input.shape == target.shape:
        if not target._dtype.is_floating_point:
            raise RuntimeError("Expected floating point type for target with class "
                               f"probabilities, got {target._dtype._cpp_name}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, enum, label_smoothing)
    return call(OPS["cross_entropy_loss"], (input, target, weight, enum, ignore_index,
                                             float(label_smoothing)))


@checked("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, "
         "int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.0)")
def _cross_entropy_arguments(input, target, weight, reduction, ignore_index, label_smoothing):
    """The arguments as PyTorch's parser of `cross_entropy_loss` converts them (or its
    TypeError)."""
    return input, target, weight, reduction, ignore_index, label_smoothing


def _cross_entropy_probabilities(input, target, weight, enum, label_smoothing):
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / classes
    log_probabilities = input.log_softmax(class_dim)
    products = log_probabilities * target
    if weight is not None:
        if weight.numel() != classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {classes} classes or no "
                f"classes but got weight tensor of shape: {list(weight.shape)}")
        shape = [1] * input.ndim
        shape[class_dim] = classes
        products = products * weight.reshape(shape)
    loss = products.sum(class_dim).neg()
    if enum == 1:
        return loss.sum() / (input.numel() // classes if classes else 0)
    return loss.sum() if enum == 2 else loss


# --------------------------------------------------------------------------- elementwise

@_float32_under_autocast
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of |input - target|, optionally weighted per element."""
    reduction = _reduction_name(size_average, reduce, reduction)
    loss = _difference(input, target).abs()
    if weight is not None:
        return _weighted(loss, weight, input, reduction, mean_over_weight=True)
    return _reduced(loss, reduction)


@_float32_under_autocast
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or none) of (input - target)**2, optionally weighted per element."""
    reduction = _reduction_name(size_average, reduce, reduction)
    if weight is not None:
        loss = _difference(input, target).square()
        return _weighted(loss, weight, input, reduction, mean_over_weight=True)
    input, target = _broadcast(input, target)
    return call(OPS["mse_loss"], (input, target, _reduction.get_enum(reduction)))


def _broadcast(input, target):
    """PyTorch's wrappers broadcast the pair first (an `expand` only where a shape differs),
    warning where the target's size is not the input's."""
    _warn_if_broadcast(input, target)
    return ember.broadcast_tensors(input, target)


@_float32_under_autocast
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (plain L1 for beta 0)."""
    reduction = _reduction_name(size_average, reduce, reduction)
    input, target = _broadcast(input, target)
    if beta == 0.0:
        return _reduced((input - target).abs(), reduction)
    return call(OPS["smooth_l1_loss"], (input, target, _reduction.get_enum(reduction), beta))


@checked("huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.0)")
def _huber_delta(input, target, reduction, delta):
    """PyTorch's parser of `huber_loss` (F.huber_loss calls it after its own checks)."""
    return delta


@_float32_under_autocast
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    # NOTE [functional check order]: the sizes (a warning), the broadcast, the reduction (or
    # the weight's size), then the op's parser and checks.
    expanded_input, expanded_target = _broadcast(input, target)
    if weight is None:
        enum = _reduction.get_enum(reduction)
        delta = _huber_delta(expanded_input, expanded_target, enum, delta)
        return call(OPS["huber_loss"], (expanded_input, expanded_target, enum, delta))
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    delta = _huber_delta(expanded_input, expanded_target, 0, delta)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    distance = (expanded_input - expanded_target).abs()
    quadratic = distance.square() * 0.5
    linear = (distance - 0.5 * delta) * delta
    # The result has the input's dtype (PyTorch's kernel writes into one like the input).
    loss = ember.where(distance < delta, quadratic, linear).to(input.dtype)
    return _weighted(loss, weight, input, reduction, mean_over_weight=False)


@_float32_under_autocast
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(t log(x) + (1 - t) log(1 - x)) with the logs clamped at -100, times weight."""
    reduction = _reduction_name(size_average, reduce, reduction)
    _reduction.get_enum(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {target.dtype._cpp_name} but expected "
                           f"{input.dtype._cpp_name}")
    if weight is not None:
        weight = weight.expand(ember.broadcast_shapes(target.shape, weight.shape))
    return call(OPS["binary_cross_entropy"], (input, target, weight,
                                              _reduction.get_enum(reduction)))


@_float32_under_autocast
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """binary_cross_entropy of sigmoid(input), computed from the logits without overflow;
    pos_weight scales the positive term per class."""
    reduction = _reduction_name(size_average, reduce, reduction)
    _reduction.get_enum(reduction)
    # (NOTE [functional check order]: target.size() first, an AttributeError for a non-tensor
    # as in PyTorch, then the parser)
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    _tensors("binary_cross_entropy_with_logits", ("input", input), ("target", target),
             *[(arg, value) for arg, value in (("weight", weight), ("pos_weight", pos_weight))
               if value is not None])
    if not target.dtype.is_floating_point:
        # PyTorch computes into a result of the target's dtype.
        raise RuntimeError(f"result type {input.dtype._cpp_name} can't be cast to the desired "
                           f"output type {target.dtype._cpp_name}")
    return call(OPS["binary_cross_entropy_with_logits"], (
        input, target, weight, pos_weight, _reduction.get_enum(reduction)))


@_float32_under_autocast
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence target * (log target - input) (input holds log-probabilities;
    `log_target`: so does target); 'batchmean' divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", stacklevel=2)
    if reduction not in ("batchmean", "none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _tensors("kl_div", ("input", input), ("target", target))
    _floats_and_bools("kl_div", (4, "log_target", log_target))
    if not (input.dtype.is_floating_point or input.dtype.is_complex) or not (
            target.dtype.is_floating_point or target.dtype.is_complex):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = ember.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduced(loss, reduction)


@_float32_under_autocast
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(input) - target * input (or input - target * log(input + eps)), plus Stirling's
    term for target > 1 when `full`."""
    reduction = _reduction_name(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _tensors("poisson_nll_loss", ("input", input), ("target", target))
    _floats_and_bools("poisson_nll_loss", (3, "log_input", log_input), (4, "full", full),
                      (5, "eps", eps))
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduced(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(var) + (input - target)**2 / var) (+ 0.5 log(2 pi) when `full`), with var
    clamped at eps (the clamp passes no gradient)."""
    if _state.entry and _wants(locals()):
        return _handle(gaussian_nll_loss, locals())
    # (a Python float is spread over the input; anything else is compared as a tensor: an int
    # or bool var gets `any()`'s TypeError, as in PyTorch)
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ember.ones_like(input)
    elif bool(ember.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(
                v for i, v in zip(input.shape, var.shape, strict=True) if i != v) == 1:
            pass      # one variance shared along a dim of size 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # The clamp changes var's values but not its gradient (as PyTorch's in-place no-grad clamp).
    var = var + (var.detach().clamp_min(eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target).square() / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction)


# --------------------------------------------------------------------------- margins

@checked("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
         "int reduction=1)")
def _margin_ranking_arguments(input1, input2, target, margin, reduction):
    """PyTorch's parser of `margin_ranking_loss` (which F.margin_ranking_loss calls last)."""
    return margin


@_float32_under_autocast
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    # NOTE [functional check order]: the reduction, the ranks (input1.dim(): AttributeError
    # for a non-tensor, as in PyTorch), then the parser.
    reduction = _reduction_name(size_average, reduce, reduction)
    enum = _reduction.get_enum(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    margin = _margin_ranking_arguments(input1, input2, target, margin, enum)
    loss = (target.neg() * (input1 - input2) + margin).clamp_min(0)
    return _reduced(loss, reduction)


@_float32_under_autocast
@checked("hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0)")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where target is -1."""
    reduction = _reduction_name(size_average, reduce, reduction)
    _reduction.get_enum(reduction)
    zeros = ember.zeros_like(input)
    below_margin = ember.where(target != 1, (margin - input).clamp_min(0), zeros)
    kept = ember.where(target != -1, input, zeros)
    return _reduced(below_margin + kept, reduction)


@_float32_under_autocast
@checked("soft_margin_loss(Tensor self, Tensor target)")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input))."""
    reduction = _reduction_name(size_average, reduce, reduction)
    _reduction.get_enum(reduction)
    _tensors("soft_margin_loss", ("input", input), ("target", target))
    if target.requires_grad and ember.is_grad_enabled():
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    return call(OPS["soft_margin_loss"], (input, target, _reduction.get_enum(reduction)))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Per sample, the mean over classes of the logistic loss of each class (target 0 or 1)."""
    if _state.entry and _wants(locals()):
        return _handle(multilabel_soft_margin_loss, locals())
    reduction = _reduction_name(size_average, reduce, reduction)
    # (a target of numbers is arithmetic, as in PyTorch's composite: `True` is all ones)
    loss = (target * _log_sigmoid(input) + (1 - target) * _log_sigmoid(-input)).neg()
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    classes = input.size(class_dim)
    loss = loss.sum(class_dim) / classes
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduced(loss, reduction)


@_float32_under_autocast
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Per sample, sum over classes i != y of max(0, margin - x[y] + x[i])**p * weight[y], over
    the class count."""
    reduction = _reduction_name(size_average, reduce, reduction)
    enum = _reduction.get_enum(reduction)
    if p != 1 and p != 2:                     # (NOTE [functional check order])
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _tensors("multi_margin_loss", ("input", input), ("target", target))
    if input.ndim > 2:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    scores = input.reshape(1, -1) if input.ndim <= 1 else input
    labels = target.reshape(-1)
    classes = scores.shape[1]
    if labels.numel() != scores.shape[0]:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{scores.shape[0]}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    if labels.numel() and bool(((labels < 0) | (labels >= classes)).any()):
        raise RuntimeError("target out of range")
    index = labels.unsqueeze(1)
    # PyTorch adds a class's margin only where it is > 0: a NaN margin (inf - inf, where the
    # target's score and another's are infinities of one sign) adds nothing, where clamp_min
    # would carry the NaN into the sample's loss.
    raw = margin - scores.gather(1, index) + scores
    margins = ember.where(raw > 0, raw, ember.zeros_like(raw))
    if p == 2:
        margins = margins.square()
    if weight is not None:
        margins = margins * weight.take(labels).unsqueeze(1)
    margins = margins.scatter(1, index, 0.0)
    loss = margins.sum(1) / classes
    if input.ndim <= 1:
        loss = loss.reshape(())
    return _reduced(loss, ("none", "mean", "sum")[enum])


@_float32_under_autocast
@checked("multilabel_margin_loss(Tensor self, Tensor target)")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample, sum over its target classes j (the indices before the first -1) and its
    other classes i of max(0, 1 - (x[j] - x[i])), over the class count."""
    reduction = _reduction_name(size_average, reduce, reduction)
    enum = _reduction.get_enum(reduction)
    _tensors("multilabel_margin_loss", ("input", input), ("target", target))
    if input.ndim > 2 or input.shape != target.shape:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: "
            f"{list(input.shape)}")
    scores = input.reshape(1, -1) if input.ndim <= 1 else input
    labels = target.reshape(scores.shape)
    classes = scores.shape[1]
    # Target classes are the entries before the first -1 of each row.
    listed = (labels < 0).to(ember.int64).cumsum(1) == 0
    if bool((listed & (labels >= classes)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    safe = labels.masked_fill(listed.logical_not(), 0)
    class_ids = ember.arange(classes, device=labels.device)
    is_target = ((labels.unsqueeze(2) == class_ids) & listed.unsqueeze(2)).any(1)
    target_scores = scores.gather(1, safe)
    hinge = (1 - target_scores.unsqueeze(2) + scores.unsqueeze(1)).clamp_min(0)
    mask = listed.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = (hinge * mask).sum((1, 2)) / classes
    if input.ndim <= 1:
        loss = loss.reshape(())
    return _reduced(loss, ("none", "mean", "sum")[enum])


@_float32_under_autocast
@checked("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0)")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = _reduction_name(size_average, reduce, reduction)
    enum = _reduction.get_enum(reduction)
    _tensors("cosine_embedding_loss", ("input1", input1), ("input2", input2),
             ("target", target))
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = target.ndim + 1
    if input1.ndim != expected or input2.ndim != expected:
        raise RuntimeError(
            f"{target.ndim}D target tensor expects {expected}D input tensors, but found inputs "
            f"with sizes {list(input1.shape)} and {list(input2.shape)}.")
    dim = input1.ndim - 1
    tiny = 1e-12
    products = (input1 * input2).sum(dim)
    squares = ((input1 * input1).sum(dim) + tiny) * ((input2 * input2).sum(dim) + tiny)
    cosine = products / squares.sqrt()
    zeros = ember.zeros_like(cosine)
    similar = ember.where(target == 1, 1 - cosine, zeros)
    dissimilar = ember.where(target == -1, (cosine - margin).clamp_min(0), zeros)
    return _reduced(similar + dissimilar, ("none", "mean", "sum")[enum])


@_float32_under_autocast
@checked("triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, "
         "float p=2, float eps=1e-06, bool swap=False)")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, d(anchor, positive) - d(anchor, negative) + margin), d the p-norm distance."""
    from ember.nn._functional.distance import pairwise_distance
    reduction = _reduction_name(size_average, reduce, reduction)
    enum = _reduction.get_enum(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return triplet_margin_native(anchor, positive, negative, margin, p, eps, swap, enum)


def triplet_margin_native(anchor, positive, negative, margin, p, eps, swap, enum):
    """`torch.triplet_margin_loss` past nn.functional's Python prelude (its margin check):
    the dims, then the distances."""
    from ember.nn._functional.distance import pairwise_distance
    _tensors("triplet_margin_loss", ("anchor", anchor), ("positive", positive),
             ("negative", negative))
    _floats_and_bools("triplet_margin_loss", (4, "margin", margin), (5, "p", p),
                      (6, "eps", eps), (7, "swap", swap))
    _check_triplet_dims(anchor, positive, negative)
    close = pairwise_distance(anchor, positive, p, eps)
    far = pairwise_distance(anchor, negative, p, eps)
    if swap:
        far = ember.minimum(far, pairwise_distance(positive, negative, p, eps))
    loss = (margin + close - far).clamp_min(0)
    return _reduced(loss, ("none", "mean", "sum")[enum])


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not a == p == n:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default)."""
    if _state.entry and _wants(locals()):
        return _handle(triplet_margin_with_distance_loss, locals())
    from ember.nn._functional.distance import pairwise_distance
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_triplet_dims(anchor, positive, negative)
    distance = distance_function if distance_function is not None else pairwise_distance
    close = distance(anchor, positive)
    far = distance(anchor, negative)
    if swap:
        far = ember.minimum(far, distance(positive, negative))
    return _reduced((margin + close - far).clamp_min(0), reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The connectionist temporal classification loss of log_probs (T, N, C), or (T, C)
    unbatched, against padded (N, S) or concatenated targets: 'mean' divides each sample's
    loss by its target length before averaging."""
    if _state.entry and _wants(locals()):
        return _handle(ctc_loss, locals())
    enum = _reduction.get_enum(reduction)
    # (NOTE [functional check order]: then torch.ctc_loss's parser and its native checks)
    _ctc_loss_arguments(log_probs, targets, input_lengths, target_lengths, blank, enum,
                        zero_infinity)
    if isinstance(input_lengths, ember.Tensor):
        for name, lengths in (("input_lengths", input_lengths),
                              ("target_lengths", target_lengths)):
            if lengths.dtype.is_floating_point or lengths.dtype.is_complex or \
                    lengths.dtype == ember.bool:
                raise RuntimeError(f"{name} must be integral")
    if log_probs.ndim == 0:       # (PyTorch reads a 1-d view's size(1): its IndexError)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0)
    input_lengths = _as_lengths(input_lengths, unbatched)
    lengths = _as_lengths(target_lengths, unbatched)
    loss = call(OPS["_ctc_loss"], (log_probs, targets, input_lengths, lengths, blank,
                                   zero_infinity))
    if zero_infinity:
        loss = ember.where(loss == float("inf"), ember.zeros_like(loss), loss)
    if enum == 1:
        divisor = ember.tensor(lengths, dtype=loss.dtype, device=loss.device).clamp_min(1)
        return (loss / divisor).mean()
    if enum == 2:
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss


@checked("ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
         "int blank=0, int reduction=1, bool zero_infinity=False)",
         "ctc_loss(Tensor log_probs, Tensor targets, Tensor input_lengths, "
         "Tensor target_lengths, int blank=0, int reduction=1, bool zero_infinity=False)")
def _ctc_loss_arguments(log_probs, targets, input_lengths, target_lengths, blank=0,
                        reduction=1, zero_infinity=False):
    """Only the parser's checks of `torch.ctc_loss`, which F.ctc_loss calls."""


def _as_lengths(lengths, unbatched):
    """A length tensor or sequence as a list of ints (one per sample)."""
    if isinstance(lengths, ember.Tensor):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    if isinstance(lengths, int):
        return [lengths]
    return [int(v) for v in lengths]
