"""The iterable DataPipes and their functional names: IterableWrapper, map, filter, batch,
unbatch, collate, shuffle, zip, concat, mux, fork, demux, groupby, sharding_filter."""
from __future__ import annotations

import builtins
import collections
import copy
import random

from ember.utils.data.datapipes._decorator import functional_datapipe
from ember.utils.data.datapipes.datapipe import DataChunk, IterDataPipe

__all__ = ["Batcher", "Collator", "Concater", "Demultiplexer", "Filter", "Forker", "Grouper",
           "IterableWrapper", "Mapper", "Multiplexer", "ShardingFilter", "Shuffler",
           "UnBatcher", "Zipper"]


def _length(datapipe, owner) -> int:
    try:
        return len(datapipe)
    except TypeError:
        raise TypeError(f"object of type '{type(owner).__name__}' has no len()") from None


class IterableWrapper(IterDataPipe):
    """A DataPipe over an iterable (a deep copy of it unless deepcopy=False)."""

    def __init__(self, iterable, deepcopy: bool = True) -> None:
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self):
        source = self.iterable
        if self.deepcopy:
            source = copy.deepcopy(source)
        yield from source

    def __len__(self) -> int:
        return _length(self.iterable, self)

    def __repr__(self) -> str:
        return "IterableWrapperIterDataPipe"


def _apply(fn, data, input_col, output_col):
    """fn on the whole item, or on its input columns, written to the output column."""
    if input_col is None and output_col is None:
        return fn(data)
    if input_col is None:
        result = fn(data)
    elif isinstance(input_col, (list, tuple)):
        result = fn(*(data[c] for c in input_col))
    else:
        result = fn(data[input_col])
    as_tuple = isinstance(data, tuple)
    data = list(data) if as_tuple else copy.copy(data)
    if output_col is None:
        target = input_col[0] if isinstance(input_col, (list, tuple)) else input_col
        if isinstance(input_col, (list, tuple)):
            for c in sorted(input_col[1:], reverse=True):
                del data[c]
        data[target] = result
    elif output_col == -1:
        data.append(result)
    else:
        data[output_col] = result
    return tuple(data) if as_tuple else data


@functional_datapipe("map")
class Mapper(IterDataPipe):
    def __init__(self, datapipe, fn, input_col=None, output_col=None) -> None:
        if input_col is None and output_col is not None:
            raise ValueError("`output_col` must be None when `input_col` is None.")
        if isinstance(output_col, (list, tuple)):
            if len(output_col) > 1:
                raise ValueError("`output_col` must be a single-element list or tuple")
            output_col = output_col[0]
        self.datapipe, self.fn, self.input_col, self.output_col = datapipe, fn, input_col, \
            output_col

    def __iter__(self):
        for data in self.datapipe:
            yield _apply(self.fn, data, self.input_col, self.output_col)

    def __len__(self) -> int:
        return _length(self.datapipe, self)

    def __repr__(self) -> str:
        return "MapperIterDataPipe"


@functional_datapipe("filter")
class Filter(IterDataPipe):
    def __init__(self, datapipe, filter_fn, input_col=None) -> None:
        self.datapipe, self.filter_fn, self.input_col = datapipe, filter_fn, input_col

    def __iter__(self):
        for data in self.datapipe:
            if self.input_col is None:
                keep = self.filter_fn(data)
            elif isinstance(self.input_col, (list, tuple)):
                keep = self.filter_fn(*(data[c] for c in self.input_col))
            else:
                keep = self.filter_fn(data[self.input_col])
            if not isinstance(keep, bool):
                raise ValueError(  # noqa: TRY004 (PyTorch's class)
                    "Boolean output is required for `filter_fn` of "
                    "FilterIterDataPipe, got", type(keep))
            if keep:
                yield data

    def __repr__(self) -> str:
        return "FilterIterDataPipe"


@functional_datapipe("batch")
class Batcher(IterDataPipe):
    def __init__(self, datapipe, batch_size: int, drop_last: bool = False,
                 wrapper_class=DataChunk) -> None:
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        self.datapipe, self.batch_size, self.drop_last, self.wrapper_class = \
            datapipe, batch_size, drop_last, wrapper_class

    def __iter__(self):
        batch = []
        for item in self.datapipe:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)

    def __len__(self) -> int:
        n = _length(self.datapipe, self)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __repr__(self) -> str:
        return "BatcherIterDataPipe"


