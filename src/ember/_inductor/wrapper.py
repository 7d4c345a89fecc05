"""The Python function that runs a compiled graph: guards, buffers, kernel calls, extern calls.

It is generated as source (`wrapper.source` shows it) so each call does only the work of this
graph. NOTE [compiled graphs guard their inputs]: the kernels were written for the example
inputs' sizes, strides and dtypes; a call with anything else (another shape, a non-contiguous
view where a contiguous input was seen, a subclass other than Parameter, another device), an input that requires
grad while grad mode is on, or any dispatch mode or handler open (`state.slow`) runs the
original graph eagerly instead, so a compiled graph never gives a wrong result.
"""
from __future__ import annotations

import ctypes
import math
import re
import threading

import numpy as np

from ember._backends import cpu_allocator
from ember._core import dtype as dt
from ember._core.device import CPU
from ember._core.dispatch.process_state import state
from ember._core.dispatch.wrapping import wrap, wrap_array
from ember._inductor.lowering import ExternStep, TensorArg
from ember._tensor import Tensor
from ember.ops import aten
from ember.nn import Parameter


def _flat(t):
    """An extern result as a flat C-ordered array."""
    a = t._data
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return a.reshape(-1)


def _tensor(slot, shape):
    return wrap_array(slot.reshape(shape))


class _Writer:
    def __init__(self):
        self.lines = []
        self.globals = {"_state": state, "_Tensor": Tensor, "_CPU": CPU, "_np": np,
                        "_empty": cpu_allocator.empty, "_matmul": cpu_allocator.matmul,
                        "_flat": _flat, "_tensor": _tensor, "_embedding": _embedding, "_view": _view, "_wrap": wrap_array, "_wrapd": wrap,
                        "_Parameter": Parameter, "_addr": ctypes.addressof,
                        "_cbuf": ctypes.c_char.from_buffer}
        self.count = 0

    def const(self, value, prefix="_c") -> str:
        name = f"{prefix}{self.count}"
        self.count += 1
        self.globals[name] = value
        return name

    def emit(self, line, depth=1):
        self.lines.append("    " * depth + line)


