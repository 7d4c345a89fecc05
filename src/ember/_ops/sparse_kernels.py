"""Sparse kernels of registry ops (NOTE [sparse layout], _core/dispatch/sparse.py): products
through SciPy's CSR matrices, elementwise ops with PyTorch's sparse semantics, sums,
transposes. Each gets the op's arguments as tensors and returns tensors; autograd records the
call above them with the op's own derivative formulas.
"""
from __future__ import annotations

import numpy as np

from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.dispatch.sparse import SparseCOO, SparseCSR, register
from ember._ops.sparse_arrays import (
    coalesce_arrays,
    coalesced,
    coo,
    coo_to_csr,
    csr,
    dense_tensor,
    like_coo,
    matrix_to_coo,
    scipy_matrix,
    to_array,
)


def _is_sparse(v) -> bool:
    return type(getattr(v, "_data", None)) in (SparseCOO, SparseCSR)


def _is_csr(v) -> bool:
    return type(getattr(v, "_data", None)) is SparseCSR


def _values_dtype(t):
    return t._data.values._dtype


# --------------------------------------------------------------------------- products

def _sparse_times_dense(sparse, dense_array):
    data = sparse._data
    _check(data.ndim == 2 and data.sparse_dim == 2, lambda: (
        f"addmm: matrices expected, got {data.ndim}D tensor"))
    _check(dense_array.ndim in (1, 2), lambda: (
        f"addmm: matrices expected, got {dense_array.ndim}D tensor"))
    _check(data.shape[1] == dense_array.shape[0], lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({data.shape[0]}x{data.shape[1]} and "
        f"{'x'.join(map(str, dense_array.shape))})"))
    values_type = data.dtype
    _check(values_type == dense_array.dtype, lambda: (
        f"expected mat1 and mat2 to have the same dtype, but got: "
        f"{_values_dtype(sparse)} != {dt.NP_TO_DTYPE[dense_array.dtype]}"))
    return np.asarray(scipy_matrix(sparse) @ dense_array).astype(values_type, copy=False)


def _product(left, right):
    """left @ right where either (or both) is sparse: dense unless both are."""
    if _is_sparse(left) and _is_sparse(right):
        result = scipy_matrix(left) @ scipy_matrix(right)
        out = matrix_to_coo(result, _values_dtype(left))
        return out if not _is_csr(left) else coo_to_csr(out)
    if _is_sparse(left):
        return dense_tensor(_sparse_times_dense(left, right._data))
    # dense @ sparse = (sparse^T @ dense^T)^T
    matrix = scipy_matrix(right)
    dense = left._data
    _check(dense.ndim == 2 and dense.shape[1] == matrix.shape[0], lambda: (
        f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, dense.shape))} and "
        f"{matrix.shape[0]}x{matrix.shape[1]})"))
    return dense_tensor(np.asarray((matrix.T @ dense.T).T).astype(dense.dtype, copy=False))


@register("mm", "matmul", "mv")
def mm(op, args):
    return _product(args[0], args[1])


@register("addmm")
def addmm(op, args):
    base, mat1, mat2, beta, alpha = args
    _check(not _is_sparse(base) or _is_sparse(mat1) and _is_sparse(mat2), lambda: (
        "addmm: sparse input needs sparse mat1 and mat2"))
    product = _product(mat1, mat2)
    if _is_sparse(product):
        return _add_sparse(base, product, alpha, beta)
    array = product._data
    if alpha != 1:
        array = array * np.asarray(alpha, dtype=array.dtype)
    if beta == 0:
        return dense_tensor(array)
    base_array = base._data if beta == 1 else base._data * np.asarray(beta, base._data.dtype)
    return dense_tensor((array + base_array).astype(array.dtype, copy=False))


# --------------------------------------------------------------------------- elementwise

def _add_sparse(a, b, alpha=1, beta=1):
    """beta * a + alpha * b of two sparse tensors of one shape and layout."""
    _check(a._data.shape == b._data.shape, lambda: (
        f"add: expected 'self' and 'other' to have same size, but self has size "
        f"{list(a._data.shape)} while other has size {list(b._data.shape)} (FYI: op2-sparse "
        "addition does not currently support broadcasting)"))
    csr_result = _is_csr(a)
    if csr_result:
        a, b = _csr_to_coo(a), _csr_to_coo(b)
    da, db = a._data, b._data
    result_type = np.result_type(da.dtype, db.dtype)
    va = da.values._data.astype(result_type, copy=False)
    vb = db.values._data.astype(result_type, copy=False)
    if beta != 1:
        va = va * np.asarray(beta, dtype=result_type)
    if alpha != 1:
        vb = vb * np.asarray(alpha, dtype=result_type)
    indices = np.concatenate([da.indices._data, db.indices._data], axis=1)
    values = np.concatenate([va, vb])
    indices, values = coalesce_arrays(indices, values, da.shape[:da.sparse_dim])
    out = coo(indices, values, da.shape, True)
    return coo_to_csr(out) if csr_result else out


