"""The blocked compressed layouts, BSR and BSC: a matrix cut into R x C blocks, of which the
ones holding a nonzero are stored whole. BSR orders the blocks by block row (`crow_indices`
counts them per block row, `col_indices` gives each one's block column); BSC by block column
(`ccol_indices`, `row_indices`). `values` is (blocks, R, C), each block row-major in both.

Here: `sparse_bsr_tensor`, `sparse_bsc_tensor`, `sparse_compressed_tensor`,
`Tensor.to_sparse_bsr` / `to_sparse_bsc`, conversions to dense and COO, the kernels a blocked
operand runs (copies, dtype moves, transposes, scaling, products through SciPy's bsr_matrix);
any other op raises PyTorch's "Could not run ... 'SparseCsrCPU' backend" (NOTE [sparse
layout], _core/dispatch/sparse.py). Like ember's CSR and CSC tensors, these are 2-D with no
batch or dense dims.
"""
from __future__ import annotations

import numpy as np

from ember._core import layout as _layouts
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_type
from ember._core.device import CPU
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend
from ember._ops.sparse import compressed_index_arrays, compressed_schemas

_DISPLAY = {"sparse_coo": "Sparse", "sparse_csr": "SparseCsr", "sparse_csc": "SparseCsc",
            "sparse_bsr": "SparseBsr", "sparse_bsc": "SparseBsc"}


def layout_display_name(t) -> str:
    """How PyTorch's messages name a tensor's layout ("Strided", "SparseBsr", ...)."""
    return _DISPLAY.get(getattr(t._data, "layout_name", None), "Strided")


def check_layout_argument(function: str, layout, expected) -> None:
    """PyTorch's refusal of a constructor's `layout=` other than its own layout (`None` is
    its own)."""
    if layout is None or layout is expected:
        return
    _check_type(isinstance(layout, _layouts.layout),
                lambda: f"{function}(): argument 'layout' must be torch.layout, not "
                        f"{type(layout).__name__}")
    _check(False, lambda: f"{function}: layout must be {_DISPLAY[expected.name]} but got "
                          f"{_DISPLAY.get(layout.name, 'Strided')}")


def _kind(t):
    return getattr(getattr(t, "_data", None), "layout_name", "strided")


# --------------------------------------------------------------------------- arrays

def _build(by_rows, block_rows, block_cols, blocks, shape, dtype):
    """A BSR (by_rows) or BSC tensor of the given blocks, in any order."""
    from ember._core.dispatch import wrap
    from ember._core.dispatch.sparse import SparseBSC, SparseBSR, make_sparse
    from ember._ops.sparse import _arrays
    arrays = _arrays()
    rows, cols = shape
    block_r, block_c = blocks.shape[1:3]
    major, minor = (block_rows, block_cols) if by_rows else (block_cols, block_rows)
    majors = rows // block_r if by_rows else cols // block_c
    order = np.lexsort((minor, major))
    compressed = np.zeros(majors + 1, dtype=np.int64)
    np.cumsum(np.bincount(major, minlength=majors), out=compressed[1:])
    plain = np.ascontiguousarray(minor[order].astype(np.int64))
    values = wrap(np.ascontiguousarray(blocks[order]), dtype, CPU)
    kind = SparseBSR if by_rows else SparseBSC
    return make_sparse(kind(arrays.dense_tensor(compressed), arrays.dense_tensor(plain), values,
                            shape))


def _block_coordinates(data):
    """(block row, block column) of each stored block, in storage order."""
    if data.layout_name == "sparse_bsr":
        compressed, plain = data.crow_indices._data, data.col_indices._data
    else:
        compressed, plain = data.ccol_indices._data, data.row_indices._data
    major = np.repeat(np.arange(len(compressed) - 1, dtype=np.int64), np.diff(compressed))
    plain = plain.astype(np.int64)
    return (major, plain) if data.layout_name == "sparse_bsr" else (plain, major)


