"""Sparse tensors' constructors and methods: `ember.sparse_coo_tensor`, `sparse_csr_tensor`,
`Tensor.to_sparse` / `to_sparse_csr` / `to_dense`, `coalesce`, the component accessors.

NOTE [sparse layout] (_core/dispatch/sparse.py) says what a sparse tensor is; the kernels of
registry ops on them are in sparse_kernels.py, their arrays in sparse_arrays.py. Nothing here
imports SciPy or those modules before a sparse tensor is made.
"""
from __future__ import annotations

from ember._core import arguments, dispatch, upcalls
from ember._core import dtype as dt
from ember._core import layout as _tags
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend

_SPARSE_TYPES = None
checking_invariants = [False]     # ember.sparse.check_sparse_tensor_invariants switches it


def _layouts():
    global _SPARSE_TYPES
    if _SPARSE_TYPES is None:
        from ember._core.dispatch.sparse import SPARSE_TYPES
        from ember._ops import sparse_indexing, sparse_kernels  # noqa: F401  (registers the
        # sparse kernels)
        _SPARSE_TYPES = SPARSE_TYPES
    return _SPARSE_TYPES


def _arrays():
    _layouts()
    from ember._ops import sparse_arrays
    return sparse_arrays


def _is_sparse(t) -> bool:
    return type(t._data) in _layouts()


def _as_array(value, name, dtype=None):
    """A host array of a tensor or nested list argument."""
    import numpy as np

    from ember._ops.creation_data import tensor
    if not isinstance(value, dispatch.Tensor):
        value = tensor(value, dtype=dtype)
    elif dtype is not None:
        value = value.to(dtype)
    _check(not _is_sparse(value), lambda: f"{name} must be a strided tensor")
    array = value.detach().numpy()     # (np.ascontiguousarray would make a 0-d array 1-d)
    return (array if array.flags.c_contiguous else array.copy(order="C")), value.dtype


def compressed_schemas(name: str, compressed: str, plain: str) -> tuple:
    """PyTorch's two signatures of a compressed sparse constructor (`name`), with and without
    the size: the index and value arguments are any data `tensor` takes."""
    head = f"{name}(PyObject {compressed}, PyObject {plain}, PyObject values"
    tail = ("*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
            "bool pin_memory=False, bool requires_grad=False, bool? check_invariants=None)")
    return f"{head}, SymInt[] size, {tail}", f"{head}, {tail}"


def compressed_index_arrays(compressed_indices, plain_indices, names, size, device):
    """The two index arrays of a compressed sparse constructor, as int64.

    NOTE [compressed sparse indices]: PyTorch keeps indices of whatever dtype they come in;
    only inferring the size reads the plain indices, as integers (a NotImplementedError for any
    other dtype). ember's kernels index with int64, so it takes integer indices of any width
    and refuses others where PyTorch would build a tensor of them (given a size)."""
    import numpy as np
    compressed, compressed_dtype = _as_array(compressed_indices, names[0])
    plain, plain_dtype = _as_array(plain_indices, names[1])
    _check(device is None or str(device) == "cpu", "sparse tensors live on the CPU in ember")
    integral = (dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64)
    _check_not_implemented(size is not None or plain_dtype in integral, lambda: (
        "\"estimate_sparse_compressed_tensor_size\" not implemented for "
        f"'{plain_dtype._cpp_name}'"))
    for array, dtype, name in ((compressed, compressed_dtype, names[0]),
                               (plain, plain_dtype, names[1])):
        _check(dtype in integral or array.size == 0, lambda: (
            f"{name} must be an integer tensor in ember (NOTE [compressed sparse indices])"))
    return compressed.astype(np.int64, copy=False), plain.astype(np.int64, copy=False)


def _index_array(value, name):
    """COO indices as int64, converted from any dtype as PyTorch converts them."""
    return _as_array(value, name, dt.int64)[0]


def coo_schemas(name: str) -> tuple:
    """PyTorch's signatures of `sparse_coo_tensor` with indices and values (any data `tensor`
    takes), with and without the size."""
    tail = ("*, ScalarType? dtype=None, Device? device=None, bool pin_memory=False, "
            "bool requires_grad=False, bool? check_invariants=None, bool? is_coalesced=None)")
    head = f"{name}(PyObject indices, PyObject values"
    return f"{head}, {tail}", f"{head}, SymInt[] size, {tail}"