def _csr_to_coo(t):
    from ember._ops.sparse_arrays import csr_to_coo_arrays
    indices, values = csr_to_coo_arrays(t._data)
    return coo(indices, values, t._data.shape, True, values_dtype=_values_dtype(t))


def _scaled(t, factor_array):
    """A sparse tensor like `t` with its values times an array broadcast against them."""
    data = t._data
    values = data.values._data * factor_array
    if type(data) is SparseCSR:
        return csr(data.crow_indices._data, data.col_indices._data, values, data.shape)
    return like_coo(t, values)


def _scalar_of(v):
    """A Python number, or the value of a zero-dim dense tensor; None for anything else."""
    if isinstance(v, (bool, int, float, complex)):
        return v
    if not _is_sparse(v) and getattr(v, "_data", None) is not None and v._data.ndim == 0:
        return v._data
    return None


@register("add.Tensor", "sub.Tensor")
def add(op, args):
    self, other, alpha = args
    if op.name == "sub.Tensor":
        alpha = -alpha
    if _is_sparse(self) and _is_sparse(other):
        return _add_sparse(self, other, alpha)
    _check(not _is_sparse(self), "add(sparse, dense) is not supported. Use add(dense, sparse) "
                                 "instead.")
    dense = self._data
    result_type = np.result_type(dense.dtype, other._data.dtype)
    sparse_array = to_array(other).astype(result_type, copy=False)
    if alpha != 1:
        sparse_array = sparse_array * np.asarray(alpha, dtype=result_type)
    return dense_tensor((dense + sparse_array).astype(result_type, copy=False))


@register("mul.Tensor")
def mul(op, args):
    self, other = args
    if not _is_sparse(self):
        self, other = other, self
    scalar = _scalar_of(other)
    if scalar is not None:
        return _scaled(self, np.asarray(scalar, dtype=self._data.dtype))
    if _is_sparse(other):
        # The product lives where both have entries: the intersection of the index sets.
        _check(self._data.shape == other._data.shape, lambda: (
            "mul operands have incompatible sizes"))
        a, b = coalesced(self), coalesced(other)
        da, db = a._data, b._data
        sizes = da.shape[:da.sparse_dim]
        from ember._ops.sparse_arrays import linear_index
        la = linear_index(da.indices._data, sizes)
        lb = linear_index(db.indices._data, sizes)
        _, ia, ib = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
        values = da.values._data[ia] * db.values._data[ib]
        return coo(da.indices._data[:, ia], values, da.shape, True)
    # sparse * dense: the dense values picked at the sparse entries (a sparse result)
    data = self._data
    _check(type(data) is SparseCOO, "mul: sparse CSR times dense is not supported")
    dense = np.broadcast_to(other._data, data.shape)
    picked = dense[tuple(data.indices._data)]
    return like_coo(self, data.values._data * picked)


@register("div.Tensor")
def div(op, args):
    self, other = args
    scalar = _scalar_of(other)
    _check(_is_sparse(self) and scalar is not None,
           "div(): sparse division is supported only by a scalar")
    values = self._data.values._data
    result_type = values.dtype if values.dtype.kind in "fc" else dt.get_default_dtype()._np
    return _scaled(self, 1 / np.asarray(scalar, dtype=result_type))


def _values_map(function, coalesce_first=True):
    def kernel(op, args):
        t = args[0]
        if type(t._data) is SparseCSR:
            data = t._data
            return csr(data.crow_indices._data, data.col_indices._data,
                       function(data.values._data), data.shape)
        if coalesce_first:
            t = coalesced(t)
        return like_coo(t, function(t._data.values._data))
    return kernel


# Unary ops that map zero to zero: they act on the stored values (after coalescing, as a sum
# of duplicates must be mapped once).
_ZERO_PRESERVING = {
    "abs": np.abs, "sin": np.sin, "sinh": np.sinh, "tan": np.tan, "tanh": np.tanh,
    "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh,
    "sqrt": np.sqrt, "expm1": np.expm1, "log1p": np.log1p, "sign": np.sign, "sgn": np.sign,
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.round,
    "square": np.square, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg,
    "relu": lambda v: np.maximum(v, np.zeros((), v.dtype)),
}
for _name, _function in _ZERO_PRESERVING.items():
    register(_name)(_values_map(_function))
register("neg")(_values_map(np.negative, coalesce_first=False))


