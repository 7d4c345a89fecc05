"""The contraction composites as PyTorch's run them (NOTE [composites decompose under modes]):
tensordot and inner are permutes and reshapes around one `mm` (or `dot`), multi_dot and
chain_matmul a chain of `mm`s in the cheapest order, so a mode sees PyTorch's ops."""
from __future__ import annotations

import math

from ember._decomp.composite import _reshape, composite
from ember.ops import aten


@composite(aten.tensordot.default)
def tensordot(self, other, dims_self, dims_other):
    dims_self = [d % max(self.ndim, 1) for d in dims_self]
    dims_other = [d % max(other.ndim, 1) for d in dims_other]
    for i, j in zip(dims_self, dims_other):
        # A summed dimension of size 1 against a longer one: the longer is summed first.
        if self.shape[i] == 1 and other.shape[j] != 1:
            other = aten.sum.dim_IntList(other, [j], True)
        elif other.shape[j] == 1 and self.shape[i] != 1:
            self = aten.sum.dim_IntList(self, [i], True)
    free_self = [d for d in range(self.ndim) if d not in dims_self]
    free_other = [d for d in range(other.ndim) if d not in dims_other]
    out_shape = [self.shape[d] for d in free_self] + [other.shape[d] for d in free_other]
    if not free_self and not free_other:
        # Everything is summed: one dot of the flattened operands.
        left = aten.permute.default(self, dims_self)
        right = aten.permute.default(other, dims_other)
        left = left if left.ndim <= 1 else _reshape(left, [-1])
        right = right if right.ndim <= 1 else _reshape(right, [-1])
        return _reshape(aten.dot.default(left, right), out_shape)
    summed = math.prod(self.shape[d] for d in dims_self)
    left = _reshape(aten.permute.default(self, free_self + dims_self),
                    [math.prod(self.shape[d] for d in free_self), summed])
    right = _reshape(aten.permute.default(other, dims_other + free_other),
                     [summed, math.prod(other.shape[d] for d in free_other)])
    return _reshape(aten.mm.default(left, right), out_shape)


@composite(aten.inner.default)
def inner(self, other):
    if self.ndim == 0 or other.ndim == 0:
        return aten.mul.Tensor(self, other)
    return tensordot(self, other, [-1], [-1])


def _chain(matrices):
    """The product of 2-D `matrices` in the order of fewest multiplications (the classic
    dynamic programme over split points; ties keep the leftmost split)."""
    n = len(matrices)
    if n == 2:
        return aten.mm.default(matrices[0], matrices[1])
    dims = [matrices[0].shape[0]] + [m.shape[1] for m in matrices]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i, j):
        if i == j:
            return matrices[i]
        k = split[i][j]
        return aten.mm.default(product(i, k), product(k + 1, j))
    return product(0, n - 1)


@composite(aten.linalg_multi_dot.default)
def linalg_multi_dot(tensors):
    tensors = list(tensors)
    if len(tensors) == 1:
        return aten.clone.default(tensors[0])
    first, last = tensors[0], tensors[-1]
    out_shape = ([first.shape[0]] if first.ndim == 2 else []) + (
        [last.shape[-1]] if last.ndim == 2 else [])
    if first.ndim == 1:
        tensors[0] = aten.unsqueeze.default(first, 0)
    if last.ndim == 1:
        tensors[-1] = aten.unsqueeze.default(last, -1)
    return aten.view.default(_chain(tensors), out_shape)


@composite(aten.chain_matmul.default)
def chain_matmul(matrices):
    matrices = list(matrices)
    if len(matrices) == 1:
        return aten.clone.default(matrices[0])
    out = _chain(matrices)
    return aten.view.default(out, [matrices[0].shape[0], matrices[-1].shape[1]])


def _label_rank(label):
    # PyTorch numbers the labels a-z, then A-Z.
    return (label.isupper(), label)


def _diagonals(t, labels):
    """Each label repeated within one operand taken on its diagonal, kept where it first
    stood."""
    labels = list(labels)
    i = 0
    while i < len(labels):
        j = labels.index(labels[i], i + 1) if labels[i] in labels[i + 1:] else -1
        if j < 0:
            i += 1
            continue
        t = aten.diagonal.default(t, 0, i, j)
        label = labels[i]
        del labels[j], labels[i]
        order = list(range(t.ndim - 1))
        order.insert(i, t.ndim - 1)
        t = aten.permute.default(t, order)
        labels.insert(i, label)
    return t, labels


def _pair(left, right, summed):
    """The product of two operands of one rank summed over the dims `summed` (kept, size 1):
    batch, left-only, summed and right-only dims as one `bmm`."""
    both, lonly, ronly = [], [], []
    for d in range(left.ndim):
        if d in summed:
            continue
        if left.shape[d] != 1 and right.shape[d] != 1:
            both.append(d)
        elif right.shape[d] != 1:
            ronly.append(d)
        else:
            lonly.append(d)

    def size(t, dims):
        return math.prod(t.shape[d] for d in dims)
    sizes = [left.shape[d] if d in both or d in lonly else right.shape[d] for d in range(left.ndim)]
    a = _reshape(aten.permute.default(left, both + lonly + summed + ronly),
                 [size(left, both), size(left, lonly), size(left, summed)])
    b = _reshape(aten.permute.default(right, both + summed + ronly + lonly),
                 [size(right, both), size(right, summed), size(right, ronly)])
    out = aten.bmm.default(a, b)
    order = both + lonly + summed + ronly
    shape = [1 if d in summed else sizes[d] for d in order]
    out = _reshape(out, shape)
    return aten.permute.default(out, [order.index(d) for d in range(left.ndim)])


@composite(aten.einsum.default)
def einsum(equation, tensors, path=None):
    from ember._ops.contraction import _explicit_labels
    tensors = list(tensors)
    inputs, output, _ = _explicit_labels(equation, [tuple(t.shape) for t in tensors])
    summed = sorted({lab for labels in inputs for lab in labels} - set(output), key=_label_rank)
    order = list(output) + summed
    operands = []
    for t, labels in zip(tensors, inputs):
        t, labels = _diagonals(t, labels)
        for label in order:
            if label not in labels:
                t = aten.unsqueeze.default(t, t.ndim)
                labels.append(label)
        operands.append(aten.permute.default(t, [labels.index(lab) for lab in order]))
    dims = {lab: len(output) + i for i, lab in enumerate(summed)}
    if len(operands) == 1:
        out = operands[0]
        return aten.sum.dim_IntList(out, list(dims.values())) if summed else out
    out = operands[0]
    for k in range(1, len(operands)):
        right = operands[k]
        later = {lab for labels in inputs[k + 1:] for lab in labels}
        now = [dims[lab] for lab in summed if lab not in later and
               (lab in inputs[k] or any(lab in labels for labels in inputs[:k]))]
        # The summed dims only one side holds: summed on that side first.
        left_only = [d for d in now if right.shape[d] == 1 and out.shape[d] != 1]
        right_only = [d for d in now if out.shape[d] == 1 and right.shape[d] != 1]
        if left_only:
            out = aten.sum.dim_IntList(out, left_only, True)
        if right_only:
            right = aten.sum.dim_IntList(right, right_only, True)
        now = [d for d in now if out.shape[d] != 1 or right.shape[d] != 1]
        out = _pair(out, right, now) if now else aten.mul.Tensor(out, right)
    if summed:
        out = _reshape(out, list(out.shape[:len(output)]))
    return out
