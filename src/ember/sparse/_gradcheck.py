"""`torch.sparse.as_sparse_gradcheck`. The gradients it needs (compressed tensors built from
`values` that require grad, layout conversions of tensors that require grad) are the op
families' own, in _ops/sparse_autograd.py.

NOTE [gradcheck through the stored values]: gradcheck perturbs strided tensors only. The
wrapper hands it each sparse input's stored values (with every element stored, unless
`masked=True`); the checked function rebuilds the sparse input from them and densifies its
sparse outputs. So a gradient reaches the values through the constructor (its backward reads
the incoming gradient at the stored positions) and through whatever the function does to the
sparse tensor in between.
"""
from __future__ import annotations

import numpy as np

from ember._ops.sparse_autograd import _layout_name, _values_at

_SPARSE = ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")
_STRIDED_REPRESENTATION = "__STRIDED_REPRESENTATION__"


# --------------------------------------------------------------------------- the decorator

def _fully_stored(t):
    """t with every element stored (zeros included), in t's layout and blocksize."""
    import ember
    dense = t.to_dense().detach()
    layout = _layout_name(t)
    if layout == "sparse_coo":
        sparse_dim = t.sparse_dim()
        grid = np.indices(tuple(t.shape[:sparse_dim])).reshape(sparse_dim, -1)
        values = dense.numpy()[tuple(grid)]
        return ember.sparse_coo_tensor(ember.tensor(grid), ember.tensor(values),
                                       tuple(t.shape), is_coalesced=True)
    rows, cols = t.shape
    block_r, block_c = t._data.blocksize if layout in ("sparse_bsr", "sparse_bsc") else (1, 1)
    by_rows = layout in ("sparse_csr", "sparse_bsr")
    majors, minors = (rows // block_r, cols // block_c) if by_rows else \
        (cols // block_c, rows // block_r)
    compressed = np.arange(majors + 1, dtype=np.int64) * minors
    plain = np.tile(np.arange(minors, dtype=np.int64), majors)
    data = _FullPattern(layout, compressed, plain, (rows, cols), (block_r, block_c))
    values = _values_at(dense.numpy(), data)
    if layout in ("sparse_csr", "sparse_csc"):
        values = values.reshape(-1)
    else:
        values = values.reshape(-1, block_r, block_c)
    return ember.sparse_compressed_tensor(ember.tensor(compressed), ember.tensor(plain),
                                          ember.tensor(np.ascontiguousarray(values)),
                                          (rows, cols), layout=t.layout)


class _FullPattern:
    """Just enough of a compressed tensor's `_data` for `_values_at`."""

    def __init__(self, layout, compressed, plain, shape, blocksize):
        from ember._ops.sparse_arrays import dense_tensor
        self.layout_name = layout
        self.shape = shape
        self.blocksize = blocksize
        names = ("crow_indices", "col_indices") if layout in ("sparse_csr", "sparse_bsr") \
            else ("ccol_indices", "row_indices")
        setattr(self, names[0], dense_tensor(compressed))
        setattr(self, names[1], dense_tensor(plain))


def as_sparse_gradcheck(gradcheck):
    """Wrap `gradcheck` (ember.autograd.gradcheck or a partial of it) so that the checked
    function may take and return sparse tensors (NOTE [gradcheck through the stored values]);
    `masked=True` checks the stored elements only, else every element counts."""

    def gradcheck_with_sparse_support(func, inputs, **kwargs):
        masked = kwargs.pop("masked", False)

        def to_strided(args):
            if not isinstance(args, (list, tuple)):
                args = (args,)
            flat = []
            for arg in args:
                layout = _layout_name(arg)
                if layout not in _SPARSE or not arg.requires_grad:
                    flat.append(arg)
                    continue
                if not masked:
                    arg = _fully_stored(arg)
                if layout == "sparse_coo":
                    parts = {"indices": arg._indices(), "is_coalesced": arg.is_coalesced()}
                    values = arg._values()
                elif layout in ("sparse_csr", "sparse_bsr"):
                    parts = {"compressed": arg.crow_indices(), "plain": arg.col_indices()}
                    values = arg.values()
                else:
                    parts = {"compressed": arg.ccol_indices(), "plain": arg.row_indices()}
                    values = arg.values()
                parts.update(layout=arg.layout, shape=tuple(arg.shape))
                flat.extend((_STRIDED_REPRESENTATION, parts,
                             values.detach().clone().requires_grad_(True)))
            return tuple(flat)

        def restored(args):
            import ember
            out, args = [], list(args)
            while args:
                arg = args.pop(0)
                if isinstance(arg, str) and arg == _STRIDED_REPRESENTATION:
                    parts, values = args.pop(0), args.pop(0)
                    if parts["layout"] is ember.sparse_coo:
                        arg = ember.sparse_coo_tensor(parts["indices"], values, parts["shape"],
                                                      is_coalesced=parts["is_coalesced"])
                    else:
                        arg = ember.sparse_compressed_tensor(
                            parts["compressed"], parts["plain"], values, parts["shape"],
                            layout=parts["layout"])
                out.append(arg)
            return tuple(out)

        def func_wrapper(*args, **kwargs):
            import ember
            outputs = func(*restored(args), **kwargs)
            many = isinstance(outputs, (list, tuple))
            # (ember's gradcheck evaluates the numerical Jacobian with grad mode off, where no
            # output requires grad: sparse outputs are densified then too)
            differentiating = ember.is_grad_enabled()
            dense = tuple(
                o.to_dense(masked_grad=masked) if _layout_name(o) in _SPARSE and
                (o.requires_grad or not differentiating) else o
                for o in (outputs if many else (outputs,)))
            return dense if many else dense[0]

        return gradcheck(func_wrapper, to_strided(inputs), **kwargs)

    return gradcheck_with_sparse_support
