"""Process groups: the default (world) group `init_process_group` makes, the sub-groups of
`new_group`, and the questions about them (`get_rank`, `get_world_size`, `get_backend` ...).

NOTE [ranks come from MPI]: the processes of a job are started by MPI's launcher (mpiexec, or
`python -m ember.distributed.run`, which uses it), and the world's ranks and size are MPI's.
`rank`/`world_size` arguments and the RANK/WORLD_SIZE variables of env:// must agree with
them. A process started alone is a world of one when the requested size is 1 (or unset under
env:// with WORLD_SIZE=1); asking it for more ranks is an error that says how to launch them.
MASTER_ADDR/MASTER_PORT are accepted and not needed: MPI's launcher does the rendezvous.
"""
from __future__ import annotations

import datetime
import os

from ember.distributed import _mpi
from ember.distributed.backend import Backend, MPICommBackend
from ember.distributed.work import DistBackendError, Work

__all__ = [
    "GroupMember",
    "ProcessGroup",
    "default_pg_timeout",
    "destroy_process_group",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_initialized",
    "new_group",
    "new_subgroups",
]

default_pg_timeout = datetime.timedelta(minutes=30)


class ProcessGroup:
    """A set of ranks that run collectives together. `rank()` and `size()` are this process's
    rank within the group and the group's size; `_ranks[i]` is group rank i's global rank."""

    def __init__(self, comm, ranks, backend_name: str, timeout, name: str):
        self._comm = comm
        self._ranks = list(ranks)
        self._backend_name = backend_name
        self._timeout = timeout
        self._name = name
        self._broken = None
        self._global_to_group = {g: i for i, g in enumerate(self._ranks)}
        self._p2p = comm.duplicate()    # ember's own messages (monitored_barrier)

    def rank(self) -> int:
        return self._comm.rank()

    def size(self) -> int:
        return self._comm.size()

    def name(self) -> str:
        return self._backend_name

    @property
    def group_name(self) -> str:
        return self._name

    def _group_rank(self, global_rank: int, what: str) -> int:
        found = self._global_to_group.get(global_rank)
        if found is None:
            raise ValueError(f"{what}: global rank {global_rank} is not part of group "
                             f"{self._name} (ranks {self._ranks})")
        return found

    def _check_usable(self) -> None:
        if self._broken is not None:
            raise DistBackendError(f"this process group is broken and can no longer be used: "
                                   f"{self._broken}")

    def _timed_out(self, what: str, limit) -> DistBackendError:
        self._broken = f"{what} timed out"
        rank = self._ranks[self.rank()]
        return DistBackendError(
            f"[Rank {rank}] {what} did not complete within the timeout ({limit}) on a group of "
            f"{self.size()} ranks: a peer rank may have died, hung, or not called {what}. The "
            f"group is broken now; end the process (the launcher ends the others).")

    def _ember_channel(self):
        return self._p2p

    def _side_all_reduce(self, array) -> None:
        """Sum a NumPy array over the group on ember's own communicator: it may run while
        collectives of the user's are in flight on the group's, in another order on each rank
        (MPI orders collectives per communicator)."""
        from ember.distributed.reduce_op import ReduceOp
        channel = self._ember_channel()
        Work(channel, channel.allreduce(array, ReduceOp.SUM), "all_reduce (ember's own)",
             self).wait()

    def __repr__(self) -> str:
        return (f"<ProcessGroup {self._name} backend={self._backend_name} "
                f"rank={self.rank()} size={self.size()}>")


class GroupMember:
    """`GroupMember.WORLD` (the default group once made), `GroupMember.NON_GROUP_MEMBER`
    (what `new_group` returns on a rank outside the group)."""

    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    WORLD = None


class _State:
    world: ProcessGroup | None = None
    groups: dict = {}  # noqa: RUF012 - reset as a whole by destroy_process_group
    counter = 0


def _set_world(pg) -> None:
    _State.world = pg
    GroupMember.WORLD = pg
    group.WORLD = pg


def is_initialized() -> bool:
    """Whether the default process group exists."""
    return _State.world is not None


def _world() -> ProcessGroup:
    if _State.world is None:
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
    return _State.world


def resolve(pg) -> ProcessGroup | None:
    """The group a collective runs on (None: this rank is outside it, nothing to do)."""
    if pg is None or pg is GroupMember.WORLD:
        pg = _world()
    elif pg == GroupMember.NON_GROUP_MEMBER:
        return None
    elif not isinstance(pg, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(pg).__name__}")
    pg._check_usable()
    return pg


def _env_int(name: str):
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: "
                         f"environment variable {name} must be an integer, got {value!r}") from None


def _backend_name(backend) -> str:
    if backend is None:
        return Backend.GLOO
    names = [part.split(":")[-1] for part in str(backend).split(",")]
    for name in names:
        Backend(name)
    if "nccl" in [n.lower() for n in names]:
        import ember
        if not ember.cuda.is_available():
            raise RuntimeError("ProcessGroupNCCL is only supported with GPUs, no GPUs found! "
                               "(use backend='gloo' or 'mpi' for CPU tensors)")
        raise NotImplementedError("ember.distributed has no NCCL back-end yet (the seam is "
                                  "backend.CommBackend); use backend='gloo' or 'mpi'")
    name = names[0].lower()
    if name not in (Backend.GLOO, Backend.MPI):
        raise RuntimeError(f"ember.distributed serves the 'gloo' and 'mpi' back-ends (through "
                           f"MPI); '{name}' is not available")
    return name


