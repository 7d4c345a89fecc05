"""The DataPipe base classes: an `IterDataPipe` is an IterableDataset, a `MapDataPipe` a Dataset,
and each has a registry of functional forms (`dp.map(fn)` builds `Mapper(dp, fn)`), filled by
`@functional_datapipe(name)` (NOTE [functional datapipes])."""
from __future__ import annotations

import functools
from typing import ClassVar, Generic, TypeVar

from ember.utils.data.dataset import Dataset, IterableDataset

T_co = TypeVar("T_co", covariant=True)

# NOTE [functional datapipes]: `functions` maps a name to the DataPipe class it builds, per base
# class; `dp.name(*args)` is `cls(dp, *args)` (attribute lookup falls through to the registry).
# A name may be registered once; the built-in pipes register theirs when iter.py / map.py load,
# which the first registry lookup triggers.


def _load_builtins(kind: str) -> None:
    import importlib
    importlib.import_module(f"ember.utils.data.datapipes.{kind}")


class _Functional:
    """The functional forms of a DataPipe base class (NOTE [functional datapipes])."""

    functions: dict
    _kind: str

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        _load_builtins(type(self)._kind)
        registry = type(self).functions
        if name in registry:
            return functools.partial(registry[name], self)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @classmethod
    def register_datapipe_as_function(cls, function_name: str, cls_to_register) -> None:
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is "  # noqa: TRY002
                            "already taken")
        cls.functions[function_name] = cls_to_register

    def __repr__(self) -> str:
        return type(self).__qualname__

    __str__ = __repr__

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(type(self).functions))


class IterDataPipe(_Functional, IterableDataset, Generic[T_co]):
    """An iterable stage of a data pipeline; chain stages with their functional forms."""

    functions: ClassVar[dict] = {}
    _kind = "iter"


class MapDataPipe(_Functional, Dataset, Generic[T_co]):
    """An indexable stage of a data pipeline (`dp[i]`), with functional forms like IterDataPipe."""

    functions: ClassVar[dict] = {}
    _kind = "map"


class DFIterDataPipe(IterDataPipe):
    """An IterDataPipe of DataFrames (PyTorch's DataFrame tracing; ember adds no DataFrame ops)."""

    def _is_dfpipe(self) -> bool:
        return True


class DataChunk(list, Generic[T_co]):
    """A batch that `batch` yields: a list, printed as one."""

    def __init__(self, items=()) -> None:
        super().__init__(items)
        self.items = self

    def as_str(self, indent: str = "") -> str:
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def raw_iterator(self):
        yield from list.__iter__(self)
