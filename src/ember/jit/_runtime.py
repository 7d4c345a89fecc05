"""What TorchScript programs call at run time, done eagerly: `fork`/`wait` and their Future
(the function runs at once, in the caller's thread), and `isinstance` over typing generics."""
from __future__ import annotations

import builtins
import collections.abc
import types
import typing

from ember.jit._script import _deprecated


class Future:
    """The result of `fork`: already complete, since the function ran when forked."""

    def __init__(self):
        self._value = None
        self._error = None
        self._done = False
        self._callbacks = []

    def done(self) -> bool:
        return self._done

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    def value(self):
        return self.wait()

    def set_result(self, result) -> None:
        self._value, self._done = result, True
        for callback in self._callbacks:
            callback(self)

    def set_exception(self, error) -> None:
        self._error, self._done = error, True

    def then(self, callback):
        """A Future holding `callback(self)`, run now since this one is complete."""
        follower = Future()
        try:
            follower.set_result(callback(self))
        except Exception as error:  # noqa: BLE001 (kept for the follower's wait())
            follower.set_exception(error)
        return follower

    def add_done_callback(self, callback) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)


def fork(func, *args, **kwargs) -> Future:
    """Run `func(*args, **kwargs)` now and return its completed Future; an exception it raises
    is raised again by `wait`, as a forked task's is."""
    _deprecated("fork")
    future = Future()
    try:
        future.set_result(func(*args, **kwargs))
    except Exception as error:  # noqa: BLE001 (raised again by wait())
        future.set_exception(error)
    return future


def wait(future: Future):
    """The value of a forked task."""
    _deprecated("wait")
    if future is None:
        raise RuntimeError("Future can't be None")
    if not builtins.isinstance(future, Future):
        raise TypeError("wait(): incompatible function arguments. The following argument "
                        "types are supported:\n    1. (arg0: torch._C.Future) -> object\n\n"
                        f"Invoked with: {future!r}")
    return future.wait()


def isinstance(obj, target_type) -> bool:
    """`builtins.isinstance` that also checks typing generics element by element:
    List[int], Dict[str, Tensor], Tuple[int, ...], Optional[X], Union[X, Y]."""
    origin = typing.get_origin(target_type)
    params = typing.get_args(target_type)
    if target_type is typing.Any:
        return True
    if target_type is None or target_type is type(None):
        return obj is None
    if origin is None:
        return builtins.isinstance(obj, target_type)
    if origin in (typing.Union, types.UnionType):
        return any(isinstance(obj, p) for p in params)
    if origin is list:
        return builtins.isinstance(obj, list) and all(isinstance(v, params[0]) for v in obj) \
            if params else builtins.isinstance(obj, list)
    if origin is dict:
        if not builtins.isinstance(obj, dict):
            return False
        return not params or all(isinstance(k, params[0]) and isinstance(v, params[1])
                                 for k, v in obj.items())
    if origin is tuple:
        if not builtins.isinstance(obj, tuple):
            return False
        if not params:
            return True
        if len(params) == 2 and params[1] is Ellipsis:
            return all(isinstance(v, params[0]) for v in obj)
        return len(obj) == len(params) and all(isinstance(v, p) for v, p in zip(obj, params))
    if builtins.isinstance(origin, type) and issubclass(origin, collections.abc.Iterable):
        return builtins.isinstance(obj, origin)
    return builtins.isinstance(obj, origin)
