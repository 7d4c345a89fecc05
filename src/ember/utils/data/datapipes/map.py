"""The map-style DataPipes and their functional names: SequenceWrapper, map, batch, concat, zip,
shuffle (which yields an IterDataPipe)."""
from __future__ import annotations

import copy

from ember.utils.data.datapipes._decorator import functional_datapipe
from ember.utils.data.datapipes.datapipe import DataChunk, IterDataPipe, MapDataPipe

__all__ = ["Batcher", "Concater", "Mapper", "SequenceWrapper", "Shuffler", "Zipper"]


class SequenceWrapper(MapDataPipe):
    """A MapDataPipe over a sequence (a deep copy of it unless deepcopy=False)."""

    def __init__(self, sequence, deepcopy: bool = True) -> None:
        self.sequence = copy.deepcopy(sequence) if deepcopy else sequence

    def __getitem__(self, index):
        return self.sequence[index]

    def __len__(self) -> int:
        return len(self.sequence)


@functional_datapipe("map")
class Mapper(MapDataPipe):
    def __init__(self, datapipe, fn) -> None:
        self.datapipe, self.fn = datapipe, fn

    def __getitem__(self, index):
        return self.fn(self.datapipe[index])

    def __len__(self) -> int:
        return len(self.datapipe)


@functional_datapipe("batch")
class Batcher(MapDataPipe):
    def __init__(self, datapipe, batch_size: int, drop_last: bool = False,
                 wrapper_class=DataChunk) -> None:
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        self.datapipe, self.batch_size, self.drop_last, self.wrapper_class = \
            datapipe, batch_size, drop_last, wrapper_class

    def __getitem__(self, index):
        if not 0 <= index < len(self):
            raise IndexError(f"Index {index} is out of bound.")
        start = index * self.batch_size
        stop = min(start + self.batch_size, len(self.datapipe))
        return self.wrapper_class([self.datapipe[i] for i in range(start, stop)])

    def __len__(self) -> int:
        n = len(self.datapipe)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


@functional_datapipe("concat")
class Concater(MapDataPipe):
    def __init__(self, *datapipes) -> None:
        if not datapipes:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, MapDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `MapDataPipe`")
        self.datapipes = datapipes

    def __getitem__(self, index):
        offset = index
        for dp in self.datapipes:
            if offset < len(dp):
                return dp[offset]
            offset -= len(dp)
        raise IndexError(f"Index {index} is out of range.")

    def __len__(self) -> int:
        return sum(len(dp) for dp in self.datapipes)


@functional_datapipe("zip")
class Zipper(MapDataPipe):
    def __init__(self, *datapipes) -> None:
        if not datapipes:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, MapDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `MapDataPipe`")
        self.datapipes = datapipes

    def __getitem__(self, index):
        return tuple(dp[index] for dp in self.datapipes)

    def __len__(self) -> int:
        return min(len(dp) for dp in self.datapipes)


class Shuffler(IterDataPipe):
    """A MapDataPipe's items in a random order of its indices (an IterDataPipe, as in PyTorch)."""

    def __init__(self, datapipe, *, indices=None) -> None:
        self.datapipe = datapipe
        self.indices = list(range(len(datapipe))) if indices is None else list(indices)
        self._enabled = True

    def set_shuffle(self, shuffle: bool = True):
        self._enabled = shuffle
        return self

    def __iter__(self):
        order = self.indices
        if self._enabled:
            import ember
            order = [self.indices[i] for i in ember.randperm(len(self.indices)).tolist()]
        for index in order:
            yield self.datapipe[index]

    def __len__(self) -> int:
        return len(self.indices)


MapDataPipe.register_datapipe_as_function("shuffle", Shuffler)   # (an IterDataPipe it makes)
