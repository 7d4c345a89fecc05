"""Activations that PyTorch has at the top level and as Tensor methods: relu (and relu_),
softmax and log_softmax. The `ember.nn.functional` forms build on these.

softmax and log_softmax shift by the maximum along `dim` before exponentiating, so large inputs
do not overflow; float16/bfloat16 inputs are computed in float32 and rounded once, as PyTorch's
CPU kernels do.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, kernel_entry, register_frontend, register_op
from ember._core.shape import wrap_dim
from ember._ops.pointwise import not_implemented_for
from ember._ops.pointwise_ternary import keep_where
from ember._ops.summation import accurate_sum

_LOW_PRECISION = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


# --------------------------------------------------------------------------- relu

@register_op("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
             kind="pointwise", function=False, method=False, saves=("self",),
             derivatives={"grad_output": lambda c: threshold_backward_of(c.grad, c.self,
                                                                          c.threshold),
                          "self": lambda c: None},
             tags=("no_fp_errors",))
def threshold_backward(xp, grad_output, self, threshold):
    """threshold_backward(grad_output, self, threshold) -> Tensor: 0 where self <= threshold,
    else grad_output (the gradient of relu and threshold: one op and a branch-free select
    instead of a comparison and a where)."""
    keep = ~(self <= threshold)         # NaN keeps its gradient, as in PyTorch
    return xp.where(keep, grad_output, grad_output.dtype.type(0))


@kernel_entry("threshold_backward", "CPU")
def _threshold_backward_cpu(xp, grad_output, self, threshold):
    """threshold_backward's CPU entry (NOTE [the kernel table]): the select as one NumPy copy
    through the kept mask (`keep_where`), where the mask fits the gradient's shape."""
    keep = ~(self <= threshold)
    if keep.shape != grad_output.shape and np.broadcast_shapes(
            keep.shape, grad_output.shape) == grad_output.shape:
        keep = np.broadcast_to(keep, grad_output.shape)
    return keep_where(keep, grad_output)     # (shapes that differ still: NumPy's where)


def threshold_backward_of(grad, self, threshold):
    return dispatch.call(OPS["threshold_backward"], (grad, self, threshold))


@register_op("relu(Tensor self) -> Tensor", kind="pointwise", inplace=True, out=False,
             saves=("result",),
             derivatives={"self": lambda c: threshold_backward_of(c.grad, c.result, 0)},
             tags=("no_fp_errors",))
def relu(xp, self):
    """relu(input) -> Tensor: max(input, 0) elementwise (NaN stays NaN)."""
    _relu_checks(self.dtype)
    return xp.maximum(self, xp.zeros((), self.dtype))


def _relu_checks(dtype):
    _check(dtype.kind != "b", "Boolean inputs not supported for relu")
    if dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")


@kernel_entry("relu", "CPU")
def _relu_cpu(xp, self):
    """relu's CPU entry (NOTE [the kernel table]): the 0-d zero of each dtype made once, read
    only, shared by every call."""
    dtype = self.dtype
    zero = _RELU_ZEROS.get(dtype)
    if zero is None:                    # a dtype not seen before: checked now
        _relu_checks(dtype)
        zero = np.zeros((), dtype)
        zero.flags.writeable = False
        _RELU_ZEROS[dtype] = zero
    return np.maximum(self, zero)


# relu's 0-d zero of each NumPy dtype it has met (read-only, shared by every call).
_RELU_ZEROS: dict = {}


@register_frontend("relu_", method=False)
def relu_(input):
    """relu_(input) -> Tensor: relu written into input."""
    if _state.entry and _wants(locals()):
        return _handle(relu_, locals())
    return dispatch.call_inplace(OPS["relu"], (input,))


# --------------------------------------------------------------------------- softmax

def _softmax_dtype(self_dtype, dtype, kernel_name, empty=False):
    """The result dtype (the input's, or `dtype`, to which the input is cast first; an empty
    input takes any, as PyTorch returns it before it looks for a kernel)."""
    result = self_dtype if dtype is None else dtype
    if not result.is_floating_point and not empty:
        raise NotImplementedError(
            f'"{kernel_name}" not implemented for \'{result._cpp_name}\'')
    return result