def blocked_to_array(data):
    """The dense array of a BSR or BSC matrix."""
    rows, cols = data.shape
    block_r, block_c = data.blocksize
    blocks = data.values._data
    grid = np.zeros((rows // block_r, cols // block_c, block_r, block_c), dtype=blocks.dtype)
    block_rows, block_cols = _block_coordinates(data)
    grid[block_rows, block_cols] = blocks
    return grid.transpose(0, 2, 1, 3).reshape(rows, cols)


def blocked_scipy_matrix(data):
    """A SciPy bsr_matrix of a BSR matrix; of a BSC one, the transpose of its transpose's."""
    import scipy.sparse
    if data.layout_name == "sparse_bsr":
        return scipy.sparse.bsr_matrix(
            (data.values._data, data.col_indices._data, data.crow_indices._data),
            shape=data.shape)
    transposed = np.ascontiguousarray(data.values._data.transpose(0, 2, 1))
    return scipy.sparse.bsr_matrix(
        (transposed, data.row_indices._data, data.ccol_indices._data),
        shape=data.shape[::-1]).T


def _blocks_of_array(array, blocksize, by_rows, dtype, what):
    rows, cols = array.shape
    block_r, block_c = blocksize
    _check(rows % block_r == 0 and cols % block_c == 0, lambda: (
        f"{what}: tensor sparse size ({rows},{cols}) must be divisible by given blocksize "
        f"({block_r},{block_c})"))
    grid = array.reshape(rows // block_r, block_r, cols // block_c, block_c).transpose(0, 2, 1, 3)
    block_rows, block_cols = np.nonzero(grid.reshape(grid.shape[:2] + (-1,)).any(axis=-1))
    return _build(by_rows, block_rows, block_cols, grid[block_rows, block_cols],
                  array.shape, dtype)


def _blocksize(blocksize):
    if isinstance(blocksize, int):
        return (blocksize, blocksize)
    return tuple(int(n) for n in blocksize)


def _convert(self, blocksize, dense_dim, by_rows):
    """to_sparse_bsr / to_sparse_bsc."""
    name = "bsr" if by_rows else "bsc"
    target = f"sparse_{name}"
    blocksize = _blocksize(blocksize)
    kind = _kind(self)
    if kind in ("sparse_bsr", "sparse_bsc"):
        have = self._data.blocksize
        _check(have == blocksize, lambda: (
            f"to_sparse_{name}: conversion from {layout_display_name(self)} to "
            f"{_DISPLAY[target]} with blocksize changed from {list(have)} to "
            f"{list(blocksize)} is not supported"))
        if kind == target:
            return self
        block_rows, block_cols = _block_coordinates(self._data)
        return _build(by_rows, block_rows, block_cols, self._data.values._data,
                      self._data.shape, self._dtype)
    _check(not dense_dim, f"to_sparse_{name}: dense dims are not supported by ember")
    _check(self.dim() == 2, lambda: (
        f"to_sparse_{name}: expected a 2-D tensor (ember has no batch dims), got "
        f"{self.dim()}-D"))
    array = self.to_dense().detach().numpy() if kind != "strided" else self.detach().numpy()
    what = "dense_to_sparse_" + name if kind == "strided" else f"to_sparse_{name}"
    return _blocks_of_array(array, blocksize, by_rows, self._dtype, what)


@register_frontend(function=False)
@checked("to_sparse_bsr(Tensor self, int[2] blocksize, int? dense_dim=None)")
def to_sparse_bsr(self, blocksize, dense_dim=None):
    """to_sparse_bsr(blocksize, dense_dim=None) -> Tensor: a BSR copy of a matrix, cut into
    blocks of `blocksize` (rows, columns); the blocks holding a nonzero are stored."""
    if _state.entry and _wants(locals()):
        return _handle(to_sparse_bsr, locals())
    if _kind(self) == "sparse_bsr" and self._data.blocksize == _blocksize(blocksize):
        return self
    from ember._ops.sparse_autograd import convert_tracked
    return convert_tracked(self, lambda t: _convert(t, blocksize, dense_dim, by_rows=True))


@register_frontend(function=False)
@checked("to_sparse_bsc(Tensor self, int[2] blocksize, int? dense_dim=None)")
def to_sparse_bsc(self, blocksize, dense_dim=None):
    """to_sparse_bsc(blocksize, dense_dim=None) -> Tensor: a BSC copy of a matrix, cut into
    blocks of `blocksize` (rows, columns); the blocks holding a nonzero are stored."""
    if _state.entry and _wants(locals()):
        return _handle(to_sparse_bsc, locals())
    if _kind(self) == "sparse_bsc" and self._data.blocksize == _blocksize(blocksize):
        return self
    from ember._ops.sparse_autograd import convert_tracked
    return convert_tracked(self, lambda t: _convert(t, blocksize, dense_dim, by_rows=False))


def blocked_to_coo(t):
    """Every element of every stored block as a COO entry (PyTorch's BSR/BSC to_sparse)."""
    from ember._ops.sparse import _arrays
    data = t._data
    block_r, block_c = data.blocksize
    block_rows, block_cols = _block_coordinates(data)
    inner_r, inner_c = np.meshgrid(np.arange(block_r), np.arange(block_c), indexing="ij")
    rows = (block_rows[:, None, None] * block_r + inner_r).reshape(-1)
    cols = (block_cols[:, None, None] * block_c + inner_c).reshape(-1)
    order = np.lexsort((cols, rows))
    values = data.values._data.reshape(-1)[order]
    return _arrays().coo(np.stack([rows[order], cols[order]]), values, data.shape, False,
                         values_dtype=data.values._dtype)


# --------------------------------------------------------------------------- constructors

def _blocked_tensor(compressed_indices, plain_indices, values, size, dtype, requires_grad,
                    by_rows, names, device):
    from ember._ops.sparse import _as_array
    compressed, plain = compressed_index_arrays(compressed_indices, plain_indices, names, size,
                                                device)
    blocks, values_dtype = _as_array(values, "values", dtype)
    _check(blocks.ndim >= 3, lambda: (
        "values must have dimensionality > sum of batch and block dimensionalities (=0 + 2) "
        f"but got {blocks.ndim}"))
    _check(compressed.ndim == 1 and plain.ndim == 1 and blocks.ndim == 3,
           "ember's BSR and BSC tensors are 2-D with blocks of scalars (no batch or dense dims)")
    _check(plain.shape[0] == blocks.shape[0], lambda: (
        f"{names[1]} and values must have the same number of elements, but got "
        f"{names[1]}.numel(): {plain.shape[0]}, values.numel(): {blocks.shape[0]}"))
    block_r, block_c = blocks.shape[1:3]
    majors = len(compressed) - 1
    minors = int(plain.max()) + 1 if plain.size else 0
    if size is None:
        size = (majors * block_r, minors * block_c) if by_rows else \
            (minors * block_r, majors * block_c)
    size = tuple(int(n) for n in size)
    _check(len(size) == 2, lambda: f"size must have two entries (ember has no batch dims), "
                                   f"got {list(size)}")
    _check(size[0] % block_r == 0 and size[1] % block_c == 0, lambda: (
        f"sparse_{'bsr' if by_rows else 'bsc'}_tensor: size {list(size)} is not divisible by "
        f"the blocksize ({block_r},{block_c})"))
    major_size = size[0] // block_r if by_rows else size[1] // block_c
    _check(len(compressed) == major_size + 1, lambda: (
        f"{names[0]}.size(-1) must be equal to size[{-2 if by_rows else -1}] / "
        f"blocksize[{0 if by_rows else 1}] + 1 (that is {major_size + 1}), but got: "
        f"{len(compressed)}"))
    block_rows_cols = _block_coordinates_of(compressed, plain, by_rows)
    from ember._ops.sparse import _tracks_values
    if _tracks_values(values):
        from ember._ops.sparse_autograd import compressed_from_values_tracked
        return compressed_from_values_tracked(values, lambda v: _build(
            by_rows, *block_rows_cols, v.numpy(), size, values_dtype))
    out = _build(by_rows, *block_rows_cols, blocks, size, values_dtype)
    return out.requires_grad_(True) if requires_grad else out


def _block_coordinates_of(compressed, plain, by_rows):
    major = np.repeat(np.arange(len(compressed) - 1, dtype=np.int64), np.diff(compressed))
    return (major, plain) if by_rows else (plain, major)


@register_frontend(method=False)
@checked(*compressed_schemas("sparse_bsr_tensor", "crow_indices", "col_indices"))
def sparse_bsr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None,
                      layout=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None):
    """sparse_bsr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None,
    device=None, requires_grad=False, check_invariants=None) -> Tensor: a sparse matrix in BSR
    format: `values` holds its blocks (blocks x R x C) by block row."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_bsr_tensor, locals())
    check_layout_argument("sparse_bsr_tensor", layout, _layouts.sparse_bsr)
    return _blocked_tensor(crow_indices, col_indices, values, size, dtype, requires_grad,
                           True, ("crow_indices", "col_indices"), device)


@register_frontend(method=False)
@checked(*compressed_schemas("sparse_bsc_tensor", "ccol_indices", "row_indices"))
def sparse_bsc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None,
                      layout=None, device=None, pin_memory=False, requires_grad=False,
                      check_invariants=None):
    """sparse_bsc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None,
    device=None, requires_grad=False, check_invariants=None) -> Tensor: a sparse matrix in BSC
    format: `values` holds its blocks (blocks x R x C) by block column."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_bsc_tensor, locals())
    check_layout_argument("sparse_bsc_tensor", layout, _layouts.sparse_bsc)
    return _blocked_tensor(ccol_indices, row_indices, values, size, dtype, requires_grad,
                           False, ("ccol_indices", "row_indices"), device)


@register_frontend(method=False)
@checked(*compressed_schemas("sparse_compressed_tensor", "compressed_indices",
                            "plain_indices"))
def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
                             dtype=None, layout=None, device=None, pin_memory=False,
                             requires_grad=False, check_invariants=None):
    """sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
    dtype=None, layout=None, device=None, requires_grad=False, check_invariants=None) -> Tensor:
    a sparse matrix in the compressed `layout` given (sparse_csr, sparse_csc, sparse_bsr or
    sparse_bsc)."""
    if _state.entry and _wants(locals()):
        return _handle(sparse_compressed_tensor, locals())
    from ember._ops.sparse import sparse_csr_tensor
    from ember._ops.sparse_csc import sparse_csc_tensor
    makers = {_layouts.sparse_csr: sparse_csr_tensor, _layouts.sparse_csc: sparse_csc_tensor,
              _layouts.sparse_bsr: sparse_bsr_tensor, _layouts.sparse_bsc: sparse_bsc_tensor}
    make = makers.get(layout)
    _check(make is not None, lambda: (
        "sparse_compressed_tensor expected sparse compressed tensor layout but got "
        f"{'none' if layout is None else 'Strided' if layout is _layouts.strided else layout}"))
    sized = () if size is None else (size,)
    return make(compressed_indices, plain_indices, values, *sized, dtype=dtype, device=device,
                pin_memory=pin_memory,
                requires_grad=requires_grad, check_invariants=check_invariants)


