"""`GraphModule`: an nn.Module whose `forward` is the Python code generated from a Graph,
holding the submodules, parameters and buffers the graph's `call_module` / `get_attr` nodes
name.

NOTE [one class per GraphModule]: each GraphModule gets its own subclass (made in `__new__`),
because `recompile` installs the generated `forward` on the class; two GraphModules never
share a forward, and `type(gm).__name__` is the `class_name` given.
"""
from __future__ import annotations

import copy
import itertools
import linecache
import os
from pathlib import Path
from typing import Any

from ember.fx.graph import Graph
from ember.nn import Module

_source_ids = itertools.count()


def _exec_with_source(src: str, globals_: dict) -> None:
    """Run generated source under a fake file name that linecache knows, so tracebacks
    through a GraphModule's forward show its lines."""
    key = f"<eval_with_key>.{next(_source_ids)}"
    linecache.cache[key] = (len(src), None, src.splitlines(True), key)
    exec(compile(src, key, "exec"), globals_)  # noqa: S102  (the generated forward)


def _forward_from_src(src: str, globals_: dict):
    namespace = dict(globals_)
    _exec_with_source(src, namespace)
    return namespace["forward"]


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Copy `from_module.<target>` (a dotted path) into `to_module`; the modules along the
    path become bare `Module`s unless they already exist there."""
    *prefix, field = target.split(".")
    for item in prefix:
        source = getattr(from_module, item)
        dest = getattr(to_module, item, None)
        if source is dest:
            return
        if dest is None:
            dest = Module()
            setattr(to_module, item, dest)
        from_module, to_module = source, dest
    _assign_plain_or_buffer(to_module, field, getattr(from_module, field))


def _assign_attr(value, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        dest = getattr(to_module, item, None)
        if dest is None:
            dest = Module()
            setattr(to_module, item, dest)
        to_module = dest
    _assign_plain_or_buffer(to_module, field, value)


def _assign_plain_or_buffer(module: Module, field: str, value) -> None:
    from ember._tensor import Tensor
    from ember.nn import Parameter
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        module.register_buffer(field, value)
    else:
        setattr(module, field, value)


class GraphModule(Module):
    """`GraphModule(root, graph, class_name='GraphModule')`: `root` is a Module (the
    targets are copied from it) or a dict from qualified names to the objects."""

    def __new__(cls, *args, **kwargs):
        # NOTE [one class per GraphModule]
        user_class = cls
        for base in cls.__mro__:
            if base.__name__ == "GraphModuleImpl":
                user_class = base.__mro__[1]
                break

        class GraphModuleImpl(user_class):  # type: ignore[valid-type, misc]
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule") -> None:
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module") and node.target not in root:
                    raise RuntimeError(f"Node {node} referenced target {node.target} but "
                                       "that target was not provided in ``root``!")
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError(f"Unsupported type {root} passed for root!")  # noqa: TRY004
        self.graph = graph
        self._tracer_cls = graph._tracer_cls
        self._tracer_extras = graph._tracer_extras
        self.meta: dict[str, Any] = {}

    # ------------------------------------------------------------ the graph and its code
    @property
    def graph(self) -> Graph:
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")  # noqa: TRY004
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to ember")
        return self._code

    def recompile(self):
        """Generate the forward from the current graph again; call after editing the
        graph. Returns the `PythonCode`."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        self._lineno_map = python_code._lineno_map
        cls = type(self)
        cls.forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def print_readable(self, print_output: bool = True, include_stride: bool = False,
                       include_device: bool = False, colored: bool = False) -> str:
        """The module as a class definition: its forward, and those of GraphModule
        children, nested."""
        text = self._readable(type(self).__name__)
        if print_output:
            print(text)
        return text

    def _readable(self, name: str) -> str:
        body = self._graph.python_code(root_module="self").src.lstrip("\n")
        lines = body.rstrip().split("\n")
        header, code = lines[0], lines[1:]
        if not any(node.stack_trace for node in self._graph.nodes):
            code.insert(0, "    # No stacktrace found for following nodes")
        forward = "\n".join(["    " + header] + ["    " + line for line in code])
        children = []
        for child_name, child in self.named_children():
            if isinstance(child, GraphModule):
                nested = child._readable(child_name)
                children.append("\n".join("    " + line for line in nested.split("\n")))
        parts = [f"class {name}(ember.nn.Module):", *children, forward]
        return "\n".join(parts) + "\n"

    def __str__(self) -> str:
        reminder = "# To see more debug info, please use `graph_module.print_readable()`"
        return "\n".join([super().__str__(), self._code, reminder])

    # ------------------------------------------------------------ submodules
    def add_submodule(self, target: str, m: Module) -> bool:
        """Install `m` at the dotted path `target`, making bare Modules along the way;
        False when something on the path is not a Module."""
        *prefix, field = target.split(".")
        module = self
        for item in prefix:
            sub = getattr(module, item, None)
            if sub is None:
                sub = Module()
                module.add_module(item, sub)
            if not isinstance(sub, Module):
                return False
            module = sub
        module.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        *prefix, field = target.split(".")
        module = self
        for item in prefix:
            if not hasattr(module, item):
                return False
            module = getattr(module, item)
            if not isinstance(module, Module):
                return False
        if not hasattr(module, field) or not isinstance(getattr(module, field), Module):
            return False
        delattr(module, field)
        return True

    def delete_all_unused_submodules(self) -> None:
        used: set = set()
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr"):
                parts = node.target.split(".")
                for i in range(1, len(parts) + 1):
                    used.add(".".join(parts[:i]))
                if node.op == "call_module":
                    sub = self.get_submodule(node.target)
                    used.update(f"{node.target}.{name}" for name, _ in sub.named_modules()
                                if name)
        for name, _ in list(self.named_modules()):
            if name and name not in used:
                self.delete_submodule(name)

    # ------------------------------------------------------------ copies and files
    def __deepcopy__(self, memo):
        fake = Module()
        fake.__dict__ = copy.deepcopy(self.__dict__, memo)
        copied = GraphModule(fake, fake.__dict__["_graph"])
        if "meta" in fake.__dict__:
            copied.meta = fake.__dict__["meta"]
        return copied

    def __copy__(self):
        copied = GraphModule(self, self.graph)
        copied.meta = getattr(self, "meta", {})
        return copied

    def __reduce__(self):
        # Pickled as its state and code: _graph_module_pickle.py.
        from ember.fx._graph_module_pickle import import_block, reduce_graph_module
        body = {k: v for k, v in self.__dict__.items()
                if k not in ("_graph", "_tracer_cls", "_tracer_extras", "meta")}
        python_code = self.recompile()
        return (reduce_graph_module, (body, import_block(python_code.globals)))

    def to_folder(self, folder, module_name: str = "FxModule") -> None:
        """Write the module into `folder` as a package: `module.py` (a class `module_name`
        with this forward), `state_dict.pt`, and `<child>.pt` for children that are not
        plain ember.nn layers."""
        import ember
        folder = Path(folder)
        folder.mkdir(exist_ok=True)
        ember.save(self.state_dict(), folder / "state_dict.pt")
        lines = ["import ember", "from ember.nn import *  # noqa: F403", "", "",
                 f"class {module_name}(ember.nn.Module):", "    def __init__(self):",
                 "        super().__init__()"]
        for name, child in self.named_children():
            lines.append(f"        self.add_module({name!r}, {self._child_source(folder, name, child)})")
        for name, param in self._parameters.items():
            lines.append(f"        self.{name} = ember.nn.Parameter(ember.empty("
                         f"{list(param.shape)}, dtype=ember.{str(param.dtype).split('.')[-1]}))")
        for name, buffer in self._buffers.items():
            lines.append(f"        self.register_buffer({name!r}, ember.empty("
                         f"{list(buffer.shape)}, dtype=ember.{str(buffer.dtype).split('.')[-1]}))")
        state = os.fspath(folder / "state_dict.pt")
        lines += [f"        self.load_state_dict(ember.load(r'{state}'))", ""]
        body = self._code.strip("\n").rstrip()
        lines += ["    " + line for line in body.split("\n")]
        (folder / "module.py").write_text("\n".join(lines) + "\n")
        (folder / "__init__.py").write_text(f"from .module import {module_name}\n")

    @staticmethod
    def _child_source(folder: Path, name: str, child: Module) -> str:
        import ember
        plain = type(child).__module__.startswith(("ember.nn.", "torch.nn.")) and \
            getattr(ember.nn, type(child).__name__, None) is type(child) and \
            not any(True for _ in child.children())
        if plain:
            return repr(child)
        ember.save(child, folder / f"{name}.pt")
        return f"ember.load(r'{os.fspath(folder / f'{name}.pt')}', weights_only=False)"

