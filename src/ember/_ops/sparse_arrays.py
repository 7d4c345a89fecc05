"""Sparse COO, CSR and CSC tensors at the array level: building them, coalescing, converting
between layouts and to dense arrays, and SciPy matrices of them (SciPy imported on first use).
The blocked layouts (BSR, BSC) have theirs in sparse_blocked.py.

NOTE [sparse layout] (_core/dispatch/sparse.py) says what a sparse tensor holds. Indices are
int64 arrays; a COO tensor is coalesced when its indices are unique and sorted row-major.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.device import CPU
from ember._core.dispatch import wrap
from ember._core.dispatch.sparse import (
    SparseBSC,
    SparseBSR,
    SparseCOO,
    SparseCSC,
    SparseCSR,
    make_sparse,
)


def dense_tensor(array):
    array = np.asarray(array)
    return wrap(array, dt.NP_TO_DTYPE[array.dtype], CPU)


def coo(indices, values, shape, coalesced, requires_grad=False, values_dtype=None):
    """A COO tensor from an int64 (sparse_dim, nnz) array and a (nnz, *dense) values array."""
    values_tensor = wrap(values, values_dtype or dt.NP_TO_DTYPE[values.dtype], CPU)
    data = SparseCOO(dense_tensor(indices.astype(np.int64, copy=False)), values_tensor, shape,
                     coalesced)
    return make_sparse(data, requires_grad)


def csr(crow, col, values, shape, requires_grad=False, values_dtype=None):
    values_tensor = wrap(values, values_dtype or dt.NP_TO_DTYPE[values.dtype], CPU)
    data = SparseCSR(dense_tensor(crow), dense_tensor(col), values_tensor, shape)
    return make_sparse(data, requires_grad)


def csc(ccol, row, values, shape, requires_grad=False, values_dtype=None):
    values_tensor = wrap(values, values_dtype or dt.NP_TO_DTYPE[values.dtype], CPU)
    data = SparseCSC(dense_tensor(ccol), dense_tensor(row), values_tensor, shape)
    return make_sparse(data, requires_grad)


def csc_to_coo_arrays(data):
    """(indices, values) of a CSC matrix, coalesced (row-major)."""
    ccol = data.ccol_indices._data
    cols = np.repeat(np.arange(len(ccol) - 1, dtype=np.int64), np.diff(ccol))
    rows = data.row_indices._data.astype(np.int64)
    order = np.lexsort((cols, rows))
    return np.stack([rows[order], cols[order]]), data.values._data[order]


def like_coo(t, values, indices=None, coalesced=None):
    """A COO tensor with `t`'s indices (or `indices`) and shape and new `values` (an array)."""
    data = t._data
    idx = data.indices._data if indices is None else indices
    return coo(idx, values, data.shape, data.coalesced if coalesced is None else coalesced)


def linear_index(indices, sizes):
    if indices.shape[0] == 0:
        return np.zeros(indices.shape[1], dtype=np.int64)
    return np.ravel_multi_index(tuple(indices), tuple(sizes))


# NumPy's stable sort of 16-bit keys is a radix sort, of wider ones a merge sort (~3x slower).
_RADIX_DIGITS = 3