# --------------------------------------------------------------------------- kernels

def _rebuilt(t, blocks, dtype=None, transpose=False):
    """t's block pattern with new blocks (an array); transposed: the other layout, of the
    transposed shape, each block transposed."""
    data = t._data
    block_rows, block_cols = _block_coordinates(data)
    by_rows = data.layout_name == "sparse_bsr"
    shape = data.shape
    if transpose:
        block_rows, block_cols, by_rows = block_cols, block_rows, not by_rows
        blocks, shape = blocks.transpose(0, 2, 1), shape[::-1]
    return _build(by_rows, block_rows, block_cols, blocks, shape, dtype or data.values._dtype)


def _copy(op, args):
    t = args[0]
    return _rebuilt(t, t._data.values._data.copy())


def _to_copy(op, args):
    t, dtype = args[0], args[1]
    if dtype is None:
        return _copy(op, (t,))
    return _rebuilt(t, t._data.values._data.astype(dtype._np), dtype)


def _transpose(op, args):
    t = args[0]
    if op.name != "t":
        from ember._ops.sparse_csc import _wrap_dim
        if _wrap_dim(args[1], 2) == _wrap_dim(args[2], 2):
            return _copy(op, (t,))
    return _rebuilt(t, t._data.values._data, transpose=True)


def _mul(op, args):
    from ember._ops.sparse_kernels import _scalar_of
    self, other = args if _kind(args[0]) in ("sparse_bsr", "sparse_bsc") else args[::-1]
    scalar = _scalar_of(other)
    _check(scalar is not None, lambda: (
        f"mul: a {layout_display_name(self)} matrix times a tensor is not supported by ember"))
    blocks = self._data.values._data
    return _rebuilt(self, blocks * np.asarray(scalar, dtype=blocks.dtype))


