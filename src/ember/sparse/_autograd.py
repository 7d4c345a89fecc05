"""Gradients that PyTorch gives a sparse layout: `sparse.mm` / `sparse.addmm` (the sparse
operand's gradient keeps its sparsity), `to_dense` (the gradient masked to the stored entries),
`to_sparse` and `coalesce`. Each is a custom Function over the sparse kernels."""
from __future__ import annotations

import numpy as np

from ember._ops import sparse_arrays as arrays
from ember.autograd.function import Function


def sparse_mask_of(dense, sparse):
    """`dense` read at `sparse`'s (coalesced) entries, as a coalesced COO tensor."""
    pattern = arrays.coalesced(sparse) if type(sparse._data).__name__ == "SparseCOO" \
        else sparse.to_sparse()
    indices = pattern._data.indices._data
    picked = dense.detach().numpy()[tuple(indices)]
    # Flagged as `sparse` is (PyTorch's mask keeps the flag of the tensor it masks with).
    return arrays.coo(indices, np.ascontiguousarray(picked), pattern._data.shape,
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
            grad_sparse = sparse_mask_of(grad.mm(dense.t()), sparse)
            if ctx.alpha != 1:
                grad_sparse = grad_sparse * ctx.alpha
        if ctx.needs_input_grad[2]:
            grad_dense = sparse.t().mm(grad)
            if ctx.alpha != 1:
                grad_dense = grad_dense * ctx.alpha
        return grad_input, grad_sparse, grad_dense, None, None


class ToDense(Function):
    @staticmethod
    def forward(ctx, sparse):
        ctx.save_for_backward(sparse)
        return arrays.dense_tensor(arrays.to_array(sparse))

    @staticmethod
    def backward(ctx, grad):
        (sparse,) = ctx.saved_tensors
        return sparse_mask_of(grad, sparse)


class ToSparse(Function):
    @staticmethod
    def forward(ctx, dense, sparse_dim):
        return arrays.array_to_coo(dense.detach().numpy(), sparse_dim, dense.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.to_dense(), None


class Coalesce(Function):
    @staticmethod
    def forward(ctx, sparse):
        out = arrays.coalesced(sparse)
        return out if out is not sparse else sparse.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad


def to_dense_tracked(sparse):
    return ToDense.apply(sparse)


def to_sparse_tracked(dense, sparse_dim):
    return ToSparse.apply(dense, sparse_dim)


def coalesce_tracked(sparse):
    if sparse._data.coalesced:
        return sparse
    return Coalesce.apply(sparse)


def sparse_addmm(input, sparse, dense, beta=1, alpha=1):
    return SparseAddmm.apply(input, sparse, dense, beta, alpha)
