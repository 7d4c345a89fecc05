"""Decompositions of the small products into mul and sum, and of the scaled products into
mm/bmm plus element-wise ops."""
from __future__ import annotations

from ember._decomp.registry import decomposes
from ember.ops import aten


def _summed_product(a, b, dims):
    """sum(a * b) over dims in the operands' dtype (a sum alone widens integers)."""
    import ember
    dtype = ember.result_type(a, b)
    total = aten.sum.dim_IntList(aten.mul.Tensor(a, b), dims)
    return total if total.dtype == dtype else aten._to_copy.default(total, dtype=dtype)


@decomposes(aten.dot.default)
def dot(self, tensor):
    return _summed_product(self, tensor, None)


@decomposes(aten.vdot.default)
def vdot(self, other):
    left = aten.conj_physical.default(self) if self.is_complex() else self
    return _summed_product(left, other, None)


@decomposes(aten.mv.default)
def mv(self, vec):
    return _summed_product(self, vec, [-1])


@decomposes(aten.trace.default)
def trace(self):
    return aten.sum.dim_IntList(aten.diagonal.default(self), None)


def _scaled_sum(self, product, beta, alpha):
    """beta * self + alpha * product; with beta 0 self is not read (NaN in it stays out)."""
    if alpha != 1:
        product = aten.mul.Tensor(product, alpha)
    if beta == 0:
        return product      # (self broadcasts to the product's shape)
    if beta != 1:
        self = aten.mul.Tensor(self, beta)
    return aten.add.Tensor(self, product)


@decomposes(aten.addr.default)
def addr(self, vec1, vec2, beta=1, alpha=1):
    outer = aten.mul.Tensor(aten.unsqueeze.default(vec1, 1), vec2)
    return _scaled_sum(self, outer, beta, alpha)


@decomposes(aten.baddbmm.default)
def baddbmm(self, batch1, batch2, beta=1, alpha=1):
    return _scaled_sum(self, aten.bmm.default(batch1, batch2), beta, alpha)


@decomposes(aten.addmv.default, core=False)
def addmv(self, mat, vec, beta=1, alpha=1):
    return _scaled_sum(self, aten.mv.default(mat, vec), beta, alpha)


@decomposes(aten.addmm.default, core=False)
def addmm(self, mat1, mat2, beta=1, alpha=1):
    return _scaled_sum(self, aten.mm.default(mat1, mat2), beta, alpha)
