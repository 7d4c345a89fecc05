"""The DataPipe decorators: `functional_datapipe` (register a functional form), determinism
(`non_deterministic`, `guaranteed_datapipes_determinism`) and type checks (`runtime_validation`
of what `__iter__` yields, `argument_validation` of DataPipe arguments)."""
from __future__ import annotations

import functools
import inspect
import typing

_determinism = [False]
_runtime_validation = [True]


class functional_datapipe:
    """`@functional_datapipe("name")` makes `dp.name(...)` build the decorated class."""

    name: str

    def __init__(self, name: str, enable_df_api_tracing: bool = False) -> None:
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        from ember.utils.data.datapipes.datapipe import IterDataPipe, MapDataPipe
        if issubclass(cls, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe or "
                            "MapDataPipe")
        return cls


class guaranteed_datapipes_determinism:
    """Inside the block, constructing a `non_deterministic` DataPipe raises TypeError."""

    def __init__(self) -> None:
        self.prev = _determinism[0]
        _determinism[0] = True

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _determinism[0] = self.prev


class non_deterministic:
    """Mark a DataPipe class non-deterministic (or, given a function of the constructor's
    arguments returning a bool, only the instances it says are)."""

    cls = None
    deterministic_fn = None

    def __init__(self, arg) -> None:
        if isinstance(arg, type):
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args, **kwargs):
        if self.cls is not None:
            if _determinism[0]:
                raise TypeError(f"{self.cls.__name__} is non-deterministic, but you set "
                                "'guaranteed_datapipes_determinism'. You can turn off "
                                "determinism for this DataPipe if that is acceptable for your "
                                "application")
            return self.cls(*args, **kwargs)
        cls = args[0]
        fn = self.deterministic_fn

        @functools.wraps(cls, updated=())
        def make(*a, **k):
            if _determinism[0] and fn(*a, **k):
                raise TypeError(f"{cls.__name__} is non-deterministic with the inputs, but you "
                                "set 'guaranteed_datapipes_determinism'.")
            return cls(*a, **k)
        return make


def _element_type(datapipe_type):
    """`int` for `IterDataPipe[int]`; None when undeclared."""
    args = typing.get_args(datapipe_type)
    return args[0] if args else None


def _declared(instance):
    for base in getattr(type(instance), "__orig_bases__", ()):
        found = _element_type(base)
        if found is not None:
            return found
    return None


def _matches(value, expected) -> bool:
    if expected is typing.Any or isinstance(expected, typing.TypeVar):
        return True
    origin = typing.get_origin(expected)
    if origin is typing.Union:
        return any(_matches(value, arm) for arm in typing.get_args(expected))
    return isinstance(value, origin or expected)


def _subtype(inner, outer) -> bool:
    if outer is None or inner is None or outer is typing.Any or isinstance(outer, typing.TypeVar):
        return True
    if isinstance(inner, type) and isinstance(outer, type):
        return issubclass(inner, outer)
    return inner == outer


def argument_validation(f):
    """Check that DataPipe arguments annotated `IterDataPipe[T]` yield a subtype of T."""
    signature = inspect.signature(f)
    hints = typing.get_type_hints(f)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            hint = hints.get(name)
            origin = typing.get_origin(hint)
            if origin is None or not isinstance(value, origin):
                continue
            if not _subtype(_declared(value), _element_type(hint)):
                raise TypeError(f"Expected type of argument '{name}' as a subtype of hint "
                                f"{hint}, but found {type(value).__name__}")
        return f(*args, **kwargs)
    return wrapper


class runtime_validation_disabled:
    """Inside the block, `runtime_validation` checks nothing."""

    def __init__(self) -> None:
        self.prev = _runtime_validation[0]
        _runtime_validation[0] = False

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _runtime_validation[0] = self.prev


def runtime_validation(f):
    """Wrap a DataPipe's `__iter__` to check each item against the class's declared type
    (`class P(IterDataPipe[int])`): RuntimeError for one that is not."""
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self):
        expected = _declared(self)
        for item in f(self):
            if _runtime_validation[0] and expected is not None and not _matches(item, expected):
                raise RuntimeError(f"Expected an instance as subtype of {expected}, but found "
                                   f"{item}({type(item)})")
            yield item
    return wrapper
