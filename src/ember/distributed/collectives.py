"""Collectives on tensors, in place as PyTorch's: all_reduce, broadcast, reduce, all_gather(
_into_tensor), reduce_scatter(_tensor), gather, scatter, all_to_all(_single).

Each one stages its tensors (`_buffers.py`), starts the operation on the group's CommBackend,
and returns a Work (`async_op=True`) or waits for it (NOTE [collectives never block past the
timeout]). `src`/`dst` are global ranks, as in PyTorch; `group_src`/`group_dst` name them
within the group.
"""
from __future__ import annotations

import numpy as np

from ember.distributed import _buffers as buffers
from ember.distributed._buffers import Staged, check_tensor, check_tensor_list
from ember.distributed.group import resolve
from ember.distributed.reduce_op import ReduceOp, as_red_op
from ember.distributed.work import Work

__all__ = [
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all",
    "all_to_all_single",
    "broadcast",
    "gather",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_single",
    "reduce_scatter_tensor",
    "scatter",
]


def _finish(pg, requests, what, finish, async_op, result=None):
    work = Work(pg._comm, requests, what, pg, finish, result)
    if async_op:
        return work
    work.wait()
    return None


def _root(pg, rank, group_rank, what):
    if group_rank is not None:
        if rank is not None and pg._ranks[group_rank] != rank:
            raise ValueError(f"{what}: src/dst and group_src/group_dst name different ranks")
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"{what}: group rank {group_rank} is outside the group")
        return group_rank
    if rank is None:
        raise ValueError(f"{what}: a root rank is required")
    return pg._group_rank(rank, what)


def _reduce_staging(tensor, op, what):
    check_tensor(tensor)
    op = as_red_op(op)
    buffers.check_reduction(tensor, op, what)
    return Staged(tensor, buffers.reduced_dtype(tensor._data.dtype)), op


def _mpi_op(op):
    return ReduceOp.SUM if op is ReduceOp.AVG else op


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce `tensor` over the group's ranks; every rank gets the result in `tensor`."""
    staged, op = _reduce_staging(tensor, op, "all_reduce")
    pg = resolve(group)
    if pg is None:
        return None
    requests = pg._comm.allreduce(staged.buf, _mpi_op(op))
    divisor = pg.size() if op is ReduceOp.AVG else None
    return _finish(pg, requests, "all_reduce", lambda: staged.write_back(divisor), async_op,
                   [tensor])


def all_reduce_coalesced(tensors, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """all_reduce of each tensor of the list (one Work for all of them)."""
    check_tensor_list(tensors, "tensors")
    works = [all_reduce(t, op, group, async_op=True) for t in tensors]
    pg = resolve(group)
    requests = [r for w in works if w is not None for r in w._requests]
    finishes = [w for w in works if w is not None]

    def finish():
        for w in finishes:
            w._complete()
    return _finish(pg, requests, "all_reduce_coalesced", finish, async_op, list(tensors))


def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None):
    """Copy `tensor` of rank `src` into `tensor` on every rank."""
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "broadcast")
    staged = Staged(tensor)
    return _finish(pg, pg._comm.broadcast(staged.buf, root), "broadcast", staged.write_back,
                   async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst=None):
    """Reduce `tensor` over the ranks into `tensor` of rank `dst` (the others keep theirs)."""
    staged, op = _reduce_staging(tensor, op, "reduce")
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "reduce")
    requests = pg._comm.reduce(staged.buf, _mpi_op(op), root)
    if pg.rank() != root:
        return _finish(pg, requests, "reduce", None, async_op, [tensor])
    divisor = pg.size() if op is ReduceOp.AVG else None
    return _finish(pg, requests, "reduce", lambda: staged.write_back(divisor), async_op,
                   [tensor])


def _same_shapes(tensors, tensor, what):
    for t in tensors:
        if t.dtype != tensor.dtype:
            raise ValueError(f"{what}: tensors must all have the same dtype, got {t.dtype} and "
                             f"{tensor.dtype}")
        if t.numel() != tensor.numel():
            raise ValueError(f"{what}: tensors of different sizes ({tuple(t.shape)} and "
                             f"{tuple(tensor.shape)}) are not supported")


