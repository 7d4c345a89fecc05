"""The CSC layout (compressed columns), as far as PyTorch's CSR transposes need it: a CSR
matrix's `t()` / `transpose(0, 1)` is CSC and back (sharing the arrays, as PyTorch's views do),
`sparse_csc_tensor`, `Tensor.to_sparse_csc`, `ccol_indices` / `row_indices`, and the kernels a
CSC operand runs (copies, dtype moves, products through SciPy); any other op on one raises
PyTorch's "Could not run ... 'SparseCsrCPU' backend" (NOTE [sparse layout]).
"""
from __future__ import annotations

import numpy as np

from ember._core import layout as _layout
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_index
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend
from ember._ops.sparse import compressed_index_arrays, compressed_schemas


def _arrays():
    from ember._ops import sparse
    return sparse._arrays()


def _is_csc(t) -> bool:
    return type(t._data).__name__ == "SparseCSC"


def _wrap_dim(dim, ndim):
    _check_index(-ndim <= dim < ndim, lambda: (
        f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got "
        f"{dim})"))
    return dim % ndim


def compressed_transpose(op, args):
    """t / transpose(0, 1) of a CSR or CSC matrix: the other layout over the same arrays."""
    arrays = _arrays()
    t = args[0]
    data = t._data
    if op.name != "t":
        dim0, dim1 = _wrap_dim(args[1], 2), _wrap_dim(args[2], 2)
        if dim0 == dim1:
            return clone_csc(op, (t,)) if _is_csc(t) else arrays.csr(
                data.crow_indices._data, data.col_indices._data, data.values._data, data.shape)
    rows, cols = data.shape
    if _is_csc(t):
        return arrays.csr(data.ccol_indices._data, data.row_indices._data, data.values._data,
                          (cols, rows), values_dtype=data.values._dtype)
    return arrays.csc(data.crow_indices._data, data.col_indices._data, data.values._data,
                      (cols, rows), values_dtype=data.values._dtype)


def _components(data, copy):
    return tuple(a._data.copy() if copy else a._data
                 for a in (data.ccol_indices, data.row_indices, data.values))


def clone_csc(op, args):
    data = args[0]._data
    return _arrays().csc(*_components(data, op.name == "clone"), data.shape,
                         values_dtype=data.values._dtype)


def _to_copy_csc(op, args):
    t, dtype = args[0], args[1]
    if dtype is None:
        return clone_csc(op, (t,))
    data = t._data
    ccol, row, values = _components(data, False)
    return _arrays().csc(ccol, row, values.astype(dtype._np), data.shape, values_dtype=dtype)


def csc_to_coo(t):
    arrays = _arrays()
    indices, values = arrays.csc_to_coo_arrays(t._data)
    return arrays.coo(indices, values, t._data.shape, True, values_dtype=t._data.values._dtype)


def _product_csc(op, args):
    """A product with a CSC operand: as its CSR equal (the result as PyTorch's: dense for
    sparse @ dense)."""
    from ember._ops.sparse_kernels import mm
    operands = list(args)
    for k in (0, 1):
        if _is_csc(operands[k]):
            operands[k] = _arrays().coo_to_csr(csc_to_coo(operands[k]))
    return mm(op, tuple(operands))


def _mul_csc(op, args):
    """A CSC matrix times a scalar (the product keeps the layout, as PyTorch's)."""
    from ember._ops.sparse_kernels import _scalar_of
    self, other = args if _is_csc(args[0]) else (args[1], args[0])
    scalar = _scalar_of(other)
    _check(scalar is not None, "mul: a sparse CSC matrix times a tensor is not supported")
    data = self._data
    ccol, row, values = _components(data, False)
    return _arrays().csc(ccol, row, values * np.asarray(scalar, dtype=values.dtype), data.shape)


def _register_kernels():
    from ember._core.dispatch.sparse import CSC, register
    register("t", "transpose.int", layouts=CSC)(compressed_transpose)
    register("clone", "detach", "alias", layouts=CSC)(clone_csc)
    register("_to_copy", layouts=CSC)(_to_copy_csc)
    register("mm", "matmul", "mv", layouts=CSC)(_product_csc)
    register("mul.Tensor", layouts=CSC)(_mul_csc)