def build(graph, items, plan, functions, fallback, inputs_guarded=False, preallocate=False):
    """The compiled callable for `graph` (a run GraphLowering) scheduled as `items`.
    `inputs_guarded`: the caller (graph capture's TENSOR_MATCH and GRAD_MODE guards) already
    checked every fact the input guards below check, for inputs that are plain Tensors or
    Parameters: those checks are left out (NOTE [compiled graphs guard their inputs]).
    `preallocate`: NOTE [reduce-overhead]."""
    w = _Writer()
    w.buffers = graph.buffers
    w.arrays = {}        # replayed view name -> the NumPy array it wraps
    w.ndims = {}         # ... and its number of dims
    w.batched = {}       # NOTE [batched matmul on the unmerged views]
    static = _static_slots(graph, items, plan) if preallocate else set()
    w.globals["_fallback"] = fallback
    w.globals["_grad_enabled"] = state.grad_enabled
    pointer = {}        # buffer name -> expression of its address
    array = {}          # buffer name -> expression of its flat array (computed, extern)
    tensors = {}        # buffer name -> expression of a Tensor of it (inputs, constants)
    n = len(graph.inputs)
    kernel_reads = {name for item in items if not isinstance(item, ExternStep)
                    for name in item.kernel.params}
    w.globals["_seen"] = [(None, 0)] * n
    w.emit(f"if _state.slow or len(args) != {n}:")
    w.emit("return _fallback(*args)", 2)
    if n:
        w.emit(", ".join(f"a{i}" for i in range(n)) + ", = args")
    for i, (buf, example) in enumerate(zip(graph.inputs, graph.example_inputs)):
        if buf is None:
            w.emit(f"if type(a{i}) is not {w.const(type(example))} or "
                   f"a{i} != {w.const(example)}:")
            w.emit("return _fallback(*args)", 2)
            continue
        data = example._data
        if inputs_guarded and type(example) in (Tensor, Parameter):
            tensors[buf.name] = f"a{i}"
            if buf.name in kernel_reads:
                _input_pointer(w, i)
                pointer[buf.name] = f"p_a{i}"
            continue
        w.emit(f"if (type(a{i}) is not _Tensor and type(a{i}) is not _Parameter) or "
               f"a{i}._device is not _CPU or "
               f"a{i}._dtype is not {w.const(example._dtype)} or "
               f"a{i}._data.shape != {tuple(data.shape)!r} or "
               f"a{i}._data.strides != {tuple(data.strides)!r} or "
               f"(a{i}._requires_grad and _grad_enabled()):")
        w.emit("return _fallback(*args)", 2)
        tensors[buf.name] = f"a{i}"
        if buf.name in kernel_reads:
            _input_pointer(w, i)
            pointer[buf.name] = f"p_a{i}"
    for name, value in graph.constants.items():
        pointer[name] = w.const(value._data.ctypes.data, "_ptr")
        tensors[name] = w.const(value, "_const")
        w.globals["_keep" + name] = value
    outputs = w.outputs = _output_names(graph.outputs)
    shaped = {}          # slot -> (shape, dtype): a graph output's, allocated in its shape
    for step, item in enumerate(items):
        if not isinstance(item, ExternStep):
            for buf in item.writes():
                if buf.name in outputs:
                    shaped[plan.slot_of[buf.name]] = (tuple(int(s) for s in buf.shape),
                                                      buf.dtype)
        for slot, size, dtype in plan.allocations[step]:
            if slot in static:
                memory = np.empty(size, dtype._np)
                w.globals[slot] = memory
                w.globals[f"p_{slot}"] = memory.ctypes.data
                continue
            # NOTE [buffers from the caching allocator]
            alloc = repr(shaped[slot][0]) if slot in shaped else f"({int(size)},)"
            w.emit(f"{slot} = _empty({alloc}, {w.const(dtype._np)})")
            w.emit(f"p_{slot} = _addr(_cbuf({slot}))")
        if isinstance(item, ExternStep):
            _extern(w, item, pointer, array, tensors)
            continue
        for buf in item.writes():
            slot = plan.slot_of[buf.name]
            pointer[buf.name] = f"p_{slot}"
            array[buf.name] = (slot, buf.shape)
        fn = w.const(functions[item.kernel.name], "_k")
        args = [pointer[name] for name in item.kernel.params]
        # this variant's sizes: NOTE [symbolic sizes in kernels] (sizes.py)
        args += [str(graph.size_values[name]) for name in item.kernel.size_args]
        w.emit(f"{fn}({', '.join(args)})")
    w.globals["_shaped"] = shaped
    w.emit(f"return {_structure(w, graph.outputs, array, tensors)}")
    source = "def call(*args):\n" + "\n".join(_unused_wraps_dropped(w.lines)) + "\n"
    namespace = dict(w.globals)
    exec(compile(source, "<ember inductor wrapper>", "exec"), namespace)  # noqa: S102
    call = namespace["call"]
    if static:
        call = _one_at_a_time(call)
    call.source = source
    return call


def _unused_wraps_dropped(lines):
    """Without the Tensor wrappers of replayed reshapes that only NumPy calls read (their
    arrays, `r_<name>`, are what the matmuls take), then without the reshapes and swaps
    nothing reads (NOTE [batched matmul on the unmerged views]), until none is left."""
    lines = _unused_dropped(lines, _WRAP_LINE, _NAME)
    while True:
        fewer = _unused_dropped(lines, _RESHAPE_LINE, _R_NAME)
        if len(fewer) == len(lines):
            return lines
        lines = fewer


def _unused_dropped(lines, line_pattern, name_pattern):
    wraps = {}
    for k, line in enumerate(lines):
        found = line_pattern.match(line)
        if found is not None:
            wraps[found.group(1)] = k
    if not wraps:
        return lines
    used = set()
    for k, line in enumerate(lines):
        for name in name_pattern.findall(line):
            if name in wraps and wraps[name] != k:
                used.add(name)
    dropped = {k for name, k in wraps.items() if name not in used}
    return [line for k, line in enumerate(lines) if k not in dropped]


