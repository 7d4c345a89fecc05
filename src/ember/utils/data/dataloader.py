"""`DataLoader`: batches from a dataset, in the main process or in worker processes.

Arguments, defaults and errors follow PyTorch's. With `num_workers > 0`, each worker is a
process holding its own copy of the dataset; the main process sends index batches round-robin
(at most `prefetch_factor` outstanding per worker), receives batches through shared memory
(NOTE [batches through shared memory] in _utils/shared.py) and yields them in sampler order
(or as they arrive with `in_order=False`). A worker's exception is re-raised in the main process
with the worker's traceback; a worker that dies is reported within about a second
(`STATUS_CHECK_INTERVAL`); workers are shut down when the iterator ends, is dropped, or the
program exits.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import warnings
import weakref

from ember.utils.data._utils import shared
from ember.utils.data._utils.collate import default_collate, default_convert
from ember.utils.data._utils.fetch import create_fetcher
from ember.utils.data._utils.worker import (
    STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    IterableDatasetStopIteration,
    ResumeIteration,
    worker_loop,
)
from ember.utils.data.dataset import IterableDataset
from ember.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None forever (the fetcher pulls from the stream)."""

    def __iter__(self):
        while True:
            yield None


_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
           "persistent_workers")


class DataLoader:
    """Iterate over `dataset` in batches (see the module docstring)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        self._iterator = None
        self.__initialized = True

    def __setattr__(self, name, value) -> None:
        if self.__dict__.get("_DataLoader__initialized") and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 f"loading (num_workers > 0), but got num_workers="
                                 f"{self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            elif not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self.__multiprocessing_context = context

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessIter(self)

    def check_worker_number_rationality(self) -> None:
        """Warn, as PyTorch does, when more workers are asked for than there are CPUs."""
        try:
            cpus = len(os.sched_getaffinity(0))
        except AttributeError:
            cpus = os.cpu_count()
        if cpus is not None and self.num_workers > cpus:
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. "
                f"Our suggested max number of worker in current system is {cpus}, which is "
                "smaller than what this DataLoader is going to create. Please be aware that "
                "excessive worker creation might get DataLoader running slow or even freeze, "
                "lower the worker number to avoid potential slowness/freeze if necessary.",
                stacklevel=3)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else \
                    ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader) -> None:
        import ember
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = ember.empty((), dtype=ember.int64).random_(
            generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == "iterable" and self._IterableDataset_len_called is not None \
                and self._num_yielded > self._IterableDataset_len_called:
            message = (f"Length of IterableDataset {self._dataset} was reported to be "
                       f"{self._IterableDataset_len_called}(when accessing len(dataloader)), "
                       f"but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                message += ("For multiprocessing data-loading, this could be caused by not "
                            "properly configuring the IterableDataset replica at each worker. "
                            "Please see https://pytorch.org/docs/stable/data.html#torch.utils."
                            "data.IterableDataset for examples.")
            warnings.warn(message, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._fetcher = create_fetcher(self._dataset_kind, self._dataset,
                                       self._auto_collation, self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()
        return self._fetcher.fetch(index)


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        context = loader.multiprocessing_context or multiprocessing
        self._worker_result_queue = context.Queue()
        self._workers_done_event = context.Event()
        self._index_queues, self._workers, self._channels = [], [], []
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            channel, worker_end = shared.channel() if shared.AVAILABLE else (None, None)
            worker = context.Process(
                target=worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue,
                      self._worker_result_queue, self._workers_done_event,
                      self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, loader.worker_init_fn, worker_id, self._num_workers,
                      self._persistent_workers, worker_end))
            worker.daemon = True
            worker.start()
            if worker_end is not None:
                worker_end.close()      # the worker has its own copy
            self._index_queues.append(index_queue)
            self._workers.append(worker)
            self._channels.append(channel)
        self._shutdown = False
        self._finalizer = weakref.finalize(self, _shutdown_workers, self._workers,
                                           self._index_queues, self._worker_result_queue,
                                           self._workers_done_event, self._channels)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info: dict = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            for index_queue in self._index_queues:
                index_queue.put(ResumeIteration())
            resumed = self._num_workers
            while resumed > 0:
                got, data = self._get_data()
                if isinstance(got, ResumeIteration):
                    resumed -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        if self._tasks_outstanding >= self._prefetch_factor * self._num_workers:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _try_get_data(self, timeout: float):
        try:
            return True, self._worker_result_queue.get(timeout=timeout)
        except queue.Empty:
            failed = [w for i, w in enumerate(self._workers)
                      if self._workers_status[i] and not w.is_alive()]
            if failed:
                pids = ", ".join(str(w.pid) for w in failed)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") \
                    from None
            return False, None

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        else:
            ok = False
            while not ok:
                ok, data = self._try_get_data(STATUS_CHECK_INTERVAL)
        index_id, batch = data
        if isinstance(batch, shared.SharedBatch):
            # Its files are taken off the channel now, in the order the worker sent them,
            # whether the batch is yielded now, kept for later, or dropped (a stale epoch).
            batch = shared.from_shared(batch, self._channels)
        return index_id, batch

    def _next_data(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process_data(data)
            index_id, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                if not self._persistent_workers:
                    self._index_queues[data.worker_id].put(None)
                self._try_put_index()
                continue
            if index_id == self._rcvd_idx or not self._in_order:
                self._task_info.pop(index_id, None)
                if index_id == self._rcvd_idx:
                    self._rcvd_idx += 1
                return self._process_data(data)
            self._task_info[index_id] += (data,)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        if not self._shutdown:
            self._shutdown = True
            self._finalizer()

    def __del__(self) -> None:
        if hasattr(self, "_finalizer"):
            self._finalizer()


def _shutdown_workers(workers, index_queues, result_queue, done_event, channels) -> None:
    """Stop every worker (politely, then by force), close the queues and channels (the files
    of unread batches go with them)."""
    done_event.set()
    for worker, index_queue in zip(workers, index_queues):
        if worker.is_alive():
            try:
                index_queue.put(None)
            except (OSError, ValueError):
                pass
    for worker in workers:
        worker.join(timeout=STATUS_CHECK_INTERVAL * 5)
        if worker.is_alive():
            worker.terminate()
            worker.join(timeout=STATUS_CHECK_INTERVAL)
    for index_queue in index_queues:
        index_queue.cancel_join_thread()
        index_queue.close()
    result_queue.cancel_join_thread()
    result_queue.close()
    for channel in channels:
        if channel is not None:
            channel.close()
