"""Fetchers: turn one request of the index sampler into one batch (map-style: look the
indices up; iterable: pull the next items of the stream)."""
from __future__ import annotations


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last) -> None:
        from ember.utils.data._utils.collate import default_collate
        from ember.utils.data.dataset import TensorDataset
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        # A TensorDataset batched by default_collate is each tensor's rows at the indices:
        # one gather per tensor instead of a row lookup per sample and a stack.
        self.gather = (auto_collation and type(dataset) is TensorDataset
                       and collate_fn is default_collate)

    def fetch(self, index):
        if self.gather:
            import ember
            rows = ember.tensor(index, dtype=ember.int64)
            return [t[rows] for t in self.dataset.tensors]
        if self.auto_collation:
            many = getattr(self.dataset, "__getitems__", None)
            data = many(index) if callable(many) else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
    cls = _MapFetcher if kind == "map" else _IterableFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
