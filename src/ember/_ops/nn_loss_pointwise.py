"""The elementwise losses as ops of their own, as PyTorch has them, so that a mode sees
`mse_loss` and `mse_loss_backward` where a composite would show a chain of pointwise ops:
mse_loss, smooth_l1_loss, huber_loss, soft_margin_loss, binary_cross_entropy (each with its
`_backward` kernel), binary_cross_entropy_with_logits (its gradient a composite of ops, as
PyTorch's formula is) and log_sigmoid_forward / log_sigmoid_backward.

NOTE [elementwise loss kernels]: each kernel computes per element in the dtype PyTorch's kernel
does and rounds where PyTorch's rounds: float16 rounds after every operation where PyTorch's
kernel is written in the tensor's scalar type (mse, smooth_l1, the backward kernels), and once
at the end where PyTorch's widens to float (huber, smooth_l1 in bfloat16, log_sigmoid). The
reduction is ember's own `mean` / `sum` kernel, as PyTorch's kernels end in `mean()` / `sum()`.
`reduction` is PyTorch's enum: 0 none, 1 mean, 2 sum. The gradient kernels' own derivatives
(double backward) are composites of ember ops.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch import call
from ember._core.promotion import promote_types, result_type_from
from ember._core.registry import OPS, register_op
from ember._core.shape import infer_size
from ember._ops.pointwise import not_implemented_for
from ember._ops.reduction import mean as _mean_kernel
from ember._ops.reduction import sum as _sum_kernel

NONE, MEAN, SUM = 0, 1, 2
# (fp_errors: the kernels run with NumPy's floating-point warnings off, as every op)
_OPTIONS = {"function": False, "method": False, "tags": ("fp_errors",)}
_HALF = frozenset((np.dtype(dt.float16._np), np.dtype(dt.bfloat16._np)))
_F32 = np.dtype(np.float32)


def _ember_dtype(array):
    return dt.NP_TO_DTYPE[np.dtype(array.dtype)]


def _common(*arrays):
    """PyTorch's common dtype of tensor operands (0-d ones weaker), as a NumPy dtype."""
    dims = [_ember_dtype(a) for a in arrays if a.ndim]
    zeros = [_ember_dtype(a) for a in arrays if not a.ndim]
    return result_type_from(dims, zeros, ())._np


def _promote(a, b):
    return promote_types(dt.NP_TO_DTYPE[np.dtype(a)], dt.NP_TO_DTYPE[np.dtype(b)])._np


def _cast(array, np_dtype):
    return array.astype(np_dtype, copy=False)


def _opmath(np_dtype):
    """The dtype a kernel that widens half types computes in."""
    return _F32 if np_dtype in _HALF else np_dtype


def _float_kernel(kernel_name, np_dtype, kinds="f"):
    """PyTorch's refusal of a dtype its kernel has no loop for (floating, or also complex)."""
    found = dt.NP_TO_DTYPE[np.dtype(np_dtype)]
    if not (found.is_floating_point or ("c" in kinds and found.is_complex)):
        not_implemented_for(kernel_name, np.empty((), np_dtype))


def _reduced(xp, loss, reduction):
    _check(reduction in (NONE, MEAN, SUM), lambda: f"{reduction} is not a valid value for reduction")
    if reduction == MEAN:
        return _mean_kernel(xp, loss)
    if reduction == SUM:
        return _sum_kernel(xp, loss)
    return loss


def _norm(reduction, numel, scale=1.0):
    return scale / numel if reduction == MEAN else scale


def _loss_meta(result_dtype):
    def meta(self, target, reduction=MEAN, *rest):
        shape = infer_size(tuple(self.shape), tuple(target.shape))
        return (shape if reduction == NONE else ()), result_dtype(self, target)
    return meta


def _promoted(self, target):
    return result_type_from([t._dtype for t in (self, target) if t.ndim],
                            [t._dtype for t in (self, target) if not t.ndim], ())


def _input_dtype(self, target):
    return self._dtype


def _grad_meta(grad_output, self, *rest):
    return tuple(self.shape), self._dtype


def _op(name, *args):
    return call(OPS[name], args)


def sum_to(t, shape):
    """`t` summed down to `shape` (a 0-d shape included)."""
    shape = tuple(shape)
    return t.sum() if shape == () and t.ndim else t.sum_to_size(shape) if shape else t


def _both_sides(name, *rest):
    """The formulas of a loss symmetric in (input, target) up to sign: its gradient kernel
    `name`, with the two swapped for target's."""
    def side(first, second):
        return lambda c: _op(name, c.grad, getattr(c, first), getattr(c, second),
                             *(getattr(c, r) for r in rest))
    return {"self": side("self", "target"), "target": side("target", "self")}


def _again(name, *rest):
    """The formula for a gradient kernel's grad_output: the kernel itself on the incoming
    gradient (it is linear in grad_output), summed to grad_output's shape."""
    return lambda c: sum_to(_op(name, c.grad, *(getattr(c, r) for r in rest)),
                            c.grad_output.shape)


