"""What runs inside a DataLoader worker process: `WorkerInfo` / `get_worker_info`, the
worker loop (fetch the batches whose indices arrive on the index queue, put them on the result
queue through shared memory), and `ExceptionWrapper`, which carries a worker's exception and
traceback to the main process."""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback

from ember._core import upcalls as _upcalls

# How often a waiting worker (or the main process) checks that the other side is alive.
STATUS_CHECK_INTERVAL = 1.0

_worker_info = None


class WorkerInfo:
    """id, num_workers, seed and dataset (this worker's copy) of the current worker."""

    def __init__(self, **kwargs) -> None:
        for key, value in kwargs.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_keys", tuple(kwargs))

    def __setattr__(self, key, value):
        raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")

    def __repr__(self) -> str:
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self._keys)
        return f"{self.__class__.__name__}({items})"


def get_worker_info():
    """The current worker's WorkerInfo inside a DataLoader worker; None in the main process."""
    return _worker_info


_upcalls.worker_info = get_worker_info      # for ember._random (NOTE [upcalls])


class KeyErrorMessage(str):
    """A KeyError message printed as written (KeyError's repr would quote it)."""

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in a worker, with its formatted traceback; `reraise` raises an
    exception of the same class in the main process."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            message = KeyErrorMessage(message)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=message)
        try:
            exception = self.exc_type(message)
        except Exception:  # noqa: BLE001 - a class whose constructor wants other arguments
            raise RuntimeError(message) from None
        raise exception


class IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class ResumeIteration:
    """Sent to persistent workers at the start of each new epoch."""


def _seed_worker(seed: int) -> None:
    import numpy as np

    import ember
    random.seed(seed)
    ember.manual_seed(seed)
    np.random.seed(seed % (1 << 32))


def worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                persistent_workers, channel_end) -> None:
    """The body of a worker process; `channel_end` carries the batches' shared-memory files
    to the main process (NOTE [batches through shared memory] in shared.py)."""
    global _worker_info
    from ember.utils.data._utils.fetch import create_fetcher
    from ember.utils.data._utils.shared import to_shared
    parent = os.getppid()
    # A blocked send checks now and then that someone is still there to read it.
    if channel_end is not None:
        channel_end.settimeout(STATUS_CHECK_INTERVAL)
    try:
        seed = base_seed + worker_id
        _seed_worker(seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn,
                                     drop_last)
        except Exception:  # noqa: BLE001 - reported to the main process with its traceback
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        exhausted = False
        while True:
            try:
                request = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent:
                    return      # the main process died: nobody is waiting for us
                continue
            if isinstance(request, ResumeIteration):
                data_queue.put((request, None))
                exhausted = False
                if init_error is None:
                    fetcher = create_fetcher(dataset_kind, dataset, auto_collation,
                                             collate_fn, drop_last)
                continue
            if request is None:
                return
            if done_event.is_set() or exhausted:
                continue
            index_id, index = request
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as exc:  # noqa: BLE001 - reported to the main process
                    if isinstance(exc, StopIteration) and dataset_kind == "iterable":
                        data = IterableDatasetStopIteration(worker_id)
                        exhausted = True
                    else:
                        data = ExceptionWrapper(
                            where=f"in DataLoader worker process {worker_id}")
            if not isinstance(data, (ExceptionWrapper, IterableDatasetStopIteration)):
                try:
                    data = to_shared(data, channel_end, worker_id, parent)
                except Exception:  # noqa: BLE001 - reported to the main process
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((index_id, data))
    except KeyboardInterrupt:
        pass
    finally:
        if done_event.is_set():
            data_queue.cancel_join_thread()
            data_queue.close()
        if channel_end is not None:
            channel_end.close()
