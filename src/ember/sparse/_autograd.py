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


class FromValues(Function):
    """sparse_coo_tensor(indices, values) with `values` requiring grad: its gradient is the
    incoming gradient read at the indices (dense or sparse incoming)."""

    @staticmethod
    def forward(ctx, values, build):
        out = build(values.detach())
        ctx.indices = out._data.indices._data
        ctx.sizes = out._data.shape[:out._data.sparse_dim]
        return out

    @staticmethod
    def backward(ctx, grad):
        if type(grad._data).__name__ == "SparseCSR":
            grad = grad.to_sparse()
        if type(grad._data).__name__ != "SparseCOO":
            return arrays.dense_tensor(grad.detach().numpy()[tuple(ctx.indices)]), None
        grad = arrays.coalesced(grad)
        wanted = arrays.linear_index(ctx.indices, ctx.sizes)
        have = arrays.linear_index(grad._data.indices._data, ctx.sizes)
        values = grad._data.values._data
        where = np.minimum(np.searchsorted(have, wanted), max(len(have) - 1, 0))
        found = have[where] == wanted if len(have) else np.zeros(len(wanted), bool)
        out = np.zeros((len(wanted),) + values.shape[1:], dtype=values.dtype)
        out[found] = values[where[found]]
        return arrays.dense_tensor(out), None


def from_values_tracked(values, build):
    return FromValues.apply(values, build)


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


# The node names PyTorch gives these gradients (a Function's node is `<Class>Backward`).
for _function, _node_name in ((SparseAddmm, "SparseAddmmBackward0"),
                              (ToDense, "ToDenseBackward0"), (ToSparse, "ToSparseBackward1"),
                              (Coalesce, "CoalesceBackward0"), (SparseSum, "SumBackward0"),
                              (FromValues, "SparseCooTensorWithDimsAndTensorsBackward0")):
    _function._backward_cls.__name__ = _node_name
    _function._backward_cls.__qualname__ = _node_name