def _expanded(xp, grad_output, shape):
    return xp.broadcast_to(grad_output, shape)


# --------------------------------------------------------------------------- mse_loss

@register_op("mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
             **_OPTIONS, meta=_loss_meta(_promoted),
             saves=("self", "target"),
             derivatives=_both_sides("mse_loss_backward", "reduction"))
def mse_loss(xp, self, target, reduction=MEAN):
    """(input - target)**2 per element, reduced (NOTE [elementwise loss kernels])."""
    common = _common(self, target)
    _float_kernel("mse_cpu", common, "fc")
    difference = _cast(self, common) - _cast(target, common)
    return _reduced(xp, difference * difference, reduction)


def _mse_second(c):
    """d(mse_loss_backward)/d(self) = -d/d(target): 2 norm * grad_output, times the incoming
    gradient."""
    return c.grad * c.grad_output * _norm(c.reduction, c.self.numel(), 2.0)


@register_op("mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) "
             "-> Tensor", **_OPTIONS, meta=_grad_meta,
             saves=("grad_output", "self", "target"),
             derivatives={
                 "grad_output": _again("mse_loss_backward",
                                       "self", "target", "reduction"),
                 "self": _mse_second, "target": lambda c: -_mse_second(c)})
def mse_loss_backward(xp, grad_output, self, target, reduction):
    """norm * (input - target) * grad_output, norm 2/numel for a mean (else 2), in the
    common dtype rounded at each step, as the result dtype of the input."""
    common = _common(self, target, grad_output)
    norm = np.asarray(_norm(reduction, self.size, 2.0)).astype(common)
    difference = _cast(self, common) - _cast(target, common)
    grad = (norm * difference) * _expanded(xp, _cast(grad_output, common), self.shape)
    return _cast(grad, self.dtype)


# --------------------------------------------------------------------------- smooth_l1_loss

@register_op("smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) "
             "-> Tensor", **_OPTIONS, meta=_loss_meta(_promoted),
             saves=("self", "target"),
             derivatives=_both_sides("smooth_l1_loss_backward", "reduction", "beta"))
def smooth_l1_loss(xp, self, target, reduction=MEAN, beta=1.0):
    """0.5 z**2 / beta where z = |input - target| < beta, else z - 0.5 beta; plain L1 for
    beta 0 (NOTE [elementwise loss kernels]: bfloat16 computes in float32)."""
    _check(beta >= 0, "smooth_l1_loss does not support negative values for beta.")
    common = _common(self, target)
    _float_kernel("smooth_l1_cpu", common)
    compute = _F32 if common == np.dtype(dt.bfloat16._np) else common
    z = xp.abs(_cast(self, compute) - _cast(target, compute))
    if beta == 0:
        loss = z
    else:
        b, half = compute.type(beta), compute.type(0.5)
        loss = xp.where(z < b, half * z * z / b, z - half * b)
    return _reduced(xp, _cast(loss, common), reduction)


def _smooth_l1_second(c):
    """d(smooth_l1_loss_backward)/d(self): norm * grad_output / beta inside |x| < beta."""
    x = c.self - c.target
    inside = (x.abs() < c.beta)
    return c.grad * c.grad_output * inside * (_norm(c.reduction, c.self.numel()) / c.beta)


@register_op("smooth_l1_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
             "int reduction, float beta) -> Tensor", **_OPTIONS,
             meta=_grad_meta, saves=("grad_output", "self", "target"),
             derivatives={
                 "grad_output": _again("smooth_l1_loss_backward",
                                       "self", "target", "reduction", "beta"),
                 "self": _smooth_l1_second,
                 "target": lambda c: -_smooth_l1_second(c)})
