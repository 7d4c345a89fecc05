"""Decompositions of the activation functions into element-wise ops."""
from __future__ import annotations

import math

from ember._decomp.composite import composite
from ember._decomp.registry import decomposes
from ember.ops import aten


@decomposes(aten.hardtanh.default, core=False)
def hardtanh(self, min_val=-1, max_val=1):
    return aten.clamp.Tensor(self, min_val, max_val)


@decomposes(aten.hardsigmoid.default)
def hardsigmoid(self):
    return aten.div.Tensor(aten.clamp.Tensor(aten.add.Tensor(self, 3), 0, 6), 6)


@decomposes(aten.hardswish.default)
def hardswish(self):
    gate = aten.div.Tensor(aten.clamp.Tensor(aten.add.Tensor(self, 3), 0, 6), 6)
    return aten.mul.Tensor(self, gate)


@decomposes(aten.silu.default)
def silu(self):
    return aten.mul.Tensor(self, aten.sigmoid.default(self))


@decomposes(aten.mish.default)
def mish(self):
    return aten.mul.Tensor(self, aten.tanh.default(softplus(self)))


@decomposes(aten.elu.default, core=False)
def elu(self, alpha=1, scale=1, input_scale=1):
    negative = aten.mul.Tensor(aten.expm1.default(aten.mul.Tensor(self, input_scale)),
                               alpha * scale)
    return aten.where.self(aten.gt.Tensor(self, 0), aten.mul.Tensor(self, scale), negative)


@decomposes(aten.leaky_relu.default, core=False)
def leaky_relu(self, negative_slope=0.01):
    return aten.where.self(aten.gt.Tensor(self, 0), self,
                           aten.mul.Tensor(self, negative_slope))


def _gelu_tanh_inner(self):
    cube = aten.mul.Tensor(aten.mul.Tensor(self, self), self)
    return aten.mul.Tensor(aten.add.Tensor(self, aten.mul.Tensor(cube, 0.044715)),
                           math.sqrt(2.0 / math.pi))


@decomposes(aten.gelu.default, core=False)
def gelu(self, approximate="none"):
    if approximate == "tanh":
        gate = aten.add.Tensor(aten.tanh.default(_gelu_tanh_inner(self)), 1)
    else:
        gate = aten.add.Tensor(aten.erf.default(aten.mul.Tensor(self, math.sqrt(0.5))), 1)
    return aten.mul.Tensor(aten.mul.Tensor(self, 0.5), gate)


@decomposes(aten.gelu_backward.default)
def gelu_backward(grad_output, self, approximate="none"):
    if approximate == "tanh":
        inner = aten.tanh.default(_gelu_tanh_inner(self))
        square = aten.mul.Tensor(self, self)
        d_inner = aten.mul.Tensor(aten.add.Tensor(aten.mul.Tensor(square, 3 * 0.044715), 1),
                                  math.sqrt(2.0 / math.pi))
        left = aten.mul.Tensor(aten.add.Tensor(inner, 1), 0.5)
        right = aten.mul.Tensor(
            aten.mul.Tensor(aten.mul.Tensor(self, 0.5),
                            aten.rsub.Tensor(aten.mul.Tensor(inner, inner), 1)), d_inner)
        return aten.mul.Tensor(grad_output, aten.add.Tensor(left, right))
    cdf = aten.mul.Tensor(aten.add.Tensor(aten.erf.default(aten.mul.Tensor(self, math.sqrt(0.5))),
                                          1), 0.5)
    pdf = aten.mul.Tensor(aten.exp.default(aten.mul.Tensor(aten.mul.Tensor(self, self), -0.5)),
                          1.0 / math.sqrt(2.0 * math.pi))
    return aten.mul.Tensor(grad_output, aten.add.Tensor(cdf, aten.mul.Tensor(self, pdf)))


@decomposes(aten.softplus.default)
def softplus(self, beta=1, threshold=20):
    scaled = aten.mul.Tensor(self, beta)
    smooth = aten.div.Tensor(aten.log1p.default(aten.exp.default(scaled)), beta)
    return aten.where.self(aten.gt.Tensor(scaled, threshold), self, smooth)


@composite(aten.log_sigmoid.default, core=True)
def log_sigmoid(self):
    # PyTorch's composite: the forward op's output (losses.py decomposes that one further).
    return aten.log_sigmoid_forward.default(self)[0]


@decomposes(aten.hardshrink.default)
def hardshrink(self, lambd=0.5):
    return aten.where.self(aten.le.Tensor(aten.abs.default(self), lambd), 0, self)


@decomposes(aten.softshrink.default)
def softshrink(self, lambd=0.5):
    above = aten.sub.Tensor(self, lambd)
    below = aten.add.Tensor(self, lambd)
    out = aten.where.self(aten.lt.Tensor(self, -lambd), below, 0)
    return aten.where.self(aten.gt.Tensor(self, lambd), above, out)
