"""The older sparse entry points PyTorch keeps: the products that give a sparse result
(`smm`, `hspmm` / `hsmm`, `sspaddmm` / `saddmm`) or a dense one (`dsmm`), the `*_copy` forms of
the component accessors, and the in-place resizes of a COO tensor (`sparse_resize_`,
`sparse_resize_and_clear_`, `resize_as_sparse_`).

NOTE [sparse rows of a product]: PyTorch's sparse-result products store every column of each
product row whose row of `mat1` holds an entry (coalesced rows, zeros included), uncoalesced;
`sspaddmm` puts `beta * input`'s entries, as stored, before them. These follow that layout.
"""
from __future__ import annotations

import numpy as np

from ember._core import arguments, upcalls
from ember._core.checked_entry import checked
from ember._core.checks import _check
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend


def _arrays():
    from ember._ops.sparse import _arrays as arrays
    return arrays()


def _layout_name(t):
    return getattr(getattr(t, "_data", None), "layout_name", "strided")


def _display(t):
    from ember._ops.sparse_blocked import layout_display_name
    return layout_display_name(t)


def _not_for_backend(name, t):
    backend = getattr(t._data, "backend_name", "CPU")
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the '{backend}' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build).")


# --------------------------------------------------------------------------- products

def _product_rows(name, mat1, mat2):
    """(rows of mat1 holding an entry, mat1 @ mat2 at those rows) (NOTE [sparse rows of a
    product]); mat1 COO, mat2 dense."""
    if _layout_name(mat1) != "sparse_coo":
        raise _not_for_backend(name, mat1)
    _check(_layout_name(mat2) == "strided", lambda: (
        f"{'sspaddmm' if name != 'hspmm' else name}: expected 'mat2' to have strided layout, "
        f"got 'mat2' with layout {_display(mat2)}"))
    data = mat1._data
    _check(data.ndim == 2 and data.sparse_dim == 2 and mat2.dim() == 2, lambda: (
        f"{name}: Argument #2: Expected a 2-D sparse matrix and a 2-D dense matrix, got "
        f"{data.ndim}-D and {mat2.dim()}-D"))
    _check(data.shape[1] == mat2.shape[0], lambda: (
        f"{name}: Argument #3: Expected dim 0 size {data.shape[1]}, got {mat2.shape[0]}"))
    _check(mat1.dtype == mat2.dtype, lambda: (
        f"expected scalar type {mat1.dtype._cpp_name} but found {mat2.dtype._cpp_name}"))
    arrays = _arrays()
    matrix = arrays.scipy_matrix(mat1)
    rows = np.unique(arrays.coalesced(mat1)._data.indices._data[0])
    dense = mat2.detach().numpy()
    products = np.asarray(matrix[rows] @ dense).astype(dense.dtype, copy=False)
    return rows, products


def _scaled(array, factor):
    return array if factor == 1 else array * np.asarray(factor, dtype=array.dtype)


@register_frontend(method=False)
def hspmm(mat1, mat2, *, out=None):
    """hspmm(mat1, mat2, *, out=None) -> Tensor: a sparse COO matrix times a dense one, as a
    hybrid COO tensor: one sparse dim (the product's rows where mat1 has entries), each row's
    values dense."""
    if _state.entry and _wants(locals()):
        return _handle(hspmm, locals())
    _check(out is None, "hspmm: out= is not supported by ember")
    rows, products = _product_rows("hspmm", mat1, mat2)
    shape = (mat1.shape[0], mat2.shape[1])
    return _arrays().coo(rows[None].astype(np.int64), np.ascontiguousarray(products), shape,
                         False, values_dtype=mat2.dtype)


@register_frontend(method=False)
def hsmm(mat1, mat2):
    """hsmm(mat1, mat2) -> Tensor: hspmm."""
    if _state.entry and _wants(locals()):
        return _handle(hsmm, locals())
    return hspmm(mat1, mat2)


def _rows_as_entries(rows, products):
    """The (indices, values) of product rows stored column by column."""
    columns = products.shape[1]
    indices = np.stack([np.repeat(rows, columns), np.tile(np.arange(columns), len(rows))])
    return indices.astype(np.int64), products.reshape(-1)


