"""`Proxy`: the stand-in value symbolic tracing passes through a program; every operation on
it (an operator, a method, an attribute, an ember function) becomes a node of the tracer's
graph instead of a computation. `TracerBase` turns values into node arguments and makes the
nodes; `TraceError` is what data-dependent control flow on a Proxy raises.

NOTE [how a Proxy sees ember functions]: ember offers a call to `__torch_function__` only for
Tensor subclasses and TorchFunctionModes, so a Proxy (which is no Tensor) is seen through a
mode: while a tracer runs, `ProxyFunctionMode` is open, and every public ember call made with
a Proxy among its arguments (`ember.add`, `F.relu`, `Tensor.add` for `tensor + proxy`)
becomes a call_function node whose target is the public function (a call_method node when the
function is a Tensor method); calls without a Proxy run as usual. Operators and methods on a
Proxy itself never reach ember: the Proxy's own dunders and `__getattr__` record them.
"""
from __future__ import annotations

import collections
import copy
import dis
import inspect
import operator
from typing import Any

from ember.fx.graph import Graph
from ember.fx.node import Node, map_aggregate
from ember.overrides import TorchFunctionMode


class TraceError(ValueError):
    """A traced program did something a graph cannot record (control flow on a Proxy)."""


class TracerBase:
    """What a tracer needs to build a graph: `create_node`, `create_proxy`, `create_arg`."""

    graph: Graph
    record_stack_traces: bool = False
    check_mutable_operations: bool = False
    trace_asserts: bool = False
    proxy_buffer_attributes: bool = False
    traced_func_name: str = "forward"
    scope: Any = None
    module_stack: collections.OrderedDict
    node_name_to_scope: dict

    def create_node(self, kind: str, target, args: tuple, kwargs: dict,
                    name: str | None = None, type_expr: Any = None) -> Node:
        node = self.graph.create_node(kind, target, args, kwargs, name, type_expr)
        stack = getattr(self, "module_stack", None)
        if stack:
            node.meta["nn_module_stack"] = copy.copy(stack)
        return node

    def proxy(self, node: Node) -> Proxy:
        return Proxy(node, self)

    def create_proxy(self, kind: str, target, args, kwargs, name: str | None = None,
                     type_expr: Any = None, proxy_factory_fn=None) -> Proxy:
        """A node for `target` over `args`/`kwargs` (Proxies inside become their nodes),
        wrapped in a Proxy."""
        node = self.create_node(kind, target, self.create_arg(args), self.create_arg(kwargs),
                                name, type_expr)
        if self.record_stack_traces:
            node.stack_trace = "".join(_user_frames())
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a) -> Any:
        """A value as a node argument: Proxies as their nodes, containers item by item,
        plain constants as they are. Anything else raises NotImplementedError."""
        if isinstance(a, Proxy):
            return a.node
        if hasattr(a, "__fx_create_arg__"):
            return a.__fx_create_arg__(self)
        if isinstance(a, tuple):
            if hasattr(a, "_fields"):
                return type(a)(*(self.create_arg(e) for e in a))
            return tuple(self.create_arg(e) for e in a)
        if isinstance(a, list):
            return [self.create_arg(e) for e in a]
        if isinstance(a, dict):
            made = {}
            for key, value in a.items():
                key = self.create_arg(key)
                if isinstance(key, Node):
                    raise RuntimeError(  # noqa: TRY004
                        "Keys for dictionaries used as an argument cannot "
                        f"contain a Node. Got key: {key}")
                made[key] = self.create_arg(value)
            return made
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop),
                         self.create_arg(a.step))
        if isinstance(a, Node) or a is None or a is ... or isinstance(a, _base_types()):
            return a
        raise NotImplementedError(f"argument of type: {type(a)}")

    def to_bool(self, obj: Proxy) -> bool:
        raise TraceError("symbolically traced variables cannot be used as inputs to control "
                         "flow")

    def iter(self, obj: Proxy):
        raise TraceError("Proxy object cannot be iterated. This can be attempted when the "
                         "Proxy is used in a loop or as a *args or **kwargs function argument. "
                         "See the torch.fx docs on pytorch.org for a more detailed explanation "
                         "of what types of control flow can be traced, and check out the Proxy "
                         "docstring for help troubleshooting Proxy iteration errors")

    def keys(self, obj: Proxy):
        return Attribute(obj, "keys")()


def _base_types() -> tuple:
    import ember
    return (str, int, float, bool, complex, ember.dtype, ember.device, ember.memory_format,
            ember.layout, ember.Size)


def _user_frames() -> list:
    import traceback
    frames = traceback.extract_stack()
    keep = [f for f in frames if "/ember/fx/" not in f.filename.replace("\\", "/")]
    return traceback.format_list(keep[-1:])