_WRAP_LINE = re.compile(r"^\s*(view\d+) = _wrap\(r_\1\)$")
_NAME = re.compile(r"\bview\d+\b")
_RESHAPE_LINE = re.compile(r"^\s*(r_view\d+) = .*(\.reshape\(\([-\d, ]*\)\)|"
                           r"\.swapaxes\(-1, -2\))$")
_R_NAME = re.compile(r"\br_view\d+\b")


# NOTE [reduce-overhead]: `mode="reduce-overhead"` is PyTorch's CUDA-graph mode; its CPU
# analog here replays the planned kernel list on intermediates allocated once, when the
# graph is compiled, instead of at every call. Only slots that never leave the call get
# that: a slot holding a graph output (the caller keeps it) or a buffer an extern call reads
# (its result may alias it) is still made per call. Since calls share those slots, a lock
# makes calls of one compiled graph run one at a time (kernels release the GIL).
def _static_slots(graph, items, plan) -> set:
    from ember._inductor.scheduler import _reads_of
    leaving = set(_output_names(graph.outputs))
    for item in items:
        if isinstance(item, ExternStep):
            leaving |= _reads_of(item)
    taken = {plan.slot_of[name] for name in leaving if name in plan.slot_of}
    return set(plan.slot_of.values()) - taken


def _output_names(value) -> set:
    if type(value) is list or type(value) is tuple:
        return set().union(*(_output_names(v) for v in value)) if value else set()
    name = getattr(value, "name", None)
    return {name} if name is not None else set()


def _one_at_a_time(call):
    lock = threading.Lock()

    def locked(*args):
        with lock:
            return call(*args)
    return locked


# NOTE [pointers of arrays]: `ndarray.ctypes.data` costs microseconds (it builds a ctypes
# helper object), more than a small kernel. A slot the wrapper allocates (np.empty: contiguous
# and writable) gives its address through ctypes' buffer view instead; an input's address is
# kept with its array (one (array, address) tuple per input, replaced whole so that threads
# never see one's array with another's address) and reused while the same array comes back,
# as parameters and a training loop's batch tensors do. Holding the array keeps its memory,
# so the address stays its own.
def _input_pointer(w, i):
    w.emit(f"d{i} = a{i}._data")
    w.emit(f"k{i} = _seen[{i}]")
    w.emit(f"if k{i}[0] is d{i}:")
    w.emit(f"p_a{i} = k{i}[1]", 2)
    w.emit("else:")
    w.emit(f"p_a{i} = d{i}.ctypes.data", 2)
    w.emit(f"_seen[{i}] = (d{i}, p_a{i})", 2)


def _view(base, shape, strides, offset):
    """A NumPy view of the contiguous array `base` (NOTE [strided aliases for extern
    calls] in lowering.py); strides and offset in bytes."""
    return np.ndarray(shape, base.dtype, base, offset, strides)


class _Whole:
    """A buffer as an extern argument would hold it (for `_is_alias`)."""

    def __init__(self, buffer):
        self.buffer = buffer


def _is_alias(arg, made) -> bool:
    buf = arg.buffer
    return (tuple(buf.shape), tuple(buf.strides), buf.offset) != \
        (tuple(made.shape), tuple(made.strides), made.offset)


def _array_expr(arg, made, array, tensors) -> str:
    """An expression of the NumPy array a buffer argument reads."""
    buf = arg.buffer
    name = buf.name
    base = f"{tensors[name]}._data" if name in tensors else array[name][0]
    if not _is_alias(arg, made):
        if name in tensors:
            return base
        return f"{base}.reshape({tuple(int(s) for s in buf.shape)!r})"
    item = buf.dtype.itemsize
    shape = tuple(int(s) for s in buf.shape)
    strides = tuple(int(s) * item for s in buf.strides)
    return f"_view({base}, {shape!r}, {strides!r}, {int(buf.offset) * item})"


def _tensor_expr(arg, array, tensors, buffers=None) -> str:
    if arg.view is not None:
        return arg.view.view_name
    name = arg.buffer.name
    if buffers is not None and _is_alias(arg, buffers[name]):
        return f"_wrap({_array_expr(arg, buffers[name], array, tensors)})"
    if name in tensors:
        return tensors[name]
    slot, shape = array[name]
    return f"_tensor({slot}, {tuple(shape)!r})"