def _expected_size_and_rank(init_method, world_size, rank):
    """What the arguments and env:// ask for (None where nothing does)."""
    if world_size is None or world_size == -1:
        world_size = None
    if rank is None or rank == -1:
        rank = None
    if init_method is None or str(init_method).startswith("env://"):
        if world_size is None:
            world_size = _env_int("WORLD_SIZE")
        if rank is None:
            rank = _env_int("RANK")
    return world_size, rank


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name: str = "", pg_options=None, device_id=None):
    """Make the default process group: every rank of the job calls it (NOTE [ranks come from
    MPI])."""
    if _State.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    name = _backend_name(backend)
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout).__name__}")
    size, wanted_rank = _expected_size_and_rank(init_method, world_size, rank)
    if not _mpi.launched_by_mpiexec() and size not in (None, 1):
        raise RuntimeError(
            f"init_process_group: {size} ranks were asked for, but this process was not started "
            f"by MPI's launcher, so it has no peers. ember.distributed starts its processes "
            f"through MPI: run `python -m ember.distributed.run --nproc-per-node {size} "
            f"script.py` (or `mpiexec -n {size} python script.py`).")
    MPI = _mpi.mpi()
    world = MPI.COMM_WORLD
    mpi_size, mpi_rank = world.Get_size(), world.Get_rank()
    if size is not None and size != mpi_size:
        raise ValueError(f"init_process_group: world_size {size} does not match the {mpi_size} "
                         f"processes MPI started")
    if wanted_rank is not None and wanted_rank != mpi_rank:
        raise ValueError(f"init_process_group: rank {wanted_rank} does not match this "
                         f"process's MPI rank {mpi_rank}")
    pg = ProcessGroup(MPICommBackend(MPI, world), range(mpi_size), name, timeout,
                      group_name or "0")
    _set_world(pg)
    _State.groups = {pg._name: pg}
    _State.counter = 1
    barrier()           # every rank is there (or a clear timeout names the missing ones)


def destroy_process_group(group=None) -> None:
    """Free `group`'s communicator; with no group, every group and the default one."""
    if group is None or group is _State.world:
        for pg in list(_State.groups.values()):
            _free(pg)
        _State.groups = {}
        _set_world(None)
        return
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    _free(group)
    _State.groups.pop(group._name, None)


def _free(pg) -> None:
    pg._p2p.free()
    pg._comm.free()
    pg._broken = "destroyed"


def get_rank(group=None) -> int:
    """This process's rank in `group` (the default group: its global rank); -1 outside it."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _world() if group is None else group
    return pg.rank()


def get_world_size(group=None) -> int:
    """The number of ranks in `group`; -1 on a rank outside it."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _world() if group is None else group
    return pg.size()


def get_backend(group=None) -> str:
    pg = _world() if group is None else group
    if pg == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return Backend(pg._backend_name)


def get_process_group_ranks(group) -> list:
    return list((_world() if group is None else group)._ranks)


def get_global_rank(group, group_rank: int) -> int:
    pg = _world() if group is None else group
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg._name}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    pg = _world() if group is None else group
    return pg._group_rank(global_rank, "get_group_rank")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of the global `ranks` (all when None). Every rank of the world calls it; a rank
    outside `ranks` gets GroupMember.NON_GROUP_MEMBER."""
    world = _world()
    world._check_usable()
    ranks = sorted(range(world.size()) if ranks is None else set(ranks))
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError(f"new_group: rank {r} is outside the world of {world.size()} "
                             f"ranks")
    name = str(_State.counter)
    _State.counter += 1
    barrier(world)          # a timeout here names a missing rank rather than hanging in Split
    comm = world._comm.split(ranks)
    if comm is None:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, _backend_name(backend) if backend else world._backend_name,
                      world._timeout if timeout is None else timeout, name)
    _State.groups[name] = pg
    return pg


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None,
                  group_desc=None):
    """Split the world into consecutive groups of `group_size` ranks: (this rank's group, all
    of them)."""
    world = _world()
    size = world.size() if group_size is None else group_size
    if size <= 0:
        raise ValueError("The arg 'group_size' must be positive")
    if world.size() % size != 0:
        raise ValueError(f"The world size ({world.size()}) must be divisible by 'group_size' "
                         f"({size})")
    mine, groups = None, []
    for start in range(0, world.size(), size):
        pg = new_group(list(range(start, start + size)), timeout=timeout, backend=backend)
        if pg != GroupMember.NON_GROUP_MEMBER:
            mine = pg
        groups.append(pg)
    return mine, groups


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None,
                                 pg_options=None, group_desc=None):
    """One group per list of global ranks (disjoint lists): (this rank's group, all of them)."""
    seen = set()
    for ranks in ranks_per_subgroup_list:
        for r in ranks:
            if r in seen:
                raise ValueError(f"Rank {r} has appeared in both subgroup {ranks} and a "
                                 f"previous one")
            seen.add(r)
    mine, groups = None, []
    for ranks in ranks_per_subgroup_list:
        pg = new_group(ranks, timeout=timeout, backend=backend)
        if pg != GroupMember.NON_GROUP_MEMBER:
            mine = pg
        groups.append(pg)
    return mine, groups


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Wait until every rank of `group` has reached it."""
    pg = resolve(group)
    if pg is None:
        return None
    work = Work(pg._comm, pg._comm.barrier(), "barrier", pg)
    if async_op:
        return work
    work.wait()
    return None