@register_frontend(method=False)
@checked(*coo_schemas("sparse_coo_tensor"))
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
    requires_grad=False, check_invariants=None, is_coalesced=None) -> Tensor: a sparse tensor
    in COO format with `values` at `indices` (sparse_dim x nnz)."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_coo_tensor, locals())
    import numpy as np
    arrays = _arrays()
    _check(device is None or str(device) == "cpu", "sparse tensors live on the CPU in ember")
    _check(not pin_memory or upcalls.accelerator_available(),
           "Cannot access accelerator device when none is available.")
    index = _index_array(indices, "indices")
    value, value_dtype = _as_array(values, "values", dtype)
    _check(index.ndim == 2, lambda: (
        f"indices must be sparse_dim x nnz, but got: {list(index.shape)}"))
    nnz = index.shape[1]
    _check(value.ndim >= 1 and value.shape[0] == nnz, lambda: (
        f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
        f"values: {value.shape[0] if value.ndim else 1}"))
    sparse_dim = index.shape[0]
    if size is None:
        # (the size is read off the indices: a negative one is refused here, a check PyTorch
        # makes whatever check_invariants says)
        for dim in range(sparse_dim if nnz else 0):
            low = int(index[dim].min())
            if low < 0:
                raise RuntimeError(f"found negative index {low} for dim {dim}")
        sizes = index.max(axis=1) + 1 if nnz else np.zeros(sparse_dim, np.int64)
        size = tuple(int(n) for n in sizes) + tuple(value.shape[1:])
    # PyTorch's int-list parsing (NumPy and __index__ integers, one-element integer tensors).
    size = arguments.int_list(size, ("sparse_coo_tensor", "size", 3))
    size = (size,) if isinstance(size, int) else tuple(int(n) for n in size)
    _check(len(size) == sparse_dim + value.ndim - 1, lambda: (
        f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
        f"sparse_dim = {sparse_dim}, dense_dim = {value.ndim - 1}"))
    _check(min(size, default=0) >= 0, "numel: integer multiplication overflow")
    if check_invariants or check_invariants is None and checking_invariants[0]:
        _check_coo_invariants(index, size)
    if _tracks_values(values):
        from ember._ops.sparse_autograd import from_values_tracked
        return from_values_tracked(values, lambda v: arrays.coo(
            index, v.numpy(), size, bool(is_coalesced), values_dtype=value_dtype))
    return arrays.coo(index, value, size, bool(is_coalesced), requires_grad,
                      values_dtype=value_dtype)


def _tracks_values(values) -> bool:
    """Whether a values tensor argument carries a gradient into the sparse tensor."""
    return isinstance(values, dispatch.Tensor) and values.requires_grad and \
        dispatch.state.grad_enabled()


def _check_coo_invariants(index, size):
    for dim in range(index.shape[0]):
        if index.shape[1] == 0:
            break
        low, high = int(index[dim].min()), int(index[dim].max())
        _check(low >= 0, f"found negative index {low} for dim {dim}")
        _check(high < size[dim], f"size is inconsistent with indices: for dim {dim}, size is "
                                 f"{size[dim]} but found index {high}")


