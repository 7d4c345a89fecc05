"""Pointwise activations of `ember.nn.functional` that are single kernels in PyTorch (most live
in `torch._C._nn`, so they are neither `ember.<name>` functions nor Tensor methods unless PyTorch
has them there too): leaky_relu, elu (selu and celu are elu with fixed constants), gelu, silu,
mish, hardtanh, hardsigmoid, hardswish, hardshrink, softshrink, softplus, threshold and
log_sigmoid. relu, softmax and log_softmax are in activation.py; the composites (prelu, rrelu,
glu, tanhshrink, softsign, softmin ...) are written in `ember/nn/_functional/activation.py`.

Each derivative is written in ember ops so that second derivatives work. Ops that PyTorch also
offers in place (leaky_relu_, elu_, hardtanh_) read the result, not the overwritten input.
"""
from __future__ import annotations

import math

import numpy as np

from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.registry import OPS, kernel_entry, register_op
from ember._ops.activation import threshold_backward_of
from ember._ops.nn_activation_backward import backward_of
from ember._ops.pointwise import not_implemented_for, scalar_into
from ember._ops.special_fast_erf import gelu_backward_float32, gelu_float32

_SELF = ("self",)
_RESULT = ("result",)
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715


def _floating(name, x):
    if x.dtype.kind != "f":
        not_implemented_for(name, x)


def _scalar(x, value):
    return scalar_into(value, x.dtype)


def _options(**extra):
    options = {"kind": "pointwise", "function": False, "method": False}
    options.update(extra)
    return options


# --------------------------------------------------------------------------- leaky_relu

@register_op("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
             **_options(inplace=True, tags=("output_saved_by_ember_only",)), saves=_RESULT,
             derivatives={"self": lambda c: backward_of(
                 "leaky_relu_backward", c.grad, c.result, c.negative_slope, True)})
def leaky_relu(xp, self, negative_slope=0.01):
    """leaky_relu(input, negative_slope=0.01) -> Tensor: input where positive, else
    negative_slope * input."""
    _floating("leaky_relu_cpu", self)
    return xp.where(self > 0, self, self * _scalar(self, negative_slope))


# --------------------------------------------------------------------------- elu family

def _elu_grad(c):
    # From the result, which elu_ leaves in place of the input: below zero,
    # d/dx alpha*scale*(exp(x*input_scale) - 1) = input_scale * (result + alpha*scale).
    return backward_of("elu_backward", c.grad, c.alpha, c.scale, c.input_scale, True, c.result)


@register_op("elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
             **_options(inplace=True, tags=("output_saved_by_ember_only",)), saves=_RESULT,
             derivatives={"self": _elu_grad})
def elu(xp, self, alpha=1, scale=1, input_scale=1):
    """elu(input, alpha=1, scale=1, input_scale=1) -> Tensor: scale * input where positive,
    else alpha * scale * (exp(input * input_scale) - 1)."""
    _floating("elu_cpu", self)
    negative = xp.expm1(self * _scalar(self, input_scale)) * _scalar(self, alpha * scale)
    return xp.where(self > 0, self * _scalar(self, scale), negative)


# --------------------------------------------------------------------------- gelu

def _gelu_tanh_grad(c):
    x = c.self
    inner = (x + _GELU_CUBIC * x * x * x) * _SQRT_2_OVER_PI
    t = inner.tanh()
    d_inner = (1 + 3 * _GELU_CUBIC * x * x) * _SQRT_2_OVER_PI
    return c.grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * d_inner)


def _gelu_grad(c):
    if c.approximate == "tanh":
        return _gelu_tanh_grad(c)
    return call(OPS["gelu_backward"], (c.grad, c.self, "none"))


def _gelu_checks(self, approximate):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if self.dtype.name != "bfloat16":
        _floating("GeluKernelImpl", self)


# compute_in_float=False: the kernel widens half inputs to float32 itself, for the float32 erf
# (NOTE [gelu at +inf]).
@register_op("gelu(Tensor self, *, str approximate='none') -> Tensor", **_options(),
             compute_in_float=False, saves=_SELF, derivatives={"self": _gelu_grad})
def gelu(xp, self, approximate="none"):
    """gelu(input, approximate='none') -> Tensor: input * Phi(input), Phi the standard normal
    CDF; approximate='tanh' uses the tanh approximation."""
    _gelu_checks(self, approximate)
    x = self.astype(np.float32) if self.dtype.itemsize < 4 else self
    if approximate == "tanh":
        half = _scalar(x, 0.5)
        inner = (x + _scalar(x, _GELU_CUBIC) * x * x * x) * _scalar(x, _SQRT_2_OVER_PI)
        result = half * x * (1 + xp.tanh(inner))
    else:
        erf = _erf(xp, x * _scalar(x, _SQRT_HALF)).astype(x.dtype)
        result = _scalar(x, 0.5) * x * (1 + erf)
    return result.astype(self.dtype, copy=False)


