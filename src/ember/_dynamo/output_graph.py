"""OutputGraph: what one capture builds — the FX graph (placeholders for the tensors read
from outside, one node per op run on fake tensors), the guards, and the Python side effects
the replay performs after the graph runs (NOTE [how capture runs])."""
from __future__ import annotations

import operator

from ember._dynamo import dynamic, guards
from ember._dynamo.exc import unimplemented
from ember._dynamo.source import AttrSource, placeholder_name
from ember._dynamo.variables.base import ConstantVariable, constant_or_fail
from ember._dynamo.variables.containers import (
    DictVariable,
    ListVariable,
    TupleVariable,
)
from ember._dynamo.variables.sym import symbolic
from ember._dynamo.variables.tensor import TensorVariable
from ember._subclasses.fake_tensor import FakeTensorMode, is_fake
from ember._tensor import Tensor
from ember.autograd.grad_mode import is_grad_enabled


class OutputGraph:
    def __init__(self, code=None, dynamic=False):
        from ember.fx import Graph
        self.graph = Graph()
        self.code = code
        self.dynamic = dynamic       # compile's `dynamic` (NOTE [dynamic dimensions])
        self.dynamic_dims = []       # per input tensor: its dims still dynamic (a set)
        self.fake_mode = FakeTensorMode()
        self.guards = []
        self._guard_keys = set()
        self.input_sources = []      # one per placeholder, in order
        self.example_inputs = []     # the real tensors behind them
        self._last_placeholder = None
        self._memo = {}              # id(object) -> (object, variable, first source index)
        self._identity_sources = []  # sources of tensors and containers, for ALIASING
        self._identity_pattern = []
        self._mutated = []           # containers from outside whose contents changed
        self._stores = []            # ("attr", module var, name, value) / ("global", ...)
        self._outputs = []           # graph nodes the replay reads, in order
        self._sym_nodes = []         # `size` nodes of SymSizeVariables
        self.add_guard(guards.grad_mode(is_grad_enabled()))

    # ----------------------------------------------------------------- inputs and guards
    def add_guard(self, guard):
        key = (guard.kind, guard.source)
        if key not in self._guard_keys:
            self._guard_keys.add(key)
            self.guards.append(guard)

    def seen(self, value, source):
        """The variable already made for `value` (read again through another source)."""
        known = self._memo.get(id(value))
        if known is None:
            return None
        self._identity_sources.append(source)
        self._identity_pattern.append(known[2])
        return known[1]

    def remember(self, value, var):
        # every object read from outside takes part in ALIASING: one variable stands for it,
        # which is right only while its sources keep naming one object (and others others)
        index = len(self._identity_sources)
        self._identity_sources.append(var.source)
        self._identity_pattern.append(index)
        self._memo[id(value)] = (value, var, index)

    def wrap(self, value, source):
        from ember._dynamo.variables.builder import wrap
        return wrap(self, value, source)

    def wrap_attr(self, owner_var, owner, name):
        if owner_var.source is None:
            unimplemented(f"attribute {name!r} of an object made during capture")
        return self.wrap(getattr(owner, name), AttrSource(owner_var.source, name))

    def add_input(self, source, tensor):
        if is_fake(tensor):
            unimplemented("a fake tensor passed into a compiled function")
        fake = self.fake_mode.from_tensor(tensor)
        if self._last_placeholder is None:
            where = self.graph.inserting_before(None)
        else:
            where = self.graph.inserting_after(self._last_placeholder)
        with where:
            node = self.graph.placeholder(placeholder_name(source))
        node.meta["example_value"] = fake
        self._last_placeholder = node
        self.input_sources.append(source)
        self.example_inputs.append(tensor)
        dims = dynamic.candidates(self.code, self.dynamic, source, tensor)
        self.dynamic_dims.append(dims)
        self.add_guard(guards.tensor_match(source, tensor, dims))
        var = TensorVariable(node, fake, source, type(tensor))
        var.dynamic_dims = dims
        return var

    def size_of(self, var, dim=None):
        """`var.shape` (or its `dim`): sizes of dynamic dims as SymSizeVariables computed in
        the graph, the rest constants (NOTE [dynamic dimensions])."""
        from ember._dynamo.variables.sym import SymSizeVariable
        shape = var.example.shape
        dims = range(len(shape)) if dim is None else [dim % max(len(shape), 1)]
        own = var.dynamic_dims
        items = []
        for d in dims:
            if (d in own) if own is not None else any(self.dynamic_dims):
                node = self.graph.call_method("size", (var.node, d))
                self._sym_nodes.append(node)
                items.append(SymSizeVariable(self, node, shape[d], [(var, [d])]))
                if own is not None:
                    items[-1].direct = (var, d)
            else:
                items.append(ConstantVariable(shape[d]))
        if dim is not None:
            return items[0]
        if all(type(i) is ConstantVariable for i in items):
            return ConstantVariable(shape)
        return TupleVariable(items, kind=type(shape))

    def add_size_relation(self, var, dim, op, value, flipped, result):
        self.guards.append(guards.size_relation(var.source, dim, op, value, flipped, result))

    def specialize(self, var, dims=None):
        """A size of `var` was read into Python (NOTE [dynamic dimensions]): `dims` of an
        input become static; a size of a computed tensor makes every dim static."""
        if not isinstance(var, TensorVariable):
            return
        own = var.dynamic_dims
        if own is None:
            for each in self.dynamic_dims:
                each.clear()
        elif dims is None:
            own.clear()
        else:
            own.difference_update(d % max(var.example.dim(), 1) for d in dims)

    # ----------------------------------------------------------------- ops
    def call_op(self, kind, target, args, kwargs, *, mutates=False):
        """Run `target` on the fake examples; a tensor result becomes a graph node, anything
        else (a shape, a dtype) a constant — unless the op `mutates` its input (`x[i] = v`
        returns None), whose node is always kept. A failure on fakes is a graph break: the op
        then runs eagerly and fails, or not, exactly as it would without compile."""
        fake_args = [_fake(a) for a in args]
        fake_kwargs = {k: _fake(v) for k, v in kwargs.items()}
        name = target if isinstance(target, str) else getattr(target, "__name__", target)
        with self.fake_mode:
            try:
                if kind == "call_method":
                    result = getattr(fake_args[0], target)(*fake_args[1:], **fake_kwargs)
                else:
                    result = target(*fake_args, **fake_kwargs)
            except Exception as error:  # noqa: BLE001 (any failure: the op runs eagerly)
                unimplemented(f"{name} on fake tensors raised {type(error).__name__}: {error}")
        if result is None and not mutates:
            unimplemented(f"{name} returned None: a call for its side effect")
        if not _holds_tensor(result) and not mutates:
            if not (kind == "call_method" and target in _SIZE_FREE):
                dims = [args[1].as_constant()] if kind == "call_method" and \
                    target == "size" and len(args) == 2 and not kwargs else None
                for a in args:
                    self.specialize(a, dims if a is args[0] else None)
            return constant_or_fail(result)
        node_args = tuple(_node(a) for a in args)
        node_kwargs = {k: _node(v) for k, v in kwargs.items()}
        if kind == "call_method":
            node = self.graph.call_method(target, node_args, node_kwargs)
        else:
            node = self.graph.call_function(target, node_args, node_kwargs)
        if mutates and result is None:
            return ConstantVariable(None)
        return self._wrap_result(node, result)

    def _wrap_result(self, node, result):
        if isinstance(result, Tensor):
            node.meta["example_value"] = result
            return TensorVariable(node, result)
        if isinstance(result, (tuple, list)):
            items = []
            for i, item in enumerate(result):
                if _holds_tensor(item):
                    items.append(self._wrap_result(
                        self.graph.call_function(operator.getitem, (node, i)), item))
                else:
                    items.append(constant_or_fail(item))
            if isinstance(result, list):
                return ListVariable(items)
            return TupleVariable(items, kind=type(result))
        unimplemented(f"an op returned {type(result).__name__}")

    # ----------------------------------------------------------------- side effects
    def mark_mutated(self, container):
        if container.source is not None and container not in self._mutated:
            self._mutated.append(container)

    def record_store_attr(self, module_var, name, value):
        self._stores.append(("attr", module_var, name, value))

    def record_store_global(self, namespace, name, value):
        self._stores.append(("global", namespace, name, value))

    def stored_global(self, namespace, name):
        """The value this capture last stored into global `name`, or None."""
        for kind, owner, stored_name, value in reversed(self._stores):
            if kind == "global" and owner is namespace and stored_name == name:
                return value
        return None

    # ----------------------------------------------------------------- the replay's reads
    def tensor_rebuilder(self, var):
        if var.source is not None:
            source = var.source
            return lambda frame, outputs: source.get(frame)
        if var.node not in self._outputs:
            self._outputs.append(var.node)
        index = self._outputs.index(var.node)
        return lambda frame, outputs: outputs[index]

    def side_effect_replay(self):
        """One function `(frame, outputs)` writing every recorded side effect."""
        steps = []
        for container in self._mutated:
            source = container.source
            if isinstance(container, ListVariable):
                parts = [i.rebuild(self) for i in container.items]
                steps.append(_replace_list(source, parts))
            else:
                parts = [(k, v.rebuild(self)) for k, v in container.items.items()]
                steps.append(_replace_dict(source, parts))
        for kind, owner, name, value in self._stores:
            part = value.rebuild(self)
            if kind == "attr":
                steps.append(_store_attr(owner.source, name, part))
            else:
                steps.append(_store_global(owner, name, part))
        return steps

    def finish(self):
        """Close the graph (its output: the tensors the replay reads) and add the ALIASING
        guard. Returns the GraphModule, or None when the graph computes nothing."""
        if len(self._identity_sources) > 1:
            self.add_guard(guards.aliasing(self._identity_sources, self._identity_pattern))
        self.graph.output(tuple(self._outputs))
        for node in reversed(self._sym_nodes):
            if not node.users:          # a size only read as a number
                self.graph.erase_node(node)
        if not any(n.op in ("call_function", "call_method") for n in self.graph.nodes):
            return None
        from ember.fx import GraphModule
        from ember.nn import Module
        gm = GraphModule(Module(), self.graph)
        # NOTE [dynamic dimensions]: the inputs' dims that may take other sizes
        gm.meta["dynamic_dims"] = [frozenset(d) for d in self.dynamic_dims]
        # the grad mode the GRAD_MODE guard pins (NOTE [inference graphs skip AOT autograd]
        # in backends.py)
        gm.meta["grad_enabled"] = self.guards[0].expected
        return gm