# --------------------------------------------------------------------------- shape, copies

@register("t", "transpose.int")
def transpose(op, args):
    t = args[0]
    data = t._data
    if type(data) is SparseCSR:
        from ember._ops.sparse_csc import compressed_transpose
        return compressed_transpose(op, args)
    ndim = data.ndim
    dim0, dim1 = (0, 1) if op.name == "t" else (args[1] % max(ndim, 1), args[2] % max(ndim, 1))
    _check(dim0 < data.sparse_dim and dim1 < data.sparse_dim,
           "transpose: transposing dense dimensions of a sparse tensor is not supported")
    indices = data.indices._data.copy()
    indices[[dim0, dim1]] = indices[[dim1, dim0]]
    shape = list(data.shape)
    shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    return coo(indices, data.values._data, shape, dim0 == dim1 and data.coalesced)


@register("clone", "detach", "alias")
def clone(op, args):
    t = args[0]
    data = t._data
    copy = op.name == "clone"
    if type(data) is SparseCSR:
        return csr(*(a._data.copy() if copy else a._data for a in
                     (data.crow_indices, data.col_indices, data.values)), data.shape)
    return coo(data.indices._data.copy() if copy else data.indices._data,
               data.values._data.copy() if copy else data.values._data, data.shape,
               data.coalesced)


@register("reshape", "view")
def reshape(op, args):
    _check(False, "reshape is not implemented for sparse tensors")


@register("_to_copy")
def to_copy(op, args):
    t, dtype = args[0], args[1]
    if dtype is None:
        return clone(op, (t,))
    data = t._data
    values = data.values._data.astype(dtype._np)
    if type(data) is SparseCSR:
        return csr(data.crow_indices._data, data.col_indices._data, values, data.shape,
                   values_dtype=dtype)
    return coo(data.indices._data, values, data.shape, data.coalesced, values_dtype=dtype)


# --------------------------------------------------------------------------- reductions

@register("sum.dim_IntList")
def sum_dims(op, args):
    t, dim, keepdim, dtype = args
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return dense_tensor(_total(t, dtype))
    _check(not keepdim, "sum: keepdim is not supported for sparse tensors")
    from ember._ops.sparse_math import sparse_sum_dims
    return sparse_sum_dims(t, dim, dtype)


def _total(t, dtype):
    values = t._data.values._data
    if dtype is not None:
        values = values.astype(dtype._np)
    elif values.dtype.kind in "biu":
        values = values.astype(np.int64)
    return np.asarray(values.sum(dtype=values.dtype))


@register("zeros_like")
def zeros_like(op, args):
    """A sparse tensor of t's layout and shape with no entries."""
    t = args[0]
    dtype = args[1] or t._dtype
    data = t._data
    if type(data) is SparseCSR:
        return csr(np.zeros(data.shape[0] + 1, np.int64), np.zeros(0, np.int64),
                   np.zeros(0, dtype._np), data.shape, values_dtype=dtype)
    dense_shape = data.shape[data.sparse_dim:]
    return coo(np.zeros((data.sparse_dim, 0), np.int64), np.zeros((0,) + dense_shape, dtype._np),
               data.shape, True, values_dtype=dtype)


@register("permute")
def permute(op, args):
    """Permutes the sparse dims among themselves (dense dims stay where they are)."""
    t, dims = args
    data = t._data
    _check(type(data) is SparseCOO, "permute: sparse CSR permutes are not supported")
    ndim = data.ndim
    dims = [d % max(ndim, 1) for d in dims]
    _check(sorted(dims) == list(range(ndim)), "permute: dims must be a permutation")
    sparse_dim = data.sparse_dim
    _check(dims[sparse_dim:] == list(range(sparse_dim, ndim)),
           "permute(sparse_coo): transpositions between sparse and dense dimensions are not "
           "allowed. Only transpositions within sparse and dense dimensions are supported.")
    indices = data.indices._data[dims[:sparse_dim]]
    shape = [data.shape[d] for d in dims]
    unchanged = dims == list(range(ndim))
    return coo(indices, data.values._data, shape, unchanged and data.coalesced)


@register("pow.Tensor_Tensor")
def power(op, args):
    """A sparse base to a positive scalar power (zero stays zero)."""
    t, exponent = args
    scalar = _scalar_of(exponent)
    _check(_is_sparse(t) and scalar is not None,
           "pow: sparse tensors can be raised only to a scalar power")
    _check(scalar != 0, "pow: cannot raise to zeroth power on sparse tensor; it would make the "
                        "result tensor dense")
    return _values_map(lambda v: np.power(v, np.asarray(scalar, dtype=v.dtype)))(op, (t,))