@functional_datapipe("unbatch")
class UnBatcher(IterDataPipe):
    def __init__(self, datapipe, unbatch_level: int = 1) -> None:
        self.datapipe, self.unbatch_level = datapipe, unbatch_level

    def _dive(self, element, level):
        if level < -1:
            raise ValueError("unbatch_level must be -1 or >= 0")
        if level == -1:
            if isinstance(element, (list, DataChunk)):
                for item in element:
                    yield from self._dive(item, -1)
            else:
                yield element
        elif level == 0:
            yield element
        elif isinstance(element, (list, DataChunk)):
            for item in element:
                yield from self._dive(item, level - 1)
        else:
            raise IndexError(f"unbatch_level {self.unbatch_level} exceeds the depth of the "
                             "DataPipe")

    def __iter__(self):
        for element in self.datapipe:
            yield from self._dive(element, self.unbatch_level)


@functional_datapipe("collate")
class Collator(Mapper):
    def __init__(self, datapipe, conversion=None, collate_fn=None) -> None:
        from ember.utils.data._utils.collate import default_collate
        fn = collate_fn if collate_fn is not None else conversion
        super().__init__(datapipe, fn if fn is not None else default_collate)


@functional_datapipe("shuffle")
class Shuffler(IterDataPipe):
    """Shuffle through a buffer of `buffer_size` items (seeded from ember's generator)."""

    def __init__(self, datapipe, *, buffer_size: int = 10000, unbatch_level: int = 0) -> None:
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        self.datapipe = datapipe if unbatch_level == 0 else datapipe.unbatch(unbatch_level)
        self.buffer_size = buffer_size
        self._enabled = True
        self._seed = None

    def set_shuffle(self, shuffle: bool = True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed: int):
        self._seed = seed
        return self

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        import ember
        seed = self._seed if self._seed is not None else \
            int(ember.empty((), dtype=ember.int64).random_().item())
        rng = random.Random(seed)
        buffer = []
        for item in self.datapipe:
            if len(buffer) == self.buffer_size:
                index = rng.randint(0, len(buffer) - 1)
                buffer[index], item = item, buffer[index]
                yield item
            else:
                buffer.append(item)
        while buffer:
            index = rng.randint(0, len(buffer) - 1)
            buffer[index], buffer[-1] = buffer[-1], buffer[index]
            yield buffer.pop()

    def __len__(self) -> int:
        return _length(self.datapipe, self)


@functional_datapipe("zip")
class Zipper(IterDataPipe):
    def __init__(self, *datapipes) -> None:
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("All inputs are required to be `IterDataPipe` for `ZipIterDataPipe`.")
        self.datapipes = datapipes

    def __iter__(self):
        yield from builtins.zip(*self.datapipes)

    def __len__(self) -> int:
        return min(_length(dp, self) for dp in self.datapipes)


@functional_datapipe("concat")
class Concater(IterDataPipe):
    def __init__(self, *datapipes) -> None:
        if not datapipes:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `IterDataPipe`")
        self.datapipes = datapipes

    def __iter__(self):
        for dp in self.datapipes:
            yield from dp

    def __len__(self) -> int:
        return sum(_length(dp, self) for dp in self.datapipes)


@functional_datapipe("mux")
class Multiplexer(IterDataPipe):
    """One item from each input in turn, until one runs out."""

    def __init__(self, *datapipes) -> None:
        self.datapipes = datapipes

    def __iter__(self):
        iterators = [iter(dp) for dp in self.datapipes]
        while True:
            round_ = []
            for it in iterators:
                try:
                    round_.append(next(it))
                except StopIteration:
                    return
            yield from round_

    def __len__(self) -> int:
        return min(_length(dp, self) for dp in self.datapipes) * len(self.datapipes)


class _Child(IterDataPipe):
    """One output of `fork` or `demux`: the items of its parent that belong to it."""

    def __init__(self, parent, index: int) -> None:
        self.parent, self.index = parent, index

    def __iter__(self):
        return self.parent._items(self.index)


class _Splitter:
    """What fork and demux share: the source is read once per round of children (each child
    that starts iterating after the previous round restarts the source), items kept in
    per-child buffers of at most `buffer_size` (-1: unbounded)."""

    def __init__(self, datapipe, count: int, route, buffer_size: int) -> None:
        self.datapipe, self.count, self.route, self.buffer_size = datapipe, count, route, \
            buffer_size
        self._source = None
        self._buffers = None
        self._started = set()

    def _items(self, index: int):
        if self._source is None or index in self._started:
            self._source = iter(self.datapipe)
            self._buffers = [collections.deque() for _ in range(self.count)]
            self._started = set()
        self._started.add(index)
        source, buffers = self._source, self._buffers
        while True:
            if buffers[index]:
                yield buffers[index].popleft()
                continue
            try:
                item = next(source)
            except StopIteration:
                return
            for target in self.route(item):
                if target == index:
                    buffers[index].append(item)
                elif target is not None:
                    if 0 <= self.buffer_size <= len(buffers[target]):
                        raise BufferError(f"DataPipe buffer reached max capacity of "
                                          f"{self.buffer_size}")
                    buffers[target].append(item)