@register_frontend(method=False)
@checked(*compressed_schemas("sparse_csr_tensor", "crow_indices", "col_indices"))
def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None,
                      layout=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None):
    """sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None,
    device=None, requires_grad=False, check_invariants=None) -> Tensor: a sparse matrix in CSR
    format (compressed rows)."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_csr_tensor, locals())
    from ember._ops.sparse_blocked import check_layout_argument
    check_layout_argument("sparse_csr_tensor", layout, _tags.sparse_csr)
    arrays = _arrays()
    crow, col = compressed_index_arrays(crow_indices, col_indices,
                                        ("crow_indices", "col_indices"), size, device)
    value, value_dtype = _as_array(values, "values", dtype)
    _check(value.ndim > 0, "values must have dimensionality > sum of batch and block "
                           "dimensionalities (=0 + 0) but got 0")
    _check(crow.ndim == 1 and col.ndim == 1 and value.ndim == 1,
           "ember's CSR tensors are 2-D with scalar values (no batch or dense dims)")
    _check(col.shape[0] == value.shape[0], lambda: (
        f"col_indices and values must have the same number of elements, but got "
        f"col_indices.numel(): {col.shape[0]}, values.numel(): {value.shape[0]}"))
    if size is None:
        size = (len(crow) - 1, int(col.max()) + 1 if col.size else 0)
    size = tuple(int(n) for n in size)
    _check(len(crow) == size[0] + 1, lambda: (
        f"crow_indices.size(-1) must be equal to size[-2] + 1 (that is {size[0] + 1}), but "
        f"got: {len(crow)}"))
    if _tracks_values(values):
        from ember._ops.sparse_autograd import compressed_from_values_tracked
        return compressed_from_values_tracked(values, lambda v: arrays.csr(
            crow, col, v.numpy(), size, values_dtype=value_dtype))
    return arrays.csr(crow, col, value, size, requires_grad, values_dtype=value_dtype)


@register_frontend(function=False)
@checked("to_dense(Tensor self, ScalarType? dtype=None, *, bool? masked_grad=None)")
def to_dense(self, dtype=None, *, masked_grad=None):
    """to_dense(dtype=None, *, masked_grad=True) -> Tensor: a strided copy (self when strided)."""
    if _state.entry and _wants(locals()):
        return _handle(to_dense, locals())
    if not _is_sparse(self):
        return self if dtype is None else self.to(dtype)
    from ember._ops.sparse_autograd import to_dense_tracked
    out = to_dense_tracked(self)
    return out if dtype is None else out.to(dtype)


@register_frontend(function=False)
@checked("to_sparse(Tensor self, int sparse_dim)",
         "to_sparse(Tensor self, *, Layout? layout=None, int[2]? blocksize=None, "
         "int? dense_dim=None)")
def to_sparse(self, sparseDims=None, *, layout=None, blocksize=None, dense_dim=None):
    """to_sparse(sparseDims) or to_sparse(*, layout=None, blocksize=None, dense_dim=None):
    a sparse copy (COO unless `layout` says otherwise)."""
    if _state.entry and _wants(locals()):
        return _handle(to_sparse, locals())
    if layout in (_tags.sparse_bsr, _tags.sparse_bsc):
        from ember._ops.sparse_blocked import to_sparse_bsc, to_sparse_bsr
        _check(blocksize is not None, lambda: (
            f"dense_to_sparse: conversion from Strided to "
            f"{'SparseBsr' if layout is _tags.sparse_bsr else 'SparseBsc'} without blocksize "
            "argument given is not supported"))
        convert = to_sparse_bsr if layout is _tags.sparse_bsr else to_sparse_bsc
        return convert(self, blocksize, dense_dim)
    _check(blocksize is None, "to_sparse: a blocksize is for the blocked layouts (sparse_bsr, "
                              "sparse_bsc)")
    if layout is not None and layout is not _tags.sparse_coo:
        if layout is _tags.sparse_csc:
            from ember._ops.sparse_csc import to_sparse_csc
            return to_sparse_csc(self, dense_dim)
        _check(layout is _tags.sparse_csr, lambda: f"to_sparse: unsupported layout {layout}")
        return to_sparse_csr(self, dense_dim)
    if _is_sparse(self):
        kind = type(self._data).__name__
        if kind == "SparseCOO":
            return self
        from ember._ops.sparse_autograd import convert_tracked
        if kind == "SparseCSC":
            from ember._ops.sparse_csc import csc_to_coo
            return convert_tracked(self, csc_to_coo)
        if kind in ("SparseBSR", "SparseBSC"):
            from ember._ops.sparse_blocked import blocked_to_coo
            return convert_tracked(self, blocked_to_coo)
        return convert_tracked(self, _csr_to_coo)
    ndim = self.dim()
    sparse_dim = ndim if sparseDims is None else sparseDims
    if dense_dim is not None:
        sparse_dim = ndim - dense_dim
    _check(sparse_dim > 0 or ndim == 0, "dense_to_sparse: sparse_dim argument must be in >0 "
                                        "when self.dim()>0")
    _check(0 <= sparse_dim <= ndim, lambda: (
        f"sparse_dim argument must be in [0,{ndim}] range, but {sparse_dim} is given"))
    from ember._ops.sparse_autograd import to_sparse_tracked
    return to_sparse_tracked(self, sparse_dim)


def _csr_to_coo(t):
    from ember._ops.sparse_kernels import _csr_to_coo as convert
    return convert(t)


@register_frontend(function=False)
def to_sparse_coo(self):
    """to_sparse_coo() -> Tensor: a COO copy."""
    if _state.entry and _wants(locals()):
        return _handle(to_sparse_coo, locals())
    return to_sparse(self)


@register_frontend(function=False)
@checked("to_sparse_csr(Tensor self, int? dense_dim=None)")
def to_sparse_csr(self, dense_dim=None):
    """to_sparse_csr(dense_dim=None) -> Tensor: a CSR copy of a matrix."""
    if _state.entry and _wants(locals()):
        return _handle(to_sparse_csr, locals())
    arrays = _arrays()
    if _is_sparse(self):
        if type(self._data).__name__ == "SparseCSR":
            return self
        _check(type(self._data).__name__ not in ("SparseBSR", "SparseBSC"), lambda: (
            "sparse_compressed_to_sparse_csr: expected SparseCsr or SparseCsc layout but got "
            f"{_layout_display(self)}"))
        from ember._ops.sparse_autograd import convert_tracked
        return convert_tracked(self, lambda t: arrays.coo_to_csr(to_sparse(t)))
    _check(self.dim() == 2 and not dense_dim,
           lambda: f"to_sparse_csr: expected a 2-D tensor, got {self.dim()}-D")
    from ember._ops.sparse_autograd import convert_tracked
    return convert_tracked(self, lambda t: arrays.coo_to_csr(
        arrays.array_to_coo(t.numpy(), 2, t.dtype)))


def _layout_display(t):
    from ember._ops.sparse_blocked import layout_display_name
    return layout_display_name(t)


def _need(self, kind, what):
    """self's components, when its layout is one of `kind`'s ("coo"; "csr": CSR or BSR)."""
    layouts = _layouts()
    data = self._data
    names = {"coo": ("SparseCOO",), "csr": ("SparseCSR", "SparseBSR")}[kind]
    _check(type(data) in layouts and type(data).__name__ in names, lambda: (
        f"{what} expected sparse {'coordinate' if kind == 'coo' else 'row compressed'} "
        f"tensor layout but got {_layout_display(self)}"))
    return data


@register_frontend(function=False)
@checked("coalesce(Tensor self)")
def coalesce(self):
    """coalesce() -> Tensor: duplicate entries summed, indices sorted (self when already)."""
    if _state.entry and _wants(locals()):
        return _handle(coalesce, locals())
    _need(self, "coo", "coalesce")
    from ember._ops.sparse_autograd import coalesce_tracked
    return coalesce_tracked(self)


@register_frontend(function=False)
@checked("is_coalesced(Tensor self)")
def is_coalesced(self):
    """is_coalesced() -> bool: whether the indices are unique and sorted."""
    if _state.entry and _wants(locals()):
        return _handle(is_coalesced, locals())
    return bool(_need(self, "coo", "is_coalesced").coalesced)


@register_frontend(function=False)
def _indices(self):
    """The indices tensor (sparse_dim x nnz), coalesced or not."""
    if _state.entry and _wants(locals()):
        return _handle(_indices, locals())
    return _need(self, "coo", "_indices").indices


@register_frontend(function=False)
def _values(self):
    """The values tensor (nnz x dense dims), coalesced or not."""
    if _state.entry and _wants(locals()):
        return _handle(_values, locals())
    data = self._data
    _check(type(data) in _layouts(), "_values expected sparse tensor layout but got Strided")
    return data.values


@register_frontend(function=False)
@checked("indices(Tensor self)")
def indices(self):
    """indices() -> Tensor: the indices of a coalesced COO tensor."""
    if _state.entry and _wants(locals()):
        return _handle(indices, locals())
    data = _need(self, "coo", "indices")
    _check(data.coalesced, "Cannot get indices on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return data.indices


@register_frontend(function=False)
@checked("values(Tensor self)",
         "values(Dict(str, t) self)",
         "values(Dict(int, t) self)",
         "values(Dict(bool, t) self)",
         "values(Dict(float, t) self)",
         "values(Dict(complex, t) self)",
         "values(Dict(Tensor, t) self)")
def values(self):
    """values() -> Tensor: the stored values (of a coalesced tensor, for COO)."""
    if _state.entry and _wants(locals()):
        return _handle(values, locals())
    data = self._data
    _check(type(data) in _layouts(), "values expected sparse tensor layout but got Strided")
    _check(data.coalesced, "Cannot get values on an uncoalesced tensor, please call "
                           ".coalesce() first")
    return data.values


@register_frontend(function=False)
@checked("crow_indices(Tensor self)")
def crow_indices(self):
    """crow_indices() -> Tensor: the compressed row indices of a CSR tensor."""
    if _state.entry and _wants(locals()):
        return _handle(crow_indices, locals())
    return _need(self, "csr", "crow_indices").crow_indices


@register_frontend(function=False)
@checked("col_indices(Tensor self)")
def col_indices(self):
    """col_indices() -> Tensor: the column indices of a CSR tensor."""
    if _state.entry and _wants(locals()):
        return _handle(col_indices, locals())
    return _need(self, "csr", "col_indices").col_indices


@register_frontend(function=False)
@checked("sparse_dim(Tensor self)")
def sparse_dim(self):
    """sparse_dim() -> int: the number of sparse dimensions (0 for a strided tensor)."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_dim, locals())
    return self._data.sparse_dim if _is_sparse(self) else 0


