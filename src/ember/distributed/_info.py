"""Small questions and switches of torch.distributed: which back-ends exist, the debug level,
the node-local rank, how many groups there are."""
from __future__ import annotations

import enum
import os

from ember.distributed import _mpi
from ember.distributed.reduce_op import ReduceOp

__all__ = [
    "DebugLevel",
    "get_debug_level",
    "get_default_backend_for_device",
    "get_node_local_rank",
    "get_pg_count",
    "is_backend_available",
    "set_debug_level",
    "set_debug_level_from_env",
    "supports_complex",
]


class DebugLevel(enum.Enum):
    OFF = 0
    INFO = 1
    DETAIL = 2


_debug = [DebugLevel.OFF]


def get_debug_level() -> DebugLevel:
    return _debug[0]


def set_debug_level(level: DebugLevel) -> None:
    _debug[0] = level


def set_debug_level_from_env() -> None:
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError(f"The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO or DETAIL, "
                         f"but it is {value}.")
    _debug[0] = DebugLevel[value]


def is_backend_available(backend: str) -> bool:
    """Whether a process group can use `backend` here ("gloo" and "mpi" through MPI)."""
    return backend.lower() in ("gloo", "mpi") and _mpi.available()


def get_default_backend_for_device(device) -> str:
    kind = device if isinstance(device, str) else device.type
    kind = kind.split(":")[0]
    if kind == "cpu":
        return "gloo"
    if kind == "cuda":
        return "nccl"
    raise ValueError(f"Default backend not registered for device : {kind}")


def supports_complex(reduceOp) -> bool:
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND,
                            ReduceOp.BOR, ReduceOp.BXOR)


def get_node_local_rank(fallback_rank=None) -> int:
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank "
                       "to allow `get_node_local_rank` to work, assuming you are not running "
                       "in a multi-device context and want the code to run locally instead.")


def get_pg_count() -> int:
    from ember.distributed.group import _State
    return len(_State.groups)
