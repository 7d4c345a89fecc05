"""ember.sparse: products, sums and softmaxes of sparse COO/CSR tensors (torch.sparse), and
as_sparse_gradcheck (_gradcheck.py), 2:4 semi-structured sparsity (semi_structured.py: CUDA
only).

The layout itself: NOTE [sparse layout] (_core/dispatch/sparse.py); constructors and methods:
_ops/sparse.py; kernels: _ops/sparse_kernels.py (SciPy on first use)."""
from __future__ import annotations

from ember._core.checks import _check
from ember.sparse._gradcheck import as_sparse_gradcheck
from ember.sparse.semi_structured import (
    SparseSemiStructuredTensor,
    SparseSemiStructuredTensorCUSPARSELT,
    SparseSemiStructuredTensorCUTLASS,
    to_sparse_semi_structured,
)

__all__ = ["SparseSemiStructuredTensor", "SparseSemiStructuredTensorCUSPARSELT",
           "SparseSemiStructuredTensorCUTLASS", "addmm", "as_sparse_gradcheck",
           "check_sparse_tensor_invariants", "log_softmax", "mm", "softmax", "spdiags", "sum",
           "to_sparse_semi_structured"]


def _is_sparse(t) -> bool:
    from ember._core.dispatch.sparse import SPARSE_TYPES
    return type(t._data) in SPARSE_TYPES


def mm(mat1, mat2, reduce=None):
    """mm(mat1, mat2) -> Tensor: a sparse matrix times a dense (or sparse) one. When mat1 is
    sparse and mat2 dense, mat1's gradient is sparse with mat1's entries (as PyTorch's)."""
    import ember
    _check(reduce is None or reduce == "sum", "sparse.mm: only reduce='sum' is supported")
    if _is_sparse(mat1) and not _is_sparse(mat2):
        from ember.sparse._autograd import sparse_addmm
        return sparse_addmm(None, mat1, mat2)
    return ember.mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """addmm(mat, mat1, mat2, *, beta=1., alpha=1.) -> Tensor: beta * mat + alpha * mat1 @ mat2
    with a sparse mat1 (its gradient sparse, as in mm)."""
    import ember
    if _is_sparse(mat1) and not _is_sparse(mat2) and not _is_sparse(mat):
        from ember.sparse._autograd import sparse_addmm
        return sparse_addmm(mat, mat1, mat2, beta, alpha)
    return ember.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)


def sum(input, dim=None, dtype=None):
    """sum(input, dim=None, dtype=None) -> Tensor: the sum of a sparse tensor's entries, over
    every dim (a dense scalar) or over `dim` (a sparse tensor, dense when no sparse dim is
    left)."""
    import ember
    from ember._ops.sparse_math import sparse_sum_dims
    if dim is None:
        if input.requires_grad and ember.is_grad_enabled() and input.is_sparse:
            from ember.sparse._autograd import sparse_sum_tracked
            return sparse_sum_tracked(input, dtype)
        return ember.sum(input, dtype=dtype)
    return sparse_sum_dims(input.coalesce() if not input.is_coalesced() else input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    """softmax(input, dim, *, dtype=None) -> Tensor: softmax along `dim` over the stored
    entries only; absent entries stay absent (they count as minus infinity)."""
    from ember._ops.sparse_math import sparse_softmax
    return sparse_softmax(input, dim, log=False, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax(input, dim, *, dtype=None) -> Tensor: the log of sparse.softmax."""
    from ember._ops.sparse_math import sparse_softmax
    return sparse_softmax(input, dim, log=True, dtype=dtype)


def spdiags(diagonals, offsets, shape, layout=None):
    """spdiags(diagonals, offsets, shape, layout=None) -> Tensor: a sparse matrix with the rows
    of `diagonals` on the diagonals `offsets` (row k of diagonals is read from column j for
    entry (j - offset, j), as SciPy's spdiags)."""
    import numpy as np

    import ember
    from ember._ops import sparse_arrays as arrays
    values = diagonals.detach().numpy()
    offs = offsets.detach().numpy().reshape(-1)
    _check(values.ndim == 2 and values.shape[0] == offs.shape[0],
           "spdiags: diagonals must be 2-D with one row per offset")
    rows, cols = shape
    index_rows, index_cols, picked = [], [], []
    for k, offset in enumerate(offs.tolist()):
        columns = np.arange(max(0, offset), min(cols, rows + offset, values.shape[1]))
        index_rows.append(columns - offset)
        index_cols.append(columns)
        picked.append(values[k, columns])
    indices = np.stack([np.concatenate(index_rows), np.concatenate(index_cols)])
    out = arrays.coo(indices.astype(np.int64), np.concatenate(picked), (rows, cols), False,
                     values_dtype=diagonals.dtype)
    if layout is ember.sparse_csr:
        return out.to_sparse_csr()
    return out


class check_sparse_tensor_invariants:
    """Turns the invariant checks of sparse constructors on (`check_invariants=None` then means
    True) for a `with` block or a decorated function; `enable()` / `disable()` set it for the
    process."""

    def __init__(self, enable=True):
        self.state = enable
        self.saved = None

    @staticmethod
    def is_enabled() -> bool:
        from ember._ops import sparse as frontends
        return frontends.checking_invariants[0]

    @staticmethod
    def enable() -> None:
        from ember._ops import sparse as frontends
        frontends.checking_invariants[0] = True

    @staticmethod
    def disable() -> None:
        from ember._ops import sparse as frontends
        frontends.checking_invariants[0] = False

    def __enter__(self):
        self.saved = self.is_enabled()
        (self.enable if self.state else self.disable)()
        return self

    def __exit__(self, *exc):
        (self.enable if self.saved else self.disable)()
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def checked(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return function(*args, **kwargs)
        return checked
