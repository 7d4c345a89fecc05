"""The autograd graph: `Node`s recorded by the dispatcher as ops run.

When an op runs with grad mode on and an input that requires grad, the dispatcher calls
`record(op, args, out)`. It makes one node (class `<Op>Backward0`, e.g. `AddBackward0`) that
keeps the op's arguments, the versions of the tensors its derivative formulas read, and one edge
per tensor input: `(input.grad_fn or the input's AccumulateGrad, output_nr)`. The op's
derivative formulas (the `derivatives=` of its registry entry) run at backward time on a
`GradContext`; they are written in ember ops, so with `create_graph=True` they are recorded too.
"""
from __future__ import annotations

import itertools
import weakref

from ember._core import dispatch
from ember.autograd import anomaly_mode, grad_mode
from ember.autograd.saved_hooks import (  # noqa: F401  (public as ember.autograd.graph.*)
    _saved_hooks,
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)
from ember.autograd.saved_tensor import (
    FREED,
    SavedInput,
    SavedTensor,
    TensorInfo,
    save_input,
    save_output,
)

_sequence = itertools.count()
_new = object.__new__
_weak = weakref.ref


class RemovableHandle:
    """Returned by hook registrations; `remove()` takes the hook out again."""

    __slots__ = ("_hooks", "_key")

    def __init__(self, hooks: dict, key):
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_handle_ids = itertools.count()


class Node:
    """A backward function in the graph. `next_functions` are its edges toward the inputs."""

    __slots__ = (
        "__weakref__",
        "_hooks",
        "_pre_hooks",
        "_retain_grad_hooks",
        "_sequence_nr",
        "_tensor_pre_hooks",
        "metadata_",
        "next_functions",
    )

    def __init__(self):
        self.next_functions = ()
        self._hooks = None
        self._pre_hooks = None
        self._tensor_pre_hooks = None      # output_nr -> {id: hook} (Tensor.register_hook)
        self._retain_grad_hooks = None     # output_nr -> hook (Tensor.retain_grad)
        self._sequence_nr = next(_sequence)
        self.metadata_ = None

    def name(self) -> str:
        return type(self).__name__

    @property
    def metadata(self) -> dict:
        if self.metadata_ is None:
            self.metadata_ = {}
        return self.metadata_

    def _sequence(self) -> int:
        return self._sequence_nr

    def register_hook(self, fn) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) -> new grad_inputs or None; runs after this node."""
        if self._hooks is None:
            self._hooks = {}
        key = next(_handle_ids)
        self._hooks[key] = fn
        return RemovableHandle(self._hooks, key)

    def register_prehook(self, fn) -> RemovableHandle:
        """fn(grad_outputs) -> new grad_outputs or None; runs before this node."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        key = next(_handle_ids)
        self._pre_hooks[key] = fn
        return RemovableHandle(self._pre_hooks, key)

    def apply(self, grad_outputs):
        raise NotImplementedError

    def __call__(self, *grad_outputs):
        return self.apply(list(grad_outputs))

    def release(self) -> None:
        """Free what this node saved (after a backward without retain_graph)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


# An AccumulateGrad's sequence number is the largest (PyTorch's UINT64_MAX): of the nodes ready
# to run, it runs first (NOTE [ready order], engine.py).
ACCUMULATE_SEQUENCE = (1 << 64) - 1


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__()
        self._sequence_nr = ACCUMULATE_SEQUENCE
        self.variable = variable
        self.next_functions = ()

    def apply(self, grad_outputs):
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


def accumulate_node(t) -> AccumulateGrad:
    """The one AccumulateGrad of a leaf (kept while the leaf or the graph holds it)."""
    meta = t.__dict__
    ref = meta.get("_accumulate")
    node = ref() if ref is not None else None
    if node is None:
        # AccumulateGrad(t) without its two __init__ frames (made again whenever the graph
        # that held it is gone: once per input leaf of every recorded call in a loop).
        node = _new(AccumulateGrad)
        node.variable = t
        node.next_functions = ()
        node._hooks = node._pre_hooks = node._tensor_pre_hooks = None
        node._retain_grad_hooks = node.metadata_ = None
        node._sequence_nr = ACCUMULATE_SEQUENCE
        meta["_accumulate"] = _weak(node)
    return node


def edge_of(t):
    if t._base is not None:
        stale_view_check(t)
    fn = t._grad_fn
    if fn is None:
        return (accumulate_node(t), 0)
    return (fn, t.__dict__.get("_output_nr", 0))


def stale_view_check(view) -> None:
    """NOTE [stale views]: a view made with history records its storage's version; if the
    storage was written since (an in-place op on the base or another view), its history is
    rebuilt from the base's current one before it is used (inplace.refresh_view)."""
    made_at = view.__dict__.get("_view_version")
    if made_at is not None and made_at != view._version:
        refresh_view(view)


