"""From an fx graph of ATen ops to the IR: `GraphLowering` walks the nodes, lowering each op
through the table in `lowerings.py` and running the rest as extern calls.

NOTE [when a value is realized]: a pointwise value is inlined into whatever loads it, except
- a value loaded by several nodes that holds a transcendental (exp, log, tanh, erf ...), which
  is stored once so that no transcendental is computed twice per element (softmax's exp);
- a value loaded by several nodes whose inlined form loads `_SHARED_LOADS` or more buffers per
  element (a residual stream's sums), and a composite's input (softmax, layer norm: read in
  several loops) that loads more than one: stored once, read as one buffer, instead of every
  reader loading and adding all its terms again;
- a reduction's result, always stored;
- an extern call's argument, and a graph output.
Stored values are `ComputedBuffer`s appended to `steps` in program order; the scheduler may
still compute one inside the loop of its first reader (NOTE [fused producers are stored where
they are computed]).
"""
from __future__ import annotations

import operator

# Each family fills the table as it loads.
import ember._inductor.lowering_backward
import ember._inductor.lowering_loops
import ember._inductor.lowering_loss
import ember._inductor.lowering_pointwise
import ember._inductor.lowering_reductions
import ember._inductor.lowering_views  # noqa: F401
from ember._inductor import codegen_c
from ember._inductor.ir import (
    Buffer,
    contiguous_strides,
    BufferRead,
    ComputedBuffer,
    Pointwise,
    TensorBox,
    View,
)
from ember._inductor.lowerings import LOWERINGS
from ember._tensor import Tensor

_SHARED_LOADS = 3       # NOTE [when a value is realized]

# Ops whose results are views: a user reached through them counts as a user of the base.
VIEW_TARGET_NAMES = {"view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand",
                     "unsqueeze", "squeeze", "alias", "detach", "slice", "select"}


class ExternStep:
    """An op the wrapper runs eagerly: `target(*args, **kwargs)` with TensorBox arguments
    replaced by `TensorArg`s; `outputs` the buffers its tensor results are copied into (None
    for a view replayed on a real tensor: `view_name` then names the wrapper's variable)."""

    def __init__(self, target, args, kwargs, outputs, view_name=None, single=True):
        self.target = target
        self.single = single      # one tensor result (else a tuple, read by position)
        self.args = args
        self.kwargs = kwargs
        self.outputs = outputs
        self.view_name = view_name

    def tensor_args(self) -> list:
        found = []

        def walk(v):
            if isinstance(v, TensorArg):
                found.append(v)
            elif isinstance(v, (list, tuple)):
                for item in v:
                    walk(item)
        walk(self.args)
        walk(list(self.kwargs.values()))
        return found


class TensorArg:
    """An extern call's tensor argument: a buffer (`buffer`), or a replayed view (`view`, the
    ExternStep that made it, whose base buffers are `reads`)."""

    def __init__(self, buffer=None, view=None, reads=()):
        self.buffer = buffer
        self.view = view
        self.reads = tuple(reads)


