"""Distances and similarities between vectors (pairwise_distance, cosine_similarity, pdist),
normalize and one_hot: composites of registry ops (one_hot is one, in _ops/nn_distance.py)."""
from __future__ import annotations

import ember
from ember._core import arguments
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS

__all__ = ["cosine_similarity", "normalize", "one_hot", "pairwise_distance", "pdist"]


def _parse(name, values, names, kinds):
    """PyTorch's parser's TypeError for these functions' arguments: T a tensor, f a float,
    b a bool."""
    check = {"T": arguments.tensor_, "f": arguments.float_, "b": arguments.bool_}
    for position, (value, arg, kind) in enumerate(zip(values, names, kinds), 1):
        if not (kind == "b" and (value is True or value is False)):
            check[kind](value, (name, arg, position))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim (of the broadcast shape)."""
    if _state.entry and _wants(locals()):
        return _handle(pairwise_distance, locals())
    _parse("pairwise_distance", (x1, x2, p, eps, keepdim),
           ("x1", "x2", "p", "eps", "keepdim"), "TTffb")
    last = max(x1.ndim, x2.ndim) - 1       # (-1 for two 0-d inputs: the one element)
    return (x1 - x2 + eps).norm(p, last, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between x1 and x2 along dim, each norm clamped at eps."""
    if _state.entry and _wants(locals()):
        return _handle(cosine_similarity, locals())
    _parse("cosine_similarity", (x1, x2, eps), ("x1", "x2", "eps"), "TTf")
    if type(dim) is not int:
        arguments.int_(dim, ("cosine_similarity", "dim", 3))
    if eps < 0:
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    x1, x2 = ember.broadcast_tensors(x1, x2)
    return ((x1 / _clamped_norm(x1, dim, eps)) * (x2 / _clamped_norm(x2, dim, eps))).sum(dim)


def _clamped_norm(x, dim, eps):
    """x's 2-norm along dim (kept) with its value clamped at eps but its gradient that of the
    plain norm: PyTorch clamps the norm in place under no_grad."""
    norm = x.norm(2, dim, True)
    # (an infinite norm stays itself: inf - inf would make it NaN)
    return ember.where(norm.detach() < eps, norm + (eps - norm.detach()), norm)


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input: the upper triangle of
    cdist(input, input) read row by row, N (N - 1) / 2 values."""
    if _state.entry and _wants(locals()):
        return _handle(pdist, locals())
    _parse("pdist", (input, p), ("input", "p"), "Tf")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = ember.triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return (input.index_select(0, rows) - input.index_select(0, cols)).norm(p, 1)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input divided by its p-norm along dim (the norm clamped at eps)."""
    if _state.entry and _wants(locals()):
        return _handle(normalize, locals())
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denominator
    return ember.div(input, denominator, out=out)


def one_hot(tensor, num_classes=-1):
    """A trailing dim of num_classes 0/1 values (int64): 1 at each entry's class."""
    if _state.entry and _wants(locals()):
        return _handle(one_hot, locals())
    return call(OPS["one_hot"], (tensor, num_classes))
