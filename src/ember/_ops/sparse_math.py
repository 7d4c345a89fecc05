"""torch.sparse's reductions over COO tensors: sums over some dims (a sparse result) and
softmax / log_softmax along a dim over the stored entries only (absent entries stay absent)."""
from __future__ import annotations

import numpy as np

from ember._core.checks import _check
from ember._core.shape import wrap_dim
from ember._ops.sparse_arrays import coalesce_arrays, coalesced, coo, dense_tensor


def sparse_sum_dims(t, dim, dtype=None):
    """The sum of a COO tensor over `dim` (an int or a list): sparse unless every dim goes."""
    data = coalesced(t)._data
    ndim = data.ndim
    dims = [dim] if isinstance(dim, int) else list(dim)
    dims = sorted({wrap_dim(d, ndim) for d in dims})
    values = data.values._data
    if dtype is not None:
        values = values.astype(dtype._np)
    elif values.dtype.kind in "biu":
        values = values.astype(np.int64)
    sparse_dim = data.sparse_dim
    dense_dims = [d - sparse_dim + 1 for d in dims if d >= sparse_dim]
    if dense_dims:
        values = values.sum(axis=tuple(dense_dims))
    kept_sparse = [d for d in range(sparse_dim) if d not in dims]
    shape = [n for d, n in enumerate(data.shape) if d not in dims]
    if not kept_sparse:
        return dense_tensor(values.sum(axis=0).astype(values.dtype, copy=False))
    indices = data.indices._data[kept_sparse]
    sizes = [data.shape[d] for d in kept_sparse]
    indices, values = coalesce_arrays(indices, values, sizes)
    return coo(indices, values, shape, True)


def sparse_softmax(t, dim, log=False, dtype=None):
    """softmax over the entries of a COO tensor that share all indices but `dim`'s."""
    t = coalesced(t)
    data = t._data
    dim = wrap_dim(dim, data.ndim)
    _check(dim < data.sparse_dim, "softmax: dim must be a sparse dim")
    values = data.values._data
    if dtype is not None:
        values = values.astype(dtype._np)
    others = [d for d in range(data.sparse_dim) if d != dim]
    indices = data.indices._data
    if others:
        key = np.ravel_multi_index(tuple(indices[others]), [data.shape[d] for d in others])
    else:
        key = np.zeros(indices.shape[1], dtype=np.int64)
    _, group = np.unique(key, return_inverse=True)
    groups = int(group.max()) + 1 if group.size else 0
    trailing = values.shape[1:]
    peak = np.full((groups,) + trailing, -np.inf, dtype=values.dtype)
    np.maximum.at(peak, group, values)
    shifted = values - peak[group]
    exp = np.exp(shifted)
    total = np.zeros((groups,) + trailing, dtype=values.dtype)
    np.add.at(total, group, exp)
    result = shifted - np.log(total[group]) if log else exp / total[group]
    return coo(indices, result.astype(values.dtype, copy=False), data.shape, True)