refresh_view = None     # installed by ember.autograd.inplace


def output_nr(t) -> int:
    return t.__dict__.get("_output_nr", 0) if t._grad_fn is not None else 0


# --------------------------------------------------------------------------- op nodes

_FREED = FREED     # kept for function.py and checkpoint.py


class GradContext:
    """What a derivative formula sees: `grad`/`grads`, the op's arguments by schema name,
    `result`/`results`, and for an element of a `Tensor[]` argument (cat, stack, einsum ...)
    its position in the list as `list_index` (None for a plain tensor argument). `memo` is
    free for formulas to share work within one backward call of the node (e.g. cat computes
    every piece of the gradient once). Tensors come from the node's saved set (NOTE [saved
    tensors]): an argument the entry does not save reads as its `TensorInfo`."""

    __slots__ = ("_grads", "_node", "list_index", "memo")

    def __init__(self, node, grads):
        self._node = node
        self._grads = grads
        self.list_index = None
        self.memo = None

    # NOTE [zero gradients on demand]: an output no gradient reached reads as zeros, made
    # when a formula first reads it: PyTorch's formulas see such a gradient as undefined and
    # most never read it, so a mode sees no `zeros` for them (nll_loss's total weight,
    # batch norm's saved statistics).
    @property
    def grads(self):
        grads = self._grads
        for k, g in enumerate(grads):
            if g is None:
                grads[k] = self._zero(k)
        return grads

    @property
    def grad(self):
        g = self._grads[0]
        if g is None:
            g = self._grads[0] = self._zero(0)
        return g

    def _zero(self, k):
        meta = self._node._output_meta[k]
        if meta is None:
            return None
        shape, dtype, device = meta
        from ember._ops.creation import zero_gradient
        return zero_gradient(shape, dtype, device)

    @property
    def result(self):
        results = self.results
        return results[0] if results else None

    @property
    def results(self):
        node = self._node
        return tuple(r.unpack(node) if r is not None else r for r in node._results)

    def __getattr__(self, name):
        node = self._node
        index = node._op_arg_index.get(name)
        if index is None:
            raise AttributeError(f"{node.name()} has no argument '{name}'")
        value = node._args[index]
        if isinstance(value, SavedTensor):
            return value.unpack(node)
        if type(value) is SavedList:
            return [v.unpack(node) if isinstance(v, SavedTensor) else v for v in value]
        return value


class SavedList(tuple):
    """A `Tensor[]` argument as a node keeps it: SavedTensor or TensorInfo per element."""

    __slots__ = ()


class OpNode(Node):
    """A node for a registry op; subclassed per op so `type(node).__name__` is its name."""

    __slots__ = (
        "_args",
        "_freed",
        "_input_meta",
        "_op",
        "_op_arg_index",
        "_output_meta",
        "_results",
        "_saved",
    )

    def apply(self, grad_outputs):
        saved = self._saved
        if saved:
            if self._freed:
                raise RuntimeError(FREED)
            for s in saved:
                s.check_version(self)
        ctx = _new(GradContext)         # GradContext(self, grads), inlined
        ctx._node = self
        ctx._grads = list(grad_outputs)
        ctx.list_index = ctx.memo = None
        op = self._op
        derivatives = op.derivatives or {}
        input_meta, edges = self._input_meta, self.next_functions
        out = [None] * len(input_meta)
        for k in (range(len(input_meta)) if _in_schema_order.get(op) else
                  _formula_order(op, input_meta)):
            if edges[k] is None:
                continue
            name, _, element = input_meta[k]
            ctx.list_index = element
            formula = derivatives.get(name)
            if formula is None:
                raise NotImplementedError(
                    f"the derivative for '{op.schema.name}' with respect to '{name}' is not "
                    "implemented.")
            out[k] = formula(ctx)
        # Fitted once every formula has run (PyTorch's validate_outputs), so a mode sees the
        # formulas' ops first and then the reductions to the inputs' shapes.
        for k, g in enumerate(out):
            if g is not None:
                meta = input_meta[k][1]
                if g._data.shape != meta[0] or g._dtype is not meta[1]:
                    out[k] = fit_gradient(g, meta, self, k)
        return out

    def release(self) -> None:
        """Drop the saved tensors (a node that saved none can run again, as in PyTorch)."""
        if self._saved:
            self._freed = True
            for s in self._saved:
                s.release()


_in_schema_order: dict = {}


