"""The gradients of sparse tensors' constructors and conversions: `sparse_coo_tensor` and the
compressed constructors from values that require grad, `to_dense` (the gradient masked to the
stored entries), `to_sparse` and the other layout conversions, `coalesce`. Each is a custom
Function over the sparse kernels; its base class comes from ember.autograd (NOTE [upcalls]), so
this module loads on first use, never while ember itself is loading."""
from __future__ import annotations

import numpy as np

from ember._core import dispatch, upcalls
from ember._ops import sparse_arrays as arrays


def sparse_mask_of(dense, sparse):
    """`dense` read at `sparse`'s (coalesced) entries, as a coalesced COO tensor."""
    pattern = arrays.coalesced(sparse) if type(sparse._data).__name__ == "SparseCOO" \
        else sparse.to_sparse()
    indices = pattern._data.indices._data
    picked = dense.detach().numpy()[tuple(indices)]
    # Flagged as `sparse` is (PyTorch's mask keeps the flag of the tensor it masks with).
    return arrays.coo(indices, np.ascontiguousarray(picked), pattern._data.shape,
                      bool(sparse._data.coalesced))


class FromValues(upcalls.Function):
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


class ToDense(upcalls.Function):
    @staticmethod
    def forward(ctx, sparse):
        ctx.save_for_backward(sparse)
        return arrays.dense_tensor(arrays.to_array(sparse))

    @staticmethod
    def backward(ctx, grad):
        (sparse,) = ctx.saved_tensors
        return sparse_mask_of(grad, sparse)


class ToSparse(upcalls.Function):
    @staticmethod
    def forward(ctx, dense, sparse_dim):
        return arrays.array_to_coo(dense.detach().numpy(), sparse_dim, dense.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad.to_dense(), None


class Coalesce(upcalls.Function):
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


def _layout_name(t):
    return getattr(getattr(t, "_data", None), "layout_name", "strided")


def _dense_array(grad):
    return (grad.to_dense() if _layout_name(grad) != "strided" else grad).detach().numpy()


def _values_at(array, data):
    """`array` (dense, of the tensor's shape) read where the compressed tensor stores values,
    in storage order."""
    if data.layout_name in ("sparse_bsr", "sparse_bsc"):
        from ember._ops.sparse_blocked import _block_coordinates
        rows, cols = data.shape
        block_r, block_c = data.blocksize
        grid = array.reshape(rows // block_r, block_r, cols // block_c, block_c)
        block_rows, block_cols = _block_coordinates(data)
        return grid.transpose(0, 2, 1, 3)[block_rows, block_cols]
    if data.layout_name == "sparse_csr":
        compressed, plain = data.crow_indices._data, data.col_indices._data
    else:
        compressed, plain = data.ccol_indices._data, data.row_indices._data
    major = np.repeat(np.arange(len(compressed) - 1), np.diff(compressed))
    if data.layout_name == "sparse_csr":
        return array[major, plain]
    return array[plain, major]


class FromCompressedValues(upcalls.Function):
    """A compressed tensor built from `values` that require grad: their gradient is the
    incoming one read at the stored positions (NOTE [gradcheck through the stored values] in
    sparse/_gradcheck.py)."""

    @staticmethod
    def forward(ctx, values, build):
        out = build(values.detach())
        ctx.data = out._data
        return out

    @staticmethod
    def backward(ctx, grad):
        picked = _values_at(_dense_array(grad), ctx.data)
        return arrays.dense_tensor(np.ascontiguousarray(picked)), None


class ConvertLayout(upcalls.Function):
    """A layout conversion (to_sparse_csr, to_sparse_bsc, to_sparse ...): the gradient goes
    back in the input's layout, dense for a dense input, else at the input's entries."""

    @staticmethod
    def forward(ctx, tensor, convert):
        ctx.save_for_backward(tensor)
        return convert(tensor.detach())

    @staticmethod
    def backward(ctx, grad):
        (tensor,) = ctx.saved_tensors
        if _layout_name(tensor) == "strided":
            return arrays.dense_tensor(_dense_array(grad)), None
        return sparse_mask_of(arrays.dense_tensor(_dense_array(grad)), tensor), None


def compressed_from_values_tracked(values, build):
    return FromCompressedValues.apply(values, build)


def convert_tracked(tensor, convert):
    """`convert(tensor)`, recorded when tensor requires grad with grad mode on."""
    if tensor.requires_grad and dispatch.state.grad_enabled():
        return ConvertLayout.apply(tensor, convert)
    return convert(tensor)


# The node names PyTorch gives these gradients (a Function's node is `<Class>Backward`).
for _function, _node_name in ((ToDense, "ToDenseBackward0"), (ToSparse, "ToSparseBackward1"),
                              (Coalesce, "CoalesceBackward0"),
                              (FromValues, "SparseCooTensorWithDimsAndTensorsBackward0"),
                              (FromCompressedValues, "SparseCompressedTensorBackward0"),
                              (ConvertLayout, "ToSparseBackward0")):
    _function._backward_cls.__name__ = _node_name
    _function._backward_cls.__qualname__ = _node_name
