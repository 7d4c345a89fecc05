"""The activations' gradients as ops of their own, as PyTorch's formulas call them (a mode sees
`tanh_backward` where a chain of products would show three ops): tanh_backward,
sigmoid_backward, silu_backward, mish_backward, elu_backward, leaky_relu_backward,
hardtanh_backward, hardsigmoid_backward, hardswish_backward, softplus_backward,
softshrink_backward and hardshrink_backward. (threshold_backward is in activation.py,
gelu_backward in nn_activation.py.)

Each kernel is grad_output * f'(x) (or f' read off the output y), one pass in the compute
dtype. Their own formulas (double backward), with G the incoming gradient: the op itself with G
for grad_output (the gradient is linear in it), and G * grad_output * f'' for the input, zero
where f is piecewise linear.
"""
from __future__ import annotations

import numpy as np

from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._ops.grad_utils import conj, where, zeros_grad
from ember._ops.pointwise import not_implemented_for, scalar_into

_OPTIONS = {"kind": "pointwise", "function": False, "method": False}


def _scalar(x, value):
    return scalar_into(value, x.dtype)


def _floating(kernel_name, x, kinds="f"):
    """PyTorch's refusal of an integer or bool input to a float-only kernel."""
    if x.dtype.kind not in kinds:
        not_implemented_for(kernel_name, x)


def backward_of(name, *args):
    """Call the gradient op `name` (the forward ops' formulas use this)."""
    return call(OPS[name], args)


def _again(name, *rest):
    """The formula for grad_output: the op itself on the incoming gradient."""
    return lambda c: backward_of(name, c.grad, *(getattr(c, r) for r in rest))


# --------------------------------------------------------------------------- read off the output

@register_op("tanh_backward(Tensor grad_output, Tensor output) -> Tensor", **_OPTIONS,
             saves=("grad_output", "output"),
             derivatives={"grad_output": _again("tanh_backward", "output"),
                          "output": lambda c: c.grad * conj(-2 * c.output * c.grad_output)})
def tanh_backward(xp, grad_output, output):
    """grad_output * (1 - output^2), conjugated for complex outputs."""
    _floating("tanh_backward_cpu", output, "fc")
    slope = 1 - output * output
    return grad_output * (xp.conj(slope) if slope.dtype.kind == "c" else slope)


@register_op("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", **_OPTIONS,
             saves=("grad_output", "output"),
             derivatives={"grad_output": _again("sigmoid_backward", "output"),
                          "output": lambda c: c.grad * conj(c.grad_output * (1 - 2 * c.output))})
def sigmoid_backward(xp, grad_output, output):
    """grad_output * (1 - output) * output (in that order, as PyTorch's kernel), conjugated
    for complex outputs."""
    _floating("sigmoid_backward_cpu", output, "fc")
    if output.dtype.kind == "c":
        return grad_output * xp.conj((1 - output) * output)
    return grad_output * (1 - output) * output


def _elu_backward_input_grad(c):
    g, x = c.grad * c.grad_output, c.self_or_result
    if c.is_result:
        return where(x > 0, 0.0, g * c.input_scale)
    rate = c.input_scale
    return where(x > 0, 0.0, g * (rate * rate * c.alpha * c.scale) * (x * rate).exp())


@register_op("elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, "
             "bool is_result, Tensor self_or_result) -> Tensor", **_OPTIONS,
             saves=("grad_output", "self_or_result"),
             derivatives={"grad_output": _again("elu_backward", "alpha", "scale", "input_scale",
                                                "is_result", "self_or_result"),
                          "self_or_result": _elu_backward_input_grad})