def _softmax_meta(kernel_name):
    def meta(self, dim, dtype=None):
        wrap_dim(dim, self.ndim)
        return tuple(self.shape), _softmax_dtype(self._dtype, dtype, kernel_name,
                                                 0 in self.shape)
    return meta


def _shifted(xp, self, dim, dtype, kernel_name):
    """(input minus its maximum along dim, in the compute dtype; the axis; the result dtype)."""
    axis = wrap_dim(dim, self.ndim)
    if self.size == 0:                # (any dtype: _softmax_dtype)
        result = self.dtype if dtype is None else np.dtype(dtype._np)
        return xp.empty(self.shape, result), axis, result
    x = self if dtype is None else self.astype(dtype._np)
    if x.dtype.kind != "f" and x.dtype not in _LOW_PRECISION:
        not_implemented_for(kernel_name, x)
    result = x.dtype
    if x.dtype in _LOW_PRECISION:
        x = x.astype(np.float32)
    if x.ndim == 0:
        x = x.reshape(1)
        axis = 0
    if x.size == 0:
        return x, axis, result
    # An all -inf row gives -inf - -inf = NaN, as it does in PyTorch.
    with np.errstate(invalid="ignore"):
        return x - x.max(axis=axis, keepdims=True), axis, result


def _softmax_grad(c):
    y = c.result
    return dispatch.call(OPS["_softmax_backward_data"], (c.grad, y, c.dim, y.dtype))


@register_op("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
             meta=_softmax_meta("softmax_lastdim_kernel_impl"), saves=("result",),
             derivatives={"self": _softmax_grad}, tags=("fp_errors", "out_without_autograd"))
def softmax(xp, self, dim, dtype=None):
    """softmax(input, dim, dtype=None) -> Tensor: exp(input) / sum(exp(input)) along dim.

    With `dtype` the input is cast to it first; integer inputs need a floating `dtype`.
    """
    x, axis, result = _shifted(xp, self, dim, dtype, "softmax_lastdim_kernel_impl")
    with np.errstate(invalid="ignore"):
        if x is not self and x.size and axis == x.ndim - 1 and x.shape[-1] <= _SHORT_ROW:
            # The shifted input is a fresh array: exponentiate and divide it in place, and sum
            # short rows with one BLAS product (several times faster than a reduction).
            e = xp.exp(x, out=x)
            e /= xp.matmul(e, xp.ones((e.shape[-1], 1), e.dtype))
            return e.reshape(self.shape).astype(result, copy=False)
        e = xp.exp(x)
        out = e / accurate_sum(xp, e, (axis,), True)
    return out.reshape(self.shape).astype(result, copy=False)


def _half_to_float_meta(kernel_name):
    meta = _softmax_meta(kernel_name)

    def half_meta(self, dim, half_to_float):
        _check(not half_to_float, lambda: "softmax with half to float conversion is not "
               "supported on CPU")
        return meta(self, dim)
    return half_meta


@register_op("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", method=False,
             meta=_half_to_float_meta("softmax_lastdim_kernel_impl"), saves=("result",),
             derivatives={"self": _softmax_grad}, tags=("fp_errors",))
def _softmax(xp, self, dim, half_to_float):
    """_softmax(input, dim, half_to_float) -> Tensor: softmax in the input's dtype (what
    softmax.int decomposes into)."""
    _check(not half_to_float, lambda: "softmax with half to float conversion is not "
           "supported on CPU")
    return softmax(xp, self, dim)


# Rows up to this length are summed in float32 by BLAS (its blocked sum is as accurate as
# the pairwise one at this length); longer rows go through accurate_sum.
_SHORT_ROW = 1024


def _log_softmax_grad(c):
    y = c.result
    return dispatch.call(OPS["_log_softmax_backward_data"], (c.grad, y, c.dim, y.dtype))


@register_op("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
             meta=_softmax_meta("log_softmax_lastdim_kernel_impl"), saves=("result",),
             derivatives={"self": _log_softmax_grad}, tags=("fp_errors", "out_without_autograd"))