def smooth_l1_loss_backward(xp, grad_output, self, target, reduction, beta):
    """norm * sign(x) * grad where |x| >= beta, else norm * (x / beta) * grad (the order of
    PyTorch's vectorised loop), x = input - target; half types compute in float32."""
    common = _common(self, target, grad_output)
    compute = _opmath(common)
    x = _cast(self, compute) - _cast(target, compute)
    b = compute.type(beta)
    one = compute.type(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = xp.where(xp.abs(x) >= b, xp.where(x > 0, one, -one), x / b)
    norm = compute.type(_norm(reduction, self.size))
    grad = (norm * slope) * _expanded(xp, _cast(grad_output, compute), self.shape)
    return _cast(grad, self.dtype)


# --------------------------------------------------------------------------- huber_loss

@register_op("huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) "
             "-> Tensor", **_OPTIONS, meta=_loss_meta(_input_dtype),
             saves=("self", "target"),
             derivatives=_both_sides("huber_loss_backward", "reduction", "delta"))
def huber_loss(xp, self, target, reduction=MEAN, delta=1.0):
    """0.5 z**2 where z = |input - target| < delta, else delta (z - 0.5 delta); the input's
    dtype, computed in float32 for float16 (bfloat16 rounds at each step, as PyTorch's)."""
    _check(delta > 0, "huber_loss does not support non-positive values for delta.")
    common = _common(self, target)
    _float_kernel("huber_cpu", common)
    compute = _F32 if common == np.dtype(dt.float16._np) else common
    z = xp.abs(_cast(self, compute) - _cast(target, compute))
    d, half = compute.type(delta), compute.type(0.5)
    loss = xp.where(z < d, half * z * z, d * (z - half * d))
    return _reduced(xp, _cast(loss, self.dtype), reduction)


def _huber_second(c):
    x = c.self - c.target
    inside = (x.abs() < c.delta)
    return c.grad * c.grad_output * inside * _norm(c.reduction, c.self.numel())


@register_op("huber_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
             "int reduction, float delta) -> Tensor", **_OPTIONS,
             meta=_grad_meta, saves=("grad_output", "self", "target"),
             derivatives={
                 "grad_output": _again("huber_loss_backward",
                                       "self", "target", "reduction", "delta"),
                 "self": _huber_second,
                 "target": lambda c: -_huber_second(c)})
def huber_loss_backward(xp, grad_output, self, target, reduction, delta):
    """norm * grad * delta (negated for x <= -delta) where |x| >= delta, else norm * x * grad,
    in the common dtype rounded at each step."""
    common = _common(self, target, grad_output)
    compute = common
    x = _cast(self, compute) - _cast(target, compute)
    d = compute.type(delta)
    norm = compute.type(_norm(reduction, self.size))
    g = _expanded(xp, _cast(grad_output, compute), self.shape)
    grad = xp.where(x <= -d, -norm * g * d, xp.where(x >= d, norm * g * d, norm * x * g))
    return _cast(grad, self.dtype)


# --------------------------------------------------------------------------- soft_margin_loss

def _soft_margin_forward(xp, self, target):
    """log1p(exp(-input * target)) written op by op into a tensor of the input's dtype, as
    PyTorch's kernel does (so an integer input is the in-place ops' casting error)."""
    out = self.dtype
    _check(out != np.bool_, "Negation, the `-` operator, on a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    common = _common(self, target)
    if not _ember_dtype(self).is_floating_point and not _ember_dtype(self).is_complex:
        wider = common if _ember_dtype(np.empty((), common)).is_floating_point else \
            dt.get_default_dtype()._np
        _check(False, lambda: (f"result type {_ember_dtype(np.empty((), wider))._cpp_name} "
                               f"can't be cast to the desired output type "
                               f"{_ember_dtype(self)._cpp_name}"))
    product = _cast(_cast(-self, common) * _cast(target, common), out)
    return xp.log1p(xp.exp(product))


@register_op("soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
             **_OPTIONS, meta=_loss_meta(_input_dtype),
             saves=("self", "target"),
             derivatives={"self": lambda c: _op("soft_margin_loss_backward", c.grad, c.self,
                                                c.target, c.reduction)})
def soft_margin_loss(xp, self, target, reduction=MEAN):
    """log(1 + exp(-target * input)) in the input's dtype, reduced."""
    infer_size(self.shape, target.shape)        # (PyTorch's RuntimeError, not NumPy's)
    return _reduced(xp, _soft_margin_forward(xp, self, target), reduction)


def _soft_margin_second(c):
    # d/dx of -norm t z / (1 + z) * g with z = exp(-t x): norm t^2 z / (1 + z)^2 * g.
    z = (c.target.neg() * c.self).exp()
    return c.grad * c.grad_output * c.target * c.target * z / ((1 + z) * (1 + z)) * \
        _norm(c.reduction, c.self.numel())


@register_op("soft_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, "
             "int reduction) -> Tensor", **_OPTIONS, meta=_grad_meta,
             saves=("grad_output", "self", "target"),
             derivatives={
                 "grad_output": _again("soft_margin_loss_backward",
                                       "self", "target", "reduction"),
                 "self": _soft_margin_second})
def soft_margin_loss_backward(xp, grad_output, self, target, reduction):
    """-norm * target * z / (1 + z) * grad, z = exp(-target * input) in the operands' common
    dtype, written op by op into a tensor of the input's dtype (PyTorch's in-place
    sequence; the number norm rounded to that dtype first)."""
    out, common = self.dtype, _common(self, target)
    z = xp.exp(_cast(-target, common) * _cast(self, common))
    grad = _cast(_cast(target, common) * z, out)
    grad = _cast(grad * out.type(-_norm(reduction, self.size)), out)
    wide = _promote(out, common)
    grad = _cast(_cast(grad, wide) / _cast(z + common.type(1), wide), out)
    g = _expanded(xp, grad_output, self.shape)
    return _cast(_cast(grad, _promote(out, g.dtype)) * g, out)