_register_kernels()


# --------------------------------------------------------------------------- frontends

@register_frontend(method=False)
@checked(*compressed_schemas("sparse_csc_tensor", "ccol_indices", "row_indices"))
def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None,
                      layout=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None):
    """sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None,
    device=None, requires_grad=False, check_invariants=None) -> Tensor: a sparse matrix in CSC
    format (compressed columns)."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_csc_tensor, locals())
    from ember._ops.sparse_blocked import check_layout_argument
    check_layout_argument("sparse_csc_tensor", layout, _layout.sparse_csc)
    from ember._ops.sparse import _as_array, _tracks_values
    arrays = _arrays()
    ccol, row = compressed_index_arrays(ccol_indices, row_indices,
                                        ("ccol_indices", "row_indices"), size, device)
    value, value_dtype = _as_array(values, "values", dtype)
    _check(value.ndim > 0, "values must have dimensionality > sum of batch and block "
                           "dimensionalities (=0 + 0) but got 0")
    _check(ccol.ndim == 1 and row.ndim == 1 and value.ndim == 1,
           "ember's CSC tensors are 2-D with scalar values (no batch or dense dims)")
    _check(row.shape[0] == value.shape[0], lambda: (
        f"row_indices and values must have the same number of elements, but got "
        f"row_indices.numel(): {row.shape[0]}, values.numel(): {value.shape[0]}"))
    if size is None:
        size = (int(row.max()) + 1 if row.size else 0, len(ccol) - 1)
    size = tuple(int(n) for n in size)
    _check(len(ccol) == size[1] + 1, lambda: (
        f"ccol_indices.size(-1) must be equal to size[-1] + 1 (that is {size[1] + 1}), but "
        f"got: {len(ccol)}"))
    if _tracks_values(values):
        from ember._ops.sparse_autograd import compressed_from_values_tracked
        return compressed_from_values_tracked(values, lambda v: arrays.csc(
            ccol, row, v.numpy(), size, values_dtype=value_dtype))
    return arrays.csc(ccol, row, value, size, requires_grad, values_dtype=value_dtype)


def _need_csc(self, what):
    """self's components, when it is CSC or BSC."""
    from ember._ops.sparse_blocked import layout_display_name
    _check(getattr(self._data, "layout_name", None) in ("sparse_csc", "sparse_bsc"), lambda: (
        f"{what} expected sparse column compressed tensor layout but got "
        f"{layout_display_name(self)}"))
    return self._data


@register_frontend(function=False)
@checked("ccol_indices(Tensor self)")
def ccol_indices(self):
    """ccol_indices() -> Tensor: the compressed column indices of a CSC tensor."""
    if _state.entry and _wants(locals()):
        return _handle(ccol_indices, locals())
    return _need_csc(self, "ccol_indices").ccol_indices


@register_frontend(function=False)
@checked("row_indices(Tensor self)")
def row_indices(self):
    """row_indices() -> Tensor: the row indices of a CSC tensor."""
    if _state.entry and _wants(locals()):
        return _handle(row_indices, locals())
    return _need_csc(self, "row_indices").row_indices


@register_frontend(function=False)
@checked("to_sparse_csc(Tensor self, int? dense_dim=None)")
def to_sparse_csc(self, dense_dim=None):
    """to_sparse_csc(dense_dim=None) -> Tensor: a CSC copy of a matrix."""
    if _state.entry and _wants(locals()):
        return _handle(to_sparse_csc, locals())
    if _is_csc(self):
        return self
    _check(not dense_dim, "to_sparse_csc: dense dims are not supported")
    _check(self.dim() == 2, lambda: f"to_sparse_csc: expected a 2-D tensor, got {self.dim()}-D")
    # The CSC of a matrix is the transpose of the CSR of its transpose.
    from ember._ops.sparse_autograd import convert_tracked
    return convert_tracked(self, lambda t: t.t().to_sparse_csr().t())
