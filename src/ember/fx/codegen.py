"""Python source for a Graph: `CodeGen.generate` writes `def forward(self, ...)` with one
line per node, as PyTorch's fx does (operators as operators, `ember.*` functions by their
public names, modules as `self.<path>(...)`), and a `PythonCode` holding the source and the
globals it runs in.

NOTE [values are freed after their last use]: after each node's line the generated code sets
to None the values whose last reader was that node (and the node's own value when nothing
reads it), so a GraphModule's forward holds no more tensors alive than the eager code would.
"""
from __future__ import annotations

import builtins
import keyword
import math
import operator
from dataclasses import dataclass
from typing import Any

from ember.fx.node import Node, _get_qualified_name, map_arg

# operator.<name> -> how its call reads as Python.
_MAGIC_METHODS = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}",
    "truediv": "{} / {}", "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}",
    "lshift": "{} << {}", "rshift": "{} >> {}", "and_": "{} & {}", "or_": "{} | {}",
    "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}",
    "le": "{} <= {}", "ge": "{} >= {}",
    "neg": "-{}", "pos": "+{}", "invert": "~{}",
}

# operator.<name> -> a statement that changes its first operand, then the node's value is it.
_INPLACE_METHODS = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}",
    "imod": "{} %= {}", "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}",
    "ipow": "{} **= {}", "irshift": "{} >>= {}", "isub": "{} -= {}", "itruediv": "{} /= {}",
    "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}


@dataclass
class PythonCode:
    """The source of a forward and the globals its names resolve in."""

    src: str
    globals: dict[str, Any]
    _lineno_map: dict[int, int | None] | None = None


def _is_ember_callable(obj) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == "ember" or module.startswith("ember.")


def _format_target(base: str, target: str) -> str:
    """`self.layers.0` as code: `getattr(self.layers, "0")`."""
    text = base
    for atom in target.split("."):
        if atom.isidentifier() and not keyword.iskeyword(atom):
            text = f"{text}.{atom}"
        else:
            text = f'getattr({text}, "{atom}")'
    return text


class _Globals:
    """The globals of one generated forward: each non-builtin object under a unique name."""

    def __init__(self, namespace) -> None:
        import ember
        self.namespace = namespace
        self.values: dict[str, Any] = {"inf": math.inf, "nan": math.nan,
                                       "NoneType": type(None), "ember": ember,
                                       "device": ember.device}

    def add(self, hint: str, obj) -> str:
        """The name code uses for `obj`: builtins by name, ember's callables by their public
        path (`ember.nn.functional.relu`), anything else as a new global."""
        if getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
            return obj.__name__
        if _is_ember_callable(obj):
            qualified = _get_qualified_name(obj)
            if qualified.startswith("ember.") and _reachable(qualified, obj):
                return qualified
        for name, value in self.values.items():
            if value is obj:
                return name
        name = self.namespace.create_name(hint, obj)
        self.values[name] = obj
        return name

    def repr_of(self, arg) -> str:
        """An argument as a Python expression."""
        import ember
        if isinstance(arg, Node):
            return repr(arg)
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            name = self.add(type(arg).__name__, type(arg))
            return f"{name}({', '.join(self.repr_of(a) for a in arg)})"
        if isinstance(arg, tuple):
            items = ", ".join(self.repr_of(a) for a in arg)
            return f"({items},)" if len(arg) == 1 else f"({items})"
        if isinstance(arg, list):
            return f"[{', '.join(self.repr_of(a) for a in arg)}]"
        if isinstance(arg, dict):
            return "{" + ", ".join(f"{k!r}: {self.repr_of(v)}" for k, v in arg.items()) + "}"
        if isinstance(arg, slice):
            return (f"slice({self.repr_of(arg.start)}, {self.repr_of(arg.stop)}, "
                    f"{self.repr_of(arg.step)})")
        if isinstance(arg, ember.dtype):
            return f"ember.{str(arg).split('.')[-1]}"
        if isinstance(arg, (ember.memory_format, ember.layout)):
            return f"ember.{str(arg).split('.')[-1]}"
        if isinstance(arg, ember.device):
            return repr(arg)
        if isinstance(arg, type):
            return self.add(arg.__name__, arg)
        if isinstance(arg, float) and not math.isfinite(arg):
            return "nan" if math.isnan(arg) else ("inf" if arg > 0 else "-inf")
        return repr(arg)


def _reachable(qualified: str, obj) -> bool:
    import importlib
    parts = qualified.split(".")
    value = importlib.import_module("ember")
    for part in parts[1:]:
        value = getattr(value, part, None)
        if value is None:
            return False
    return value is obj