def _value_expr(w, value, array, tensors) -> str:
    if isinstance(value, TensorArg):
        return _tensor_expr(value, array, tensors, w.buffers)
    if type(value) is list or type(value) is tuple:
        items = ", ".join(_value_expr(w, v, array, tensors) for v in value)
        return f"[{items}]" if type(value) is list else f"({items}{',' if value else ''})"
    if value is None or type(value) in (int, bool, str) or \
            (type(value) is float and math.isfinite(value)):
        return repr(value)
    return w.const(value)     # an object, or inf and nan (whose reprs name nothing)


def _matmul_args(w, item):
    """The two buffer arguments of a float mm or bmm the wrapper calls NumPy for (NOTE
    [matmul without the dispatcher]), or None."""
    if item.target not in _MATMULS or item.kwargs or len(item.args) != 2 or \
            item.outputs is None or len(item.outputs) != 1:
        return None
    for a in item.args:
        if not isinstance(a, TensorArg):
            return None
        if a.view is not None:
            if a.view.view_name not in w.arrays:
                return None
        elif a.buffer.dtype not in (dt.float32, dt.float64):
            return None
    return item.args


def _reshape_of_buffer(w, item):
    """A replayed reshape (or view) of a float buffer argument, or of a reshape replayed so
    before it: NumPy reshapes it (a view where the layout allows, else a copy, as ember's
    reshape does)."""
    if item.target not in _RESHAPES or item.kwargs or len(item.args) != 2:
        return None
    base, shape = item.args
    if not isinstance(base, TensorArg) or not all(type(s) is int for s in shape):
        return None
    if base.view is not None:
        return (base, tuple(shape)) if base.view.view_name in w.arrays else None
    if base.buffer.dtype not in (dt.float32, dt.float64):
        return None
    return base, tuple(shape)


# NOTE [matmul without the dispatcher]: a float `mm` or `bmm` between buffers (whole, or
# strided aliases: NOTE [strided aliases for extern calls]) is `np.matmul` on their arrays,
# which is what ember's own kernel runs, without the dispatcher's per-call work; its result
# is fresh, contiguous and writable, so its address comes from ctypes' buffer view.
#
# NOTE [buffers from the caching allocator]: the wrapper's buffers and matmul results come
# from ember's CPU caching allocator (NOTE [CPU caching allocator] in
# ember/_backends/cpu_allocator.py), as eager's large temporaries do: through malloc a
# training step's megabytes came back as fresh pages every call, a page fault per 4 KiB.
_MATMULS = {aten.mm.default, aten.bmm.default}
_RESHAPES = {aten.reshape.default, aten.view.default, aten._unsafe_view.default}


# NOTE [batched matmul on the unmerged views]: a bmm's operands are often reshapes that merge
# the leading dims of a strided view (attention's (B, H, T, D) heads read from the qkv
# projection as (B*H, T, D)); NumPy can only merge those by copying. np.matmul takes the
# 4-D views as they are (each matrix is BLAS-ready on its own strides), so when one operand
# is such a reshape, the matmul gets the unmerged view and the other operand reshaped to the
# same batch dims (free for a contiguous buffer); its result, contiguous, has the bmm's
# elements in the same order. The merging reshape, if nothing else reads it, is left out.
def _unmerged_batches(w, item, operands, a, b):
    if item.target is not aten.bmm.default:
        return a, b
    found = [w.batched.get(a), w.batched.get(b)]
    if found[0] is None and found[1] is None:
        return a, b
    batch = (found[0] or found[1])[1]
    if found[0] is not None and found[1] is not None and found[0][1] != found[1][1]:
        return a, b
    out = []
    for expr, known, x in zip((a, b), found, operands):
        if known is not None:
            out.append(known[0])
        elif x.view is None:
            out.append(f"{expr}.reshape({batch + tuple(int(s) for s in x.buffer.shape[-2:])!r})")
        else:
            return a, b
    return tuple(out)


