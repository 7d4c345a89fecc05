"""Gradients that PyTorch gives a sparse layout in `ember.sparse`: `sparse.mm` / `sparse.addmm`
(the sparse operand's gradient keeps its sparsity) and `sparse.sum`. Each is a custom Function
over the sparse kernels; the constructors' and conversions' gradients are the op families'
(_ops/sparse_autograd.py)."""
from __future__ import annotations

import numpy as np

from ember._ops import sparse_arrays as arrays
from ember.autograd.function import Function


def _product_at_entries(grad, dense, sparse, alpha):
    """(grad @ dense^T) read at `sparse`'s entries only, times alpha: one row dot product per
    entry, never the dense product (of the sparse matrix's full size)."""
    pattern = arrays.coalesced(sparse) if type(sparse._data).__name__ == "SparseCOO" \
        else sparse.to_sparse()
    indices = pattern._data.indices._data
    left, right = grad.detach().numpy(), dense.detach().numpy()
    if right.ndim == 1:
        picked = left[indices[0]] * right[indices[1]]
    else:
        picked = np.einsum("ij,ij->i", left[indices[0]], right[indices[1]])
    if alpha != 1:
        picked = picked * np.asarray(alpha, dtype=picked.dtype)
    return arrays.coo(indices, picked.astype(left.dtype, copy=False), pattern._data.shape,
                      bool(sparse._data.coalesced))


class SparseAddmm(Function):
    """beta * input + alpha * (sparse @ dense), dense input and result."""

    @staticmethod
    def forward(ctx, input, sparse, dense, beta, alpha):
        import ember
        ctx.save_for_backward(sparse, dense)
        ctx.beta, ctx.alpha = beta, alpha
        if input is None:
            product = ember.mm(sparse, dense)
            return product if alpha == 1 else product * alpha
        return ember.addmm(input, sparse, dense, beta=beta, alpha=alpha)

    @staticmethod
    def backward(ctx, grad):
        sparse, dense = ctx.saved_tensors
        grad_input = grad_sparse = grad_dense = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * ctx.beta if ctx.beta != 1 else grad
        if ctx.needs_input_grad[1]:
            grad_sparse = _product_at_entries(grad, dense, sparse, ctx.alpha)
        if ctx.needs_input_grad[2]:
            grad_dense = sparse.t().mm(grad)
            if ctx.alpha != 1:
                grad_dense = grad_dense * ctx.alpha
        return grad_input, grad_sparse, grad_dense, None, None


class SparseSum(Function):
    """The sum of every entry: its gradient has the input's entries, each the incoming one."""

    @staticmethod
    def forward(ctx, sparse, dtype):
        import ember
        ctx.save_for_backward(sparse)
        return ember.sum(sparse, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        (sparse,) = ctx.saved_tensors
        data = sparse._data
        values = np.broadcast_to(grad.detach().numpy().astype(data.dtype),
                                 data.values._data.shape).copy()
        return arrays.like_coo(sparse, values), None


def sparse_sum_tracked(sparse, dtype):
    return SparseSum.apply(sparse, dtype)


def sparse_addmm(input, sparse, dense, beta=1, alpha=1):
    return SparseAddmm.apply(input, sparse, dense, beta, alpha)


# The node names PyTorch gives these gradients (a Function's node is `<Class>Backward`).
for _function, _node_name in ((SparseAddmm, "SparseAddmmBackward0"), (SparseSum, "SumBackward0")):
    _function._backward_cls.__name__ = _node_name
    _function._backward_cls.__qualname__ = _node_name
