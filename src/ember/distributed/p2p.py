"""Point-to-point messages: send/recv, isend/irecv, and batch_isend_irecv over P2POp.

Peers are global ranks (`group_dst`/`group_src` within the group). A message travels as the
tensor's bytes; the receiving tensor must have the sender's dtype and size, as in PyTorch.
"""
from __future__ import annotations

from ember.distributed._buffers import Staged, check_tensor, flat_bytes
from ember.distributed.group import resolve
from ember.distributed.work import Work

__all__ = ["P2POp", "batch_isend_irecv", "irecv", "isend", "recv", "send"]


def _peer(pg, rank, group_rank, what):
    if group_rank is not None:
        return group_rank
    if rank is None:
        raise ValueError(f"{what}: a peer rank is required")
    peer = pg._group_rank(rank, what)
    if peer == pg.rank():
        raise ValueError(f"Invalid destination rank: destination rank should not be the same as "
                         f"the rank of the current process ({what} to itself).")
    return peer


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Start sending `tensor` to rank `dst`; the Work completes once it may be reused."""
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "send")
    return Work(pg._comm, pg._comm.send(flat_bytes(tensor), peer, tag), f"send to rank {dst}",
                pg)


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Start receiving into `tensor` from rank `src` (any rank when None)."""
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    peer = None if src is None and group_src is None else _peer(pg, src, group_src, "recv")
    staged = Staged(tensor)
    requests = pg._comm.recv(staged.buf, peer, tag)
    work = Work(pg._comm, requests, "recv" if src is None else f"recv from rank {src}", pg)

    def finish():
        staged.write_back()
        work._source = pg._ranks[requests[0].source()]
    work._finish = finish
    return work


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receive into `tensor`; returns the sender's rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._source


class P2POp:
    """One send or receive for batch_isend_irecv: `P2POp(dist.isend, tensor, peer)`."""

    def __init__(self, op, tensor, peer=None, group=None, tag: int = 0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed."
                             "isend`` or ``torch.distributed.irecv``.")
        check_tensor(tensor)
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer

    def __repr__(self) -> str:
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list) -> list:
    """Start every op of the list; the Works to wait for, one per op."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return works