def elu_backward(xp, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    """elu's gradient: scale above zero; below, input_scale * (result + alpha * scale) read off
    the result, or input_scale * alpha * scale * exp(x * input_scale) off the input."""
    x = self_or_result
    rate, negative = _scalar(x, input_scale), _scalar(x, alpha * scale)
    with np.errstate(over="ignore", invalid="ignore"):
        below = rate * (x + negative) if is_result else rate * negative * xp.exp(x * rate)
        return xp.where(x > 0, grad_output * _scalar(x, scale), grad_output * below)


# --------------------------------------------------------------------------- read off the input

def _silu_input_grad(c):
    x = c.self
    s = x.sigmoid()
    return c.grad * c.grad_output * s * (1 - s) * (2 + x * (1 - 2 * s))


@register_op("silu_backward(Tensor grad_output, Tensor self) -> Tensor", **_OPTIONS,
             saves=("grad_output", "self"),
             derivatives={"grad_output": _again("silu_backward", "self"),
                          "self": _silu_input_grad})
def silu_backward(xp, grad_output, self):
    """grad_output * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    _floating("silu_backward_cpu", self)
    with np.errstate(over="ignore"):
        s = 1 / (1 + xp.exp(-self))
    return grad_output * (s * (1 + self * (1 - s)))


def _mish_input_grad(c):
    x = c.self
    s = x.sigmoid()
    t = OPS["softplus"](x, 1, 20).tanh()
    curve = (1 - t * t) * s * (2 + x * ((1 - s) - 2 * t * s))
    return c.grad * c.grad_output * curve


@register_op("mish_backward(Tensor grad_output, Tensor self) -> Tensor", **_OPTIONS,
             saves=("grad_output", "self"),
             derivatives={"grad_output": _again("mish_backward", "self"),
                          "self": _mish_input_grad})
def mish_backward(xp, grad_output, self):
    """grad_output * (t + x * s * (1 - t^2)), t = tanh(softplus(x)), s = sigmoid(x)."""
    _floating("mish_backward_cpu", self)
    with np.errstate(over="ignore"):
        s = 1 / (1 + xp.exp(-self))
    t = xp.tanh(xp.logaddexp(self, _scalar(self, 0)))
    return grad_output * (t + self * s * (1 - t * t))


def _softplus_input_grad(c):
    scaled = c.self * c.beta
    s = scaled.sigmoid()
    return where(scaled > c.threshold, 0.0, c.grad * c.grad_output * c.beta * s * (1 - s))


@register_op("softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) "
             "-> Tensor", **_OPTIONS, saves=("grad_output", "self"),
             derivatives={"grad_output": _again("softplus_backward", "self", "beta", "threshold"),
                          "self": _softplus_input_grad})
def softplus_backward(xp, grad_output, self, beta, threshold):
    """grad_output where beta * x > threshold, else grad_output * sigmoid(beta * x)."""
    _floating("softplus_backward_cpu", self)
    scaled = self * _scalar(self, beta)
    with np.errstate(over="ignore"):
        slope = 1 / (1 + xp.exp(-scaled))
    return xp.where(scaled > _scalar(self, threshold), grad_output, grad_output * slope)


def _hardswish_input_grad(c):
    x = c.self
    return where((x > -3) & (x < 3), c.grad * c.grad_output / 3, 0.0)


@register_op("hardswish_backward(Tensor grad_output, Tensor self) -> Tensor", **_OPTIONS,
             saves=("grad_output", "self"),
             derivatives={"grad_output": _again("hardswish_backward", "self"),
                          "self": _hardswish_input_grad})
def hardswish_backward(xp, grad_output, self):
    """grad_output * (x / 3 + 1/2) strictly between -3 and 3, 0 at -3 and below, grad_output
    elsewhere (3 and above, NaN), as PyTorch's kernel."""
    _floating("hardswish_backward_cpu", self)
    middle = grad_output * (self / _scalar(self, 3) + _scalar(self, 0.5))
    zero = _scalar(grad_output, 0)
    return xp.where((self > -3) & (self < 3), middle, xp.where(self <= -3, zero, grad_output))


# --------------------------------------------------------------------------- piecewise linear

@register_op("leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, "
             "bool self_is_result) -> Tensor", **_OPTIONS, saves=("self",),
             derivatives={"grad_output": _again("leaky_relu_backward", "self", "negative_slope",
                                                "self_is_result"),
                          "self": zeros_grad})
def leaky_relu_backward(xp, grad_output, self, negative_slope, self_is_result):
    """grad_output where x > 0, else grad_output * negative_slope."""
    _floating("leaky_relu_backward_cpu", self)
    return xp.where(self > 0, grad_output, grad_output * _scalar(grad_output, negative_slope))


@register_op("hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) "
             "-> Tensor", **_OPTIONS, saves=("self",),
             derivatives={"grad_output": _again("hardtanh_backward", "self", "min_val",
                                                "max_val"),
                          "self": zeros_grad})
def hardtanh_backward(xp, grad_output, self, min_val, max_val):
    """0 where x <= min_val or x >= max_val, else grad_output."""
    _floating("hardshrink_backward_cpu", self)     # (PyTorch's kernel name for it)
    outside = (self <= _scalar(self, min_val)) | (self >= _scalar(self, max_val))
    return xp.where(outside, _scalar(grad_output, 0), grad_output)


@register_op("hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor", **_OPTIONS,
             saves=("self",),
             derivatives={"grad_output": _again("hardsigmoid_backward", "self"),
                          "self": zeros_grad})
def hardsigmoid_backward(xp, grad_output, self):
    """grad_output / 6 strictly between -3 and 3, else 0."""
    _floating("hardsigmoid_backward", self)
    inside = (self > -3) & (self < 3)
    return xp.where(inside, grad_output / _scalar(grad_output, 6), _scalar(grad_output, 0))


def _shrink_backward(xp, grad_output, self, lambd):
    _floating("shrink_backward_cpu", self)
    limit = _scalar(self, lambd)
    inside = (self >= -limit) & (self <= limit)
    return xp.where(inside, _scalar(grad_output, 0), grad_output)


@register_op("softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor",
             **_OPTIONS, saves=("self",),
             derivatives={"grad_output": _again("softshrink_backward", "self", "lambd"),
                          "self": zeros_grad})
def softshrink_backward(xp, grad_output, self, lambd):
    """0 where |x| <= lambd, else grad_output."""
    return _shrink_backward(xp, grad_output, self, lambd)


@register_op("hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor",
             **_OPTIONS, saves=("self",),
             derivatives={"grad_out": _again("hardshrink_backward", "self", "lambd"),
                          "self": zeros_grad})
def hardshrink_backward(xp, grad_out, self, lambd):
    """0 where |x| <= lambd, else grad_out."""
    return _shrink_backward(xp, grad_out, self, lambd)
