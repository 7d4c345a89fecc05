"""Decompositions of element-wise ops into simpler element-wise ops (add, mul, where, exp ...)."""
from __future__ import annotations

import math

import ember
from ember._decomp.registry import decomposes
from ember.ops import aten


def _operands(dtype, *values):
    """`values` as tensors of `dtype` (numbers made 0-d tensors on the tensors' device)."""
    device = next(v.device for v in values if isinstance(v, ember.Tensor))
    return [(v if v.dtype == dtype else aten._to_copy.default(v, dtype=dtype))
            if isinstance(v, ember.Tensor) else
            aten.scalar_tensor.default(v, dtype=dtype, device=device) for v in values]


def _float_result(*values):
    """The dtype an int-to-float op computes in for these operands."""
    dtype = ember.result_type(*values)
    return dtype if dtype.is_floating_point or dtype.is_complex else \
        ember.get_default_dtype()


def _integral(t):
    return not (t.is_floating_point() or t.is_complex())


@decomposes(aten.addcmul.default)
def addcmul(self, tensor1, tensor2, value=1):
    if _integral(self):
        value = int(value)      # the kernel converts value to the tensors' integer type
    return aten.add.Tensor(self, aten.mul.Tensor(aten.mul.Tensor(tensor1, value), tensor2))


@decomposes(aten.addcdiv.default)
def addcdiv(self, tensor1, tensor2, value=1):
    return aten.add.Tensor(self, aten.mul.Tensor(aten.div.Tensor(tensor1, tensor2), value))


@decomposes(aten.lerp.Tensor)
def lerp(self, end, weight):
    # Two forms, each exact at its end of the interval (weight 0 gives self, 1 gives end).
    if not isinstance(weight, ember.Tensor):
        weight = aten.scalar_tensor.default(weight, dtype=self.dtype, device=self.device)
    diff = aten.sub.Tensor(end, self)
    small = aten.lt.Tensor(aten.abs.default(weight), 0.5)
    near_self = aten.add.Tensor(self, aten.mul.Tensor(weight, diff))
    near_end = aten.sub.Tensor(end, aten.mul.Tensor(diff, aten.rsub.Tensor(weight, 1)))
    return aten.where.self(small, near_self, near_end)


@decomposes(aten.rsub.Tensor)
def rsub(self, other, alpha=1):
    return aten.sub.Tensor(other, self, alpha=alpha)


@decomposes(aten.clamp_min.Tensor)
def clamp_min(self, min):
    return aten.maximum.default(*_operands(ember.result_type(self, min), self, min))


@decomposes(aten.clamp_max.Tensor)
def clamp_max(self, max):
    return aten.minimum.default(*_operands(ember.result_type(self, max), self, max))


@decomposes(aten.xlogy.Tensor)
def xlogy(self, other):
    self, other = _operands(_float_result(self, other), self, other)
    product = aten.mul.Tensor(self, aten.log.default(other))
    zero_self = aten.where.self(aten.eq.Tensor(self, 0), 0.0, product)
    return aten.where.self(aten.isnan.default(other), other, zero_self)


@decomposes(aten.special_xlog1py.default)
def special_xlog1py(self, other):
    self, other = _operands(_float_result(self, other), self, other)
    product = aten.mul.Tensor(self, aten.log1p.default(other))
    zero_self = aten.where.self(aten.eq.Tensor(self, 0), 0.0, product)
    return aten.where.self(aten.isnan.default(other), other, zero_self)


@decomposes(aten.special_entr.default)
def special_entr(self):
    positive = aten.neg.default(aten.mul.Tensor(self, aten.log.default(self)))
    at_zero = aten.where.self(aten.eq.Tensor(self, 0), 0.0, -math.inf)
    out = aten.where.self(aten.gt.Tensor(self, 0), positive, at_zero)
    return aten.where.self(aten.isnan.default(self), self, out)


@decomposes(aten.deg2rad.default)
def deg2rad(self):
    return aten.mul.Tensor(self, math.pi / 180.0)


