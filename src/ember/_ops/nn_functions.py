"""The losses and distances PyTorch also has at the top level (torch.kl_div, torch.pdist ...):
`reduction` as the enum (0 none, 1 mean, 2 sum). Each runs the ember.nn.functional form (loaded
on first call: ember.nn builds on the registry, so it is reached through NOTE [upcalls]).

NOTE [the top-level losses' reduction default]: PyTorch's schemas give `int reduction=Mean`, but
its Python parser cannot read that default and passes 0: `torch.kl_div(a, b)` is unreduced.
These forms default to 0 as PyTorch's do (the nn.functional forms and the ATen ops keep 'mean'),
and, as PyTorch's kernels reduce only for 1 (mean) and 2 (sum), any other int leaves the loss
unreduced.
"""
from __future__ import annotations

from ember._core import upcalls
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend

_NAMES = ("none", "mean", "sum")


def _functional():
    return upcalls.nn_module("functional")


# NOTE [the top-level losses' reduction default]: every int but 1 and 2 reads as 'none'.
def _name(reduction: int) -> str:
    return _NAMES[reduction] if reduction in (1, 2) else "none"


@register_frontend(method=False)
@checked("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
         "Tensor? pos_weight=None, int reduction=0)")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
    reduction=0) -> Tensor: see ember.nn.functional.binary_cross_entropy_with_logits."""
    if _state.entry and _wants(locals()):
        return _handle(binary_cross_entropy_with_logits, locals())
    # (the ATen op itself: none of nn.functional's Python size check)
    return call(OPS["binary_cross_entropy_with_logits"],
                (input, target, weight, pos_weight, reduction if reduction in (1, 2) else 0))


@register_frontend(method=False)
@checked("kl_div(Tensor self, Tensor target, int reduction=0, *, bool log_target=False)")
def kl_div(input, target, reduction=0, *, log_target=False):
    """kl_div(input, target, reduction=0, *, log_target=False) -> Tensor: the pointwise
    Kullback-Leibler divergence, reduced by the enum (no 'batchmean' here)."""
    if _state.entry and _wants(locals()):
        return _handle(kl_div, locals())
    for t in (input, target):
        _check(t.dtype.is_floating_point or t.dtype.is_complex,
               "kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = call(OPS["xlogy.Tensor"], (target, target)) - target * input
    name = _name(reduction)
    return loss if name == "none" else (loss.mean() if name == "mean" else loss.sum())


@register_frontend(method=False)
@checked("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
         "int reduction=0)")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(margin_ranking_loss, locals())
    return _functional().margin_ranking_loss(input1, input2, target, margin,
                                             reduction=_name(reduction))


@register_frontend(method=False)
@checked("hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=0)")
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(hinge_embedding_loss, locals())
    return _functional().hinge_embedding_loss(input, target, margin, reduction=_name(reduction))


@register_frontend(method=False)
@checked("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
         "int reduction=0)")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(cosine_embedding_loss, locals())
    return _functional().cosine_embedding_loss(input1, input2, target, margin,
                                               reduction=_name(reduction))


@register_frontend(method=False)
@checked("poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, "
         "int reduction)")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(poisson_nll_loss, locals())
    return _functional().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                          reduction=_name(reduction))


@register_frontend(method=False)
@checked("triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., "
         "float p=2., float eps=9.9999999999999995e-07, bool swap=False, int reduction=0)")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=0):
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
    reduction=0) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(triplet_margin_loss, locals())
    # (PyTorch's native op: no nn.functional prelude, so a margin <= 0 is computed with)
    return upcalls.nn_module("_functional.loss").triplet_margin_native(
        anchor, positive, negative, margin, p, eps, swap, _NAMES.index(_name(reduction)))


@register_frontend(method=False)
@checked("ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
         "int blank=0, int reduction=0, bool zero_infinity=False)",
         "ctc_loss(Tensor log_probs, Tensor targets, Tensor input_lengths, "
         "Tensor target_lengths, int blank=0, int reduction=0, bool zero_infinity=False)")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
    zero_infinity=False) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(ctc_loss, locals())
    return _functional().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                                  _name(reduction), zero_infinity)


@register_frontend(method=False)
@checked("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08)")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cosine_similarity(x1, x2, dim=1, eps=1e-08) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(cosine_similarity, locals())
    return _functional().cosine_similarity(x1, x2, dim, eps)


@register_frontend(method=False)
@checked("pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=9.9999999999999995e-07, "
         "bool keepdim=False)")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False) -> Tensor."""
    if _state.entry and _wants(locals()):
        return _handle(pairwise_distance, locals())
    return _functional().pairwise_distance(x1, x2, p, eps, keepdim)


@register_frontend(method=False)
@checked("pdist(Tensor self, float p=2.)")
def pdist(input, p=2.0):
    """pdist(input, p=2) -> Tensor: the p-norm distances between the rows of input."""
    if _state.entry and _wants(locals()):
        return _handle(pdist, locals())
    return _functional().pdist(input, p)