def _formula_order(op, input_meta):
    """The order the formulas run in: the entry's `derivatives=` order where it differs from
    the schema's (mm computes mat2's gradient first, as PyTorch's MmBackward0 does, so a mode
    sees PyTorch's sequence), else the inputs' order."""
    plain = _in_schema_order.get(op)
    if plain is None:
        names = [a.name for a in op.schema.arguments]
        listed = [n for n in (op.derivatives or ()) if n in names]
        plain = _in_schema_order[op] = listed == sorted(listed, key=names.index)
    if plain:
        return range(len(input_meta))
    rank = {name: i for i, name in enumerate(op.derivatives)}
    return sorted(range(len(input_meta)), key=lambda k: rank.get(input_meta[k][0], 0))


def fit_gradient(grad, meta, node, index):
    """Reduce a broadcast gradient to its input's shape and cast it to the input's dtype;
    a gradient that can't be reduced to that shape is the node's error, as in PyTorch."""
    shape, dtype = meta
    if grad._data.shape != shape:
        if _expandable(shape, tuple(grad.shape)):
            grad = sum_to_size(grad, shape)
        else:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
    if grad._dtype is not dtype:
        grad = grad.to(dtype) if grad._dtype.is_complex == dtype.is_complex or \
            dtype.is_complex else grad.real.to(dtype)
    return grad


def _expandable(shape, target):
    """Whether `shape` broadcasts to `target`."""
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(target)))


def sum_to_size(grad, shape):
    """Sum `grad` over the dimensions that broadcasting added or expanded to reach its shape."""
    shape = tuple(shape)
    lead = grad.ndim - len(shape)
    dims = list(range(lead))
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    return grad


_node_classes: dict = {}


def node_class(op):
    """The node class of `op`: "<Name>Backward0" unless the entry names it (a string)."""
    cls = _node_classes.get(op)
    if cls is None:
        name = op.node_name if isinstance(op.node_name, str) else None
        if name is None:
            base = op.schema.name.strip("_")
            name = "".join(part[:1].upper() + part[1:] for part in base.split("_")) + \
                "Backward0"
        cls = _node_classes[op] = node_class_named(name)
    return cls


def node_class_named(name):
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name, (OpNode,), {"__slots__": ()})
    return cls


class _Plan:
    """What `record` needs to know about an op, worked out once per op."""

    __slots__ = (
        "arg_index",
        "is_view",
        "list_args",
        "name_of",
        "node_class",
        "op_name",
        "saved_outputs",
        "tensor_args",
    )

    def __init__(self, op):
        arguments = op.schema.arguments
        self.node_class = node_class(op)
        self.name_of = op.node_name if callable(op.node_name) else None
        self.is_view = op.kind == "view"
        self.arg_index = {a.name: i for i, a in enumerate(arguments)}
        self.op_name = op.schema.name
        names = op.saves
        # (position, name, saved?) for tensor and Tensor[] arguments; saves=None: all of them.
        self.tensor_args = tuple((i, arguments[i].name, names is None or arguments[i].name in
                                  names) for i in op.tensor_positions)
        self.list_args = tuple((i, arguments[i].name, names is None or arguments[i].name in
                                names) for i in op.list_positions)
        if names is None:
            self.saved_outputs = ()
        elif "result" in names:
            self.saved_outputs = None   # every output
        else:
            # One output only ("result1": the indices of max.dim, sort ...).
            self.saved_outputs = tuple(int(n[6:]) for n in names
                                       if n.startswith("result") and n[6:].isdigit())


_plans: dict = {}
_NOTHING = (None,)      # one output that keeps nothing (its results / its metadata)


