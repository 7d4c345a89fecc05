"""`Node`: one operation of an fx `Graph`, and `map_arg` / `map_aggregate` over the argument
structures nodes hold.

NOTE [node arguments and users]: a node's `args` / `kwargs` are stored as immutable tuples,
immutable_list and immutable_dict, and every assignment to them goes through
`_update_args_kwargs`, which recomputes the node's input nodes and adds or removes the node
from each input's `users`. So `users` is always exactly the set of nodes whose arguments
mention this one, and `Graph.erase_node` can refuse a node that still has users.
"""
from __future__ import annotations

import builtins
import operator
import types
from collections.abc import Callable
from typing import Any

from ember.fx.immutable_collections import immutable_dict, immutable_list

_LEGAL_OPS = frozenset({"placeholder", "call_method", "call_module", "call_function",
                        "get_attr", "output", "root"})

# Calls whose effect is the point, kept by dead-code elimination.
_side_effectful_functions: set = {operator.setitem}


def _public_module_of(target) -> str:
    """The module a user reaches `target` through: `ember.add` rather than
    `ember._generated.bindings.add`, `ember.nn.functional.relu` rather than its private file."""
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", "")
    if module.startswith("ember"):
        import ember
        for candidate in _PUBLIC_NAMESPACES:
            namespace = _resolve(ember, candidate)
            if namespace is not None and getattr(namespace, name, None) is target:
                return candidate
    return module


_PUBLIC_NAMESPACES = ("ember", "ember.nn.functional", "ember.linalg", "ember.fft",
                      "ember.special", "ember.nn.init", "ember.autograd")


def _resolve(root, dotted: str):
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _get_qualified_name(func: Callable) -> str:
    """`module.name` of a callable as code would spell it (`operator.add`, `ember.add`)."""
    if getattr(builtins, func.__name__, None) is func:
        return func.__name__
    if isinstance(func, (types.MethodDescriptorType, types.WrapperDescriptorType)) and \
            func is getattr(_tensor_class(), func.__name__, None):
        return f"ember.Tensor.{func.__name__}"
    name = func.__name__
    if name == "<lambda>":
        raise RuntimeError(f"Unable to represent lambda {func}")
    return f"{_public_module_of(func)}.{name}"


def _tensor_class():
    from ember._tensor import Tensor
    return Tensor


def _format_arg(arg, max_list_len: float = float("inf")) -> str:
    """An argument as `Graph.__str__` prints it: nodes as `%name`, strings bare."""
    if hasattr(arg, "_custom_fx_repr_fn"):
        return arg._custom_fx_repr_fn()
    if isinstance(arg, list):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) <= max_list_len else f", ...[total_len={len(arg)}]"
        return f"[{items}{more}]"
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for i, a in enumerate(arg) if i < max_list_len)
        more = "" if len(arg) <= max_list_len else f", ...[total_len={len(arg)}]"
        return f"({items},)" if len(arg) == 1 else f"({items}{more})"
    if isinstance(arg, dict):
        items = ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items())
        return f"{{{items}}}"
    if isinstance(arg, Node):
        return "%" + str(arg)
    return str(arg)


