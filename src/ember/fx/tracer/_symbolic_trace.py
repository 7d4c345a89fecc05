"""Symbolic tracing: `Tracer.trace` runs a Module's forward (or a function) on Proxies and
records what it does as a Graph; `symbolic_trace` wraps the graph in a GraphModule; `wrap`
marks a global function to be recorded as one call instead of traced through.

NOTE [what a trace patches]: while `trace` runs it replaces, and always puts back,
`nn.Module.__call__` (a module call goes to `Tracer.call_module`: a leaf becomes a
call_module node, any other module is traced through), `nn.Module.__getattr__` (a Parameter
read becomes a get_attr node), the globals named by `wrap` and the `math` functions the traced
function's globals hold (calls on Proxies become call_function nodes), and it opens
`ProxyFunctionMode` (NOTE [how a Proxy sees ember functions], proxy.py).
"""
from __future__ import annotations

import builtins
import collections
import functools
import inspect
import math
import types
import warnings
from collections.abc import Callable
from typing import Any

from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.fx.node import map_aggregate
from ember.fx.proxy import Proxy, ProxyFunctionMode, TracerBase
from ember.nn import Module, Sequential

_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08

# (id of a module's globals, function name) -> those globals: what `wrap` registered.
_wrapped_fns_to_patch: dict[tuple[int, str], dict] = {}


def wrap(fn_or_name):
    """Record calls to this module-level function (given, or named) as one call_function
    node whenever an argument is a Proxy, instead of tracing into it. Call at module scope."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError(  # noqa: TRY004
            "Unsupported type for global function! Must be either a callable or string name")
    fn_name = fn_or_name.__name__ if callable(fn_or_name) else fn_or_name
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    _wrapped_fns_to_patch[(id(caller.f_globals), fn_name)] = caller.f_globals
    return fn_or_name


class PHBase:
    """The class of `PH`: a concrete argument that stays a placeholder."""

    def __repr__(self) -> str:
        return "PH"


PH = PHBase()


def _assert_is_none(value, msg: str) -> None:
    assert value is None, msg


class _Patcher:
    """Set attributes and dict entries for the length of a trace; `restore` undoes them, last
    first. NOTE [what a trace patches]"""

    def __init__(self) -> None:
        self._undo: list[Callable[[], None]] = []

    def set_attr(self, owner, name: str, value) -> None:
        old = owner.__dict__.get(name)
        had = name in owner.__dict__
        setattr(owner, name, value)
        self._undo.append(lambda: setattr(owner, name, old) if had else delattr(owner, name))

    def set_item(self, table: dict, name: str, value) -> None:
        had, old = name in table, table.get(name)
        table[name] = value

        def undo():
            if had:
                table[name] = old
            else:
                del table[name]
        self._undo.append(undo)

    def restore(self) -> None:
        while self._undo:
            self._undo.pop()()


def _find_proxy(args, kwargs) -> Proxy | None:
    found = []

    def look(value):
        if isinstance(value, Proxy) and not found:
            found.append(value)
        return value

    map_aggregate(args, look)
    map_aggregate(kwargs, look)
    return found[0] if found else None


def _recording(fn: Callable) -> Callable:
    """`fn`, but a call with a Proxy argument becomes a call_function node of `fn`."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return fn(*args, **kwargs)
        result = proxy.tracer.create_proxy("call_function", fn, args, kwargs)
        result.node.meta["is_wrapped"] = True
        return result
    return wrapped


