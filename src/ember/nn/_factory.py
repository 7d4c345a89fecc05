"""`factory_kwargs`: the device / dtype / memory_format arguments a layer passes to the
factories that make its parameters."""
from __future__ import annotations

_SIMPLE = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs) -> dict:
    """The factory arguments in `kwargs` as one dict; a `factory_kwargs` entry in it adds
    arguments whose names the caller's own signature already uses. Unknown keys, or a key given
    both ways, raise TypeError."""
    if kwargs is None:
        return {}
    unknown = set(kwargs) - {*_SIMPLE, "factory_kwargs"}
    if unknown:
        raise TypeError(f"unexpected kwargs {unknown}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in _SIMPLE:
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result