def _neg(op, args):
    return _rebuilt(args[0], -args[0]._data.values._data)


def _product(op, args):
    """A product with a blocked operand and a dense one (the result dense, as PyTorch's)."""
    from ember._ops.sparse_arrays import dense_tensor, scipy_matrix
    if op.name == "addmm":
        base, left, right, beta, alpha = args
    else:
        (left, right), base, beta, alpha = args[:2], None, 0, 1
    blocked = [_kind(x) in ("sparse_bsr", "sparse_bsc") for x in (left, right)]
    _check(not all(blocked) and not any(_kind(x) in ("sparse_coo", "sparse_csr", "sparse_csc")
                                        for x in (left, right)),
           f"{op.name}: ember multiplies a blocked sparse matrix by dense tensors only")
    dense = (right if blocked[0] else left)._data
    matrix = scipy_matrix(left if blocked[0] else right)
    inner = matrix.shape[1] if blocked[0] else matrix.shape[0]
    dense_inner = dense.shape[0] if blocked[0] else dense.shape[-1]
    _check(inner == dense_inner, lambda: (
        f"mat1 and mat2 shapes cannot be multiplied "
        f"({'x'.join(map(str, left.shape))} and {'x'.join(map(str, right.shape))})"))
    _check(matrix.dtype == dense.dtype, lambda: (
        f"expected mat1 and mat2 to have the same dtype, but got: {left.dtype} != "
        f"{right.dtype}"))
    array = np.asarray(matrix @ dense if blocked[0] else (matrix.T @ dense.T).T)
    if alpha != 1:
        array = array * np.asarray(alpha, dtype=array.dtype)
    if base is not None and beta != 0:
        array = array + base._data * np.asarray(beta, dtype=array.dtype)
    return dense_tensor(np.ascontiguousarray(array.astype(dense.dtype, copy=False)))


def _register_kernels():
    from ember._core.dispatch.sparse import BLOCKED, register
    register("clone", "detach", "alias", layouts=BLOCKED)(_copy)
    register("_to_copy", layouts=BLOCKED)(_to_copy)
    register("t", "transpose.int", layouts=BLOCKED)(_transpose)
    register("mul.Tensor", layouts=BLOCKED)(_mul)
    register("neg", layouts=BLOCKED)(_neg)
    register("mm", "matmul", "mv", "addmm", layouts=BLOCKED)(_product)


_register_kernels()
