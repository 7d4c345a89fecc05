"""The named tuples ops return (`ember.return_types.max(values=..., indices=...)`), kept in
one table so `ember.return_types.<name>` finds them and pickle can rebuild them."""
from __future__ import annotations

import collections

TYPES: dict = {}


def return_type(name, fields):
    """A named tuple class like torch.return_types.<name>, printed as PyTorch prints it."""
    known = TYPES.get(name)
    if known is not None:
        if known._fields != tuple(fields):
            raise ValueError(f"return_type: {name} is declared with fields {known._fields}")
        return known
    base = collections.namedtuple(name, fields)
    cls = type(name, (base,), {"__slots__": (), "__repr__": _repr})
    cls.__module__ = "ember.return_types"
    cls.__qualname__ = name
    TYPES[name] = cls
    return cls


def _repr(self) -> str:
    # PyTorch's layout: the qualified type name, then one field per line.
    items = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
    return f"{type(self).__module__}.{type(self).__name__}(\n{items})"