@decomposes(aten.rad2deg.default)
def rad2deg(self):
    return aten.mul.Tensor(self, 180.0 / math.pi)


@decomposes(aten.frac.default)
def frac(self):
    return aten.sub.Tensor(self, aten.trunc.default(self))


@decomposes(aten.logaddexp.default)
def logaddexp(self, other):
    high = aten.maximum.default(self, other)
    low = aten.minimum.default(self, other)
    out = aten.add.Tensor(high, aten.log1p.default(aten.exp.default(aten.sub.Tensor(low, high))))
    # Equal infinities: the difference is NaN, the answer is that infinity.
    same_infinity = aten.logical_and.default(aten.isinf.default(high),
                                             aten.eq.Tensor(self, other))
    return aten.where.self(same_infinity, self, out)


@decomposes(aten.logaddexp2.default)
def logaddexp2(self, other):
    high = aten.maximum.default(self, other)
    low = aten.minimum.default(self, other)
    tail = aten.log1p.default(aten.exp2.default(aten.sub.Tensor(low, high)))
    out = aten.add.Tensor(high, aten.mul.Tensor(tail, 1.0 / math.log(2.0)))
    same_infinity = aten.logical_and.default(aten.isinf.default(high),
                                             aten.eq.Tensor(self, other))
    return aten.where.self(same_infinity, self, out)


@decomposes(aten.logit.default)
def logit(self, eps=None):
    x = self if eps is None else aten.clamp.Tensor(self, eps, 1.0 - eps)
    return aten.log.default(aten.div.Tensor(x, aten.rsub.Tensor(x, 1)))


@decomposes(aten.sinc.default)
def sinc(self):
    scaled = aten.mul.Tensor(self, math.pi)
    ratio = aten.div.Tensor(aten.sin.default(scaled), scaled)
    return aten.where.self(aten.eq.Tensor(self, 0), 1.0, ratio)


@decomposes(aten.heaviside.default)
def heaviside(self, values):
    step = aten.where.self(aten.gt.Tensor(self, 0), 1, 0)
    out = aten.where.self(aten.eq.Tensor(self, 0), values, step)
    return aten._to_copy.default(out, dtype=_promoted(self, values))


def _promoted(a, b):
    return ember.result_type(a, b)


@decomposes(aten.isneginf.default)
def isneginf(self):
    return aten.eq.Tensor(self, -math.inf)


@decomposes(aten.isposinf.default)
def isposinf(self):
    return aten.eq.Tensor(self, math.inf)


@decomposes(aten.floor_divide.default)
def floor_divide(self, other):
    return aten.div.Tensor_mode(self, other, rounding_mode="floor")


@decomposes(aten.float_power.Tensor_Tensor)
def float_power(self, other):
    complex_ = any(v.is_complex() if isinstance(v, ember.Tensor) else isinstance(v, complex)
                   for v in (self, other))
    return aten.pow.Tensor_Tensor(*_operands(ember.complex128 if complex_ else ember.float64,
                                             self, other))


@decomposes(aten.nan_to_num.default)
def nan_to_num(self, nan=None, posinf=None, neginf=None):
    if not self.is_floating_point():
        return aten.clone.default(self)
    info = ember.finfo(self.dtype)
    out = aten.where.self(aten.isnan.default(self), 0.0 if nan is None else nan, self)
    out = aten.where.self(aten.isposinf.default(self),
                          info.max if posinf is None else posinf, out)
    return aten.where.self(aten.isneginf.default(self),
                           info.min if neginf is None else neginf, out)


@decomposes(aten.threshold.default)
def threshold(self, threshold, value):
    return aten.where.self(aten.le.Tensor(self, threshold), value, self)


@decomposes(aten.threshold_backward.default)
def threshold_backward(grad_output, self, threshold):
    return aten.where.self(aten.le.Tensor(self, threshold), 0, grad_output)


@decomposes(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def masked_fill(self, mask, value):
    filled = aten.where.self(mask, value, self)
    return aten._to_copy.default(filled, dtype=self.dtype)