# Methods whose non-tensor answers do not depend on sizes (NOTE [dynamic dimensions]).
_SIZE_FREE = frozenset({"dim", "ndimension", "is_floating_point", "is_complex",
                        "element_size", "get_device", "type"})


def _fake(var):
    if isinstance(var, TensorVariable):
        return var.example
    if symbolic(var):
        return var.hint
    if isinstance(var, ConstantVariable):
        return var.value
    if isinstance(var, TupleVariable):
        return tuple(_fake(i) for i in var.items)
    if isinstance(var, ListVariable):
        return [_fake(i) for i in var.items]
    if isinstance(var, DictVariable):
        return {k: _fake(v) for k, v in var.items.items()}
    unimplemented(f"{var} passed to an op")


def _node(var):
    if isinstance(var, TensorVariable):
        return var.node
    if symbolic(var):
        return var.node
    if isinstance(var, ConstantVariable):
        return var.value
    if isinstance(var, TupleVariable):
        return tuple(_node(i) for i in var.items)
    if isinstance(var, ListVariable):
        return [_node(i) for i in var.items]
    return {k: _node(v) for k, v in var.items.items()}


def _holds_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(v) for v in value)
    return False


def _replace_list(source, parts):
    def step(frame, outputs):
        source.get(frame)[:] = [p(frame, outputs) for p in parts]
    return step


def _replace_dict(source, parts):
    def step(frame, outputs):
        target = source.get(frame)
        values = {k: p(frame, outputs) for k, p in parts}
        target.clear()
        target.update(values)
    return step


def _store_attr(source, name, part):
    def step(frame, outputs):
        setattr(source.get(frame), name, part(frame, outputs))
    return step


def _store_global(namespace, name, part):
    def step(frame, outputs):
        namespace[name] = part(frame, outputs)
    return step