def record(op, args, out):
    """Called by the dispatcher when an input requires grad: add a node for this call."""
    if not grad_mode._state.grad_enabled or not op.differentiable:
        return
    plan = _plans.get(op)
    if plan is None:
        plan = _plans[op] = _Plan(op)
    # NOTE [recording cost]: this runs once per recorded op, so it is written for CPython's
    # costs (measured in benchmarks/bench_dispatch.py): objects are made with object.__new__
    # and their fields set here rather than through __init__ frames, a tensor's version is
    # read off its storage rather than through the `_version` property, a leaf's live
    # AccumulateGrad is found here (accumulate_node only makes one), and a single output (the
    # common case) is handled without building the per-output lists' loops.
    Tensor = dispatch.Tensor
    edges, input_meta, saved = [], [], []
    kept = [*args]
    for i, name, keep in plan.tensor_args:
        v = args[i]
        if type(v) is Tensor or isinstance(v, Tensor):
            if v._base is not None:
                stale_view_check(v)
            if v._requires_grad:
                fn = v._grad_fn
                if fn is None:
                    ref = v.__dict__.get("_accumulate")
                    fn = ref() if ref is not None else None
                    edges.append((fn if fn is not None else accumulate_node(v), 0))
                else:
                    edges.append((fn, v.__dict__.get("_output_nr", 0)))
            else:
                edges.append(None)
            input_meta.append((name, (v._data.shape, v._dtype), None))
            if keep:
                if "_inference" in v.__dict__:
                    raise RuntimeError(grad_mode._INFERENCE_SAVED)
                if _saved_hooks:
                    s = save_input(v)
                else:               # save_input, inlined
                    s = _new(SavedInput)
                    s.tensor = v
                    storage = v._storage
                    s.version = 0 if storage is None else storage._version
                kept[i] = s
                saved.append(s)
            else:
                kept[i] = info = _new(TensorInfo)      # TensorInfo(v, ...), inlined
                info._shape = v._data.shape
                info.dtype = v._dtype
                info.device = v._device
                info._op_name = plan.op_name
                info._arg_name = name
    if plan.list_args:
        _record_lists(plan, args, kept, edges, input_meta, saved, Tensor)
    single = type(out) is not tuple
    outputs = (out,) if single else out
    node = _new(plan.node_class if plan.name_of is None else
                node_class_named(plan.name_of(args, outputs)))
    # Node.__init__, inlined:
    node._hooks = node._pre_hooks = node._tensor_pre_hooks = None
    node._retain_grad_hooks = node.metadata_ = None
    node._sequence_nr = next(_sequence)
    node.next_functions = tuple(edges)
    node._op = op
    node._args = kept
    node._input_meta = input_meta
    node._freed = False
    node._op_arg_index = plan.arg_index
    node._saved = saved
    if single and isinstance(out, Tensor):
        wanted = plan.saved_outputs
        # (`_results` and `_output_meta` are read, never written, after this: tuples, one
        # allocation each, or a shared one.)
        if wanted is None or 0 in wanted:
            s = save_output(out, 0)
            node._results = (s,)
            saved.append(s)
        else:
            node._results = _NOTHING
        dtype = out._dtype
        if dtype.is_floating_point or dtype.is_complex:
            out._grad_fn = node
            out._requires_grad = True
            # A subclass's own device (a FakeTensor's fake_device), for its zero gradient.
            node._output_meta = ((out._data.shape, dtype,
                                  out._device if type(out) is Tensor else out.device),)
            if plan.is_view:
                out.__dict__["_view_version"] = out._version
        else:
            node._output_meta = _NOTHING
    else:
        _record_outputs(node, plan, outputs, saved, Tensor)
    if anomaly_mode.state.enabled:
        anomaly_mode.remember_forward_stack(node)


def _record_lists(plan, args, kept, edges, input_meta, saved, Tensor):
    """record's part for `Tensor[]` arguments (cat, stack, einsum ...)."""
    for i, name, keep in plan.list_args:
        elements = []
        for j, v in enumerate(args[i]):
            if isinstance(v, Tensor):
                edges.append(edge_of(v) if v._requires_grad else None)
                input_meta.append((name, (v._data.shape, v._dtype), j))
                if keep:
                    s = save_input(v)
                    saved.append(s)
                    elements.append(s)
                else:
                    elements.append(TensorInfo(v, plan.op_name, name))
            else:
                elements.append(v)
        kept[i] = SavedList(elements)


def _record_outputs(node, plan, outputs, saved, Tensor):
    """record's part for an op of several outputs (or a result that is not a tensor)."""
    results = [None] * len(outputs)
    for k in (range(len(outputs)) if plan.saved_outputs is None else plan.saved_outputs):
        o = outputs[k]
        if isinstance(o, Tensor):
            results[k] = s = save_output(o, k)
            saved.append(s)
    node._results = results
    output_meta = []
    for k, o in enumerate(outputs):
        if isinstance(o, Tensor):
            dtype = o._dtype
            if dtype.is_floating_point or dtype.is_complex:
                o._grad_fn = node
                o._requires_grad = True
                if k:
                    o.__dict__["_output_nr"] = k
                output_meta.append((o._data.shape, dtype,
                                    o._device if type(o) is Tensor else o.device))
                continue
        output_meta.append(None)
    node._output_meta = output_meta
    if plan.is_view:
        for o in outputs:
            if isinstance(o, Tensor) and o._grad_fn is node:
                o.__dict__["_view_version"] = o._version


dispatch.state.record = record
dispatch.state.grad_enabled = grad_mode.is_grad_enabled