"""Binary cross-entropy as PyTorch's ops: binary_cross_entropy (+ _backward) on
probabilities, binary_cross_entropy_with_logits on logits (its gradients composites of ops, as
PyTorch's formulas are, so a mode sees `sigmoid, sub, mul, div_`), and log_sigmoid_forward /
log_sigmoid_backward, which log_sigmoid decomposes into under modes and which the logits loss
reads. Kernels follow NOTE [elementwise loss kernels] (nn_loss_pointwise.py).
"""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check
from ember._core.dispatch import call_inplace
from ember._core.registry import OPS, register_op
from ember._core.shape import infer_size
from ember._ops.nn_loss_pointwise import (
    _OPTIONS,
    MEAN,
    NONE,
    _again,
    _cast,
    _common,
    _expanded,
    _float_kernel,
    _op,
    _opmath,
    _promote,
    _reduced,
)

_LOG_FLOOR = -100.0
_EPSILON = 1e-12


# --------------------------------------------------------------------------- binary_cross_entropy

def _check_unit_interval(xp, self, target):
    """PyTorch's kernel checks each element in turn, the input's value before the target's."""
    bad_input = ~((self >= 0) & (self <= 1))
    bad_target = ~((target >= 0) & (target <= 1))
    either = bad_input | bad_target
    if bool(either.any()):
        first = int(np.argmax(np.asarray(either).reshape(-1)))
        which = "input" if bool(np.asarray(bad_input).reshape(-1)[first]) else "target"
        _check(False, f"all elements of {which} should be between 0 and 1")


def _bce_meta(self, target, weight=None, reduction=MEAN):
    return (tuple(self.shape) if reduction == NONE else ()), self._dtype


def _bce_target_grad(c):
    x = c.self
    grad = (x.neg().log1p().clamp_min(_LOG_FLOOR) - x.log().clamp_min(_LOG_FLOOR)) * c.grad
    if c.weight is not None:
        grad = grad * c.weight
    return grad / x.numel() if c.reduction == MEAN else grad


@register_op("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, "
             "int reduction=Mean) -> Tensor", **_OPTIONS, meta=_bce_meta,
             saves=("self", "target", "weight"),
             derivatives={"self": lambda c: _op("binary_cross_entropy_backward", c.grad, c.self,
                                                c.target, c.weight, c.reduction),
                          "target": _bce_target_grad})
def binary_cross_entropy(xp, self, target, weight=None, reduction=MEAN):
    """-(t log(x) + (1 - t) log(1 - x)), each log floored at -100, times weight; in the
    input's dtype, rounded at each step."""
    _float_kernel("binary_cross_entropy", self.dtype)
    _check_unit_interval(xp, self, target)
    dtype = self.dtype
    floor = dtype.type(_LOG_FLOOR)
    x, t = self, _cast(target, dtype)
    with np.errstate(divide="ignore"):
        log_x = xp.maximum(_cast(xp.log(x), dtype), floor)
        log_rest = xp.maximum(_cast(xp.log1p(-x), dtype), floor)
    loss = _cast((t - dtype.type(1)) * log_rest - t * log_x, dtype)
    if weight is not None:
        loss = _cast(_cast(loss, _promote(dtype, weight.dtype)) * weight, dtype)
    return _reduced(xp, loss, reduction)


def _bce_backward_self(c):
    # d/dx of g w norm (x - t) / (x - x^2) = g w norm (x^2 - 2 t x + t) / (x - x^2)^2
    x, t = c.self, c.target
    scale = c.grad * c.grad_output
    if c.weight is not None:
        scale = scale * c.weight
    variance = x - x * x
    grad = scale * (x * x - 2 * t * x + t) / (variance * variance)
    return grad / x.numel() if c.reduction == MEAN else grad


def _bce_backward_target(c):
    x = c.self
    grad = -(c.grad * c.grad_output) / (x - x * x)
    if c.weight is not None:
        grad = grad * c.weight
    return grad / x.numel() if c.reduction == MEAN else grad


@register_op("binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, "
             "Tensor? weight=None, int reduction=Mean) -> Tensor", **_OPTIONS,
             meta=lambda grad_output, self, *rest: (tuple(self.shape), self._dtype),
             saves=("grad_output", "self", "target", "weight"),
             derivatives={
                 "grad_output": _again("binary_cross_entropy_backward",
                                       "self", "target", "weight", "reduction"),
                 "self": _bce_backward_self, "target": _bce_backward_target})
def binary_cross_entropy_backward(xp, grad_output, self, target, weight=None, reduction=MEAN):
    """grad * (x - t) / max((1 - x) x, 1e-12), times weight, over numel for a mean; in the
    input's dtype, rounded at each step (the epsilon too: zero in float16)."""
    dtype = self.dtype
    x, t = self, _cast(target, dtype)
    g = _cast(_expanded(xp, grad_output, self.shape), dtype)
    numerator = _cast(g * _cast(x - t, dtype), dtype)
    variance = xp.maximum(_cast((dtype.type(1) - x) * x, dtype), dtype.type(_EPSILON))
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = _cast(numerator / variance, dtype)
    if weight is not None:
        grad = _cast(_cast(grad, _promote(dtype, weight.dtype)) * weight, dtype)
    if reduction == MEAN:
        grad = _cast(grad.astype(_opmath(dtype)) / _opmath(dtype).type(self.size), dtype)
    return grad


# --------------------------------------------------------------------------- log_sigmoid

def _log_sigmoid_forward_meta(self):
    return [(tuple(self.shape), self._dtype), (tuple(self.shape), self._dtype)]


@register_op("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)",
             **_OPTIONS, meta=_log_sigmoid_forward_meta,
             saves=("self", "result1"), node_name="LogSigmoidBackward0",
             derivatives={"self": lambda c: _op("log_sigmoid_backward", c.grad, c.self,
                                                c.results[1])})