@register_frontend(function=False)
@checked("dense_dim(Tensor self)")
def dense_dim(self):
    """dense_dim() -> int: the number of dense dimensions (all of a strided tensor's)."""
    if _state.entry and _wants(locals()):
        return _handle(dense_dim, locals())
    if _is_sparse(self):
        return self._data.ndim - self._data.sparse_dim
    return self.dim()


@register_frontend(function=False)
def _nnz(self):
    """_nnz() -> int: the number of stored entries."""
    if _state.entry and _wants(locals()):
        return _handle(_nnz, locals())
    data = self._data
    _check(type(data) in _layouts(), "_nnz expected sparse tensor layout but got Strided")
    return data.nnz


@register_frontend(function=False)
@checked("sparse_mask(Tensor self, Tensor mask)")
def sparse_mask(self, mask):
    """sparse_mask(mask) -> Tensor: this strided tensor's values at the entries of the sparse
    COO tensor `mask`, as a sparse tensor with mask's indices."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_mask, locals())
    if not _is_sparse(mask) and not _is_sparse(self):
        # (PyTorch's op has sparse kernels only: two strided tensors find none)
        raise NotImplementedError(
            "Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted "
            "during the selective/custom build process (if using custom build).")
    data = _need(mask, "coo", "sparse_mask")
    _check(tuple(self.shape) == data.shape, lambda: (
        f"sparse_mask(): the number of sizes provided ({self.dim()}) must be equal to the "
        f"number of dimensions of the mask ({len(data.shape)})"))
    indices = data.indices._data
    picked = self.detach().numpy()[tuple(indices)]
    return _arrays().coo(indices, picked.copy(), data.shape, data.coalesced,
                         values_dtype=self.dtype)


@register_frontend(method=False)
def spmm(input, mat2):
    """spmm(input, mat2) -> Tensor: sparse matrix times dense matrix (ember.mm)."""
    if _state.entry and _wants(locals()):
        return _handle(spmm, locals())
    return upcalls.public("mm")(input, mat2)


def rebuild_sparse(layout_name, components, size, coalesced=False, requires_grad=False):
    """A sparse tensor from its pickled components (pickle, ember.save / ember.load)."""
    if layout_name == "sparse_csr":
        crow, col, values = components
        out = sparse_csr_tensor(crow, col, values, size)
    elif layout_name in ("sparse_bsr", "sparse_bsc"):
        from ember._ops import sparse_blocked
        out = getattr(sparse_blocked, layout_name + "_tensor")(*components, size)
    elif layout_name == "sparse_csc":
        from ember._ops.sparse_csc import sparse_csc_tensor
        out = sparse_csc_tensor(*components, size)
    else:
        indices, values = components
        out = sparse_coo_tensor(indices, values, size, is_coalesced=bool(coalesced))
    return out.requires_grad_(requires_grad) if requires_grad else out


def sparse_parts(t):
    """(layout name, components, size, coalesced) of a sparse tensor: what pickles it."""
    data = t._data
    if data.layout_name in ("sparse_csr", "sparse_bsr"):
        parts = (data.crow_indices, data.col_indices, data.values)
    elif data.layout_name in ("sparse_csc", "sparse_bsc"):
        parts = (data.ccol_indices, data.row_indices, data.values)
    else:
        parts = (data.indices, data.values)
    return data.layout_name, parts, tuple(data.shape), bool(data.coalesced)
