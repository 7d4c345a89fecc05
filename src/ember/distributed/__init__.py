"""ember.distributed: process groups and collectives on MPI (mpi4py, loaded on first use), in
PyTorch's API. group.py (init_process_group, groups), collectives.py, p2p.py, objects.py,
work.py (Work, timeouts), backend.py (the CommBackend seam), store.py (key-value stores),
run.py (the launcher)."""
from __future__ import annotations

from ember.distributed import _mpi, algorithms
from ember.distributed._info import (
    DebugLevel,
    get_debug_level,
    get_default_backend_for_device,
    get_node_local_rank,
    get_pg_count,
    is_backend_available,
    set_debug_level,
    set_debug_level_from_env,
    supports_complex,
)
from ember.distributed.algorithms.ddp_comm_hooks.grad_bucket import GradBucket
from ember.distributed.backend import Backend
from ember.distributed.collectives import (
    all_gather,
    all_gather_into_tensor,
    all_gather_single,
    all_reduce,
    all_reduce_coalesced,
    all_to_all,
    all_to_all_single,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    reduce_scatter_single,
    reduce_scatter_tensor,
    scatter,
)
from ember.distributed.group import (
    GroupMember,
    ProcessGroup,
    barrier,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_initialized,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from ember.distributed.objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    monitored_barrier,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from ember.distributed.p2p import P2POp, batch_isend_irecv, irecv, isend, recv, send
from ember.distributed.reduce_op import ReduceOp, reduce_op
from ember.distributed.store import FileStore, HashStore, PrefixStore, Store, TCPStore
from ember.distributed.work import (
    DistBackendError,
    DistError,
    DistNetworkError,
    DistStoreError,
    Work,
)

__all__ = [
    "Backend",
    "DebugLevel",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "FileStore",
    "GradBucket",
    "GroupMember",
    "HashStore",
    "P2POp",
    "PrefixStore",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "algorithms",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_gather_single",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_debug_level",
    "get_default_backend_for_device",
    "get_global_rank",
    "get_group_rank",
    "get_node_local_rank",
    "get_pg_count",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "is_ucc_available",
    "is_xccl_available",
    "isend",
    "monitored_barrier",
    "new_group",
    "new_subgroups",
    "new_subgroups_by_enumeration",
    "recv",
    "recv_object_list",
    "reduce",
    "reduce_op",
    "reduce_scatter",
    "reduce_scatter_single",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
    "send_object_list",
    "set_debug_level",
    "set_debug_level_from_env",
    "supports_complex",
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