class GraphLowering:
    def __init__(self, gm, example_inputs, input_shapes=None):
        self.lowerings = LOWERINGS
        # per input: its shape with SymSizes (NOTE [symbolic sizes in kernels]), or None
        self.input_shapes = input_shapes
        self.gm = gm
        self.example_inputs = list(example_inputs)
        self.steps = []            # ComputedBuffer | ExternStep, in program order
        self.inputs = []           # per placeholder: Buffer, or None for a non-tensor
        self.constants = {}        # buffer name -> Tensor (get_attr values)
        self.outputs = None        # the output node's structure, boxes realized to buffers
        self.env = {}
        self.buffers = {}          # name -> the Buffer as made (aliases share its name)
        self.names = 0
        self.extern_count = 0

    def new_name(self, prefix="buf") -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    # ------------------------------------------------------------------ the walk
    def run(self):
        placeholders = 0
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                value = self.example_inputs[placeholders]
                placeholders += 1
                self.env[node] = self._input(value)
            elif node.op == "get_attr":
                self.env[node] = self._constant(_fetch_attr(self.gm, node.target))
            elif node.op == "call_function":
                self.env[node] = self._call(node)
            elif node.op == "output":
                self.outputs = self._outputs(node.args[0])
            else:
                raise NotImplementedError(f"inductor: fx node kind {node.op!r}")
        return self

    def _input(self, value):
        if not isinstance(value, Tensor):
            self.inputs.append(None)
            return value
        shape = self.input_shapes[len(self.inputs)] if self.input_shapes else None
        if shape is not None and shape != tuple(value.shape):
            raise AssertionError("inductor: symbolic input shapes differ from the inputs")
        if shape is not None and any(type(s) is not int for s in shape) and \
                value.is_contiguous():
            # dynamic dims belong to contiguous inputs only (NOTE [dynamic dimensions])
            buf = Buffer(f"in{len(self.inputs)}", shape, value.dtype, kind="input")
        else:
            buf = Buffer(f"in{len(self.inputs)}", value.shape, value.dtype,
                         _element_strides(value), kind="input")
        self.inputs.append(buf)
        self.buffers[buf.name] = buf
        return TensorBox(BufferRead(buf))

    def _constant(self, value):
        if not isinstance(value, Tensor):
            return value
        buf = Buffer(self.new_name("const"), value.shape, value.dtype, _element_strides(value),
                     kind="constant")
        self.constants[buf.name] = value
        self.buffers[buf.name] = buf
        return TensorBox(BufferRead(buf))

    def _call(self, node):
        args = self._map(node.args, self._lookup)
        kwargs = self._map(dict(node.kwargs), self._lookup)
        if node.target is operator.getitem:
            return args[0][args[1]]
        lowering = self.lowerings.get(node.target)
        if lowering is not None and not node.users:
            return None        # dead: lowered ops have no effect but their result
        if lowering is None or not _supported(node, args):
            return self.extern(node, args, kwargs)
        result = lowering(self, node, *args, **kwargs)
        if isinstance(result, TensorBox) and type(result.data) is Pointwise and \
                (result.is_expensive() or result.loads() >= _SHARED_LOADS) and \
                _effective_users(node) > 1:
            self.realize(result)
        return result

    def _lookup(self, v):
        return self.env[v] if hasattr(v, "op") and hasattr(v, "target") else v

    def _map(self, value, fn):
        # fx keeps node arguments in immutable_list / immutable_dict (list and dict
        # subclasses): a list of tensors (cat's) must be mapped too.
        if isinstance(value, list):
            return [self._map(v, fn) for v in value]
        if type(value) is tuple:
            return tuple(self._map(v, fn) for v in value)
        if isinstance(value, dict):
            return {k: self._map(v, fn) for k, v in value.items()}
        return fn(value)

    # ------------------------------------------------------------------ realization
    def realize(self, box) -> Buffer:
        """Store `box` (NOTE [when a value is realized]); its readers load the buffer."""
        data = box.data
        if type(data) is BufferRead:
            return data.buffer
        if type(data) is View:
            data = Pointwise(data.shape, data.dtype, data.load)
        buf = ComputedBuffer(self.new_name(), data)
        self.steps.append(buf)
        self.buffers[buf.name] = buf
        box.data = BufferRead(buf)
        return buf

    def reduction(self, red) -> TensorBox:
        buf = ComputedBuffer(self.new_name(), red)
        self.steps.append(buf)
        self.buffers[buf.name] = buf
        return TensorBox(BufferRead(buf))

    def _outputs(self, values):
        # NOTE [saved values leave as views]
        first = self.gm.meta.get("saved_outputs_from")
        if first is None or type(values) not in (tuple, list):
            return self._map(values, lambda v: self._output(self._lookup(v)))
        out = [self._map(v, lambda v: self._output(self._lookup(v))) for v in values[:first]]
        shown = _buffer_names(out)
        out += [self._saved_output(self._lookup(v), shown) for v in values[first:]]
        return type(values)(out)

    # NOTE [saved values leave as views]: the forward graph AOT autograd compiles returns
    # the values its backward reads after the user's outputs (`gm.meta["saved_outputs_from"]`
    # is where they start). Nothing but the compiled backward reads them, and nothing writes
    # them, so one that is a view of a buffer this graph computes (a transposed attention
    # matrix, q, k and v as slices of one projection, a matmul's result reshaped) leaves as
    # that view (sizes, strides and offset on the buffer's memory), not as a dense copy: the
    # backward is compiled for the layouts the compiled forward returns (NOTE [the backward's
    # examples come from the compiled forward] in _functorch/aot_autograd.py). The buffer is
    # then an output: memory planning never gives its slot to another value. Views of inputs
    # and constants are still copied (a saved input is kept by AOT autograd with its version
    # checks; a view of one would escape them), and so are views of a buffer the user gets as
    # an output (an in-place write into it would change the saved value unseen).
    def _saved_output(self, value, shown=frozenset()):
        if not isinstance(value, TensorBox):
            return value
        buf = value.buffer()
        if buf is None and value.eager_view is not None:
            buf = self._alias_from_views(value)
        if buf is not None and self.buffers[buf.name].kind in ("computed", "extern") and \
                buf.name not in shown and self._is_plain_alias(buf):
            return buf
        return self._output(value)

    def _output(self, value):
        if isinstance(value, TensorBox):
            buf = value.buffer()
            if buf is None or buf.kind in ("input", "constant") or not self._is_whole(buf):
                # A fresh, dense result (an input, a constant or a view of a buffer is copied).
                data = value.data
                copy = TensorBox(Pointwise(value.shape, value.dtype, data.load if
                                           type(data) is not Pointwise else data.inner))
                buf = self.realize(copy)
            return buf
        return value

    # ------------------------------------------------------------------ extern calls
    def extern(self, node, args, kwargs):
        """Run `node` eagerly in the wrapper; its tensor results become buffers."""
        targs = self._map(args, self._tensor_arg)
        tkwargs = self._map(kwargs, self._tensor_arg)
        val = node.meta.get("val")
        self.extern_count += 1
        if isinstance(val, Tensor):
            out = Buffer(self.new_name(), val.shape, val.dtype, kind="extern")
            self.buffers[out.name] = out
            self.steps.append(ExternStep(node.target, targs, tkwargs, [out]))
            return TensorBox(BufferRead(out))
        if isinstance(val, (tuple, list)):
            outs = [Buffer(self.new_name(), v.shape, v.dtype, kind="extern")
                    if isinstance(v, Tensor) else None for v in val]
            self.buffers.update((o.name, o) for o in outs if o is not None)
            self.steps.append(ExternStep(node.target, targs, tkwargs, outs, single=False))
            return tuple(TensorBox(BufferRead(o)) if o is not None else None for o in outs)
        raise NotImplementedError(f"inductor: {node.target} returns {type(val).__name__}")

    def _tensor_arg(self, value):
        if not isinstance(value, TensorBox):
            return value
        buf = value.buffer()
        if buf is not None and self._is_whole(buf):
            return TensorArg(buffer=self.buffers[buf.name])
        if buf is not None and self._is_plain_alias(buf):
            # NOTE [strided aliases for extern calls]
            return TensorArg(buffer=buf)
        if value.eager_view is not None:
            alias = self._alias_from_views(value)
            if alias is not None:
                return TensorArg(buffer=alias)
            node, base = value.eager_view
            if any(user.op == "output" for user in node.users):
                # also a graph output, which is stored dense anyway (it views no buffer):
                # the extern call reads that copy instead of replaying the chain into another
                return TensorArg(buffer=self.realize(value))
            base_arg = self._tensor_arg(base)
            name = self.new_name("view")
            args = (base_arg,) + tuple(self._map(a, self._lookup_plain) for a in node.args[1:])
            step = ExternStep(_replayable(node.target), args, dict(node.kwargs), None,
                              view_name=name)
            self.steps.append(step)
            reads = base_arg.reads if base_arg.view is not None else (base_arg.buffer.name,)
            return TensorArg(view=step, reads=reads)
        return TensorArg(buffer=self.realize(value))

    def _is_whole(self, buf) -> bool:
        """Whether `buf` reads its memory as it was made (not an alias of part of it)."""
        made = self.buffers[buf.name]
        return buf.shape == made.shape and buf.strides == made.strides and \
            buf.offset == made.offset

    # NOTE [strided aliases for extern calls]: a view an extern call reads (a weight's
    # transpose, the heads of q, k, v as slices and permutations of one buffer) that the
    # lowering could express as sizes, strides and an offset into a contiguous buffer is
    # handed over as a NumPy view made from those numbers (`wrapper._view`), not replayed
    # through the dispatcher's view ops one by one.
    def _is_plain_alias(self, buf) -> bool:
        made = self.buffers[buf.name]
        if made.kind in ("input", "constant") and \
                tuple(made.strides) != contiguous_strides(made.shape):
            return False
        return all(int(s) >= 0 for s in buf.strides) and int(buf.offset) >= 0

    def _alias_from_views(self, value):
        """A chain of view ops ending at a whole buffer, replayed once now on an array laid
        out as that buffer is: when the result still views that array, the chain is the
        buffer read with the result's sizes, strides and offset (NOTE [strided aliases for
        extern calls]); else None (the wrapper replays the chain at each call)."""
        import numpy as np

        from ember._core.dispatch.wrapping import wrap_array
        node, box = value.eager_view
        chain = [node]
        while True:
            buf = box.buffer()
            if buf is not None and self._is_whole(buf):
                break
            if box.eager_view is None:      # stored, as the replayed view would need
                buf = self.realize(box)
                break
            if box.eager_view[0] is not node.args[0]:
                return None     # a box another op passed on (a clone lowers to no copy)
            node, box = box.eager_view
            chain.append(node)
        made = self.buffers[buf.name]
        base = np.empty(tuple(int(s) for s in made.shape), made.dtype._np)
        t = wrap_array(base)
        for step in reversed(chain):
            rest = step.args[1:]
            if any(hasattr(a, "op") for a in rest) or \
                    any(hasattr(a, "op") for a in step.kwargs.values()):
                return None
            t = _replayable(step.target)(t, *rest, **step.kwargs)
        result = t._data
        item = base.itemsize
        offset = result.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        if result.dtype != base.dtype or not np.may_share_memory(result, base) or offset % item \
                or any(st % item for st in result.strides):
            return None
        alias = made.alias(result.shape, tuple(st // item for st in result.strides),
                           offset // item)
        return alias if self._is_plain_alias(alias) else None

    def _lookup_plain(self, v):
        if hasattr(v, "op") and hasattr(v, "target"):
            raise NotImplementedError("inductor: a view whose arguments are computed")
        return v


def _buffer_names(value) -> set:
    if type(value) in (list, tuple):
        return set().union(*(_buffer_names(v) for v in value)) if value else set()
    name = getattr(value, "name", None)
    return {name} if name is not None else set()


def _replayable(target):
    """The op a view is replayed with on its base buffer. A buffer's layout is the compiled
    graph's own (a clone lowers to no copy), so a shape change the eager graph could take as a
    view (`x.t().contiguous().view(n)`) may meet a base it cannot view: in a functional graph
    reshape gives the same values, copying only then."""
    if getattr(target, "__name__", "") in ("view.default", "_unsafe_view.default"):
        from ember.ops import aten
        return aten.reshape.default
    return target


def _element_strides(t) -> tuple:
    item = t._data.itemsize
    return tuple(s // item for s in t._data.strides)


def _fetch_attr(gm, target: str):
    value = gm
    for part in target.split("."):
        value = getattr(value, part)
    return value


def _effective_users(node) -> int:
    """Users, counting those reached through view ops as users of `node` (NOTE [when a
    value is realized])."""
    count = 0
    for user in node.users:
        name = getattr(getattr(user.target, "overloadpacket", None), "__name__", None)
        if name in VIEW_TARGET_NAMES:
            count += _effective_users(user)
        else:
            count += 1
    return count


def _supported(node, args) -> bool:
    """Lowered only when every tensor involved has a dtype the C kernels handle."""
    vals = node.meta.get("val")
    for v in (vals if isinstance(vals, (tuple, list)) else (vals,)):
        if isinstance(v, Tensor) and (v.dtype not in codegen_c.C_TYPES or v.numel() == 0):
            return False
    for a in args:
        if isinstance(a, TensorBox) and a.dtype not in codegen_c.C_TYPES:
            return False
    return True