class CodeGen:
    """Writes a Graph's forward. Subclasses may change how inputs and outputs are passed
    (`process_inputs` / `process_outputs`, the signature and the return)."""

    def process_inputs(self, *args):
        return args

    def process_outputs(self, outputs):
        return outputs

    def gen_fn_def(self, free_vars: list, maybe_return_annotation: str) -> str:
        if len(free_vars) == 0 or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def forward({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, repr_of) -> str:
        return f"return {repr_of(output_args)}"

    def generate(self, graph, root_module: str, *, verbose: bool = False) -> PythonCode:
        from ember.fx.graph import _Namespace
        namespace = _Namespace()
        for node in graph.nodes:
            namespace.create_name(node.name, node)
        globals_ = _Globals(namespace)
        wrapped_fns: dict[str, None] = {}
        free_vars: list[str] = []
        body: list[str] = []
        last_uses = _last_uses(graph)
        for node in graph.nodes:
            line = self._line(node, root_module, globals_, free_vars, wrapped_fns)
            if line is not None:
                body.append(line + self._frees(node, last_uses))
        code = "\n".join(body) if body else "pass"
        code = "\n".join("    " + line for line in code.split("\n"))
        wrap_stmts = "\n".join(f'ember.fx.wrap("{name}")' for name in wrapped_fns)
        prologue = self.gen_fn_def(free_vars, "")
        src = f"\n{wrap_stmts}\n\n{prologue}\n{code}\n    "
        return PythonCode(src, globals_.values, None)

    def _frees(self, node: Node, last_uses: dict) -> str:
        # NOTE [values are freed after their last use]
        if node.op in ("placeholder", "output"):
            return ""
        dead = list(last_uses.get(node, ()))
        if len(node.users) == 0:
            dead.append(node)
        if not dead:
            return ""
        return ";  " + " = ".join([repr(n) for n in dead] + ["None"])

    def _line(self, node: Node, root: str, globals_: _Globals, free_vars: list,
              wrapped_fns: dict):
        name = repr(node)
        args, kwargs = node.args, node.kwargs
        if node.op == "placeholder":
            default = f" = {globals_.repr_of(args[0])}" if args else ""
            free_vars.append(f"{node.target}{default}")
            raw = node.target.replace("*", "")
            return f"{name} = {raw}" if raw != name else None
        if node.op == "call_method":
            target = _format_target(globals_.repr_of(args[0]), node.target)
            return f"{name} = {target}({_call_args(args[1:], kwargs, globals_)})"
        if node.op == "call_function":
            return self._call_function_line(node, globals_, wrapped_fns)
        if node.op == "call_module":
            target = _format_target(root, node.target)
            return f"{name} = {target}({_call_args(args, kwargs, globals_)})"
        if node.op == "get_attr":
            return f"{name} = {_format_target(root, node.target)}"
        if node.op == "output":
            return self.generate_output(args[0], globals_.repr_of)
        raise NotImplementedError(f"node: {node.op} {node.target}")

    def _call_function_line(self, node: Node, globals_: _Globals, wrapped_fns: dict) -> str:
        name = repr(node)
        target, args, kwargs = node.target, node.args, node.kwargs
        fn_name = getattr(target, "__name__", "")
        if getattr(target, "__module__", None) == "_operator" and not kwargs:
            operands = [globals_.repr_of(a) for a in args]
            template = _MAGIC_METHODS.get(fn_name)
            if template is not None and template.count("{}") == len(args):
                return f"{name} = {template.format(*operands)}"
            template = _INPLACE_METHODS.get(fn_name)
            if template is not None and template.count("{}") == len(args):
                return f"{template.format(*operands)};  {name} = {operands[0]}"
        if target is getattr and len(args) == 2 and not kwargs and \
                isinstance(args[1], str) and args[1].isidentifier():
            return f"{name} = {_format_target(globals_.repr_of(args[0]), args[1])}"
        hint = _get_qualified_name(target) if fn_name != "<lambda>" else "lambda"
        global_name = globals_.add(hint, target)
        if node.meta.get("is_wrapped", False):
            wrapped_fns.setdefault(global_name)
        return f"{name} = {global_name}({_call_args(args, kwargs, globals_)})"


def _call_args(args, kwargs, globals_: _Globals) -> str:
    parts = [globals_.repr_of(a) for a in args]
    parts += [f"{k} = {globals_.repr_of(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


def _last_uses(graph) -> dict:
    """node -> the values whose last reader it is (in the order its arguments name them)."""
    last_user: dict = {}
    frees: dict = {}
    for node in reversed(graph.nodes):
        def note(value, user=node):
            if value not in last_user:
                last_user[value] = user
                frees.setdefault(user, []).append(value)
        map_arg(node.args, note)
        map_arg(node.kwargs, note)
    return frees


__all__ = ["CodeGen", "PythonCode", "operator"]
