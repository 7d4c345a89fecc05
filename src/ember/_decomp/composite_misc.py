"""More of PyTorch's CompositeImplicitAutograd ops (NOTE [composites decompose under modes]):
sorting's index forms, diagonals, complex parts, differences, the normal CDF and the products
that lower to a matrix product or a broadcast multiply. Each calls the ATen ops PyTorch's own
composite calls, in its order (checked against PyTorch's modes in tests/decomp)."""
from __future__ import annotations

import math

from ember._decomp.composite import composite
from ember.ops import aten


@composite(aten.adjoint.default)
def adjoint(self):
    return aten.transpose.int(self, -2, -1)


@composite(aten.argsort.default, core=True)
def argsort(self, dim=-1, descending=False):
    return aten.sort.default(self, dim, descending)[1]


@composite(aten.argsort.stable, core=True)
def argsort_stable(self, stable, dim=-1, descending=False):
    return aten.sort.stable(self, stable=stable, dim=dim, descending=descending)[1]


@composite(aten.msort.default, core=True)
def msort(self):
    return aten.sort.default(self, 0)[0]


@composite(aten.argwhere.default, core=True)
def argwhere(self):
    return aten.nonzero.default(self)


@composite(aten.unflatten.int)
def unflatten(self, dim, sizes):
    ndim = max(self.ndim, 1)
    d = dim % ndim
    sizes = list(sizes)
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes[sizes.index(-1)] = self.shape[d] // known if known else 0
    return aten.view.default(self, list(self.shape[:d]) + sizes + list(self.shape[d + 1:]))


@composite(aten.narrow.Tensor)
def narrow_tensor(self, dim, start, length):
    start = aten._local_scalar_dense.default(start)
    start = start % self.shape[dim] if start < 0 else start
    return aten.slice.Tensor(self, dim, start, start + length)


@composite(aten.tensor_split.sections)
def tensor_split_sections(self, sections, dim=0):
    base, extra = divmod(self.shape[dim], sections)
    pieces, start = [], 0
    for i in range(sections):
        end = start + base + (1 if i < extra else 0)
        pieces.append(aten.slice.Tensor(self, dim, start, end))
        start = end
    return pieces


@composite(aten.tensor_split.indices)
def tensor_split_indices(self, indices, dim=0):
    pieces, start = [], 0
    for end in list(indices) + [self.shape[dim]]:
        pieces.append(aten.slice.Tensor(self, dim, start, end))
        start = end
    return pieces


# --------------------------------------------------------------------------- diagonals

@composite(aten.diag.default, core=True)
def diag(self, diagonal=0):
    if self.ndim == 1:
        return aten.diag_embed.default(self, diagonal)
    return aten.diagonal_copy.default(self, diagonal)


@composite(aten.diagflat.default, core=True)
def diagflat(self, offset=0):
    import ember
    if not self.is_contiguous():
        self = aten.clone.default(self, memory_format=ember.contiguous_format)
    return aten.diag_embed.default(aten.view.default(self, [-1]), offset)


# --------------------------------------------------------------------------- complex parts

@composite(aten.conj_physical.default)
def conj_physical(self):
    # A real tensor is its own conjugate (no op at all, as in PyTorch).
    return aten._conj_physical.default(self) if self.is_complex() else self


@composite(aten.imag.default)
def imag(self):
    return aten.select.int(aten.view_as_real.default(self), -1, 1)


@composite(aten.isreal.default, core=True)
def isreal(self):
    import ember
    if not self.is_complex():
        return aten.ones_like.default(self, dtype=ember.bool,
                                      memory_format=ember.preserve_format)
    return aten.eq.Scalar(imag(self), 0)


# --------------------------------------------------------------------------- element-wise

@composite(aten.special_ndtr.default, core=True)
def special_ndtr(self):
    x = aten.erf.default(aten.mul.Scalar(self, math.sqrt(0.5)))
    return aten.mul.Scalar(aten.add.Scalar(x, 1), 0.5)


@composite(aten.diff.default, core=True)
def diff(self, n=1, dim=-1, prepend=None, append=None):
    import ember
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, self, append) if t is not None]
        self = aten.cat.default(parts, dim)
    for _ in range(n):
        length = self.shape[dim]
        if length == 0:
            break
        head = aten.slice.Tensor(self, dim, 0, length - 1)
        tail = aten.slice.Tensor(self, dim, 1, length)
        self = (aten.logical_xor.default(tail, head) if self.dtype == ember.bool
                else aten.sub.Tensor(tail, head))
    return self


# --------------------------------------------------------------------------- products

@composite(aten.kron.default, core=True)
def kron(self, other):
    ndim = max(self.ndim, other.ndim)
    a = [1] * (ndim - self.ndim) + list(self.shape)
    b = [1] * (ndim - other.ndim) + list(other.shape)
    # Interleave: self's dims at the even places, other's at the odd ones.
    left = aten._unsafe_view.default(self, [s for d in a for s in (d, 1)])
    right = aten._unsafe_view.default(other, [s for d in b for s in (1, d)])
    product = aten.mul.Tensor(left, right)
    return aten._unsafe_view.default(product, [x * y for x, y in zip(a, b)])
