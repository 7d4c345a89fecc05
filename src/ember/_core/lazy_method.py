"""What loads on first use and then takes its own place, so that later reads cost nothing more.

Tensor methods: a frontend's whose op family is not imported yet (`LazyMethod`, NOTE [op
families load on first use], _core/registry.py), and the generated ones of `bindings_more.py`
and `bindings_pointwise.py` (`LazyGenerated`, NOTE [rarely used bindings load on first use],
tools/gen_bindings.py). Class attributes made on first read (`LazyAttribute`): a subclass's
`__torch_function__` hooks (dispatch/subclass_hooks.py), a layer's op family function
(`Conv2d._conv`). Modules named in another module's globals (`LazyModule`): the op families a
library module (nn, optim) calls, the engine's heapq."""
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
        return _replace(self, self.attribute, value, instance, owner)


class LazyGenerated:
    """Stands in the class for a generated method of `bindings_more.py` until first read
    (NOTE [rarely used bindings load on first use], tools/gen_bindings.py), as LazyMethod;
    `methods()` imports that module and answers its class of methods."""

    __slots__ = ("attribute", "methods")

    def __init__(self, attribute, methods):
        self.attribute = attribute
        self.methods = methods

    def __get__(self, instance, owner=None):
        value = self.methods().__dict__[self.attribute]
        return _replace(self, self.attribute, value, instance, owner)


class LazyAttribute:
    """Stands in a class for the attribute `make()` answers until first read, when that takes
    its place as LazyMethod's does: a Tensor subclass's `__torch_function__` hook of a Tensor
    method that is itself still a stand-in (NOTE [subclass methods reach __torch_function__],
    dispatch/subclass_hooks.py), so that defining such a subclass loads no op family; a layer's
    op family function (`Conv2d._conv`)."""

    __slots__ = ("attribute", "make")

    def __init__(self, attribute, make):
        self.attribute = attribute
        self.make = make

    def __get__(self, instance, owner=None):
        return _replace(self, self.attribute, self.make(), instance, owner)


class LazyModule:
    """Stands for a module in another module's globals until an attribute is first read: then
    it imports the module and puts it in its own place there, so later reads find the module
    itself (no cost per call). `_ops = LazyModule("ember._ops.nn_dropout", globals(), "_ops")`
    lets `nn.functional` name an op family without importing it (NOTE [op families load on
    first use]). A `from` import of the names would load it at once."""

    __slots__ = ("_module", "_name", "_namespace")

    def __init__(self, module, namespace, name):
        self._module = module
        self._namespace = namespace
        self._name = name

    def __getattr__(self, attribute):
        import importlib
        module = importlib.import_module(self._module)
        self._namespace[self._name] = module
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<module {self._module!r}, loaded on first use>"


def _replace(stand_in, attribute, value, instance, owner):
    """Put `value` where `stand_in` stands in the class, and answer the attribute read."""
    for cls in (owner or type(instance)).__mro__:
        if cls.__dict__.get(attribute) is stand_in:
            setattr(cls, attribute, value)
            break
    bind = getattr(type(value), "__get__", None)
    return value if bind is None else bind(value, instance, owner)


STAND_INS = (LazyMethod, LazyGenerated, LazyAttribute)