@register_frontend()
def sspaddmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """sspaddmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor: beta * input +
    alpha * mat1 @ mat2 with sparse COO input and mat1 and dense mat2, a sparse COO result
    (NOTE [sparse rows of a product])."""
    if _state.entry and _wants(locals()):
        return _handle(sspaddmm, locals())
    _check(out is None, "sspaddmm: out= is not supported by ember")
    _check(_layout_name(input) == "sparse_coo", "tensor.sspaddmm(...) can only be called on "
                                                "sparse tensors")
    rows, products = _product_rows("sspaddmm", mat1, mat2)
    shape = (mat1.shape[0], mat2.shape[1])
    _check(tuple(input.shape) == shape, lambda: (
        f"sspaddmm: Argument #1: Expected dim "
        f"{0 if input.shape[0] != shape[0] else 1} size "
        f"{shape[0] if input.shape[0] != shape[0] else shape[1]}, got "
        f"{input.shape[0] if input.shape[0] != shape[0] else input.shape[1]}"))
    indices, values = _rows_as_entries(rows, _scaled(products, alpha))
    data = input._data
    own_values = _scaled(data.values._data.astype(values.dtype, copy=False), beta)
    return _arrays().coo(np.concatenate([data.indices._data, indices], axis=1),
                         np.ascontiguousarray(np.concatenate([own_values, values])), shape,
                         False, values_dtype=mat2.dtype)



@register_frontend(method=False)
def saddmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """saddmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor: sspaddmm."""
    if _state.entry and _wants(locals()):
        return _handle(saddmm, locals())
    return sspaddmm(input, mat1, mat2, beta=beta, alpha=alpha, out=out)


def smm(input, mat):
    """smm(input, mat) -> Tensor: a sparse COO matrix times a dense one, as a sparse COO
    matrix (NOTE [sparse rows of a product])."""
    if _state.entry and _wants(locals()):
        return _handle(smm, locals())
    _check(_layout_name(input) == "sparse_coo", "tensor.sspaddmm(...) can only be called on "
                                                "sparse tensors")
    rows, products = _product_rows("smm", input, mat)
    indices, values = _rows_as_entries(rows, products)
    return _arrays().coo(indices, np.ascontiguousarray(values),
                         (input.shape[0], mat.shape[1]), False, values_dtype=mat.dtype)


register_frontend("smm")(smm)


@register_frontend(method=False)
def dsmm(input, mat2):
    """dsmm(input, mat2) -> Tensor: input @ mat2 as a dense matrix (input sparse or dense)."""
    if _state.entry and _wants(locals()):
        return _handle(dsmm, locals())
    return upcalls.public("mm")(input, mat2)


# --------------------------------------------------------------------------- *_copy

def _copy_of(name, accessor, input, out):
    """`accessor(input)` copied (PyTorch's *_copy: not for COO tensors)."""
    if _layout_name(input) == "sparse_coo":
        raise _not_for_backend(name, input)
    result = accessor(input).clone()
    if out is None:
        return result
    out.resize_(tuple(result.shape))
    return out.copy_(result)


@register_frontend(method=False)
@checked("indices_copy(Tensor self)")
def indices_copy(input, *, out=None):
    """indices_copy(input, *, out=None) -> Tensor: a copy of input.indices()."""
    if _state.entry and _wants(locals()):
        return _handle(indices_copy, locals())
    return _copy_of("indices_copy", lambda t: t.indices(), input, out)


@register_frontend(method=False)
@checked("values_copy(Tensor self)")
def values_copy(input, *, out=None):
    """values_copy(input, *, out=None) -> Tensor: a copy of input.values()."""
    if _state.entry and _wants(locals()):
        return _handle(values_copy, locals())
    return _copy_of("values_copy", lambda t: t.values(), input, out)


@register_frontend(method=False)
@checked("crow_indices_copy(Tensor self)")
def crow_indices_copy(input, *, out=None):
    """crow_indices_copy(input, *, out=None) -> Tensor: a copy of input.crow_indices()."""
    if _state.entry and _wants(locals()):
        return _handle(crow_indices_copy, locals())
    return _copy_of("crow_indices_copy", lambda t: t.crow_indices(), input, out)


@register_frontend(method=False)
@checked("col_indices_copy(Tensor self)")
def col_indices_copy(input, *, out=None):
    """col_indices_copy(input, *, out=None) -> Tensor: a copy of input.col_indices()."""
    if _state.entry and _wants(locals()):
        return _handle(col_indices_copy, locals())
    return _copy_of("col_indices_copy", lambda t: t.col_indices(), input, out)


@register_frontend(method=False)
@checked("ccol_indices_copy(Tensor self)")
def ccol_indices_copy(input, *, out=None):
    """ccol_indices_copy(input, *, out=None) -> Tensor: a copy of input.ccol_indices()."""
    if _state.entry and _wants(locals()):
        return _handle(ccol_indices_copy, locals())
    return _copy_of("ccol_indices_copy", lambda t: t.ccol_indices(), input, out)


