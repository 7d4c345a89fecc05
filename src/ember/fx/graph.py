"""`Graph`: an ordered list of `Node`s (a doubly linked list around a root sentinel) with the
methods that build, edit, check and print it. `python_code` hands over to codegen.py.

NOTE [iterating while editing]: `graph.nodes` walks the list by each node's `_next`, read
after the node has been handed out, and skips erased nodes. Erasing a node unlinks it but
leaves its own `_prev`/`_next`, so a loop may erase (or insert after) the node it stands on.
"""
from __future__ import annotations

import builtins
import copy
import inspect
import keyword
import re
import warnings
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from ember.fx.node import Node, _format_arg, _get_qualified_name, map_arg

_ILLEGAL_CHARS = re.compile("[^0-9a-zA-Z_]+")
_NAME_SUFFIX = re.compile(r"(.*)_(\d+)$")
_CAMEL_BOUNDARY = re.compile("(?<=[a-z])([A-Z])")

# Names the generated code refers to as globals (besides builtins), never given to a node.
_CODE_GLOBALS = frozenset({"inf", "nan", "NoneType", "ember", "device",
                           "fx_pytree", "pytree"})


def _snake_case(name: str) -> str:
    """`ConvBN2dMod` -> `conv_bn2d_mod`: an underscore where a capital follows a lower-case
    letter, then everything lower-cased."""
    return _CAMEL_BOUNDARY.sub(r"_\1", name).lower()


class _Namespace:
    """Unique, legal Python names: a candidate ending in `_<n>` keeps its number when free,
    otherwise the base gets the next free number (`add`, `add_1`, `add_2` ...)."""

    def __init__(self) -> None:
        self._obj_to_name: dict = {}
        self._used_names: set = set()
        self._base_count: dict = defaultdict(int)

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        match = _NAME_SUFFIX.match(candidate)
        if match is None:
            base, num = candidate, None
        else:
            base, num_text = match.group(1, 2)
            num = int(num_text)
        if not num:
            num = self._base_count[base]
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        self._obj_to_name[obj] = name

    def _rename_object(self, obj, name: str) -> None:
        self._obj_to_name[obj] = name
        self._used_names.add(name)

    @staticmethod
    def _is_illegal_name(name: str, obj) -> bool:
        if name in keyword.kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        return name in _CODE_GLOBALS


class _NodeList:
    """`graph.nodes`: the live nodes in order, forwards or `reversed`.
    NOTE [iterating while editing]"""

    def __init__(self, graph: Graph, direction: str = "_next") -> None:
        self._graph = graph
        self._direction = direction

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = self._direction
        node = getattr(root, step)
        while node is not root:
            if not node._erased:
                yield node
            node = getattr(node, step)

    def __reversed__(self):
        return _NodeList(self._graph, "_prev" if self._direction == "_next" else "_next")

    def __repr__(self) -> str:
        return repr(list(self))


class _InsertPoint:
    """`with graph.inserting_before(n):` -- new nodes go where `insert` puts them."""

    def __init__(self, graph: Graph, insert: Callable) -> None:
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, insert

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert
        return False