class GraphAppendingTracer(TracerBase):
    """A tracer that only appends to an existing graph (for Proxies made by hand)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.scope = None
        self.module_stack = collections.OrderedDict()
        self.node_name_to_scope = {}


class Proxy:
    """`Proxy(node, tracer=None)`: a value of the traced program; operations on it are
    recorded as nodes after `node`."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        if tracer is None:
            tracer = GraphAppendingTracer(node.graph)
        self.tracer = tracer
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        # Only called for names a Proxy lacks: an attribute of the traced value.
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state

    def __deepcopy__(self, memo) -> Proxy:
        return Proxy(self.node, self.tracer)

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        # `a, b = proxy` unpacks a known number of items: record them as getitem nodes.
        caller = inspect.currentframe().f_back
        for instruction in dis.get_instructions(caller.f_code):
            if instruction.offset == caller.f_lasti:
                if instruction.opname == "UNPACK_SEQUENCE":
                    return (self[i] for i in range(instruction.argval))
                break
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    def keys(self):
        return self.tracer.keys(self)

    def __len__(self):
        raise RuntimeError("'len' is not supported in symbolic tracing by default. If you want "
                           "this call to be recorded, please call torch.fx.wrap('len') at "
                           "module scope")

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None):
        """Record a public ember call that has Proxies among its arguments.
        NOTE [how a Proxy sees ember functions]"""
        kwargs = kwargs if kwargs else {}
        tracers: dict = {}

        def find_tracer(value):
            if isinstance(value, Proxy):
                tracers[value.tracer] = None
            return value

        map_aggregate(args, find_tracer)
        map_aggregate(kwargs, find_tracer)
        if len(tracers) > 1:
            raise RuntimeError(f"Found multiple different tracers {list(tracers)} while trying "
                               f"to trace operations {orig_method}")
        tracer = next(iter(tracers))
        method_name = _tensor_method_name(orig_method)
        if method_name is not None:
            return tracer.create_proxy("call_method", method_name, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs)


def _tensor_method_name(func) -> str | None:
    """The name under which `func` is a Tensor method, or None for a function."""
    from ember._tensor import Tensor
    name = getattr(func, "__name__", None)
    if name is not None and getattr(Tensor, name, None) is func:
        return name
    return None


class Attribute(Proxy):
    """`proxy.name`: a getattr node when used as a value, a call_method node when called."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:
        # Made on first use, so that a method call records no getattr node.
        if self._node is None:
            self._node = self.tracer.create_proxy("call_function", getattr,
                                                  (self.root, self.attr), {}).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


class ProxyFunctionMode(TorchFunctionMode):
    """Open while a tracer runs: public ember calls with a Proxy argument become nodes.
    NOTE [how a Proxy sees ember functions]"""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs if kwargs else {}
        if _has_proxy(args) or _has_proxy(kwargs):
            return Proxy.__torch_function__(func, types, args, kwargs)
        return func(*args, **kwargs)


def _has_proxy(value) -> bool:
    if isinstance(value, Proxy):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_proxy(v) for v in value)
    if isinstance(value, dict):
        return any(_has_proxy(v) for v in value.values())
    if isinstance(value, slice):
        return _has_proxy((value.start, value.stop, value.step))
    return False


# The operators a Proxy records as call_function nodes of the `operator` module.
_REFLECTABLE = ("add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "lshift", "rshift",
                "and_", "or_", "xor", "matmul")
_FORWARD_ONLY = ("eq", "ne", "lt", "gt", "le", "ge", "getitem")
_UNARY = ("neg", "pos", "invert")


def _install_operators() -> None:
    def binary(fn):
        return lambda self, rhs: self.tracer.create_proxy("call_function", fn, (self, rhs), {})

    def reflected(fn):
        return lambda self, lhs: self.tracer.create_proxy("call_function", fn, (lhs, self), {})

    def unary(fn):
        return lambda self: self.tracer.create_proxy("call_function", fn, (self,), {})

    for name in _REFLECTABLE + _FORWARD_ONLY:
        dunder = name.rstrip("_")
        setattr(Proxy, f"__{dunder}__", binary(getattr(operator, name)))
    for name in _REFLECTABLE:
        dunder = name.rstrip("_")
        setattr(Proxy, f"__r{dunder}__", reflected(getattr(operator, name)))
    for name in _UNARY:
        setattr(Proxy, f"__{name}__", unary(getattr(operator, name)))
    Proxy.__hash__ = object.__hash__      # __eq__ records a node; identity still hashes


_install_operators()

__all__ = ["Attribute", "GraphAppendingTracer", "Proxy", "ProxyFunctionMode", "TraceError",
           "TracerBase"]
