"""Helpers the distribution families share: broadcasting parameters, logits <-> probabilities,
cached derived parameters (`lazy_property`), and packing triangular matrices into vectors."""
from __future__ import annotations

import math
from functools import update_wrapper
from numbers import Number

import ember
import ember.nn.functional as F

euler_constant = 0.57721566490153286060    # Euler-Mascheroni


def broadcast_all(*values):
    """The values (tensors or numbers) as tensors broadcast to one shape; numbers take the
    dtype and device of the first tensor among them (the default dtype if there is none)."""
    if not all(ember.is_tensor(v) or isinstance(v, Number) or hasattr(v, "__torch_function__")
               for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(ember.is_tensor(v) for v in values):
        like = next((v for v in values if ember.is_tensor(v)), None)
        options = ({"dtype": like.dtype, "device": like.device} if like is not None
                   else {"dtype": ember.get_default_dtype()})
        values = [v if ember.is_tensor(v) else ember.tensor(v, **options) for v in values]
    return ember.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return ember.normal(ember.zeros(shape, dtype=dtype, device=device),
                        ember.ones(shape, dtype=dtype, device=device))


def _sum_rightmost(value, dim: int):
    """Sum the rightmost `dim` dimensions of `value`."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def check_probs_or_logits(probs, logits) -> None:
    """Exactly one of the two parametrisations must be given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def logits_to_probs(logits, is_binary: bool = False):
    """Probabilities from logits: a sigmoid for binary events, a softmax over the last
    dimension otherwise."""
    if is_binary:
        return ember.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Probabilities kept inside (0, 1) by the dtype's epsilon, so their logs stay finite."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """Logits from probabilities (the inverse of logits_to_probs): log-odds for binary
    events, logs of the probabilities otherwise."""
    clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(clamped) - ember.log1p(-clamped)
    return ember.log(clamped)


class lazy_property:
    """A derived parameter computed on first access and then kept on the instance, so that
    only one of two parametrisations (probs or logits ...) is stored until the other is asked
    for. Computed with gradients enabled, so it stays differentiable even if first read under
    no_grad."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ember.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property reads as on the class: also a property, for introspection."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag: int = 0):
    """The lower triangle (below diagonal `diag`) of the last two dims as a vector, row by row."""
    n = mat.shape[-1]
    if mat.shape[-2] != n:
        raise ValueError(f"tril_matrix_to_vec expects square matrices, got {tuple(mat.shape)}")
    rows, cols = ember.tril_indices(n, n, offset=diag).unbind(0)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag: int = 0):
    """The inverse of tril_matrix_to_vec: a vector laid into the lower triangle of a square
    matrix (zeros elsewhere)."""
    length = vec.shape[-1]
    # length = n (n + 1) / 2 + diag n  (diag <= 0), a quadratic in n
    n = round((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * length) ** 0.5) / 2)
    if n * (n + 1) // 2 + diag * n != length:
        raise ValueError(f"The size of last dimension is {length} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    rows, cols = ember.tril_indices(n, n, offset=diag).unbind(0)
    mat[..., rows, cols] = vec
    return mat


def _empty(shape, like):
    """An uninitialised tensor of `shape` with the dtype and device of `like` (to fill with
    an in-place sampler)."""
    return ember.empty(shape, dtype=like.dtype, device=like.device)


def _mvlgamma(x, p: int):
    """The multivariate log-gamma: p (p - 1) / 4 log(pi) + sum_j lgamma(x - j / 2),
    j = 0 .. p-1. (A local composite until ember.special.multigammaln exists.)"""
    offsets = ember.arange(p, dtype=x.dtype, device=x.device) / 2
    return p * (p - 1) / 4 * math.log(math.pi) + ember.lgamma(x.unsqueeze(-1) - offsets).sum(-1)


def _mvdigamma(x, p: int):
    """The derivative of _mvlgamma: sum_j digamma(x - j / 2)."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    offsets = ember.arange(p, dtype=x.dtype, device=x.device) / 2
    return ember.digamma(x.unsqueeze(-1) - offsets).sum(-1)
