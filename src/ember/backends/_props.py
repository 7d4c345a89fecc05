"""The flag-holding module objects of `ember.backends` (PyTorch's shape: `torch.backends.cudnn`
is a `PropModule` wrapping the real module `m`, its class holding each flag as a `ContextProp`).

NOTE [back-end flags are module properties]: `ember.backends.cudnn.benchmark = True` goes
through the class's ContextProp, which writes the real module's global, so the module's own
functions (`flags()`, `set_flags()`) read what the assignment wrote; after
`ember.backends.disable_global_flags()` an assignment raises and only the `flags()` context
managers change flags, as in PyTorch.
"""
from __future__ import annotations

import sys
import types

_frozen = [False]


def flags_frozen() -> bool:
    return _frozen[0]


def disable_global_flags() -> None:
    _frozen[0] = True


class ContextProp:
    """A flag of a back-end module: read with `getter()`, written with `setter(value)`."""

    def __init__(self, getter, setter) -> None:
        self.getter = getter
        self.setter = setter

    def __get__(self, obj, objtype=None):
        return self.getter()

    def __set__(self, obj, value) -> None:
        if flags_frozen():
            raise RuntimeError(f"not allowed to set {obj.__name__} flags after "
                               "disable_global_flags; please use flags() context manager "
                               "instead")
        self.setter(value)


class PropModule(types.ModuleType):
    """A module object whose class holds flags; every other name is the wrapped module's."""

    def __init__(self, m, name: str) -> None:
        super().__init__(name, m.__doc__)
        self.m = m
        for attr in ("__spec__", "__loader__", "__package__", "__file__", "__path__"):
            if hasattr(m, attr):              # (ModuleType.__init__ set them to None here)
                setattr(self, attr, getattr(m, attr))

    def __getattr__(self, attr: str):
        return self.m.__getattribute__(attr)


class GenericModule(PropModule):
    """The wrapper of `ember.backends` itself (its `fp32_precision`)."""


def global_flag(namespace: dict, name: str) -> ContextProp:
    """A ContextProp over the global `name` of a module (its `globals()`)."""
    def put(value):
        namespace[name] = value
    return ContextProp(lambda: namespace[name], put)


def wrap(module_name: str, cls: type) -> None:
    """Replace the module in sys.modules by its flag-holding wrapper."""
    sys.modules[module_name] = cls(sys.modules[module_name], module_name)
