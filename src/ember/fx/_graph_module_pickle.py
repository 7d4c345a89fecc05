"""Pickling a GraphModule: it travels as its `__dict__` (less the graph) and the source of
its forward with the imports its globals need; unpickling runs that source as the forward of
a plain module, traces it again (every module call kept as a call) and wraps the graph.
So a GraphModule saved with `ember.save` or sent to another process comes back with the
same code, as torch.fx's does (named `GraphModule`, its `meta` not kept)."""
from __future__ import annotations

import builtins
import types

from ember.nn import Module


def import_block(globals_: dict) -> str:
    """Statements that bind each name of a forward's globals again in a fresh namespace."""
    lines = []
    for name, value in globals_.items():
        if getattr(builtins, name, None) is value or name in ("inf", "nan", "NoneType"):
            continue
        if isinstance(value, types.ModuleType):
            lines.append(f"import {value.__name__} as {name}" if value.__name__ != name
                         else f"import {name}")
            continue
        module = getattr(value, "__module__", None)
        qualname = getattr(value, "__qualname__", None)
        if module is None or qualname is None or "<" in qualname:
            raise RuntimeError(f"cannot pickle a GraphModule whose code refers to {value!r} "
                               f"(as {name}): it cannot be imported by name")
        head, _, rest = qualname.partition(".")
        binding = f"from {module} import {head} as {name}" if not rest else \
            f"from {module} import {head} as _{name}_owner\n{name} = _{name}_owner.{rest}"
        lines.append(binding)
    lines += ["from math import inf, nan", "NoneType = type(None)"]
    return "\n".join(lines)


def reduce_graph_module(body: dict, imports: str):
    """The unpickling side: a GraphModule from a module's `__dict__` and its forward's
    imports (the code is `body['_code']`)."""
    from ember.fx.graph_module import GraphModule, _exec_with_source
    from ember.fx.tracer._symbolic_trace import Tracer
    namespace: dict = {}
    _exec_with_source(imports + "\n" + body["_code"], namespace)

    class _CodeOnlyModule(Module):
        forward = namespace["forward"]

        def __init__(self, state: dict) -> None:
            super().__init__()
            self.__dict__ = state

    class _KeepModules(Tracer):
        def is_leaf_module(self, m, module_qualified_name: str) -> bool:
            return True

    root = _CodeOnlyModule(body)
    graph = _KeepModules().trace(root)
    return GraphModule(root, graph)