@register_frontend(method=False)
@checked("row_indices_copy(Tensor self)")
def row_indices_copy(input, *, out=None):
    """row_indices_copy(input, *, out=None) -> Tensor: a copy of input.row_indices()."""
    if _state.entry and _wants(locals()):
        return _handle(row_indices_copy, locals())
    return _copy_of("row_indices_copy", lambda t: t.row_indices(), input, out)


# --------------------------------------------------------------------------- resizes

def _resizable(self, name):
    if _layout_name(self) != "sparse_coo":
        raise _not_for_backend(name, self)
    _check(not (self._requires_grad and self._grad_fn is None), "a leaf Variable that "
           "requires grad is being used in an in-place operation.")
    return self._data


def _check_dims(size, sparse_dim, dense_dim):
    _check(len(size) == sparse_dim + dense_dim, lambda: (
        f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
        f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}"))


def _replace(self, indices, values, size, coalesced):
    from ember._core.dispatch import bump_version
    self._data = _arrays().coo(indices, values, size, coalesced,
                               values_dtype=self._data.values._dtype)._data
    bump_version(self)
    return self


def sparse_resize_(self, size, sparse_dim, dense_dim):
    """sparse_resize_(size, sparse_dim, dense_dim) -> Tensor: a COO tensor's size changed in
    place, its entries kept (a non-empty tensor keeps its dims' counts, its dense sizes, and
    sparse sizes no smaller than they were)."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_resize_, locals())
    data = _resizable(self, "sparse_resize_")
    size = tuple(int(n) for n in size)
    _check_dims(size, sparse_dim, dense_dim)
    old_sparse, old_dense = data.sparse_dim, data.ndim - data.sparse_dim
    values = data.values._data
    if data.nnz:
        _check(sparse_dim == old_sparse, lambda: (
            f"changing the number of sparse dimensions (from {old_sparse} to {sparse_dim}) on "
            "a non-empty sparse tensor is not supported."))
        _check(dense_dim == old_dense, lambda: (
            f"changing the number of dense dimensions (from {old_dense} to {dense_dim}) on a "
            "non-empty sparse tensor is not supported."))
        old_sizes, new_sizes = list(data.shape[:old_sparse]), list(size[:sparse_dim])
        _check(all(n >= o for n, o in zip(new_sizes, old_sizes)), lambda: (
            f"shrinking the size of sparse dimensions (from {old_sizes} to {new_sizes}) on a "
            "non-empty sparse tensor is not supported."))
        old_dense_sizes, new_dense_sizes = list(data.shape[old_sparse:]), list(size[sparse_dim:])
        _check(old_dense_sizes == new_dense_sizes, lambda: (
            f"shrinking the size of dense dimensions (from {old_dense_sizes} to "
            f"{new_dense_sizes}) on a non-empty sparse tensor is not supported."))
        return _replace(self, data.indices._data, values, size, data.coalesced)
    return _empty_of(self, size, sparse_dim)


def _empty_of(self, size, sparse_dim):
    values = np.zeros((0,) + size[sparse_dim:], dtype=self._data.values._data.dtype)
    return _replace(self, np.zeros((sparse_dim, 0), np.int64), values, size, True)


def sparse_resize_and_clear_(self, size, sparse_dim, dense_dim):
    """sparse_resize_and_clear_(size, sparse_dim, dense_dim) -> Tensor: a COO tensor emptied
    in place and given this size and these numbers of sparse and dense dims."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_resize_and_clear_, locals())
    _resizable(self, "sparse_resize_and_clear_")
    size = tuple(int(n) for n in size)
    _check_dims(size, sparse_dim, dense_dim)
    return _empty_of(self, size, sparse_dim)


def resize_as_sparse_(self, the_template):
    """resize_as_sparse_(the_template) -> Tensor: sparse_resize_ to the template's size and
    sparse and dense dim counts."""
    if _state.entry and _wants(locals()):
        return _handle(resize_as_sparse_, locals())
    arguments.tensor_(self, ("resize_as_sparse_", "input", 1))
    arguments.tensor_(the_template, ("resize_as_sparse_", "the_template", 2))
    _check(_layout_name(self) == "sparse_coo", "resize_as_sparse_: expected 'self' to be a "
                                               "sparse COO tensor")
    template_sparse = the_template.sparse_dim()
    return sparse_resize_(self, tuple(the_template.shape), template_sparse,
                          the_template.dim() - template_sparse)


register_frontend("sparse_resize_", function=False)(sparse_resize_)
register_frontend("sparse_resize_and_clear_", function=False)(sparse_resize_and_clear_)
register_frontend("resize_as_sparse_")(resize_as_sparse_)