def _erf(xp, x):
    """erf's shared kernel (any device): the shared kernels here run on every back-end, so they
    call no CPU entry; float32 on the CPU takes gelu's own CPU entries below (NOTE [the kernel
    table]). (Looked up per call: pointwise_special registers erf after this family.)"""
    return OPS["erf"].table.resolve("strided", None)(xp, x)


@kernel_entry("gelu", "CPU")
def _gelu_cpu(xp, self, approximate="none"):
    """gelu's CPU entry (NOTE [the kernel table]): the exact form in float32 (half inputs
    widened to it) through gelu_float32, PyTorch's CPU values.

    NOTE [gelu at +inf]: gelu(+inf) is +inf, the limit of x * Phi(x), in every dtype;
    gelu(-inf) is NaN (-inf * 0), as in every PyTorch kernel. PyTorch's vectorised float32
    and bfloat16 loop gives NaN at +inf on some CPUs and inf on others (its float16 and
    float64 kernels give inf): an accident of the CPU, which ember does not copy."""
    if approximate == "tanh" or self.dtype.itemsize > 4 or self.dtype.kind == "c":
        return gelu(np, self, approximate)
    _gelu_checks(self, approximate)
    x = self.astype(np.float32) if self.dtype.itemsize < 4 else self
    if x.dtype != np.float32:
        return gelu(np, self, approximate)
    return gelu_float32(x).astype(self.dtype, copy=False)


def _gelu_backward_grad_output(c):
    x = c.self
    cdf = 0.5 * (1 + (x * _SQRT_HALF).erf())
    return c.grad * (cdf + x * (-0.5 * x * x).exp() * _INV_SQRT_2PI)


def _gelu_backward_self(c):
    # d/dx (Phi(x) + x phi(x)) = phi(x) (2 - x**2).
    x = c.self
    pdf = (-0.5 * x * x).exp() * _INV_SQRT_2PI
    return c.grad * c.grad_output * pdf * (2 - x * x)


@register_op("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') "
             "-> Tensor", **_options(), saves=("grad_output", "self"),
             derivatives={"grad_output": _gelu_backward_grad_output,
                          "self": _gelu_backward_self})
def gelu_backward(xp, grad_output, self, approximate="none"):
    """The exact GELU's gradient: grad_output * (Phi(self) + self * phi(self)), phi the
    standard normal density (the tanh form differentiates in ember ops)."""
    _gelu_checks(self, approximate)
    _check(approximate == "none", "gelu_backward: only approximate='none' is an op here")
    erf = _erf(xp, self * _scalar(self, _SQRT_HALF)).astype(self.dtype)
    density = xp.exp(self * self * _scalar(self, -0.5)) * _scalar(self, _INV_SQRT_2PI)
    return grad_output * (_scalar(self, 0.5) * (1 + erf) + self * density)


@kernel_entry("gelu_backward", "CPU")
def _gelu_backward_cpu(xp, grad_output, self, approximate="none"):
    """gelu_backward's CPU entry (NOTE [the kernel table]): float32 through
    gelu_backward_float32, PyTorch's CPU values."""
    if self.dtype != np.float32 or grad_output.dtype != np.float32:
        return gelu_backward(np, grad_output, self, approximate)
    _gelu_checks(self, approximate)
    _check(approximate == "none", "gelu_backward: only approximate='none' is an op here")
    if grad_output.shape != self.shape:
        grad_output, self = np.broadcast_arrays(grad_output, self)
    return gelu_backward_float32(grad_output, self)


# --------------------------------------------------------------------------- silu, mish

def _silu_grad(c):
    return backward_of("silu_backward", c.grad, c.self)


@register_op("silu(Tensor self) -> Tensor", **_options(inplace=True), saves=_SELF,
             derivatives={"self": _silu_grad})
def silu(xp, self):
    """silu(input) -> Tensor: input * sigmoid(input)."""
    _floating("silu_cpu", self)
    with np.errstate(over="ignore"):
        return self / (1 + xp.exp(-self))


def _mish_grad(c):
    return backward_of("mish_backward", c.grad, c.self)


@register_op("mish(Tensor self) -> Tensor", **_options(inplace=True), saves=_SELF,
             derivatives={"self": _mish_grad})
def mish(xp, self):
    """mish(input) -> Tensor: input * tanh(softplus(input))."""
    _floating("mish_cpu", self)
    return self * xp.tanh(xp.logaddexp(self, _scalar(self, 0)))


# --------------------------------------------------------------------------- hard family

@register_op("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
             **_options(inplace=True, tags=("output_saved_by_ember_only",)), saves=_RESULT,
             derivatives={"self": lambda c: backward_of(
                 "hardtanh_backward", c.grad, c.result, c.min_val, c.max_val)})
def hardtanh(xp, self, min_val=-1, max_val=1):
    """hardtanh(input, min_val=-1., max_val=1.) -> Tensor: input clamped to [min_val,
    max_val]."""
    if self.dtype.kind == "b":
        not_implemented_for("hardtanh_cpu", self)
    low, high = _scalar(self, min_val), _scalar(self, max_val)
    # clamp's order: the upper bound wins where min_val > max_val (hardtanh_ takes such bounds)
    raised = xp.where(self < low, low, self)
    return xp.where(raised > high, high, raised)