@functional_datapipe("fork")
class Forker(IterDataPipe):
    """`fork(n)`: n DataPipes that each yield every item."""

    def __new__(cls, datapipe, num_instances: int, buffer_size: int = 1000, copy=None):
        if num_instances < 1:
            raise ValueError(f"Expected `num_instances` larger than 0, but {num_instances} is "
                             "found")
        if num_instances == 1:
            return datapipe
        splitter = _Splitter(datapipe, num_instances, lambda item: range(num_instances),
                             buffer_size)
        return [_Child(splitter, i) for i in range(num_instances)]


@functional_datapipe("demux")
class Demultiplexer(IterDataPipe):
    """`demux(n, classifier_fn)`: n DataPipes, item x going to number classifier_fn(x)."""

    def __new__(cls, datapipe, num_instances: int, classifier_fn, drop_none: bool = False,
                buffer_size: int = 1000):
        if num_instances < 1:
            raise ValueError(f"Expected `num_instances` larger than 0, but {num_instances} is "
                             "found")

        def route(item):
            target = classifier_fn(item)
            if target is None and drop_none:
                return ()
            if target is None or not 0 <= target < num_instances:
                raise ValueError(f"Output of the classification fn should be between 0 and "
                                 f"{num_instances - 1}. {target} is returned.")
            return (target,)
        splitter = _Splitter(datapipe, num_instances, route, buffer_size)
        return [_Child(splitter, i) for i in range(num_instances)]


@functional_datapipe("groupby")
class Grouper(IterDataPipe):
    """Group items by key: a group is yielded when it reaches `group_size`, the rest at the end
    (or, when the buffer is full, the largest group)."""

    def __init__(self, datapipe, group_key_fn, *, keep_key: bool = False,
                 buffer_size: int = 10000, group_size=None, guaranteed_group_size=None,
                 drop_remaining: bool = False) -> None:
        self.datapipe, self.group_key_fn, self.keep_key = datapipe, group_key_fn, keep_key
        self.max_buffer_size, self.group_size = buffer_size, group_size
        self.guaranteed_group_size = group_size
        if guaranteed_group_size is not None:
            if group_size is None or not 0 < guaranteed_group_size <= group_size:
                raise AssertionError("guaranteed_group_size must be in (0, group_size]")
            self.guaranteed_group_size = guaranteed_group_size
        self.drop_remaining = drop_remaining

    def _emit(self, key, items):
        chunk = DataChunk(items)
        return (key, chunk) if self.keep_key else chunk

    def __iter__(self):
        groups: dict = {}
        size = 0
        for item in self.datapipe:
            key = self.group_key_fn(item)
            groups.setdefault(key, []).append(item)
            size += 1
            if self.group_size is not None and len(groups[key]) == self.group_size:
                yield self._emit(key, groups.pop(key))
                size -= self.group_size
            if size == self.max_buffer_size:     # full: evict the biggest group
                biggest = max(groups, key=lambda k: len(groups[k]))
                items = groups.pop(biggest)
                size -= len(items)
                small = self.guaranteed_group_size is not None and \
                    len(items) < self.guaranteed_group_size
                if small and not self.drop_remaining:
                    raise RuntimeError("Failed to group items", str(items))
                if not small:
                    yield self._emit(biggest, items)
        for key, items in groups.items():       # the end: every group left, whatever its size
            yield self._emit(key, items)


@functional_datapipe("sharding_filter")
class ShardingFilter(IterDataPipe):
    """Keep every `num_of_instances`-th item from `instance_id` (set by `apply_sharding`)."""

    def __init__(self, source_datapipe, sharding_group_filter=None) -> None:
        self.source_datapipe = source_datapipe
        self.sharding_group_filter = sharding_group_filter
        self.num_of_instances, self.instance_id = 1, 0

    def is_shardable(self) -> bool:
        return True

    def apply_sharding(self, num_of_instances: int, instance_id: int,
                       sharding_group=None) -> None:
        self.num_of_instances, self.instance_id = num_of_instances, instance_id

    def __iter__(self):
        for index, item in enumerate(self.source_datapipe):
            if index % self.num_of_instances == self.instance_id:
                yield item

    def __len__(self) -> int:
        n = _length(self.source_datapipe, self)
        return n // self.num_of_instances + (1 if self.instance_id < n % self.num_of_instances
                                             else 0)
