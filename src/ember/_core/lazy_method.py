"""A Tensor method whose op family loads on first use (NOTE [op families load on first use])."""
from __future__ import annotations

from ember._core.registry import FRONTENDS


class LazyMethod:
    """Stands in the class for a frontend's method until first read: then it imports the
    family, puts the real method in its place (so later calls cost nothing more) and answers
    with it."""

    __slots__ = ("attribute", "field", "frontend", "key")

    def __init__(self, attribute, frontend, field, key=None):
        self.attribute = attribute          # the name in the class ("add_", "__rsub__")
        self.frontend = frontend            # the FRONTENDS name
        self.field = field                  # "method", "inplace_method" or "dunders"
        self.key = key                      # the dunder, for "dunders"

    def __get__(self, instance, owner=None):
        value = getattr(FRONTENDS[self.frontend], self.field)
        if self.key is not None:
            value = value[self.key]
        for cls in (owner or type(instance)).__mro__:
            if cls.__dict__.get(self.attribute) is self:
                setattr(cls, self.attribute, value)
                break
        bind = getattr(type(value), "__get__", None)
        return value if bind is None else bind(value, instance, owner)
