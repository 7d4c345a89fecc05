"""ember.multiprocessing: Python's multiprocessing as torch.multiprocessing presents it (the
same names, re-exported), the sharing-strategy switches, and `spawn` / `start_processes`,
which run a function in several processes and raise a child's failure in the parent
(spawn.py)."""
from __future__ import annotations

import multiprocessing as _multiprocessing

from ember.multiprocessing.spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

_STDLIB_NAMES = (
    "Array", "AuthenticationError", "Barrier", "BoundedSemaphore", "BufferTooShort",
    "Condition", "Event", "JoinableQueue", "Lock", "Manager", "Pipe", "Pool", "Process",
    "ProcessError", "Queue", "RLock", "RawArray", "RawValue", "Semaphore", "SimpleQueue",
    "TimeoutError", "Value", "active_children", "allow_connection_pickling", "cpu_count",
    "current_process", "freeze_support", "get_all_start_methods", "get_context", "get_logger",
    "get_start_method", "log_to_stderr", "parent_process", "reducer", "set_executable",
    "set_forkserver_preload", "set_start_method")
globals().update({name: getattr(_multiprocessing, name) for name in _STDLIB_NAMES})

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException",
           "ProcessRaisedException", "get_all_sharing_strategies", "get_sharing_strategy",
           "set_sharing_strategy", "spawn", "start_processes"]
__all__ += list(_STDLIB_NAMES)

_SHARING_STRATEGIES = frozenset({"file_descriptor", "file_system"})
_sharing_strategy = ["file_descriptor"]


def get_all_sharing_strategies() -> set:
    """The ways tensors may be shared between processes."""
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy() -> str:
    return _sharing_strategy[0]


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how tensors are shared between processes (stored: ember shares CPU tensors'
    memory one way whichever is chosen)."""
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"unknown sharing strategy {new_strategy!r}")
    _sharing_strategy[0] = new_strategy


from ember.multiprocessing.reductions import init_reductions

init_reductions()
