"""`Interpreter` runs a GraphModule node by node (each op kind a method one may override);
`Transformer` runs it on Proxies instead, so that what the methods return builds a new
graph, and hands back a new GraphModule."""
from __future__ import annotations

import inspect
from typing import Any

from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.fx.node import Node, map_aggregate, map_arg
from ember.fx.proxy import Proxy, ProxyFunctionMode
from ember.fx.tracer._symbolic_trace import Tracer


class Interpreter:
    """`Interpreter(module, garbage_collect_values=True, graph=None)`: `run(*args)` executes
    the graph; `env` maps each node run so far to its value (values are dropped after their
    last use when `garbage_collect_values`)."""

    def __init__(self, module, garbage_collect_values: bool = True,
                 graph: Graph | None = None) -> None:
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses: dict[Node, list[Node]] = {}
        if garbage_collect_values:
            seen: set = set()
            for node in reversed(self.graph.nodes):
                for used in node.all_input_nodes:
                    if used not in seen:
                        seen.add(used)
                        self.user_to_last_uses.setdefault(node, []).append(used)

    def run(self, *args, initial_env: dict | None = None, enable_io_processing: bool = True):
        """Run the graph on `args` and return what its output node returns."""
        self.env = initial_env if initial_env is not None else {}
        if enable_io_processing:
            args = self.graph.process_inputs(*args)
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue        # given in initial_env: not run again
            try:
                self.env[node] = self.run_node(node)
            except Exception as error:
                if self.extra_traceback:
                    message = f"While executing {node.format_node()}"
                    message = f"{error.args[0]}\n\n{message}" if error.args else message
                    message += f"\nOriginal traceback:\n{node.stack_trace}"
                    error.args = (message, *error.args[1:])
                    if isinstance(error, KeyError):
                        raise RuntimeError(*error.args) from error
                raise
            if self.garbage_collect_values:
                for dead in self.user_to_last_uses.get(node, []):
                    del self.env[dead]
            if node.op == "output":
                value = self.env[node]
                return self.graph.process_outputs(value) if enable_io_processing else value
        return None

    def boxed_run(self, args_list: list):
        """Run with the arguments in a list, which is emptied (so the caller holds no
        references to them while the graph runs)."""
        placeholders = [node for node in self.graph.nodes if node.op == "placeholder"]
        if len(placeholders) != len(args_list):
            kind = "missing" if len(args_list) < len(placeholders) else "extra"
            raise RuntimeError(f"Interpreter.boxed_run expected {len(placeholders)} arguments "
                               f"for placeholders but received {len(args_list)} ({kind} "
                               "arguments)")
        env = dict(zip(placeholders, args_list))
        args_list.clear()
        return self.run(initial_env=env)

    def run_node(self, n: Node) -> Any:
        """Run one node: its arguments from `env`, then the method named by its op."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    # ------------------------------------------------------------ one method per op
    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Any:
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as missing:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one "
                               "was not passed in!") from missing

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        return target(*args, **kwargs)

    def call_method(self, target: str, args: tuple, kwargs: dict) -> Any:
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target, args: tuple, kwargs: dict) -> Any:
        return args[0]

    # ------------------------------------------------------------ helpers
    def fetch_attr(self, target: str) -> Any:
        """The module's attribute at the dotted path `target`."""
        atoms = target.split(".")
        value = self.module
        for i, atom in enumerate(atoms):
            if not hasattr(value, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            value = getattr(value, atom)
        return value

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args, n: Node):
        def load(arg: Node):
            if arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {arg}! Run "
                                   "Graph.lint() to diagnose such issues")
            return self.env[arg]
        return map_arg(args, load)


class _TransformerTracer(Tracer):
    """Appends to the Transformer's new graph; every module call stays one call."""

    def __init__(self, graph: Graph) -> None:
        super().__init__()
        self.graph = graph
        self.tensor_attrs = {}

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        return True


class Transformer(Interpreter):
    """Runs the graph on Proxies: each method returns what the new graph should compute for
    its node (by default the same call). `transform()` returns the new GraphModule."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph.set_codegen(module.graph._codegen)
        self.tracer = _TransformerTracer(self.new_graph)
        self.tracer.root = module

    def placeholder(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target: str, args: tuple, kwargs: dict) -> Proxy:
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: str, args: tuple, kwargs: dict) -> Any:
        module = self.fetch_attr(target)
        return self.tracer.call_module(module, module.forward, args, kwargs)

    def call_function(self, target, args: tuple, kwargs: dict) -> Any:
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self) -> GraphModule:
        """The new GraphModule (over the same root module)."""
        # NOTE [how a Proxy sees ember functions]: overrides may call ember on Proxies.
        with ProxyFunctionMode():
            result = super().run(enable_io_processing=False)
        if result is not None:
            output = self.new_graph.output(
                map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
            output.meta.update(self.graph.output_node().meta)
        return GraphModule(self.module, self.new_graph)