class Node:
    """One operation: `op` says what kind (placeholder, get_attr, call_function, call_module,
    call_method, output), `target` what it calls or reads, `args` / `kwargs` its operands
    (other nodes among them). Nodes live in their graph's doubly linked list."""

    def __init__(self, graph, name: str, op: str, target, args: tuple, kwargs: dict,
                 return_type: Any = None) -> None:
        if op not in _LEGAL_OPS:
            raise AssertionError(f"op '{op}' is not in _legal_ops")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a Callable is expected")
        if op in ("call_method", "call_module", "get_attr") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has "
                             f"type {type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes: dict[Node, None] = {}
        self.users: dict[Node, None] = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self._args: tuple = ()
        self._kwargs: dict = immutable_dict()
        self._update_args_kwargs(args, kwargs)

    # ------------------------------------------------------------ the linked list
    @property
    def next(self) -> Node:
        return self._next

    @property
    def prev(self) -> Node:
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move `x` (new or already in the list) to just before this node."""
        if x is self:
            return          # moving a node next to itself changes nothing
        if x.graph is not self.graph:
            raise AssertionError("Attempting to move a Node into a different Graph")
        x._remove_from_list()
        before = self._prev
        before._next, x._prev = x, before
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move `x` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        # The node keeps its own _prev/_next, so an iteration standing on it goes on.
        before, after = self._prev, self._next
        before._next, after._prev = after, before

    # ------------------------------------------------------------ arguments
    @property
    def args(self) -> tuple:
        return self._args

    @args.setter
    def args(self, value) -> None:
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self) -> dict:
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value) -> None:
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self) -> list:
        """The nodes this one reads, in the order its arguments mention them."""
        return list(self._input_nodes)

    def _update_args_kwargs(self, new_args, new_kwargs) -> None:
        # NOTE [node arguments and users]
        self._args = map_aggregate(new_args, _identity)
        self._kwargs = map_aggregate(new_kwargs, _identity)
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        map_arg(self._args, self._input_nodes.setdefault)
        map_arg(self._kwargs, self._input_nodes.setdefault)
        for new in self._input_nodes:
            new.users.setdefault(self)

    def update_arg(self, idx: int, arg) -> None:
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def insert_arg(self, idx: int, arg) -> None:
        self.args = self.args[:idx] + (arg,) + self.args[idx:]

    def update_kwarg(self, key: str, arg) -> None:
        self.kwargs = {**self.kwargs, key: arg}

    def replace_all_uses_with(self, replace_with: Node, delete_user_cb=None, *,
                              propagate_meta: bool = False) -> list:
        """Make every user read `replace_with` instead (those `delete_user_cb` accepts);
        returns the users changed."""
        if propagate_meta:
            if replace_with.meta:
                raise AssertionError("Called node.replace_all_uses_with(replace_with, "
                                     "propagate_meta=True), but replace_with already has "
                                     ".meta keys")
            replace_with.meta.update(self.meta)
        changed = []
        for user in list(self.users):
            if delete_user_cb is not None and not delete_user_cb(user):
                continue
            user._replace_input_with(self, replace_with)
            changed.append(user)
        return changed

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read `new_input` wherever the arguments read `old_input`."""
        self._replace_input_with(old_input, new_input)

    def _replace_input_with(self, old, new) -> None:
        swap = lambda n: new if n is old else n
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    # ------------------------------------------------------------ properties
    @property
    def stack_trace(self):
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace) -> None:
        self.meta["stack_trace"] = trace

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether dead-code elimination must keep this node though nothing reads it."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            if self.target in _side_effectful_functions:
                return True
            return impure_random and _is_random(self.target)
        if self.op == "call_module":
            module = self.graph.owning_module.get_submodule(self.target)
            return getattr(module, "_is_impure", False)
        return False

    # ------------------------------------------------------------ printing
    def __repr__(self) -> str:
        return self.name

    def _pretty_print_target(self, target) -> str:
        if isinstance(target, str):
            return target
        module = getattr(target, "__module__", None)
        if module == "builtins":
            return f"builtins.{target.__name__}"
        if module == "_operator":
            return f"operator.{target.__name__}"
        return _get_qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None, *,
                    include_tensor_metadata: bool = False):
        """The node as one line of `Graph.__str__` (`%add : [num_users=1] = ...`)."""
        typename = f"{_type_repr(self.type)} " if self.type is not None else ""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
                return None
            default = f"(default={self.args[0]})" if self.args else ""
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self.target}]{default}")
        if self.op == "get_attr":
            return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                    f"{self.op}[target={self._pretty_print_target(self.target)}]")
        if self.op == "output":
            if self.type is not None and maybe_return_typename is not None:
                maybe_return_typename[0] = f" -> {_type_repr(self.type)}"
            return f"return {self.args[0]}"
        return (f"%{self.name} : {typename}[num_users={len(self.users)}] = "
                f"{self.op}[target={self._pretty_print_target(self.target)}]"
                f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")


def _type_repr(kind) -> str:
    if isinstance(kind, type):
        if kind.__module__ == "builtins":
            return kind.__qualname__
        return f"{kind.__module__}.{kind.__qualname__}"
    return repr(kind)


def _is_random(target) -> bool:
    return target in _random_functions()


_RANDOM_NAMES = ("rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                 "randint_like", "bernoulli", "multinomial", "normal", "poisson")


def _random_functions() -> set:
    import ember
    return {getattr(ember, name) for name in _RANDOM_NAMES if hasattr(ember, name)}


def _identity(x):
    return x


def map_arg(a, fn: Callable):
    """Apply `fn` to every Node inside the argument structure `a` (tuples, lists, dicts,
    slices), keeping the rest; the result uses fx's immutable containers."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")  # noqa: TRY004
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a, fn: Callable):
    """Apply `fn` to every leaf of the argument structure `a`."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(elem, fn) for elem in a)
        return mapped if not hasattr(a, "_fields") else type(a)(*mapped)
    if isinstance(a, list):
        return immutable_list([map_aggregate(elem, fn) for elem in a])
    if isinstance(a, dict):
        return immutable_dict((k, map_aggregate(v, fn)) for k, v in a.items())
    if isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn),
                     map_aggregate(a.step, fn))
    return fn(a)
