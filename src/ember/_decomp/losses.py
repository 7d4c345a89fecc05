"""Decompositions of the elementwise losses (src/ember/_ops/nn_loss_pointwise.py and
nn_loss_bce.py) and their gradient kernels into element-wise ops and a reduction, as
PyTorch's core table has them; `reduction` is the enum (0 none, 1 mean, 2 sum)."""
from __future__ import annotations

from ember._decomp.registry import decomposes
from ember.ops import aten

_MEAN, _SUM = 1, 2


def _reduce(loss, reduction):
    if reduction == _MEAN:
        return aten.mean.default(loss)
    if reduction == _SUM:
        return aten.sum.default(loss)
    return loss


def _norm(reduction, self, scale=1.0):
    return scale / self.numel() if reduction == _MEAN else scale


@decomposes(aten.mse_loss.default)
def mse_loss(self, target, reduction=_MEAN):
    difference = aten.sub.Tensor(self, target)
    return _reduce(aten.mul.Tensor(difference, difference), reduction)


@decomposes(aten.mse_loss_backward.default)
def mse_loss_backward(grad_output, self, target, reduction):
    scaled = aten.mul.Tensor(aten.sub.Tensor(self, target), _norm(reduction, self, 2.0))
    return aten.mul.Tensor(scaled, grad_output)


@decomposes(aten.smooth_l1_loss.default)
def smooth_l1_loss(self, target, reduction=_MEAN, beta=1.0):
    z = aten.abs.default(aten.sub.Tensor(self, target))
    if beta == 0:
        return _reduce(z, reduction)
    quadratic = aten.div.Tensor(aten.mul.Tensor(aten.mul.Tensor(z, 0.5), z), beta)
    linear = aten.sub.Tensor(z, 0.5 * beta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, beta), quadratic, linear), reduction)


@decomposes(aten.smooth_l1_loss_backward.default)
def smooth_l1_loss_backward(grad_output, self, target, reduction, beta):
    x = aten.sub.Tensor(self, target)
    slope = aten.where.self(aten.ge.Scalar(aten.abs.default(x), beta), aten.sign.default(x),
                            aten.div.Tensor(x, beta))
    return aten.mul.Tensor(aten.mul.Tensor(slope, _norm(reduction, self)), grad_output)


@decomposes(aten.huber_loss.default)
def huber_loss(self, target, reduction=_MEAN, delta=1.0):
    z = aten.abs.default(aten.sub.Tensor(self, target))
    quadratic = aten.mul.Tensor(aten.mul.Tensor(z, 0.5), z)
    linear = aten.mul.Tensor(aten.sub.Tensor(z, 0.5 * delta), delta)
    return _reduce(aten.where.self(aten.lt.Scalar(z, delta), quadratic, linear), reduction)


@decomposes(aten.huber_loss_backward.default)
def huber_loss_backward(grad_output, self, target, reduction, delta):
    x = aten.sub.Tensor(self, target)
    slope = aten.where.self(aten.ge.Scalar(aten.abs.default(x), delta),
                            aten.mul.Tensor(aten.sign.default(x), delta), x)
    return aten.mul.Tensor(aten.mul.Tensor(slope, _norm(reduction, self)), grad_output)


@decomposes(aten.soft_margin_loss.default)
def soft_margin_loss(self, target, reduction=_MEAN):
    product = aten.mul.Tensor(aten.neg.default(self), target)
    return _reduce(aten.log1p.default(aten.exp.default(product)), reduction)


@decomposes(aten.soft_margin_loss_backward.default)
def soft_margin_loss_backward(grad_output, self, target, reduction):
    z = aten.exp.default(aten.mul.Tensor(aten.neg.default(target), self))
    scaled = aten.mul.Tensor(aten.mul.Tensor(target, z), -_norm(reduction, self))
    return aten.mul.Tensor(aten.div.Tensor(scaled, aten.add.Tensor(z, 1)), grad_output)


@decomposes(aten.binary_cross_entropy.default)
def binary_cross_entropy(self, target, weight=None, reduction=_MEAN):
    log_rest = aten.clamp_min.default(aten.log1p.default(aten.neg.default(self)), -100)
    log_x = aten.clamp_min.default(aten.log.default(self), -100)
    loss = aten.sub.Tensor(aten.mul.Tensor(aten.sub.Tensor(target, 1), log_rest),
                           aten.mul.Tensor(target, log_x))
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    return _reduce(loss, reduction)


@decomposes(aten.binary_cross_entropy_backward.default)
def binary_cross_entropy_backward(grad_output, self, target, weight=None, reduction=_MEAN):
    variance = aten.clamp_min.default(aten.mul.Tensor(aten.rsub.Scalar(self, 1), self), 1e-12)
    grad = aten.div.Tensor(aten.mul.Tensor(grad_output, aten.sub.Tensor(self, target)),
                           variance)
    if weight is not None:
        grad = aten.mul.Tensor(grad, weight)
    return aten.mul.Tensor(grad, _norm(reduction, self)) if reduction == _MEAN else grad


def _log_sigmoid_parts(self):
    z = aten.exp.default(aten.neg.default(aten.abs.default(self)))
    low = aten.minimum.default(self, aten.zeros_like.default(self))
    return aten.sub.Tensor(low, aten.log1p.default(z)), z


@decomposes(aten.log_sigmoid_forward.default)
def log_sigmoid_forward(self):
    return _log_sigmoid_parts(self)


@decomposes(aten.log_sigmoid_backward.default)
def log_sigmoid_backward(grad_output, self, buffer):
    negative = aten.lt.Scalar(self, 0)
    largest = aten.where.self(negative, 1.0, 0.0)
    sign = aten.where.self(negative, 1.0, -1.0)
    fraction = aten.div.Tensor(buffer, aten.add.Tensor(buffer, 1))
    return aten.mul.Tensor(aten.sub.Tensor(largest, aten.mul.Tensor(sign, fraction)),
                           grad_output)


@decomposes(aten.binary_cross_entropy_with_logits.default)
def binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None,
                                     reduction=_MEAN):
    log_sigmoid = _log_sigmoid_parts(self)[0]
    if pos_weight is not None:
        log_weight = aten.add.Tensor(aten.mul.Tensor(aten.sub.Tensor(pos_weight, 1), target), 1)
        log_sigmoid = aten.mul.Tensor(log_sigmoid, log_weight)
    loss = aten.sub.Tensor(aten.mul.Tensor(aten.rsub.Scalar(target, 1), self), log_sigmoid)
    if weight is not None:
        loss = aten.mul.Tensor(loss, weight)
    return _reduce(loss, reduction)