def _swapped_matrices(w, item) -> bool:
    """A replayed permute swapping the last two dims of an array the wrapper holds (a matmul
    operand's transpose): NumPy's swapaxes, and, for a reshape whose unmerged view is known,
    that view swapped too (NOTE [batched matmul on the unmerged views]; NOTE [a copy of a
    view is saved as the view] in _functorch/partitioners.py)."""
    if item.outputs is not None or item.kwargs or \
            item.target not in (aten.permute.default, aten.transpose.int):
        return False
    base = item.args[0]
    if not isinstance(base, TensorArg) or base.view is None or \
            base.view.view_name not in w.ndims:
        return False
    ndim = w.ndims[base.view.view_name]
    if item.target is aten.permute.default:
        dims = [d % ndim for d in item.args[1]] if len(item.args) == 2 else None
    else:
        dims = list(range(ndim))
        if len(item.args) == 3:
            one, two = (d % ndim for d in item.args[1:])
            dims[one], dims[two] = dims[two], dims[one]
    if ndim < 2 or dims != list(range(ndim - 2)) + [ndim - 1, ndim - 2]:
        return False
    source = w.arrays[base.view.view_name]
    arr = f"r_{item.view_name}"
    w.emit(f"{arr} = {source}.swapaxes(-1, -2)")
    w.emit(f"{item.view_name} = _wrap({arr})")
    w.arrays[item.view_name] = arr
    w.ndims[item.view_name] = ndim
    if source in w.batched:
        unmerged, batch = w.batched[source]
        w.batched[arr] = (f"{unmerged}.swapaxes(-1, -2)", batch)
    return True


def _operand(w, x, array, tensors):
    if x.view is not None:
        return w.arrays[x.view.view_name]
    return _array_expr(x, w.buffers[x.buffer.name], array, tensors)


def _extern(w, item, pointer, array, tensors):
    reshape = _reshape_of_buffer(w, item) if item.outputs is None else None
    if reshape is not None:
        base, shape = reshape
        arr = f"r_{item.view_name}"
        source = _operand(w, base, array, tensors)
        w.emit(f"{arr} = {source}.reshape({shape!r})")
        w.emit(f"{item.view_name} = _wrap({arr})")
        w.arrays[item.view_name] = arr
        w.ndims[item.view_name] = len(shape)
        if base.view is None:
            src_shape = tuple(int(s) for s in base.buffer.shape)
            if len(src_shape) > 3 and len(shape) == 3 and src_shape[-2:] == shape[-2:] and \
                    math.prod(src_shape[:-2]) == shape[0]:
                w.batched[arr] = (source, src_shape[:-2])
        return
    if _swapped_matrices(w, item):
        return
    if _constant_arange(w, item, pointer, array) or _embedding_lookup(w, item, pointer, array,
                                                                      tensors):
        return
    operands = _matmul_args(w, item)
    if operands is not None:
        a, b = (_operand(w, x, array, tensors) for x in operands)
        a, b = _unmerged_batches(w, item, operands, a, b)
        buf = item.outputs[0]
        w.emit(f"{buf.name} = _matmul({a}, {b}).reshape(-1)")
        w.emit(f"p_{buf.name} = _addr(_cbuf({buf.name}))")
        pointer[buf.name] = f"p_{buf.name}"
        array[buf.name] = (buf.name, buf.shape)
        return
    fn = w.const(item.target, "_f")
    args = [_value_expr(w, v, array, tensors) for v in item.args]
    args += [f"{k}={_value_expr(w, v, array, tensors)}" for k, v in item.kwargs.items()]
    call = f"{fn}({', '.join(args)})"
    if item.outputs is None:
        w.emit(f"{item.view_name} = {call}")
        return
    result = f"e{w.count}"
    w.count += 1
    w.emit(f"{result} = {call}")
    for i, buf in enumerate(item.outputs):
        if buf is None:
            continue
        source = result if item.single else f"{result}[{i}]"
        w.emit(f"{buf.name} = _flat({source})")
        w.emit(f"p_{buf.name} = {buf.name}.ctypes.data")
        pointer[buf.name] = f"p_{buf.name}"
        array[buf.name] = (buf.name, buf.shape)