def log_softmax(xp, self, dim, dtype=None):
    """log_softmax(input, dim, dtype=None) -> Tensor: log(softmax(input, dim)), computed as
    input - max - log(sum(exp(input - max))) so that it neither overflows nor underflows."""
    x, axis, result = _shifted(xp, self, dim, dtype, "log_softmax_lastdim_kernel_impl")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = x - xp.log(accurate_sum(xp, xp.exp(x), (axis,), True))
    return out.reshape(self.shape).astype(result, copy=False)


@register_op("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", method=False,
             meta=_half_to_float_meta("log_softmax_lastdim_kernel_impl"), saves=("result",),
             derivatives={"self": _log_softmax_grad}, tags=("fp_errors",))
def _log_softmax(xp, self, dim, half_to_float):
    """_log_softmax(input, dim, half_to_float) -> Tensor: log_softmax in the input's dtype
    (what log_softmax.int decomposes into)."""
    _check(not half_to_float, lambda: "softmax with half to float conversion is not "
           "supported on CPU")
    return log_softmax(xp, self, dim)


# --------------------------------------------------------------------------- their backwards
# The kernels softmax's and log_softmax's formulas call, as PyTorch's do (a mode sees one op):
# softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g), along `dim`, in float32 for
# half types and rounded once to `input_dtype`. Their own formulas (double backward), with G the
# incoming gradient: softmax's is itself in grad_output and G * (g - sum(g * y)) - g * sum(G * y)
# in output; log_softmax's is G - sum(G * exp(y)) in grad_output and -G * exp(y) * sum(g) in
# output.

def _backward_data_meta(grad_output, output, dim, input_dtype):
    wrap_dim(dim, output.ndim)
    return tuple(output.shape), input_dtype


def _softmax_backward_output_grad(c):
    G, g, y = c.grad, c.grad_output, c.output
    return G * (g - (g * y).sum(c.dim, keepdim=True)) - g * (G * y).sum(c.dim, keepdim=True)


def _backward_operands(xp, grad_output, output, dim):
    axis = wrap_dim(dim, output.ndim)
    g, y = grad_output, output
    if g.dtype in _LOW_PRECISION:
        g, y = g.astype(np.float32), y.astype(np.float32)
    if y.ndim == 0:
        g, y, axis = g.reshape(1), y.reshape(1), 0
    return g, y, axis


@register_op("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
             "ScalarType input_dtype) -> Tensor", function=False, method=False,
             meta=_backward_data_meta, saves=("grad_output", "output"),
             derivatives={"grad_output": lambda c: _softmax_grad_of(c.grad, c.output, c.dim),
                          "output": _softmax_backward_output_grad},
             tags=("fp_errors",))
def _softmax_backward_data(xp, grad_output, output, dim, input_dtype):
    """The gradient of softmax with output `output`: output * (grad - sum(grad * output))."""
    g, y, axis = _backward_operands(xp, grad_output, output, dim)
    with np.errstate(invalid="ignore", over="ignore"):
        gy = g * y
        out = y * (g - accurate_sum(xp, gy, (axis,), True)) if gy.size else gy
    return out.reshape(output.shape).astype(input_dtype._np, copy=False)


def _softmax_grad_of(grad, output, dim):
    return dispatch.call(OPS["_softmax_backward_data"], (grad, output, dim, output.dtype))


@register_op("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
             "ScalarType input_dtype) -> Tensor", function=False, method=False,
             meta=_backward_data_meta, saves=("grad_output", "output"),
             derivatives={"grad_output": lambda c: c.grad - (c.grad * c.output.exp()).sum(
                              c.dim, keepdim=True),
                          "output": lambda c: -c.grad * c.output.exp() * c.grad_output.sum(
                              c.dim, keepdim=True)},
             tags=("fp_errors",))
def _log_softmax_backward_data(xp, grad_output, output, dim, input_dtype):
    """The gradient of log_softmax with output `output`: grad - exp(output) * sum(grad)."""
    g, y, axis = _backward_operands(xp, grad_output, output, dim)
    with np.errstate(invalid="ignore", over="ignore"):
        out = g - xp.exp(y) * accurate_sum(xp, g, (axis,), True) if g.size else g
    return out.reshape(output.shape).astype(input_dtype._np, copy=False)
