"""The VariableTracker base class, constants and the NULL a 3.11 call pushes."""
from __future__ import annotations

from ember._dynamo.exc import unimplemented


class VariableTracker:
    """One value of the traced program. `source` says where a value that came from outside
    lives in the frame (None for values made during capture)."""

    source = None

    def python_type(self):
        unimplemented(f"type() of {self}")

    def is_constant(self) -> bool:
        return False

    def as_constant(self):
        unimplemented(f"{self} used where a constant is needed")

    def truth(self, tx) -> bool:
        unimplemented(f"truth value of {self} read into Python control flow")

    def unpack(self, tx) -> list:
        unimplemented(f"iterating over {self}")

    def getattr(self, tx, name):
        unimplemented(f"attribute {name!r} of {self}")

    def setattr(self, tx, name, value):
        unimplemented(f"setting attribute {name!r} on {self}")

    def call(self, tx, args, kwargs):
        unimplemented(f"calling {self}")

    def call_method(self, tx, name, args, kwargs):
        return self.getattr(tx, name).call(tx, args, kwargs)

    def rebuild(self, og):
        """A function `(frame, graph_outputs) -> value` giving this value back after the
        graph ran (for the return value, a graph break's stack and locals, side effects)."""
        if self.source is None:
            unimplemented(f"{self} cannot be rebuilt outside the graph")
        source = self.source
        return lambda frame, outputs: source.get(frame)

    def __repr__(self):
        return type(self).__name__


class ConstantVariable(VariableTracker):
    """A Python constant (None, bool, int, float, complex, str, dtype, device, Size,
    slice, tuple of constants): folded during capture, guarded where it came from outside."""

    def __init__(self, value, source=None):
        self.value = value
        self.source = source

    def python_type(self):
        return type(self.value)

    def is_constant(self):
        return True

    def as_constant(self):
        return self.value

    def truth(self, tx):
        return bool(self.value)

    def unpack(self, tx):
        if isinstance(self.value, (tuple, list, str, range)):
            return [ConstantVariable(v) for v in self.value]
        return super().unpack(tx)

    def getattr(self, tx, name):
        attr = getattr(self.value, name)
        if callable(attr):
            return BoundConstantMethod(self.value, name)
        return constant_or_fail(attr)

    def rebuild(self, og):
        value = self.value
        return lambda frame, outputs: value

    def __repr__(self):
        return f"ConstantVariable({self.value!r})"


class BoundConstantMethod(VariableTracker):
    """A method of a constant (`"a,b".split`, `(2, 3).index`): runs during capture."""

    def __init__(self, value, name):
        self.value = value
        self.name = name

    def call(self, tx, args, kwargs):
        values = [a.as_constant() for a in args]
        named = {k: v.as_constant() for k, v in kwargs.items()}
        return constant_or_fail(getattr(self.value, self.name)(*values, **named))


class NullVariable(VariableTracker):
    """The NULL that PUSH_NULL / LOAD_GLOBAL / LOAD_METHOD put below a callable (3.11)."""

    def rebuild(self, og):
        unimplemented("NULL rebuilt outside a call")


CONSTANT_TYPES = (type(None), bool, int, float, complex, str, bytes, slice, range,
                  type(Ellipsis), type(NotImplemented))


def is_constant_value(value) -> bool:
    from ember._core.device import device
    from ember._core.dtype import dtype
    if isinstance(value, CONSTANT_TYPES + (dtype, device)):
        return True
    if type(value) in (tuple, frozenset) or type(value).__name__ == "Size":
        return all(is_constant_value(v) for v in value)
    return False


def constant_or_fail(value):
    if not is_constant_value(value):
        unimplemented(f"a non-constant value {type(value).__name__} made during capture")
    return ConstantVariable(value)


class LazyVariable(VariableTracker):
    """An argument of the compiled frame not read yet: wrapped (and guarded) on first read,
    so arguments the code never touches add no graph input and no guard."""

    def __init__(self, value, source):
        self.value = value
        self.source = source
