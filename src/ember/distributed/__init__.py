"""ember.distributed: process groups and collectives on MPI (mpi4py, loaded on first use), in
PyTorch's API. group.py (init_process_group, groups), collectives.py, p2p.py, objects.py,
work.py (Work, timeouts), backend.py (the CommBackend seam), run.py (the launcher)."""
from __future__ import annotations

from ember.distributed import _mpi
from ember.distributed.backend import Backend
from ember.distributed.collectives import (all_gather, all_gather_into_tensor, all_reduce,
                                           all_reduce_coalesced, all_to_all, all_to_all_single,
                                           broadcast, gather, reduce, reduce_scatter,
                                           reduce_scatter_tensor, scatter)
from ember.distributed.group import (GroupMember, ProcessGroup, barrier, default_pg_timeout,
                                     destroy_process_group, get_backend, get_global_rank,
                                     get_group_rank, get_process_group_ranks, get_rank,
                                     get_world_size, group, init_process_group, is_initialized,
                                     new_group, new_subgroups)
from ember.distributed.objects import (all_gather_object, broadcast_object_list, gather_object,
                                       monitored_barrier, scatter_object_list)
from ember.distributed.p2p import P2POp, batch_isend_irecv, irecv, isend, recv, send
from ember.distributed.reduce_op import ReduceOp, reduce_op
from ember.distributed.work import (DistBackendError, DistError, DistNetworkError,
                                    DistStoreError, Work)

__all__ = [
    "is_available", "is_mpi_available", "is_gloo_available", "is_nccl_available",
    "is_ucc_available", "is_xccl_available", "is_torchelastic_launched", "Backend",
    "ReduceOp", "reduce_op", "Work", "ProcessGroup", "GroupMember", "group",
    "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
    "init_process_group", "destroy_process_group", "is_initialized", "get_rank",
    "get_world_size", "get_backend", "new_group", "new_subgroups", "get_process_group_ranks",
    "get_global_rank", "get_group_rank", "default_pg_timeout", "barrier", "monitored_barrier",
    "all_reduce", "all_reduce_coalesced", "broadcast", "reduce", "all_gather",
    "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter",
    "all_to_all", "all_to_all_single", "send", "recv", "isend", "irecv", "P2POp",
    "batch_isend_irecv", "broadcast_object_list", "all_gather_object", "gather_object",
    "scatter_object_list",
]


def is_available() -> bool:
    """Whether process groups can be made here (mpi4py is installed; it is not loaded)."""
    return _mpi.available()


def is_mpi_available() -> bool:
    return _mpi.available()


def is_gloo_available() -> bool:
    """"gloo" is served by MPI on CPU tensors."""
    return _mpi.available()


def is_nccl_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_xccl_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    """Whether this process was started by a torchrun-style launcher (ember.distributed.run)."""
    import os
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None
