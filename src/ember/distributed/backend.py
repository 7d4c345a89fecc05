"""The communication back-ends behind a process group.

`Backend` holds the names users pass (`"mpi"`, `"gloo"`, `"nccl"`). `CommBackend` is the seam a
back-end fills: every method starts an operation on contiguous host (or device) arrays and
returns requests that `test_all` polls (NOTE [collectives never block past the timeout]);
tensors, dtypes, layouts and in-place results are handled above it, in `_buffers.py` and
`collectives.py`. `MPICommBackend` is the one there is: MPI through mpi4py, serving "mpi" and
"gloo" on CPU tensors. A NCCL back-end for CUDA tensors (CuPy's `cupy.cuda.nccl`) would be a
second `CommBackend` whose requests are CUDA events.
"""
from __future__ import annotations

import numpy as np

from ember.distributed.reduce_op import ReduceOp

__all__ = ["Backend", "CommBackend", "MPICommBackend"]


class Backend(str):
    """A back-end name: `Backend("GLOO") == "gloo"`; `Backend.MPI`, `Backend.GLOO` ..."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    backend_list = ["undefined", "gloo", "nccl", "ucc", "mpi", "xccl"]  # noqa: RUF012

    def __new__(cls, name: str):
        if not isinstance(name, str):     # PyTorch's class: ValueError
            raise ValueError(  # noqa: TRY004
                f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = name.lower()
        if value not in cls.backend_list:
            raise ValueError(f"Invalid backend: '{name}'")
        return super().__new__(cls, value)


class CommBackend:
    """One group's communicator. Buffers are contiguous 1-d arrays; `op` is a ReduceOp member
    the array's dtype supports (checked above); every method returns a list of requests."""

    name = "undefined"

    def rank(self) -> int:
        raise NotImplementedError

    def size(self) -> int:
        raise NotImplementedError

    def test_all(self, requests) -> bool:
        raise NotImplementedError

    def allreduce(self, buf, op): raise NotImplementedError                      # noqa: E704
    def reduce(self, buf, op, root): raise NotImplementedError                   # noqa: E704
    def broadcast(self, buf, root): raise NotImplementedError                    # noqa: E704
    def allgather(self, send, recv): raise NotImplementedError                   # noqa: E704
    def reduce_scatter(self, send, recv, op): raise NotImplementedError          # noqa: E704
    def gather(self, send, recv, root): raise NotImplementedError                # noqa: E704
    def scatter(self, send, recv, root): raise NotImplementedError               # noqa: E704
    def alltoallv(self, send, send_counts, recv, recv_counts): raise NotImplementedError
    def send(self, buf, dst, tag): raise NotImplementedError                     # noqa: E704
    def recv(self, buf, src, tag): raise NotImplementedError                     # noqa: E704
    def barrier(self): raise NotImplementedError                                 # noqa: E704

    def split(self, ranks):
        """The CommBackend of the sub-group `ranks` (group ranks of this one), or None on a
        rank outside it; every rank of this group calls it."""
        raise NotImplementedError

    def free(self) -> None:
        pass


def _mpi_ops(MPI) -> dict:
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR,
            ReduceOp.BXOR: MPI.BXOR}


def _mpi_bool_ops(MPI) -> dict:
    # MPI reduces C_BOOL with the logical operations only; a sum or max of bools is their OR.
    return {ReduceOp.SUM: MPI.LOR, ReduceOp.MAX: MPI.LOR, ReduceOp.BOR: MPI.LOR,
            ReduceOp.PRODUCT: MPI.LAND, ReduceOp.MIN: MPI.LAND, ReduceOp.BAND: MPI.LAND,
            ReduceOp.BXOR: MPI.LXOR}


def _bytes(buf):
    return buf.view(np.uint8)


class MPICommBackend(CommBackend):
    """A group served by an MPI communicator. Data that is only moved travels as bytes (every
    dtype, ml_dtypes' and complex32 included); reductions pass the array with its own MPI type
    (the dtypes MPI reduces; `_buffers.py` widens the others first)."""

    name = "mpi"

    def __init__(self, MPI, comm):
        self.MPI = MPI
        self.comm = comm
        self._ops = _mpi_ops(MPI)
        self._bool_ops = _mpi_bool_ops(MPI)
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def test_all(self, requests) -> bool:
        if type(requests[0]) is _StatusRequest:
            return requests[0].Test()
        return self.MPI.Request.Testall(requests)

    def _op(self, buf, op):
        return (self._bool_ops if buf.dtype == np.bool_ else self._ops)[op]

    def allreduce(self, buf, op):
        return [self.comm.Iallreduce(self.MPI.IN_PLACE, buf, self._op(buf, op))]

    def reduce(self, buf, op, root):
        if self._rank == root:
            return [self.comm.Ireduce(self.MPI.IN_PLACE, buf, self._op(buf, op), root)]
        return [self.comm.Ireduce(buf, None, self._op(buf, op), root)]

    def broadcast(self, buf, root):
        return [self.comm.Ibcast(_bytes(buf), root)]

    def allgather(self, send, recv):
        return [self.comm.Iallgather(_bytes(send), _bytes(recv))]

    def reduce_scatter(self, send, recv, op):
        return [self.comm.Ireduce_scatter_block(send, recv, self._op(send, op))]

    def gather(self, send, recv, root):
        return [self.comm.Igather(_bytes(send), None if recv is None else _bytes(recv), root)]

    def scatter(self, send, recv, root):
        return [self.comm.Iscatter(None if send is None else _bytes(send), _bytes(recv), root)]

    def alltoallv(self, send, send_counts, recv, recv_counts):
        """`send`/`recv` byte arrays; counts in bytes per peer, blocks laid out in rank order."""
        send_displs = np.concatenate(([0], np.cumsum(send_counts)[:-1])).astype(np.int64)
        recv_displs = np.concatenate(([0], np.cumsum(recv_counts)[:-1])).astype(np.int64)
        byte = self.MPI.BYTE
        return [self.comm.Ialltoallv(
            [send, (list(map(int, send_counts)), list(map(int, send_displs))), byte],
            [recv, (list(map(int, recv_counts)), list(map(int, recv_displs))), byte])]

    def send(self, buf, dst, tag):
        return [self.comm.Isend(_bytes(buf), dst, tag)]

    def recv(self, buf, src, tag):
        source = self.MPI.ANY_SOURCE if src is None else src
        return [_StatusRequest(self.comm.Irecv(_bytes(buf), source, tag), self.MPI.Status())]

    def barrier(self):
        return [self.comm.Ibarrier()]

    def split(self, ranks):
        inside = self._rank in ranks
        color = 0 if inside else self.MPI.UNDEFINED
        key = ranks.index(self._rank) if inside else 0
        comm = self.comm.Split(color, key)
        return MPICommBackend(self.MPI, comm) if inside else None

    def duplicate(self):
        return MPICommBackend(self.MPI, self.comm.Dup())

    def free(self) -> None:
        if self.comm != self.MPI.COMM_WORLD and self.comm != self.MPI.COMM_NULL:
            self.comm.Free()


class _StatusRequest:
    """A receive's request with the status that tells its sender (`source()`)."""

    __slots__ = ("request", "status")

    def __init__(self, request, status):
        self.request = request
        self.status = status

    def Test(self) -> bool:
        return self.request.Test(self.status)

    def source(self) -> int:
        return self.status.Get_source()
