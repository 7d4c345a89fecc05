"""Embedding lookups: `embedding` (rows of a weight matrix picked by integer indices), its
backward op `embedding_dense_backward`, and `embedding_renorm_` (max_norm: the looked-up rows
rescaled in place so that their norms are at most max_norm).

NOTE [embedding gradient]: the gradient of a row is the sum of the output gradients of every
position that picked it. `np.add.at` is slow; the kernel sorts the positions by index and sums
each run with `np.add.reduceat` (or, when both the lookup and the table are small, multiplies
by a one-hot matrix). The padding row gets no gradient; `scale_grad_by_freq` divides each
position's gradient by how often its index occurs in the batch.
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch, upcalls
from ember._core import dtype as dt
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_index
from ember._core.dispatch import call
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, kernel_entry, register_frontend, register_op

# Below this many (lookups x rows) the one-hot product beats sorting.
_ONE_HOT_LIMIT = 1 << 14


def _check_indices(indices, kernel="embedding"):
    _check(indices.dtype.kind in "iu" and indices.dtype.itemsize >= 4 and
           indices.dtype.kind == "i", lambda: (
               "Expected tensor for argument #1 'indices' to have one of the following scalar "
               f"types: Long, Int; but got {_tensor_type_name(indices.dtype)} instead (while "
               f"checking arguments for {kernel})"))


def _tensor_type_name(np_dtype):
    from ember._core import dtype as dt
    name = dt.NP_TO_DTYPE[np.dtype(np_dtype)]._cpp_name
    return f"torch.{name}Tensor"


def _embedding_meta(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    _check(weight.ndim == 2, "'weight' must be 2-D")
    _check_indices(indices._data)
    return (tuple(indices.shape) + (weight.shape[1],), weight._dtype)


def _embedding_grad(c):
    return call(OPS["embedding_dense_backward"], (
        c.grad, c.indices, c.weight.shape[0], c.padding_idx, c.scale_grad_by_freq))


@register_op("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
             "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", kind="generic",
             method=False, meta=_embedding_meta, saves=("indices",),
             derivatives={"weight": _embedding_grad})
def embedding(xp, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) ->
    Tensor: the rows of `weight` at `indices` (shape indices.shape + (embedding_dim,))."""
    _check(weight.ndim == 2, "'weight' must be 2-D")
    _check_indices(indices)
    if indices.size:
        _check_index(bool(indices.min() >= 0) and bool(indices.max() < weight.shape[0]),
                     "index out of range in self")
    return weight.take(indices, axis=0)


def _dense_backward_meta(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    return ((num_weights, grad_output.shape[-1]), grad_output._dtype)


def _dense_backward_adjoint(c):
    # The backward op is linear in grad_output; its transpose looks the rows up again (the
    # padding row's as zero, each scaled as the forward scaled it).
    grad, indices = c.grad, c.indices
    rows = call(OPS["embedding"], (grad, indices, -1, False, False))
    if 0 <= c.padding_idx < c.num_weights:
        rows = rows * (indices != c.padding_idx).unsqueeze(-1)
    if c.scale_grad_by_freq:
        flat = indices.reshape(-1)
        counts = flat.bincount(minlength=c.num_weights).index_select(0, flat)
        rows = rows / counts.reshape(tuple(indices.shape) + (1,))
    return rows


@register_op("embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, "
             "SymInt padding_idx, bool scale_grad_by_freq) -> Tensor", kind="generic",
             function=False, method=False, meta=_dense_backward_meta,
             derivatives={"grad_output": _dense_backward_adjoint})
def embedding_dense_backward(xp, grad_output, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
    """The gradient of embedding's weight (NOTE [embedding gradient])."""
    rows, flat = _scaled_rows(xp, grad_output, indices, num_weights, scale_grad_by_freq)
    # On a device: one scatter-add (CuPy's add.at takes float32 and float64).
    result = xp.zeros((num_weights, rows.shape[1]),
                      np.float64 if rows.dtype == np.float64 else np.float32)
    xp.add.at(result, flat, rows.astype(result.dtype, copy=False))
    return _without_padding(result, padding_idx, num_weights, grad_output.dtype)


@kernel_entry("embedding_dense_backward", "CPU")
def _embedding_dense_backward_cpu(xp, grad_output, indices, num_weights, padding_idx,
                                  scale_grad_by_freq):
    """embedding_dense_backward's CPU entry (NOTE [the kernel table]): a one-hot product for
    small tables, else the rows sorted by index and summed per run (NumPy's add.at is slow)."""
    rows, flat = _scaled_rows(np, grad_output, indices, num_weights, scale_grad_by_freq)
    if flat.size * num_weights <= _ONE_HOT_LIMIT:
        one_hot = (np.arange(num_weights)[:, None] == flat[None, :]).astype(rows.dtype)
        result = one_hot @ rows
    else:
        result = np.zeros((num_weights, rows.shape[1]), rows.dtype)
        if flat.size:
            order = np.argsort(flat, kind="stable")
            ordered = flat[order]
            starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
            result[ordered[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return _without_padding(result, padding_idx, num_weights, grad_output.dtype)


def _scaled_rows(xp, grad_output, indices, num_weights, scale_grad_by_freq):
    """(the gradient's rows, divided by their index's count where asked; the flat indices)."""
    dim = grad_output.shape[-1]
    flat = indices.reshape(-1).astype(np.intp, copy=False)
    rows = grad_output.reshape(-1, dim)
    if scale_grad_by_freq and flat.size:
        counts = xp.bincount(flat, minlength=num_weights)
        rows = rows / counts[flat].astype(rows.dtype)[:, None]
    return rows, flat


def _without_padding(result, padding_idx, num_weights, dtype):
    if 0 <= padding_idx < num_weights:
        result[padding_idx] = 0
    return result.astype(dtype, copy=False)


@register_frontend("embedding_renorm_", method=False)
@checked("embedding_renorm_(Tensor self, Tensor indices, float max_norm, float norm_type)")
def embedding_renorm_(input, indices, max_norm, norm_type):
    """embedding_renorm_(weight, indices, max_norm, norm_type) -> Tensor: the rows of `weight`
    at `indices` whose norm exceeds max_norm rescaled in place to norm max_norm (a small
    margin, 1e-7, keeps them just under it)."""
    if _state.entry and _wants(locals()):
        return _handle(embedding_renorm_, locals())
    _check(isinstance(input, dispatch.Tensor) and input.ndim == 2,
           "embedding_renorm_(): weight must be a 2-D tensor")
    _check(indices.dtype in (dt.int64, dt.int32), lambda: (
        "Expected tensor for argument #2 'indices' to have one of the following scalar types: "
        f"Long, Int; but got torch.{indices.dtype._cpp_name}Tensor instead (while checking "
        "arguments for embedding_renorm_)"))
    with upcalls.no_grad():
        rows = indices.reshape(-1).unique()
        picked = input.index_select(0, rows)
        norms = picked.norm(p=norm_type, dim=1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).where(norms > max_norm, 1.0)
        input.index_copy_(0, rows, picked * scale)
    return input