class Tracer(TracerBase):
    """Records a program by running it on Proxies. Override `is_leaf_module` to say which
    modules stay calls, `create_arg` for argument types of one's own."""

    def __init__(self, autowrap_modules: tuple = (math,), autowrap_functions: tuple = (),
                 param_shapes_constant: bool = False) -> None:
        super().__init__()
        self._autowrap_function_ids = {
            id(value) for module in autowrap_modules for name, value in vars(module).items()
            if not name.startswith("_") and callable(value)}
        self._autowrap_function_ids.update(id(f) for f in autowrap_functions)
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths: dict | None = None
        self.root: Module | None = None
        self.tensor_attrs: dict = {}
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope: dict = {}
        self.scope = None

    # ------------------------------------------------------------ hooks users override
    def is_leaf_module(self, m: Module, module_qualified_name: str) -> bool:
        """ember.nn's own modules (but Sequential) are leaves: called, not traced into."""
        module = type(m).__module__ or ""     # PyTorch's path under the alias
        return (module in ("ember.nn", "torch.nn") or module.startswith(("ember.nn.", "torch.nn."))) and \
            not isinstance(m, Sequential)

    def path_of_module(self, mod: Module) -> str:
        """The qualified name of `mod` inside the root module."""
        if self.submodule_paths is not None:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            return path
        for name, candidate in self.root.named_modules():
            if candidate is mod:
                return name
        raise NameError("module is not installed as a submodule")

    def call_module(self, m: Module, forward: Callable, args: tuple, kwargs: dict) -> Any:
        """A module call met while tracing: a call_module node for a leaf, else its forward
        traced through."""
        path = self.path_of_module(m)
        self.module_stack[path] = (path, type(m))
        try:
            if not self.is_leaf_module(m, path):
                return forward(*args, **kwargs)
            return self.create_proxy("call_module", path, args, kwargs)
        finally:
            self.module_stack.pop(path, None)

    def getattr(self, attr: str, attr_val: Any, parameter_proxy_cache: dict) -> Any:
        """A module attribute read while tracing: a Parameter of the root becomes a get_attr
        Proxy (one per parameter), anything else is returned as it is."""
        from ember.nn import Parameter
        if isinstance(attr_val, Parameter):
            for name, param in self.root.named_parameters():
                if attr_val is param:
                    if name not in parameter_proxy_cache:
                        parameter_proxy_cache[name] = self.create_proxy("get_attr", name, (), {})
                    return parameter_proxy_cache[name]
        return attr_val

    def create_arg(self, a: Any) -> Any:
        """Tensors become get_attr nodes: parameters and buffers of the root by their names,
        other tensors as `_tensor_constant<n>` attributes added to the root."""
        from ember._tensor import Tensor
        from ember.nn import Parameter
        if isinstance(a, Parameter):
            for name, param in self.root.named_parameters():
                if a is param:
                    return self.create_node("get_attr", name, (), {})
            raise NameError("parameter is not a member of this module")
        if isinstance(a, Tensor):
            for name, buffer in self.root.named_buffers():
                if a is buffer:
                    return self.create_node("get_attr", name, (), {})
            qualname = self.tensor_attrs.get(a)
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}"):
                    i += 1
                qualname = f"_tensor_constant{i}"
                self.tensor_attrs[a] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})
        if isinstance(a, Module):
            raise NotImplementedError(f"argument of type: {type(a)}")
        return super().create_arg(a)

    # ------------------------------------------------------------ tracing
    def trace(self, root, concrete_args: dict | tuple | None = None) -> Graph:
        """Run `root` (a Module or a function) on Proxies and return the Graph of what it
        did. `concrete_args` fixes some arguments to values (or `PH`, still a placeholder)."""
        if isinstance(root, Module):
            self.root = root
            fn = type(root).forward
            is_module = True
        else:
            self.root = Module()
            fn = root
            is_module = False
        self.graph = Graph(tracer_cls=type(self) if type(self) is not Tracer else None)
        self.tensor_attrs = {}
        self._collect_tensor_attrs(self.root, [])
        self.submodule_paths = {mod: name for name, mod in self.root.named_modules()}
        fn_globals = fn.__globals__
        parameter_proxy_cache: dict = {}
        patcher = _Patcher()
        original_getattr = Module.__getattr__
        original_call = Module.__call__
        tracer = self

        def module_getattr(mod, attr):
            return tracer.getattr(attr, original_getattr(mod, attr), parameter_proxy_cache)

        def module_call(mod, *args, **kwargs):
            def forward(*args, **kwargs):
                return original_call(mod, *args, **kwargs)
            return tracer.call_module(mod, forward, args, kwargs)

        try:
            with ProxyFunctionMode():
                fn, args = self.create_args_for_root(fn, is_module, concrete_args)
                patcher.set_attr(Module, "__getattr__", module_getattr)
                patcher.set_attr(Module, "__call__", module_call)
                self._patch_wrapped_functions(patcher)
                self._autowrap(patcher, fn_globals)
                result = fn(*args)
                self.create_node("output", "output", (self.create_arg(result),), {},
                                 type_expr=fn.__annotations__.get("return", None))
        finally:
            patcher.restore()
        self.submodule_paths = None
        return self.graph

    def _collect_tensor_attrs(self, module: Module, prefix: list) -> None:
        from ember._tensor import Tensor
        for name, value in vars(module).items():
            if isinstance(value, Tensor):
                self.tensor_attrs[value] = ".".join([*prefix, name])
        for name, child in module.named_children():
            self._collect_tensor_attrs(child, [*prefix, name])

    def create_args_for_root(self, root_fn: Callable, is_module: bool,
                             concrete_args: dict | tuple | None = None):
        """The placeholders for `root_fn`'s parameters (and the function to call with them:
        one whose `*args`/`**kwargs`/keyword-only parameters are taken positionally)."""
        fn = inspect.unwrap(root_fn)
        code = fn.__code__
        total = code.co_argcount + code.co_kwonlyargcount
        names = iter(code.co_varnames)
        args: list = []
        skip = 0
        if is_module:
            if total == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip = 1
            next(names)
            args.append(self.root)
        signature = inspect.signature(fn)
        arg_names = [next(names) for _ in range(skip, total)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(f"Tracing expected {len(arg_names)} arguments but got "
                                   f"{len(concrete_args)} concrete arguments")
            concrete_args = dict(zip(arg_names, concrete_args))
        concrete_args = concrete_args or {}
        args.extend(self._placeholder(name, concrete_args, signature, fn) for name in arg_names)
        if code.co_kwonlyargcount > 0 or code.co_flags & (_CO_VARARGS | _CO_VARKEYWORDS):
            if code.co_flags & _CO_VARARGS:
                args.append(self._placeholder("*" + next(names), concrete_args, signature, fn))
            if code.co_flags & _CO_VARKEYWORDS:
                args.append(self._placeholder("**" + next(names), concrete_args, signature, fn))
            root_fn = _positional_only(root_fn, len(args))
        return root_fn, args

    def _placeholder(self, name: str, concrete_args: dict, signature, fn):
        if name in concrete_args:
            return self._concrete(name, concrete_args[name], signature)
        default = ()
        if not name.startswith("*"):
            parameter = signature.parameters[name]
            if parameter.default is not inspect.Parameter.empty:
                default = (parameter.default,)
        return self.create_proxy("placeholder", name, default, {},
                                 type_expr=fn.__annotations__.get(name, None))

    def _concrete(self, name: str, value, signature):
        """A concrete argument: a placeholder still (so the signature keeps it), with a
        check that the value given later is the one traced with; the value itself is what
        the trace computes with."""
        import ember
        from ember.utils._pytree import tree_map
        count = 0

        def replace(x):
            nonlocal count
            count += 1
            parameter = signature.parameters[name]
            default = () if parameter.default is inspect.Parameter.empty else \
                (parameter.default,)
            placeholder = self.create_proxy("placeholder", f"{name}_{count}", default, {})
            if isinstance(x, PHBase):
                return placeholder
            if type(x) in (bool, int, float, str, complex):
                ember._assert(placeholder == x, f"{name} has been specialized to have value "
                                                f"{x} but got another value")
            elif x is None:
                message = f"{name} has been specialized to have value None but got another value"
                self.create_proxy("call_function", _assert_is_none, (placeholder, message), {})
            else:
                warnings.warn(f"Was not able to add assertion to guarantee correct input {name} "
                              "to specialized function. It is up to the user to make sure "
                              "that your inputs match the inputs you specialized the function "
                              "with.", stacklevel=4)
            return x

        return tree_map(replace, value)

    # ------------------------------------------------------------ wrapped globals
    def _patch_wrapped_functions(self, patcher: _Patcher) -> None:
        for (_, name), table in _wrapped_fns_to_patch.items():
            if name in table:
                original = table[name]
            else:
                original = getattr(builtins, name)
            patcher.set_item(table, name, _recording(original))

    def _autowrap(self, patcher: _Patcher, fn_globals: dict) -> None:
        # The function's globals (`from math import sqrt`) and the modules themselves
        # (`math.sqrt`).
        for table in (fn_globals, *(vars(module) for module in self._autowrap_search)):
            for name, value in list(table.items()):
                if not name.startswith("_") and callable(value) and \
                        id(value) in self._autowrap_function_ids:
                    patcher.set_item(table, name, _recording(value))


def _positional_only(fn: Callable, nargs: int) -> Callable:
    """`fn` with its `*args`, `**kwargs` and keyword-only parameters taken as `nargs` plain
    positional ones, so the trace can pass a Proxy for each."""
    bound_self = getattr(fn, "__self__", None)
    plain = getattr(fn, "__func__", fn)
    code = plain.__code__
    flags = code.co_flags & ~(_CO_VARARGS | _CO_VARKEYWORDS)
    new_code = code.replace(co_argcount=nargs, co_kwonlyargcount=0, co_flags=flags)
    new_fn = types.FunctionType(new_code, plain.__globals__, plain.__name__,
                                plain.__defaults__, plain.__closure__)
    return new_fn if bound_self is None else types.MethodType(new_fn, bound_self)


def symbolic_trace(root, concrete_args: dict | None = None) -> GraphModule:
    """Trace `root` (a Module or a function) and return the GraphModule of its graph,
    named after the module's class or the function."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, Module) else root.__name__
    return GraphModule(tracer.root, graph, name)
