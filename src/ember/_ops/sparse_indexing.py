"""Indexing sparse tensors (NOTE [sparse layout], _core/dispatch/sparse.py): `select` (so
`s[0]`, `s[:, 2]`, `s[0, 2]`) and `index_select` of COO tensors (CSR ones select through COO,
as PyTorch does), with PyTorch's result layouts.

A selected sparse dim drops out of the indices: the entries at that index remain, their other
index rows kept; with no sparse dim left the result is dense (the sum of those entries'
values, as PyTorch gives `s[0, 2]` a strided scalar). A selected dense dim indexes the values.
Entries keep their order; like PyTorch, a result counts as coalesced only with at most one
entry (or when it comes from a CSR tensor).
"""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check_index, _check_not_implemented
from ember._core.dispatch.sparse import SparseCOO, SparseCSR, register
from ember._ops.sparse_arrays import coo, dense_tensor


def _as_coo(t):
    if type(t._data) is SparseCSR:
        from ember._ops.sparse_kernels import _csr_to_coo
        return _csr_to_coo(t)
    return t


def _wrap_dim(dim, ndim):
    _check_index(-ndim <= dim < ndim, lambda: (
        f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
        f"{dim})"))
    return dim % ndim


def _result(indices, values, shape, values_dtype, coalesced=False):
    return coo(indices, np.ascontiguousarray(values), shape, coalesced or indices.shape[1] <= 1,
               values_dtype=values_dtype)


@register("select.int")
def select(op, args):
    t, dim, index = args
    from_csr = type(t._data) is SparseCSR       # PyTorch's CSR select gives a coalesced result
    t = _as_coo(t)
    data = t._data
    shape = data.shape
    dim = _wrap_dim(dim, len(shape))
    size = shape[dim]
    _check_index(-size <= index < size, lambda: (
        f"select(): index {index} out of range for tensor of size {list(shape)} at "
        f"dimension {dim}"))
    index %= size
    indices, values = data.indices._data, data.values._data
    values_dtype = data.values._dtype
    out_shape = shape[:dim] + shape[dim + 1:]
    sparse_dim = data.sparse_dim
    if dim >= sparse_dim:
        # A dense dim: index every entry's values (values are (nnz, *dense)).
        picked = np.take(values, index, axis=dim - sparse_dim + 1)
        return _result(indices, picked, out_shape, values_dtype)
    keep = indices[dim] == index
    rest = np.delete(indices, dim, axis=0)[:, keep]
    picked = values[keep]
    if sparse_dim == 1:
        # No sparse dim left: the dense sum of the entries at `index`.
        return dense_tensor(picked.sum(axis=0, dtype=values.dtype))
    return _result(rest, picked, out_shape, values_dtype, from_csr)


@register("index_select")
def index_select(op, args):
    t, dim, index = args
    _check_index(type(index._data) not in (SparseCOO, SparseCSR)
                 and index._dtype.is_signed and not index._dtype.is_floating_point
                 and index._dtype.itemsize == 8 and index._data.ndim <= 1,
                 "index_select() argument index must be 1-D strided (non-sparse) long-tensor.")
    _check_not_implemented(type(t._data) is SparseCOO, (
        "Could not run 'aten::index_select' with arguments from the 'SparseCsrCPU' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build)."))
    data = t._data
    shape = data.shape
    dim = _wrap_dim(dim, len(shape))
    size = shape[dim]
    positions = index._data.reshape(-1).astype(np.int64, copy=False)
    for p in positions:
        _check_index(-size <= p < size, lambda p=p: (
            f"index_select(): index contains {p} that is out of range for tensor of size "
            f"{list(shape)} at dimension {dim}"))
    positions = positions % max(size, 1)
    indices, values = data.indices._data, data.values._data
    out_shape = shape[:dim] + (len(positions),) + shape[dim + 1:]
    sparse_dim = data.sparse_dim
    if dim >= sparse_dim:
        picked = np.take(values, positions, axis=dim - sparse_dim + 1)
        return _result(indices, picked, out_shape, data.values._dtype)
    # For each output position, in order, the entries whose index along `dim` it names.
    entry_lists = [np.flatnonzero(indices[dim] == p) for p in positions]
    counts = np.array([len(e) for e in entry_lists], dtype=np.int64)
    entries = np.concatenate(entry_lists) if entry_lists else np.zeros(0, np.int64)
    new_indices = indices[:, entries].copy()
    new_indices[dim] = np.repeat(np.arange(len(positions), dtype=np.int64), counts)
    return _result(new_indices, values[entries], out_shape, data.values._dtype)