def _write_pieces(tensors, flat) -> None:
    pieces = np.split(flat, len(tensors)) if len(tensors) else []
    for t, piece in zip(tensors, pieces):
        buffers.write_into(t, piece)
        buffers.bump_version(t)


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Every rank's `tensor`, in rank order, into `tensor_list` on every rank."""
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of "
                         f"{pg.size()} ranks")
    _same_shapes(tensor_list, tensor, "all_gather")
    send = buffers.flat_bytes(tensor)
    recv = np.empty(send.size * pg.size(), send.dtype)
    return _finish(pg, pg._comm.allgather(send, recv), "all_gather",
                   lambda: _write_pieces(tensor_list, recv), async_op, [list(tensor_list)])


def all_gather_single(output_tensor, input_tensor, group=None, async_op: bool = False):
    """all_gather_into_tensor's newer name."""
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Every rank's `input_tensor`, concatenated in rank order (along dim 0, or stacked), into
    `output_tensor`."""
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = resolve(group)
    if pg is None:
        return None
    if output_tensor.dtype != input_tensor.dtype:
        raise ValueError("all_gather_into_tensor: input and output must have the same dtype")
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError(f"all_gather_into_tensor: output tensor size must be equal to "
                         f"world_size times input tensor size ({pg.size()} x "
                         f"{input_tensor.numel()} != {output_tensor.numel()})")
    staged = Staged(output_tensor)
    return _finish(pg, pg._comm.allgather(buffers.flat_bytes(input_tensor), staged.buf),
                   "all_gather_into_tensor", staged.write_back, async_op, [output_tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce the ranks' `input_list`s element-wise; rank i gets the i-th reduced tensor."""
    check_tensor_list(input_list, "input_list")
    staged, op = _reduce_staging(output, op, "reduce_scatter")
    pg = resolve(group)
    if pg is None:
        return None
    if len(input_list) != pg.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} tensors for a group "
                         f"of {pg.size()} ranks")
    _same_shapes(input_list, output, "reduce_scatter")
    send = np.concatenate([Staged(t, staged.buf.dtype).buf for t in input_list]) if \
        input_list else staged.buf[:0]
    return _reduce_scatter(pg, send, staged, op, "reduce_scatter", async_op, output)


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """reduce_scatter_tensor's newer name."""
    return reduce_scatter_tensor(output, input, op, group, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """reduce_scatter with the inputs concatenated in one tensor (world_size x output)."""
    check_tensor(input, "input")
    staged, op = _reduce_staging(output, op, "reduce_scatter_tensor")
    pg = resolve(group)
    if pg is None:
        return None
    if input.dtype != output.dtype:
        raise ValueError("reduce_scatter_tensor: input and output must have the same dtype")
    if input.numel() != output.numel() * pg.size():
        raise ValueError(f"reduce_scatter_tensor: input tensor must be the same size as output "
                         f"size times world size ({input.numel()} != {pg.size()} x "
                         f"{output.numel()})")
    send = Staged(input, staged.buf.dtype).buf
    return _reduce_scatter(pg, send, staged, op, "reduce_scatter_tensor", async_op, output)


def _reduce_scatter(pg, send, staged, op, what, async_op, output):
    if staged.copied is False and np.shares_memory(send, staged.buf):
        send = send.copy()
    requests = pg._comm.reduce_scatter(send, staged.buf, _mpi_op(op))
    divisor = pg.size() if op is ReduceOp.AVG else None
    return _finish(pg, requests, what, lambda: (send, staged.write_back(divisor)), async_op,
                   [output])


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False,
           group_dst=None):
    """Every rank's `tensor` into `gather_list` on rank `dst` (other ranks pass None)."""
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, 0 if dst is None and group_dst is None else dst, group_dst, "gather")
    send = buffers.flat_bytes(tensor)
    if pg.rank() != root:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                             "ranks.")
        return _finish(pg, pg._comm.gather(send, None, root), "gather", None, async_op)
    if gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    check_tensor_list(gather_list, "gather_list")
    if len(gather_list) != pg.size():
        raise ValueError(f"gather: gather_list has {len(gather_list)} tensors for a group of "
                         f"{pg.size()} ranks")
    _same_shapes(gather_list, tensor, "gather")
    recv = np.empty(send.size * pg.size(), send.dtype)
    return _finish(pg, pg._comm.gather(send, recv, root), "gather",
                   lambda: _write_pieces(gather_list, recv), async_op, [list(gather_list)])


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False,
            group_src=None):
    """Rank `src`'s `scatter_list[i]` into `tensor` on rank i."""
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, 0 if src is None and group_src is None else src, group_src, "scatter")
    staged = Staged(tensor)
    send = None
    if pg.rank() == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        check_tensor_list(scatter_list, "scatter_list")
        if len(scatter_list) != pg.size():
            raise ValueError(f"scatter: scatter_list has {len(scatter_list)} tensors for a group "
                             f"of {pg.size()} ranks")
        _same_shapes(scatter_list, tensor, "scatter")
        send = np.concatenate([buffers.flat_bytes(t) for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    return _finish(pg, pg._comm.scatter(send, staged.buf, root), "scatter",
                   lambda: (send, staged.write_back()), async_op, [tensor])


def _byte_blocks(tensors):
    flats = [buffers.flat_bytes(t).view(np.uint8) for t in tensors]
    return flats, [f.size for f in flats]


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank i's `input_tensor_list[j]` into rank j's `output_tensor_list[i]` (sizes may differ
    per pair)."""
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = resolve(group)
    if pg is None:
        return None
    if len(input_tensor_list) != pg.size() or len(output_tensor_list) != pg.size():
        raise ValueError(f"all_to_all: both lists need one tensor per rank ({pg.size()})")
    sends, send_counts = _byte_blocks(input_tensor_list)
    recv_counts = [t.numel() * t.element_size() for t in output_tensor_list]
    send = np.concatenate(sends) if sends else np.empty(0, np.uint8)
    recv = np.empty(sum(recv_counts), np.uint8)

    def finish():
        offset = 0
        for t, count in zip(output_tensor_list, recv_counts):
            piece = recv[offset:offset + count].view(t._data.dtype)
            buffers.write_into(t, piece)
            buffers.bump_version(t)
            offset += count
    requests = pg._comm.alltoallv(send, send_counts, recv, recv_counts)
    return _finish(pg, requests, "all_to_all", finish, async_op, [list(output_tensor_list)])


def _split_counts(tensor, splits, size, what):
    rows = tensor.shape[0] if tensor.dim() > 0 else 1
    row_bytes = (tensor.numel() // rows if rows else 0) * tensor.element_size()
    if splits is None or len(splits) == 0:
        if rows % size != 0:
            raise ValueError(f"all_to_all_single: {what} dim 0 ({rows}) must be divisible by "
                             f"the group size ({size}) when no split sizes are given")
        return [rows // size * row_bytes] * size
    splits = [int(s) for s in splits]
    if len(splits) != size or sum(splits) != rows:
        raise ValueError(f"all_to_all_single: {what} split sizes {splits} must have one entry "
                         f"per rank ({size}) and add up to dim 0 ({rows})")
    return [s * row_bytes for s in splits]


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op: bool = False):
    """Split `input` along dim 0 (by `input_split_sizes`, or evenly), send the i-th piece to
    rank i, and concatenate what arrives into `output` (by `output_split_sizes`)."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = resolve(group)
    if pg is None:
        return None
    if output.dtype != input.dtype:
        raise ValueError("all_to_all_single: input and output must have the same dtype")
    send_counts = _split_counts(input, input_split_sizes, pg.size(), "input")
    recv_counts = _split_counts(output, output_split_sizes, pg.size(), "output")
    send = buffers.flat_bytes(input).view(np.uint8)
    staged = Staged(output)
    if np.shares_memory(send, staged.buf):
        send = send.copy()
    requests = pg._comm.alltoallv(send, send_counts, staged.buf.view(np.uint8), recv_counts)
    return _finish(pg, requests, "all_to_all_single", lambda: (send, staged.write_back()),
                   async_op, [output])