def stable_order(keys):
    """np.argsort(keys, kind="stable") of non-negative int64 keys, by 16-bit digits (least
    significant first) while there are at most _RADIX_DIGITS of them."""
    digits = max(1, (int(keys.max()).bit_length() + 15) // 16)
    if digits > _RADIX_DIGITS:
        return np.argsort(keys, kind="stable")
    order = np.argsort(keys.astype(np.uint16), kind="stable")      # (astype keeps the low bits)
    for digit in range(1, digits):
        order = order[np.argsort((keys[order] >> (16 * digit)).astype(np.uint16), kind="stable")]
    return order


def coalesce_arrays(indices, values, sizes):
    """(indices, values) with duplicate indices summed, sorted row-major."""
    nnz = indices.shape[1]
    if nnz == 0:
        return indices, values
    linear = linear_index(indices, sizes)
    order = stable_order(linear)
    linear = linear[order]
    starts = np.flatnonzero(np.concatenate(([True], linear[1:] != linear[:-1])))
    values = values[order]
    if len(starts) != nnz:
        values = np.add.reduceat(values, starts, axis=0).astype(values.dtype, copy=False)
    unique = linear[starts]
    if indices.shape[0] == 0:
        return indices[:, :len(starts)], values
    return np.stack(np.unravel_index(unique, tuple(sizes))).astype(np.int64), values


def coalesced(t):
    """`t` (COO) coalesced: itself when it is already."""
    data = t._data
    if data.coalesced:
        return t
    sizes = data.shape[:data.sparse_dim]
    indices, values = coalesce_arrays(data.indices._data, data.values._data, sizes)
    return coo(indices, values, data.shape, True, values_dtype=data.values._dtype)


def coo_to_array(t):
    data = t._data
    out = np.zeros(data.shape, dtype=data.values._data.dtype)
    indices = data.indices._data
    if indices.shape[1]:
        np.add.at(out, tuple(indices), data.values._data)
    return out


def csr_to_coo_arrays(data):
    crow = data.crow_indices._data
    rows = np.repeat(np.arange(len(crow) - 1, dtype=np.int64), np.diff(crow))
    return np.stack([rows, data.col_indices._data.astype(np.int64)]), data.values._data


def to_array(t):
    """The dense array of a sparse tensor."""
    data = t._data
    if type(data) is SparseBSR or type(data) is SparseBSC:
        from ember._ops.sparse_blocked import blocked_to_array
        return blocked_to_array(data)
    if type(data) is SparseCSR or type(data) is SparseCSC:
        convert = csr_to_coo_arrays if type(data) is SparseCSR else csc_to_coo_arrays
        indices, values = convert(data)
        out = np.zeros(data.shape, dtype=values.dtype)
        out[tuple(indices)] = values
        return out
    return coo_to_array(t)


def array_to_coo(array, sparse_dim, dtype):
    """A coalesced COO tensor of the nonzeros of `array` over its first `sparse_dim` dims."""
    ndim = array.ndim
    if sparse_dim == 0:
        # No sparse dim: the one entry is the whole array (PyTorch stores it even when zero).
        return coo(np.zeros((0, 1), np.int64), np.ascontiguousarray(array[None]), array.shape,
                   True, values_dtype=dtype)
    if sparse_dim == ndim:
        nonzero = np.nonzero(array)
        indices = np.stack(nonzero)
        values = array[nonzero]
    else:
        mask = array.reshape(array.shape[:sparse_dim] + (-1,)) != 0
        mask = mask.any(axis=-1)
        nonzero = np.nonzero(mask)
        indices = np.stack(nonzero)
        values = array[nonzero]
    return coo(indices.astype(np.int64).reshape(sparse_dim, -1), np.ascontiguousarray(values),
               array.shape, True, values_dtype=dtype)


def coo_to_csr(t):
    t = coalesced(t)
    data = t._data
    indices = data.indices._data
    rows = data.shape[0]
    crow = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(indices[0], minlength=rows), out=crow[1:])
    return csr(crow, indices[1].copy(), data.values._data, data.shape,
               values_dtype=data.values._dtype)


def scipy_matrix(t):
    """A SciPy CSR (CSC for CSC) matrix of a 2-D sparse tensor with scalar values, made once per tensor (its
    arrays are the tensor's own, so in-place writes to the values show through)."""
    data = t._data
    if data.cache is not None:
        return data.cache
    import scipy.sparse
    if type(data) is SparseBSR or type(data) is SparseBSC:
        from ember._ops.sparse_blocked import blocked_scipy_matrix
        data.cache = blocked_scipy_matrix(data)
        return data.cache
    if type(data) is SparseCSC:
        data.cache = scipy.sparse.csc_matrix(
            (data.values._data, data.row_indices._data, data.ccol_indices._data),
            shape=data.shape, copy=False)
        return data.cache
    if type(data) is SparseCOO:
        t = coalesced(t)
        indices = t._data.indices._data
        rows = data.shape[0]
        crow = np.zeros(rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(indices[0], minlength=rows), out=crow[1:])
        col = indices[1]
        values = t._data.values._data
    else:
        crow, col, values = (data.crow_indices._data, data.col_indices._data,
                             data.values._data)
    matrix = scipy.sparse.csr_matrix((values, col, crow), shape=data.shape, copy=False)
    data.cache = matrix
    return matrix


def matrix_to_coo(matrix, dtype):
    """A coalesced COO tensor of a SciPy sparse matrix."""
    matrix = matrix.tocoo()
    matrix.sum_duplicates()
    indices = np.stack([matrix.row, matrix.col]).astype(np.int64)
    return coo(indices, np.asarray(matrix.data, dtype=dtype._np), matrix.shape, True,
               values_dtype=dtype)
