"""The affine layers' ops: linear (input @ weight^T + bias, one BLAS product; the hottest op in
`ember.nn`) and bilinear (input1^T A input2 + bias per output feature).

NOTE [linear is one product]: PyTorch's linear is a composite that lowers to addmm for a 2-d
input with a bias, to mm/matmul otherwise; here it is one entry whose kernel makes one
matmul (and adds the bias in place), and whose node is named after the op PyTorch would have
recorded (AddmmBackward0, MmBackward0, ...). The derivatives are products too.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.cpu_allocator import MIN_BYTES as POOLED_BYTES
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.registry import OPS, register_op
from ember._core.shape import size_at
from ember._ops.linalg import check_kernel_dtype, compute


def _cpp(np_dtype):
    return dt.NP_TO_DTYPE[np.dtype(np_dtype)]._cpp_name


def _broadcasts_to(shape, target):
    return len(shape) <= len(target) and all(
        s == 1 or s == t for s, t in zip(reversed(shape), reversed(target)))


def _linear_checks(input, weight, bias):
    _check(weight.ndim in (1, 2), lambda: (
        f"linear(): weight must be 1-D or 2-D, got {weight.ndim}-D"))
    _check(input.ndim >= 1, "both arguments to linear need to be at least 1D, but they are "
           f"{input.ndim}D and {weight.ndim}D")
    in_features = weight.shape[-1]
    _check(input.shape[-1] == in_features, lambda: (
        f"mat1 and mat2 shapes cannot be multiplied "
        f"({int(np.prod(input.shape[:-1]))}x{input.shape[-1]} and "
        f"{weight.shape[-1]}x{weight.shape[0] if weight.ndim == 2 else 1})"))
    _check(input.dtype == weight.dtype, lambda: (
        f"mat1 and mat2 must have the same dtype, but got {_cpp(input.dtype)} and "
        f"{_cpp(weight.dtype)}"))
    shape = input.shape[:-1] + weight.shape[:-1]
    if bias is not None:
        _check(bias.dtype == input.dtype, lambda: (
            f"self and mat2 must have the same dtype, but got {_cpp(bias.dtype)} and "
            f"{_cpp(input.dtype)}"))
        _check(_broadcasts_to(bias.shape, shape), lambda: (
            f"The size of tensor a ({bias.shape[-1] if bias.ndim else 1}) must match the size "
            f"of tensor b ({shape[-1] if shape else 1}) at non-singleton dimension "
            f"{max(len(shape) - 1, 0)}"))
    return shape


def _linear_meta(input, weight, bias=None):
    shape = _linear_checks(input._data, weight._data, None if bias is None else bias._data)
    return (shape, input._dtype)


def _linear_node_name(args, outputs):
    input, weight, bias = args
    if input.ndim == 2 and weight.ndim == 2:
        return "AddmmBackward0" if bias is not None else "MmBackward0"
    if input.ndim > 2 and weight.ndim == 2:
        return "ViewBackward0" if bias is not None else "UnsafeViewBackward0"
    return "LinearBackward0"


def _rows(t, features):
    """t as a matrix of rows of `features` values (a 1-d t is one row). The row count is
    spelled out: -1 cannot be inferred when `features` is 0 (a zero-width layer)."""
    return t.reshape(math.prod(t.shape[:-1]), features)


def _linear_input_grad(c):
    weight = c.weight
    if weight.ndim == 1:
        return c.grad.unsqueeze(-1) * weight
    return c.grad.matmul(weight)


def _linear_weight_grad(c):
    grad, input = c.grad, c.input
    if c.weight.ndim == 1:
        return (grad.unsqueeze(-1) * input).reshape(-1, input.shape[-1]).sum(0)
    out_features = c.weight.shape[0]
    return _rows(grad, out_features).t().mm(_rows(input, input.shape[-1]))


def _linear_bias_grad(c):
    grad = c.grad
    if grad.ndim == 0:
        return grad
    return grad.reshape(-1, grad.shape[-1]).sum(0) if grad.ndim > 1 else grad


_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


@register_op("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
             kind="generic", function=False, method=False, tags=("fp_errors",),
             meta=_linear_meta, saves=("input", "weight"), node_name=_linear_node_name,
             derivatives={"input": _linear_input_grad, "weight": _linear_weight_grad,
                          "bias": _linear_bias_grad})
def linear(xp, input, weight, bias=None):
    """linear(input, weight, bias=None) -> Tensor: input @ weight^T + bias."""
    dtype = input.dtype
    # The common case (float32/float64 operands of matching shapes) goes straight to the
    # product; anything else takes the checks, which raise PyTorch's errors. (NumPy's own
    # float32/float64 descriptors are tested by identity: an equal descriptor that is another
    # object takes the checks, which accept it.)
    plain = ((dtype is _FLOAT32 or dtype is _FLOAT64) and weight.dtype is dtype
             and weight.ndim == 2 and input.ndim >= 1 and input.shape[-1] == weight.shape[1]
             and (bias is None or (bias.dtype is dtype and bias.shape == weight.shape[:1])))
    if not plain:
        _linear_checks(input, weight, bias)
        check_kernel_dtype("addmm_impl_cpu_", input)
        out = compute(xp, xp.matmul, input, weight.T)
        if bias is None:
            return out
        return (out + bias).astype(dtype, copy=False)
    lead = None
    if input.ndim > 2:
        # NOTE [linear of a batch is one product]: (..., K) rows as one (N, K) matrix, so BLAS
        # runs one product rather than NumPy's loop of one small product per leading index
        # (2.6x faster for the LSTM benchmark's (35, 20, 256) head; each row's sum is the
        # same, so the values are too).
        lead = input.shape[:-1]
        input = input.reshape(math.prod(lead), input.shape[-1])
    if input.nbytes + weight.nbytes < POOLED_BYTES:
        out = xp.matmul(input, weight.T)
    else:       # NOTE [CPU caching allocator], NOTE [back-end helpers]
        out = backend_helpers(xp).matmul(input, weight.T)
    if lead is not None:
        out = out.reshape(lead + weight.shape[:1])
    if bias is not None:
        if out.ndim:
            out += bias
        else:
            out = out + bias
    return out


# --------------------------------------------------------------------------- bilinear

def _bilinear_checks(input1, input2, weight, bias):
    # PyTorch's order: the inputs' ranks and batch sizes, then the sizes it reads
    # (input.size(-1), weight.size(1), weight.size(2): IndexErrors for too few dimensions),
    # then the weight's rank.
    _check(input1.ndim == input2.ndim, lambda: (
        f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"))
    for dim in range(input1.ndim - 1):
        _check(input1.shape[dim] == input2.shape[dim], lambda dim=dim: (
            f"bilinear(): input batch dimensions do not match at dim {dim}: got "
            f"{input1.shape[dim]} and {input2.shape[dim]}"))
    _check(size_at(weight.shape, 1) == size_at(input1.shape, -1), lambda: (
        f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
        f"expected {weight.shape[1]}"))
    _check(size_at(weight.shape, 2) == size_at(input2.shape, -1), lambda: (
        f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
        f"expected {weight.shape[2]}"))
    _check(weight.ndim == 3, lambda: f"bilinear(): weight must be 3-D, got {weight.ndim}-D")
    if bias is not None:
        _check(bias.shape == (weight.shape[0],), lambda: (
            f"bilinear(): bias size does not match weight size: got {bias.shape[-1]} but "
            f"expected {weight.shape[0]}"))
    return input1.shape[:-1] + (weight.shape[0],)


def _bilinear_meta(input1, input2, weight, bias=None):
    arrays = [None if a is None else a._data for a in (input1, input2, weight, bias)]
    return (_bilinear_checks(*arrays), input1._dtype)


def _einsum(equation, *tensors):
    return call(OPS["einsum"], (equation, list(tensors)))


@register_op("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> "
             "Tensor", kind="generic", method=False, tags=("fp_errors",),
             meta=_bilinear_meta, saves=("input1", "input2", "weight"),
             node_name="ViewBackward0",
             derivatives={
                 "input1": lambda c: _einsum("...o,oij,...j->...i", c.grad, c.weight, c.input2),
                 "input2": lambda c: _einsum("...o,oij,...i->...j", c.grad, c.weight, c.input1),
                 "weight": lambda c: _einsum("...o,...i,...j->oij", c.grad, c.input1, c.input2),
                 "bias": _linear_bias_grad})
def bilinear(xp, input1, input2, weight, bias=None):
    """bilinear(input1, input2, weight, bias=None) -> Tensor: for each output feature o,
    sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]."""
    _bilinear_checks(input1, input2, weight, bias)
    # (..., i) x (o, i, j) -> (..., o, j), then contract j with input2.
    left = xp.matmul(input1[..., None, None, :], weight)[..., 0, :]
    out = xp.matmul(left, input2[..., :, None])[..., 0]
    if bias is not None:
        out = out + bias
    return out.astype(input1.dtype, copy=False)