class Graph:
    """The program of an fx GraphModule: nodes in execution order, ending in one `output`."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._used_names: dict = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        from ember.fx.codegen import CodeGen
        self._codegen = CodeGen()

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, module) -> None:
        self._owning_module = module

    @property
    def nodes(self) -> _NodeList:
        return _NodeList(self)

    def output_node(self) -> Node:
        output = next(iter(reversed(self.nodes)))
        if output.op != "output":
            raise AssertionError(f"Last node in graph must be an output node, got {output.op}")
        return output

    def find_nodes(self, *, op: str, target=None, sort: bool = True) -> list:
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ------------------------------------------------------------ building
    def create_node(self, op: str, target, args=None, kwargs=None, name: str | None = None,
                    type_expr: Any = None) -> Node:
        """Add a node at the insert point (the end, unless inside `inserting_before/after`)."""
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise AssertionError("args must be a tuple")  # noqa: TRY004
        if not isinstance(kwargs, dict):
            raise AssertionError("kwargs must be a dict")  # noqa: TRY004
        candidate = name if name is not None else self._target_to_str(target)
        name = self._graph_namespace.create_name(candidate, None)
        node = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, node)
        self._insert(node)
        self._len += 1
        return node

    def placeholder(self, name: str, type_expr: Any = None,
                    default_value: Any = inspect.Signature.empty) -> Node:
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr: Any = None) -> Node:
        if self.owning_module is not None and not _has_path(self.owning_module, qualified_name):
            warnings.warn("Attempted to insert a get_attr Node with no underlying reference "
                          "in the owning GraphModule! Call GraphModule.add_submodule to add "
                          "the necessary submodule, GraphModule.add_parameter to add the "
                          "necessary Parameter, or nn.Module.register_buffer to add the "
                          "necessary buffer", stacklevel=2)
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None,
                    type_expr: Any = None) -> Node:
        if self.owning_module is not None and not _has_path(self.owning_module, module_name):
            warnings.warn("Attempted to insert a call_module Node with no underlying module "
                          "in the owning GraphModule! Call GraphModule.add_submodule to add "
                          "the necessary submodule", stacklevel=2)
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None,
                    type_expr: Any = None) -> Node:
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args=None, kwargs=None,
                      type_expr: Any = None) -> Node:
        return self.create_node("call_function", the_function, args, kwargs,
                                type_expr=type_expr)

    def output(self, result, type_expr: Any = None) -> Node:
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def node_copy(self, node: Node, arg_transform: Callable = lambda x: x) -> Node:
        """A copy of `node` (from any graph) here, its node arguments mapped by
        `arg_transform`; the name is kept where free."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        result = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g: Graph, val_map: dict, return_output_node: bool = False):
        """Copy `g`'s nodes (all but its output) here; `val_map` maps g's nodes to the
        copies and may be seeded. Returns the value g's output would return."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                value = map_arg(node.args[0], lambda n: val_map[n])
                return (value, node) if return_output_node else value
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None) -> Graph:
        memo = memo if memo else {}
        new = Graph(tracer_cls=self._tracer_cls)
        result = new.graph_copy(self, val_map=memo, return_output_node=True)
        new._codegen = copy.deepcopy(self._codegen)
        if result is not None:
            value, old_output = result
            output = new.output(value, type_expr=old_output.type)
            output.meta = copy.copy(old_output.meta)
        return new

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        if n is None:
            return self.inserting_after(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert before is not in graph.")
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        if n is None:
            return self.inserting_before(self._root)
        if n.graph is not self:
            raise AssertionError("Node to insert after is not in graph.")
        return _InsertPoint(self, n.append)

    # ------------------------------------------------------------ editing
    def erase_node(self, to_erase: Node) -> None:
        """Remove a node nothing reads. NOTE [iterating while editing]"""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had "
                               f"{len(to_erase.users)} users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            warnings.warn(f"erase_node({to_erase}) on an already erased node", stacklevel=2)
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        # Drop its uses of its inputs, so their `users` forget it.
        to_erase._update_args_kwargs(map_arg(to_erase._args, lambda n: None),
                                     map_arg(to_erase._kwargs, lambda n: None))

    def eliminate_dead_code(self, is_impure_node: Callable | None = None) -> bool:
        """Erase, last to first, every node that no one reads and that has no effect.
        Returns whether anything was erased."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def _target_to_str(self, target) -> str:
        if callable(target):
            name = target.__name__
        else:
            if not isinstance(target, str):
                raise AssertionError(  # noqa: TRY004
                    f"target {target} must be callable or a string")
            name = target
        if name.startswith("__") and name.endswith("__") and len(name) > 4:
            name = name[2:-2]
        return _snake_case(name)

    # ------------------------------------------------------------ checking
    def lint(self) -> None:
        """Check the graph is well formed: nodes belong here, arguments are defined before
        use, names are unique, targets exist in the owning module. Raises RuntimeError."""
        seen_names: set = set()
        seen_nodes: set = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to "
                                       "this Graph, but was used as an argument! If you are "
                                       "copying nodes from another graph, make sure to use "
                                       "``arg_transform`` on node_copy() to remap values\n"
                                       f"{self}")
                if arg not in seen_nodes:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it "
                                       "has been defined! Please check that Nodes in the graph "
                                       f"are topologically ordered\n{self}")
            seen_nodes.add(node)
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
        if self.owning_module is None:
            return
        for node in self.nodes:
            if node.op in ("get_attr", "call_module"):
                self._lint_target(node)

    def _lint_target(self, node: Node) -> None:
        from ember._tensor import Tensor
        from ember.nn import Module
        path = node.target.split(".")
        module = self.owning_module
        for i, atom in enumerate(path):
            if not hasattr(module, atom):
                qualname = ".".join(path[:i])
                raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                   f"attribute {atom} of {qualname}")
            module = getattr(module, atom)
        if node.op == "call_module" and not isinstance(module, Module):
            raise RuntimeError(f"Node {node} target {node.target} {atom} of "
                               f"{'.'.join(path[:-1]) or 'the root module'} does not reference "
                               "an nn.Module")
        if node.op == "get_attr" and not isinstance(module, (Module, Tensor)) and \
                not hasattr(module, "__fx_get_attr__"):
            warnings.warn(f"Node {node} target {node.target} {atom} of "
                          f"{'.'.join(path[:-1]) or 'the root module'} does not reference an "
                          "nn.Module, nn.Parameter, or buffer, which is what 'get_attr' Nodes "
                          "typically target", stacklevel=3)

    # ------------------------------------------------------------ printing and code
    def __str__(self) -> str:
        return_typename = [""]
        lines = [node.format_node(None, return_typename) for node in self.nodes]
        text = f"graph(){return_typename[0]}:"
        for line in lines:
            if line:
                text += "\n    " + line
        return text

    def print_tabular(self) -> None:
        """Print the nodes as a table (opcode, name, target, args, kwargs); needs `tabulate`."""
        try:
            from tabulate import tabulate
        except ImportError:
            print("`print_tabular` relies on the library `tabulate`, which could not be found "
                  "on this machine. Run `pip install tabulate` to install the library.")
            raise
        rows = [[n.op, n.name, n.target, n.args, n.kwargs] for n in self.nodes]
        print(tabulate(rows, headers=["opcode", "name", "target", "args", "kwargs"]))

    def python_code(self, root_module: str, *, verbose: bool = False,
                    include_stride: bool = False, include_device: bool = False,
                    colored: bool = False, expanded_def: bool = False):
        """The graph as Python source of a `forward(self, ...)` and the globals it needs
        (a `PythonCode`)."""
        return self._codegen.generate(self, root_module, verbose=verbose)

    def on_generate_code(self, make_transformer: Callable):
        raise NotImplementedError("Graph.on_generate_code is not implemented in ember yet")

    def set_codegen(self, codegen) -> None:
        self._codegen = codegen

    def process_inputs(self, *args):
        return self._codegen.process_inputs(*args)

    def process_outputs(self, out):
        return self._codegen.process_outputs(out)


def _has_path(module, qualified_name: str) -> bool:
    obj = module
    for atom in qualified_name.split("."):
        if not hasattr(obj, atom):
            return False
        obj = getattr(obj, atom)
    return True


__all__ = ["Graph", "_format_arg", "_get_qualified_name"]
