"""nn.Module instances during capture: parameters and buffers become graph inputs, plain
attributes constants guarded where they were read, calls inline `forward`."""
from __future__ import annotations

import types

from ember._dynamo import guards
from ember._dynamo.exc import unimplemented
from ember._dynamo.variables.base import ConstantVariable, VariableTracker
from ember._dynamo.variables.containers import IteratorVariable
from ember._dynamo.variables.functions import UserMethodVariable, class_attribute


class NNModuleVariable(VariableTracker):
    def __init__(self, value, source=None):
        self.value = value
        self.source = source
        self.stored = {}     # attributes set during capture (replayed after the graph)

    def python_type(self):
        return type(self.value)

    def getattr(self, tx, name):
        if name in self.stored:
            return self.stored[name]
        module = self.value
        state = module.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if name in state.get(table, ()):
                return tx.output.wrap_attr(self, module, name)
        if name in state:
            return tx.output.wrap_attr(self, module, name)
        attr = class_attribute(type(module), name)
        if isinstance(attr, types.FunctionType):
            return UserMethodVariable(attr, self)
        if isinstance(attr, staticmethod):
            return tx.output.wrap_attr(self, module, name)
        if attr is None or isinstance(attr, (property, classmethod)) or \
                hasattr(attr, "__get__"):
            unimplemented(f"attribute {name!r} of module {type(module).__name__}")
        return tx.output.wrap_attr(self, module, name)

    def setattr(self, tx, name, value):
        state = self.value.__dict__
        if any(name in state.get(t, ()) for t in ("_parameters", "_buffers", "_modules")):
            unimplemented(f"assigning module parameter, buffer or submodule {name!r}")
        if self.source is None:
            unimplemented("setting an attribute on a module made during capture")
        self.stored[name] = value
        tx.output.record_store_attr(self, name, value)

    def call(self, tx, args, kwargs):
        module = self.value
        if _has_hooks(module):
            unimplemented(f"calling module {type(module).__name__} with hooks")
        if "forward" in module.__dict__:
            unimplemented("a module whose forward was replaced on the instance")
        if self.source is not None:
            tx.output.add_guard(guards.no_hooks(self.source))
        forward = type(module).forward
        return tx.inline_call(forward, [self, *args], kwargs, None)

    def iterate(self, tx):
        """`for m in sequential` / a ModuleList: the children in order."""
        from ember.nn import ModuleDict, ModuleList, Sequential
        if not isinstance(self.value, (Sequential, ModuleList, ModuleDict)):
            unimplemented(f"iterating over module {type(self.value).__name__}")
        names = list(self.value._modules)
        if isinstance(self.value, ModuleDict):
            return IteratorVariable([ConstantVariable(n) for n in names])
        return IteratorVariable([tx.output.wrap_attr(self, self.value, n) for n in names])

    def unpack(self, tx):
        return self.iterate(tx).unpack(tx)

    def getitem(self, tx, index):
        from ember.nn import ModuleDict, ModuleList, Sequential
        key = index.as_constant()
        if isinstance(self.value, ModuleDict) and isinstance(key, str):
            return tx.output.wrap_attr(self, self.value, key)
        if isinstance(self.value, (Sequential, ModuleList)) and isinstance(key, int):
            names = list(self.value._modules)
            return tx.output.wrap_attr(self, self.value, names[key])
        unimplemented(f"indexing module {type(self.value).__name__} with {key!r}")

    def __repr__(self):
        return f"NNModuleVariable({type(self.value).__name__})"


def _has_hooks(module) -> bool:
    """What the plain module call tests (NOTE [the plain module call])."""
    from ember.nn.modules import module as module_file
    return bool(module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
                or module._backward_pre_hooks or any(getattr(module_file, name) for name in (
                    "_global_forward_hooks", "_global_forward_pre_hooks",
                    "_global_backward_hooks", "_global_backward_pre_hooks")))