def log_sigmoid_forward(xp, self):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), with exp(-|x|) as the buffer the
    gradient reads; half types compute in float32."""
    _float_kernel("log_sigmoid_cpu", self.dtype)
    compute = _opmath(self.dtype)
    x = _cast(self, compute)
    z = xp.exp(-xp.abs(x))
    output = xp.minimum(x, compute.type(0)) - xp.log1p(z)
    return _cast(output, self.dtype), _cast(z, self.dtype)


def _log_sigmoid_second(c):
    s = c.self.sigmoid()
    return -(c.grad * c.grad_output * s * (1 - s))


@register_op("log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
             **_OPTIONS,
             meta=lambda grad_output, self, buffer: (tuple(self.shape), self._dtype),
             saves=("grad_output", "self", "buffer"),
             # (the buffer is not differentiable in PyTorch: `self`'s formula is the whole
             # second derivative)
             derivatives={"grad_output": lambda c: _op("log_sigmoid_backward", c.grad, c.self,
                                                       c.buffer),
                          "self": _log_sigmoid_second, "buffer": lambda c: None})
def log_sigmoid_backward(xp, grad_output, self, buffer):
    """(1{x<0} - sign * z / (1 + z)) * grad, sign +1 for x < 0 else -1, z the forward's
    buffer; half types compute in float32."""
    compute = _opmath(self.dtype)
    x, z = _cast(self, compute), _cast(buffer, compute)
    negative = x < 0
    one, zero = compute.type(1), compute.type(0)
    slope = xp.where(negative, one, zero) - xp.where(negative, one, -one) * (z / (one + z))
    return _cast(slope * _cast(grad_output, compute), self.dtype)


# --------------------------------------------------------------------------- with logits

def _logits_self_grad(c):
    x, t = c.self, c.target
    if c.pos_weight is not None:
        scaled = c.pos_weight * t
        grad = (OPS["add.Scalar"](scaled, 1) - t) * x.sigmoid() - scaled
    else:
        grad = x.sigmoid() - t
    grad = grad * c.grad
    if c.weight is not None:
        grad = grad * c.weight
    return call_inplace(OPS["div.Scalar"], (grad, x.numel())) if c.reduction == MEAN else grad


def _logits_target_grad(c):
    x = c.self
    if c.pos_weight is not None:
        grad = _op("log_sigmoid_forward", x.neg())[0] - \
            _op("log_sigmoid_forward", x)[0] * c.pos_weight
    else:
        grad = -x
    grad = grad * c.grad
    if c.weight is not None:
        grad = grad * c.weight
    return call_inplace(OPS["div.Scalar"], (grad, x.numel())) if c.reduction == MEAN else grad


def _logits_meta(self, target, weight=None, pos_weight=None, reduction=MEAN):
    shape = _logits_shape(self, target, weight, pos_weight)
    return (shape if reduction == NONE else ()), target._dtype


def _logits_shape(self, target, weight, pos_weight):
    """The loss's shape, target's: PyTorch's composite works in place, on log_sigmoid(input)
    (times the pos_weight term) and then on 1 - target (times input, minus that, times
    weight), so each operand must broadcast into those shapes (its RuntimeError otherwise)."""
    if pos_weight is not None:
        _into(tuple(self.shape), infer_size(tuple(pos_weight.shape), tuple(target.shape)))
    shape = tuple(target.shape)
    _into(shape, tuple(self.shape))
    if weight is not None:
        _into(shape, tuple(weight.shape))
    return shape


def _into(shape, other):
    broadcast = tuple(infer_size(shape, other))
    _check(broadcast == shape, lambda: (
        f"output with shape {list(shape)} doesn't match the broadcast shape {list(broadcast)}"))


@register_op("binary_cross_entropy_with_logits(Tensor self, Tensor target, "
             "Tensor? weight=None, Tensor? pos_weight=None, int reduction=Mean) -> Tensor",
             **_OPTIONS, meta=_logits_meta,
             saves=("self", "target", "weight", "pos_weight"),
             derivatives={"self": _logits_self_grad, "target": _logits_target_grad})
def binary_cross_entropy_with_logits(xp, self, target, weight=None, pos_weight=None,
                                     reduction=MEAN):
    """(1 - t) x - w_pos log(sigmoid(x)), w_pos = (pos_weight - 1) t + 1, times weight; op by
    op as PyTorch's composite kernel (each step rounded to its tensor's dtype)."""
    _logits_shape(self, target, weight, pos_weight)   # (PyTorch's RuntimeErrors)
    log_sigmoid, _ = log_sigmoid_forward(xp, self)
    if pos_weight is not None:
        common = _common(pos_weight, target)
        log_weight = _cast(_cast(pos_weight - pos_weight.dtype.type(1), common)
                           * _cast(target, common), common)
        log_weight = _cast(log_weight + common.type(1), common)
        wide = _promote(log_sigmoid.dtype, common)
        log_sigmoid = _cast(_cast(log_sigmoid, wide) * _cast(log_weight, wide),
                            log_sigmoid.dtype)
    dtype = target.dtype
    loss = _cast(dtype.type(1) - target, dtype)
    wide = _promote(dtype, self.dtype)
    loss = _cast(_cast(loss, wide) * _cast(self, wide), dtype)
    wide = _promote(dtype, log_sigmoid.dtype)
    loss = _cast(_cast(loss, wide) - _cast(log_sigmoid, wide), dtype)
    if weight is not None:
        wide = _promote(dtype, weight.dtype)
        loss = _cast(_cast(loss, wide) * _cast(weight, wide), dtype)
    return _reduced(xp, loss, reduction)