@register_op("hardsigmoid(Tensor self) -> Tensor", **_options(inplace=True), saves=_SELF,
             derivatives={"self": lambda c: backward_of("hardsigmoid_backward", c.grad,
                                                        c.self)})
def hardsigmoid(xp, self):
    """hardsigmoid(input) -> Tensor: clamp(input / 6 + 1/2, 0, 1)."""
    _floating("hardsigmoid_cpu", self)
    return xp.clip((self + _scalar(self, 3)) / _scalar(self, 6), 0, 1).astype(self.dtype)


def _hardswish_grad(c):
    return backward_of("hardswish_backward", c.grad, c.self)


@register_op("hardswish(Tensor self) -> Tensor", **_options(inplace=True), saves=_SELF,
             derivatives={"self": _hardswish_grad})
def hardswish(xp, self):
    """hardswish(input) -> Tensor: input * clamp(input + 3, 0, 6) / 6."""
    _floating("hardswish_cpu", self)
    return self * xp.clip(self + _scalar(self, 3), 0, 6).astype(self.dtype) / _scalar(self, 6)


@register_op("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", kind="pointwise",
             saves=_SELF, derivatives={"self": lambda c: backward_of(
                 "hardshrink_backward", c.grad, c.self, c.lambd)})
def hardshrink(xp, self, lambd=0.5):
    """hardshrink(input, lambd=0.5) -> Tensor: input where |input| > lambd, else 0."""
    _floating("hardshrink_cpu", self)
    limit = _scalar(self, lambd)
    return xp.where((self >= -limit) & (self <= limit), _scalar(self, 0), self)


@register_op("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor", **_options(),
             saves=_SELF, derivatives={"self": lambda c: backward_of(
                 "softshrink_backward", c.grad, c.self, c.lambd)})
def softshrink(xp, self, lambd=0.5):
    """softshrink(input, lambd=0.5) -> Tensor: input shrunk towards 0 by lambd (0 within
    [-lambd, lambd])."""
    _floating("softshrink_check", self)
    # PyTorch's bound check: lambd within [0, the dtype's largest value] (NaN is not)
    largest = float(np.finfo(self.dtype).max)
    if not 0 <= lambd <= largest:
        from ember._core import dtype as dt
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{dt.NP_TO_DTYPE[np.dtype(self.dtype)]._cpp_name}, but found "
                           f"{lambd:g}")
    limit = _scalar(self, lambd)
    # x * 0 in the middle: -0.0 and NaN come through as PyTorch's kernel gives them.
    return xp.where(self > limit, self - limit,
                    xp.where(self < -limit, self + limit, self * _scalar(self, 0)))


# --------------------------------------------------------------------------- softplus

def _softplus_grad(c):
    return backward_of("softplus_backward", c.grad, c.self, c.beta, c.threshold)


@register_op("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
             **_options(), saves=_SELF, derivatives={"self": _softplus_grad})
def softplus(xp, self, beta=1, threshold=20):
    """softplus(input, beta=1, threshold=20) -> Tensor: log(1 + exp(beta * input)) / beta,
    the identity where beta * input > threshold."""
    _floating("softplus_cpu", self)
    scaled = self * _scalar(self, beta)
    smooth = xp.logaddexp(scaled, _scalar(self, 0)) / _scalar(self, beta)
    return xp.where(scaled > _scalar(self, threshold), self, smooth)


# --------------------------------------------------------------------------- threshold

# (threshold_ writes through an expanded tensor's repeats, as PyTorch's does: every repeat of
# an element reads the same value and so writes the same result)
@register_op("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
             kind="pointwise", method=False, inplace=True, saves=_SELF,
             tags=("writes_through_repeats",),
             derivatives={"self": lambda c: threshold_backward_of(c.grad, c.self,
                                                                   c.threshold)})
def threshold(xp, self, threshold, value):
    """threshold(input, threshold, value) -> Tensor: input where input > threshold, else
    value."""
    if self.dtype.kind == "b":
        not_implemented_for("threshold_cpu", self)
    # Both Scalars in the input's dtype first, as PyTorch's kernel takes them (checked).
    return xp.where(self <= _scalar(self, threshold), _scalar(self, value), self)


# --------------------------------------------------------------------------- log_sigmoid

@register_op("log_sigmoid(Tensor self) -> Tensor", **_options(), saves=_SELF,
             derivatives={"self": lambda c: c.grad * (-c.self).sigmoid()})
def log_sigmoid(xp, self):
    """log_sigmoid(input) -> Tensor: log(1 / (1 + exp(-input))), computed without overflow."""
    _floating("log_sigmoid_cpu", self)
    zero = _scalar(self, 0)
    return xp.minimum(self, zero) - xp.log1p(xp.exp(-xp.abs(self)))
