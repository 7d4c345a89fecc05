"""Callables during capture: user functions and methods (inlined), ember's op functions (one
graph node each), Python modules, classes and plain objects (read-only)."""
from __future__ import annotations

import types

from ember._core.lazy_method import STAND_INS
from ember._dynamo.exc import unimplemented
from ember._dynamo.variables.base import ConstantVariable, VariableTracker

# ember functions whose call is one graph node: the op functions and nn.functional.
_IN_GRAPH_MODULES = ("ember._generated", "ember.nn._functional", "ember.nn.functional",
                     "ember._ops", "ember.special", "ember.linalg", "ember.fft",
                     "ember.functional")
# ember code a capture may inline (module forwards and their helpers).
_INLINABLE_EMBER = ("ember.nn.modules",)
# Answers that are fixed while capturing.
_CAPTURE_CONSTANTS = frozenset({"is_compiling", "is_dynamo_compiling"})


def _library_roots():
    import sysconfig
    paths = sysconfig.get_paths()
    return tuple(sorted({paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}))


_LIBRARY_ROOTS = _library_roots()


def is_library_function(fn) -> bool:
    """A Python function of the standard library or an installed package (not ember): not
    the user's code, so capture neither inlines nor captures it (PyTorch's skip files)."""
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename.startswith(_LIBRARY_ROOTS)


def class_attribute(cls, name):
    """The attribute as the class body stored it (a staticmethod stays one), or None."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            if type(klass.__dict__[name]) in STAND_INS:     # (NOTE [op families load on
                getattr(klass, name)                          # first use]: in its place now)
            return klass.__dict__[name]
    return None


def is_in_graph_function(fn) -> bool:
    """An ember op function: one graph node. Switches among them (`set_anomaly_enabled`,
    `set_flush_denormal`) change global state, so they are not (calling one is a break)."""
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(_IN_GRAPH_MODULES) and callable(fn) and \
        not fn.__name__.startswith(("set_", "manual_seed", "seed"))


def is_ember_function(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return module == "ember" or module.startswith("ember.")


class UserFunctionVariable(VariableTracker):
    """A Python function of the user's (or an nn module helper): calling it inlines it."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def python_type(self):
        return types.FunctionType

    def call(self, tx, args, kwargs):
        return tx.inline_call(self.fn, args, kwargs, self.source)

    def getattr(self, tx, name):
        if name in ("__name__", "__qualname__", "__module__"):
            return ConstantVariable(getattr(self.fn, name))
        return super().getattr(tx, name)


class UserMethodVariable(VariableTracker):
    """A function bound to an object (a module's or a user object's method)."""

    def __init__(self, fn, self_var, source=None):
        self.fn = fn
        self.self_var = self_var
        self.source = source

    def call(self, tx, args, kwargs):
        return tx.inline_call(self.fn, [self.self_var, *args], kwargs, None)

    def rebuild(self, og):
        owner, fn = self.self_var.rebuild(og), self.fn
        return lambda frame, outputs: types.MethodType(fn, owner(frame, outputs))


class EmberFunctionVariable(VariableTracker):
    """An ember op function (`ember.relu`, `F.linear`): its call becomes one graph node."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def call(self, tx, args, kwargs):
        if self.fn.__name__ in _CAPTURE_CONSTANTS:
            return ConstantVariable(True)
        return tx.output.call_op("call_function", self.fn, args, kwargs)


class GradModeQueryVariable(VariableTracker):
    """`ember.is_grad_enabled`: answered from the grad mode the GRAD_MODE guard pins."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def call(self, tx, args, kwargs):
        return ConstantVariable(self.fn())


class CaptureConstantVariable(VariableTracker):
    """`ember.compiler.is_compiling` and friends: True while capturing."""

    def __init__(self, fn, source=None):
        self.fn = fn
        self.source = source

    def call(self, tx, args, kwargs):
        return ConstantVariable(True)


class UnsupportedCallableVariable(VariableTracker):
    """A callable capture cannot follow (a C function, a class, an ember function outside the
    op set, a function marked `disable`): calling it is a graph break."""

    def __init__(self, value, why, source=None):
        self.value = value
        self.why = why
        self.source = source

    def python_type(self):
        return type(self.value)

    def call(self, tx, args, kwargs):
        unimplemented(f"call to {getattr(self.value, '__qualname__', self.value)!s}: {self.why}")

    def getattr(self, tx, name):
        if isinstance(self.value, type):
            return tx.output.wrap_attr(self, self.value, name)
        return super().getattr(tx, name)


class ClassVariable(UnsupportedCallableVariable):
    """A class: usable in `isinstance`, not constructed during capture."""

    def __init__(self, value, source=None):
        super().__init__(value, "constructing objects is not captured", source)


class PythonModuleVariable(VariableTracker):
    """A Python module (`ember`, `F`, `math`): its attributes are read through the source."""

    def __init__(self, value, source=None):
        self.value = value
        self.source = source

    def python_type(self):
        return types.ModuleType

    def getattr(self, tx, name):
        if not hasattr(self.value, name):
            unimplemented(f"module {self.value.__name__} has no attribute {name!r}")
        return tx.output.wrap_attr(self, self.value, name)


class UserObjectVariable(VariableTracker):
    """A plain Python object: attributes read (and guarded), methods inlined, never written."""

    def __init__(self, value, source=None):
        self.value = value
        self.source = source

    def python_type(self):
        return type(self.value)

    def getattr(self, tx, name):
        instance = getattr(self.value, "__dict__", {})
        if name in instance:
            return tx.output.wrap_attr(self, self.value, name)
        attr = class_attribute(type(self.value), name)
        if isinstance(attr, types.FunctionType):
            return UserMethodVariable(attr, self)
        if isinstance(attr, staticmethod):
            return tx.output.wrap_attr(self, self.value, name)
        if attr is None or isinstance(attr, (property, classmethod)) or \
                hasattr(attr, "__get__"):
            unimplemented(f"attribute {name!r} of a {type(self.value).__name__} object")
        return tx.output.wrap_attr(self, self.value, name)

    def setattr(self, tx, name, value):
        unimplemented(f"setting attribute {name!r} on a non-module object "
                      f"({type(self.value).__name__})")
