"""Shared inputs for the loss tests: each case builds NumPy arguments for one functional loss
(floats marked for gradients) and names the module that wraps it."""
from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass
class Arg:
    """A tensor argument; `grad`: the input gradient is compared with torch's."""
    array: np.ndarray
    grad: bool = False


@dataclasses.dataclass
class Case:
    name: str
    function: str
    make: object                     # (rng, dtype) -> list of args (Arg or Python values)
    kwargs: dict = dataclasses.field(default_factory=dict)
    module: str | None = None
    module_kwargs: dict = dataclasses.field(default_factory=dict)
    reductions: tuple = ("none", "mean", "sum")


def _f(rng, shape, dtype, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(dtype)


def _pair(shape, target_grad=True):
    def make(rng, dtype):
        return [Arg(_f(rng, shape, dtype), True), Arg(_f(rng, shape, dtype), target_grad)]
    return make


def _classes(shape, classes, ignore=False):
    def make(rng, dtype):
        x = _f(rng, shape, dtype)
        target_shape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
        t = rng.integers(0, classes, target_shape).astype(np.int64)
        if ignore and t.ndim:
            t.reshape(-1)[0] = -100
        return [Arg(x, True), Arg(t)]
    return make


def _log_probs(shape, classes):
    def make(rng, dtype):
        x = _f(rng, shape, dtype)
        x = x - np.log(np.exp(x).sum(1, keepdims=True))
        target_shape = (shape[0],) + shape[2:]
        return [Arg(x, True), Arg(rng.integers(0, classes, target_shape).astype(np.int64))]
    return make


def _probabilities(shape):
    def make(rng, dtype):
        x = rng.standard_normal(shape).astype(dtype)
        p = np.exp(x) / np.exp(x).sum(1, keepdims=True)
        return [Arg(rng.standard_normal(shape).astype(dtype), True), Arg(p.astype(dtype), True)]
    return make


def _bce(rng, dtype):
    return [Arg(rng.uniform(0.05, 0.95, (4, 3)).astype(dtype), True),
            Arg(rng.uniform(0, 1, (4, 3)).astype(dtype))]


def _logits(rng, dtype):
    return [Arg(_f(rng, (4, 3), dtype, -30, 30), True), Arg(rng.uniform(0, 1, (4, 3)).astype(dtype),
                                                             True)]


def _kl(rng, dtype):
    x = rng.standard_normal((3, 5))
    x = x - np.log(np.exp(x).sum(1, keepdims=True))
    t = rng.uniform(0, 1, (3, 5))
    t[0, 0] = 0
    return [Arg(x.astype(dtype), True), Arg((t / t.sum(1, keepdims=True)).astype(dtype), True)]


def _kl_log(rng, dtype):
    x, t = _kl(rng, dtype)
    return [x, Arg(np.log(t.array + 0.1).astype(dtype), True)]


def _signs(shape):
    def make(rng, dtype):
        return [Arg(_f(rng, shape, dtype), True),
                Arg(np.where(rng.random(shape) < 0.5, -1.0, 1.0).astype(dtype))]
    return make


def _ranking(rng, dtype):
    return [Arg(_f(rng, (6,), dtype), True), Arg(_f(rng, (6,), dtype), True),
            Arg(np.array([1, -1, 1, 1, -1, -1], dtype))]


def _poisson(log_input):
    def make(rng, dtype):
        x = _f(rng, (4, 3), dtype, 0.1, 2.0) if not log_input else _f(rng, (4, 3), dtype)
        return [Arg(x, True), Arg(rng.integers(0, 5, (4, 3)).astype(dtype), True)]
    return make


def _gaussian(var_shape):
    def make(rng, dtype):
        return [Arg(_f(rng, (4, 3), dtype), True), Arg(_f(rng, (4, 3), dtype), True),
                Arg(rng.uniform(0.1, 2.0, var_shape).astype(dtype), True)]
    return make


def _multilabel(rng, dtype):
    x = _f(rng, (3, 5), dtype)
    t = np.array([[3, 0, -1, 1, 2], [1, 2, 4, 0, 3], [-1, 1, 2, 0, 0]], np.int64)
    return [Arg(x, True), Arg(t)]


def _multilabel_soft(rng, dtype):
    return [Arg(_f(rng, (4, 5), dtype), True),
            Arg((rng.random((4, 5)) < 0.5).astype(dtype))]


def _multi_margin(rng, dtype):
    return [Arg(_f(rng, (4, 5), dtype), True), Arg(rng.integers(0, 5, (4,)).astype(np.int64))]


def _cosine_embedding(rng, dtype):
    return [Arg(_f(rng, (4, 5), dtype), True), Arg(_f(rng, (4, 5), dtype), True),
            Arg(np.array([1, -1, 1, -1], dtype))]


def _triplet(rng, dtype):
    return [Arg(_f(rng, (4, 5), dtype), True) for _ in range(3)]


CASES = [
    Case("l1", "l1_loss", _pair((3, 4)), module="L1Loss"),
    Case("l1 broadcast", "l1_loss", lambda r, d: [Arg(_f(r, (3, 4), d), True),
                                                  Arg(_f(r, (4,), d), True)]),
    Case("mse", "mse_loss", _pair((3, 4)), module="MSELoss"),
    Case("mse 0-d", "mse_loss", _pair(())),
    Case("smooth_l1", "smooth_l1_loss", _pair((5, 4)), module="SmoothL1Loss"),
    Case("smooth_l1 beta", "smooth_l1_loss", _pair((5, 4)), {"beta": 0.5},
         module="SmoothL1Loss", module_kwargs={"beta": 0.5}),
    Case("smooth_l1 beta 0", "smooth_l1_loss", _pair((5, 4)), {"beta": 0.0}),
    Case("huber", "huber_loss", _pair((5, 4)), module="HuberLoss"),
    Case("huber delta", "huber_loss", _pair((5, 4)), {"delta": 0.3}, module="HuberLoss",
         module_kwargs={"delta": 0.3}),
    Case("nll", "nll_loss", _log_probs((5, 4), 4), module="NLLLoss"),
    Case("nll 4-d", "nll_loss", _log_probs((2, 3, 4, 2), 3), module="NLLLoss"),
    Case("nll 3-d", "nll_loss", _log_probs((2, 3, 4), 3)),
    Case("nll 5-d", "nll_loss", _log_probs((2, 3, 2, 2, 2), 3)),
    Case("cross_entropy", "cross_entropy", _classes((5, 4), 4), module="CrossEntropyLoss"),
    Case("cross_entropy 1-d", "cross_entropy", _classes((4,), 4)),
    Case("cross_entropy ignore", "cross_entropy", _classes((5, 4), 4, ignore=True)),
    Case("cross_entropy ignore 2", "cross_entropy", _classes((5, 4), 4), {"ignore_index": 2},
         module="CrossEntropyLoss", module_kwargs={"ignore_index": 2}),
    Case("cross_entropy K-dim", "cross_entropy", _classes((2, 4, 3, 2), 4, ignore=True)),
    Case("cross_entropy smoothing", "cross_entropy", _classes((5, 4), 4, ignore=True),
         {"label_smoothing": 0.2}, module="CrossEntropyLoss",
         module_kwargs={"label_smoothing": 0.2}),
    Case("cross_entropy K-dim smoothing", "cross_entropy", _classes((2, 4, 3), 4),
         {"label_smoothing": 0.1}),
    Case("cross_entropy probabilities", "cross_entropy", _probabilities((4, 5))),
    Case("cross_entropy probabilities K-dim smoothing", "cross_entropy",
         _probabilities((2, 5, 3)), {"label_smoothing": 0.3}),
    Case("bce", "binary_cross_entropy", _bce, module="BCELoss"),
    Case("bce_with_logits", "binary_cross_entropy_with_logits", _logits,
         module="BCEWithLogitsLoss"),
    Case("kl_div", "kl_div", _kl, module="KLDivLoss",
         reductions=("none", "mean", "sum", "batchmean")),
    Case("kl_div log_target", "kl_div", _kl_log, {"log_target": True}, module="KLDivLoss",
         module_kwargs={"log_target": True}, reductions=("none", "sum", "batchmean")),
    Case("soft_margin", "soft_margin_loss", _signs((4, 3)), module="SoftMarginLoss"),
    Case("hinge_embedding", "hinge_embedding_loss", _signs((4, 3)), {"margin": 0.5},
         module="HingeEmbeddingLoss", module_kwargs={"margin": 0.5}),
    Case("margin_ranking", "margin_ranking_loss", _ranking, {"margin": 0.3},
         module="MarginRankingLoss", module_kwargs={"margin": 0.3}),
    Case("poisson_nll", "poisson_nll_loss", _poisson(True), module="PoissonNLLLoss"),
    Case("poisson_nll full", "poisson_nll_loss", _poisson(False),
         {"log_input": False, "full": True}, module="PoissonNLLLoss",
         module_kwargs={"log_input": False, "full": True}),
    Case("gaussian_nll", "gaussian_nll_loss", _gaussian((4, 3)), module="GaussianNLLLoss"),
    Case("gaussian_nll shared var", "gaussian_nll_loss", _gaussian((4,)), {"full": True}),
    Case("gaussian_nll var column", "gaussian_nll_loss", _gaussian((4, 1))),
    Case("multilabel_margin", "multilabel_margin_loss", _multilabel,
         module="MultiLabelMarginLoss"),
    Case("multilabel_soft_margin", "multilabel_soft_margin_loss", _multilabel_soft,
         module="MultiLabelSoftMarginLoss"),
    Case("multi_margin", "multi_margin_loss", _multi_margin, module="MultiMarginLoss"),
    Case("multi_margin p2", "multi_margin_loss", _multi_margin, {"p": 2, "margin": 0.7},
         module="MultiMarginLoss", module_kwargs={"p": 2, "margin": 0.7}),
    Case("cosine_embedding", "cosine_embedding_loss", _cosine_embedding, {"margin": 0.2},
         module="CosineEmbeddingLoss", module_kwargs={"margin": 0.2}),
    Case("triplet_margin", "triplet_margin_loss", _triplet, module="TripletMarginLoss"),
    Case("triplet_margin swap p1", "triplet_margin_loss", _triplet, {"p": 1, "swap": True},
         module="TripletMarginLoss", module_kwargs={"p": 1, "swap": True}),
    Case("triplet_margin_with_distance", "triplet_margin_with_distance_loss", _triplet,
         module="TripletMarginWithDistanceLoss"),
]

# Cases that take a class weight (of the class count), by case name.
WEIGHTED = {
    "nll": 4, "nll 4-d": 3, "cross_entropy": 4, "cross_entropy ignore": 4,
    "cross_entropy K-dim": 4, "cross_entropy smoothing": 4,
    "cross_entropy probabilities": 5, "multi_margin": 5, "multilabel_soft_margin": 5,
}
