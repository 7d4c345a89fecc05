"""`Work`: a collective in flight. Every collective runs as non-blocking requests that `wait`
polls until they complete or the group's timeout passes.

NOTE [collectives never block past the timeout]: MPI's blocking calls cannot be interrupted,
so a rank whose peer died or never joined would wait forever. Every operation here is started
non-blocking (MPI_Iallreduce, MPI_Isend ...) and `Work.wait` tests its requests until they
complete or the deadline passes, then raises DistBackendError naming the operation, the rank
and the timeout. The group is then marked broken (its communicator is in an unknown state) and
later calls on it raise at once.
"""
from __future__ import annotations

import datetime
import time
import weakref

__all__ = ["DistBackendError", "DistError", "DistNetworkError", "DistStoreError", "Work"]


class DistError(RuntimeError):
    """An error of the distributed package."""


class DistBackendError(DistError):
    """The communication back-end failed (a timeout, a broken group)."""


class DistNetworkError(DistError):
    """A network failure."""


class DistStoreError(DistError):
    """A key-value store failure (a key not set within the timeout)."""


# Tight polling first (a short collective finishes within microseconds and MPI only makes
# progress while it is called), then short sleeps so a waiting rank leaves the CPU to others.
_SPIN_SECONDS = 0.002
_SLEEP_SECONDS = 0.0002

# NOTE [progress while computing]: MPI moves the data of a non-blocking operation only while
# some MPI call runs in the process. `progress()` tests every Work still in flight; DDP calls it
# as gradients become ready, so bucket reductions advance during backward rather than all at
# the final wait.
_in_flight = weakref.WeakSet()


def progress() -> None:
    """Let MPI advance every operation in flight (completing those that are done)."""
    for work in list(_in_flight):
        work.is_completed()


class Work:
    """The handle `async_op=True` returns: `wait()` blocks until the operation is done (or
    raises after the group's timeout), `is_completed()` asks without blocking."""

    def __init__(self, backend, requests, what: str, group, finish=None, result=None):
        self._backend = backend
        self._requests = list(requests)
        self._what = what
        self._group = group
        self._finish = finish
        self._result = result
        self._done = not self._requests
        self._exception = None
        self._source = None
        if self._done:
            self._complete()
        else:
            _in_flight.add(self)

    def _complete(self) -> None:
        _in_flight.discard(self)
        self._done = True
        self._requests = []
        finish, self._finish = self._finish, None
        if finish is not None:
            finish()

    def is_completed(self) -> bool:
        if not self._done and self._backend.test_all(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed() and self._exception is None

    def exception(self):
        return self._exception

    def wait(self, timeout=None) -> bool:
        if self._done:
            return True
        limit = self._group._timeout if timeout is None else timeout
        seconds = limit.total_seconds() if isinstance(limit, datetime.timedelta) else limit
        test_all = self._backend.test_all
        requests = self._requests
        start = time.monotonic()
        spin_until = start + _SPIN_SECONDS
        deadline = start + seconds
        while not test_all(requests):
            now = time.monotonic()
            if now > deadline:
                self._exception = self._group._timed_out(self._what, limit)
                raise self._exception
            if now > spin_until:
                time.sleep(_SLEEP_SECONDS)
        self._complete()
        return True

    def result(self):
        self.wait()
        return self._result if self._result is not None else []

    def get_future(self):
        """A Future of the result tensors that waits for this Work when waited for."""
        from ember.distributed._future import future_of_work
        return future_of_work(self, self._result if self._result is not None else [])

    def synchronize(self) -> None:
        self.wait()

    def source_rank(self) -> int:
        """The sender of a completed `irecv` (group rank)."""
        self.wait()
        if self._source is None:
            raise RuntimeError("source_rank() is only available on a Work of a recv")
        return self._source

    def __repr__(self) -> str:
        return f"<Work {self._what} {'completed' if self._done else 'pending'}>"