# NOTE [aranges and embeddings without the dispatcher]: an `arange` of constant numbers whose
# result stays inside the graph (not a graph output: the caller could write into it) is made
# once, when the wrapper is built, and read by every call (kernels never write their inputs).
# An `embedding` of a float table by int64 indices, both whole buffers, is NumPy's `take`
# into a pooled buffer; indices out of the table's range (negative ones included, which
# `take` would wrap) call the op itself, which raises eager's error.
_ARANGE = aten.arange.start_step
_EMBEDDING = aten.embedding.default


def _constant_arange(w, item, pointer, array) -> bool:
    if item.target is not _ARANGE or item.outputs is None or len(item.outputs) != 1 or \
            item.outputs[0] is None or item.outputs[0].name in w.outputs or \
            not all(type(v) in (int, float, bool) or v is None
                    for v in (*item.args, *item.kwargs.values())):
        return False
    buf = item.outputs[0]
    flat = _flat(item.target(*item.args, **item.kwargs)).copy()
    w.globals["_keep" + buf.name] = flat
    array_name = w.const(flat, "_arange")
    w.emit(f"{buf.name} = {array_name}")
    pointer[buf.name] = w.const(flat.ctypes.data, "_ptr")
    array[buf.name] = (buf.name, buf.shape)
    return True


def _embedding_lookup(w, item, pointer, array, tensors) -> bool:
    if item.target is not _EMBEDDING or item.outputs is None or len(item.outputs) != 1 or \
            item.outputs[0] is None or len(item.args) < 2:
        return False
    weight, indices = item.args[:2]
    for a in (weight, indices):
        if not isinstance(a, TensorArg) or a.view is not None or \
                _is_alias(a, w.buffers[a.buffer.name]):
            return False
    if weight.buffer.dtype not in (dt.float32, dt.float64) or \
            indices.buffer.dtype is not dt.int64 or len(weight.buffer.shape) != 2:
        return False
    fn = w.const(item.target, "_f")
    args = [_value_expr(w, v, array, tensors) for v in item.args]
    args += [f"{k}={_value_expr(w, v, array, tensors)}" for k, v in item.kwargs.items()]
    buf = item.outputs[0]
    table = _array_expr(weight, w.buffers[weight.buffer.name], array, tensors)
    index = _array_expr(indices, w.buffers[indices.buffer.name], array, tensors)
    w.emit(f"{buf.name} = _embedding({table}, {index}, lambda: {fn}({', '.join(args)}))")
    w.emit(f"p_{buf.name} = _addr(_cbuf({buf.name}))")
    pointer[buf.name] = f"p_{buf.name}"
    array[buf.name] = (buf.name, buf.shape)
    return True


def _embedding(table, indices, call):
    """NOTE [aranges and embeddings without the dispatcher]."""
    flat = indices.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= table.shape[0]):
        return _flat(call()).copy()     # the op raises eager's error
    out = cpu_allocator.empty((flat.size, table.shape[1]), table.dtype)
    np.take(table, flat, axis=0, out=out)
    return out.reshape(-1)


def _structure(w, value, array, tensors) -> str:
    if type(value) is list or type(value) is tuple:
        items = ", ".join(_structure(w, v, array, tensors) for v in value)
        return f"[{items}]" if type(value) is list else f"({items}{',' if value else ''})"
    if hasattr(value, "shape") and hasattr(value, "name"):
        if value.name in array and _is_alias(_Whole(value), w.buffers[value.name]):
            # NOTE [saved values leave as views] (lowering.py)
            item = value.dtype.itemsize
            shape = tuple(int(s) for s in value.shape)
            strides = tuple(int(s) * item for s in value.strides)
            return f"_wrap(_view({array[value.name][0]}, {shape!r}, {strides!r}, " \
                f"{int(value.offset) * item}))"
        if value.name in array:
            slot = array[value.name][0]
            made = w.globals["_shaped"].get(slot)
            if made is not None and made[0] == tuple(value.shape):
                return f"_wrapd({slot}, {w.const(made[1])}, _CPU)"
            return f"_wrap({slot}.reshape({tuple(value.shape)!r}))"
        return tensors[value.name]
    if value is None or type(value) in (int, bool) or \
            (type(value) is float and math.isfinite(value)):
        return repr(value)
    return w.const(value)
