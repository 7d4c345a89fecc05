"""The `_foreach_*` list ops as registry entries (`ember.ops.aten._foreach_add_.List` ...), with
PyTorch's schemas: the element-wise families (unary, add/sub/mul/div, clamp_min/clamp_max,
maximum/minimum, pow, addcmul/addcdiv, lerp), each out of place (`-> Tensor[]`) and in place
(`Tensor(a!)[] self ... -> ()`). The public `ember._foreach_*` functions (`_foreach.py`) parse
their arguments and call these.

NOTE [foreach ops]: each overload is the per-tensor op (`add.Tensor`, `lerp.Tensor` ...) applied
to every position of its lists, so its values, dtypes and errors are that op's. Its own back-end
step (`foreach_step`, also the op's runner) has two ways to run it:
- the array path, for plain CPU tensors of one float32/float64 dtype (in place: a `self` not
  needing grad): the per-tensor op's kernel called on flat buffers, one NumPy call per list op
  when its lists are laid out flat or can be gathered (NOTE [flat foreach layouts],
  foreach_layout.py), else once per position; a `self` that is not flat, written with an
  increment (add/sub of a list, addcmul, addcdiv: the optimizers' parameter updates), takes
  the increment computed flat and adds each slice in place (the per-tensor kernels' own last
  operation, so the numbers are the same);
- the loop, for everything else (meta and other devices, subclasses below a mode, other dtypes,
  mixed dtypes): the per-tensor op's back-end step at each position, and for in-place ops
  the in-place write with its checks. Meta tensors thus get the per-tensor meta rules.
The ops are not differentiable: the public functions run the per-tensor composite when an input
needs grad (as PyTorch's foreach falls back to its per-tensor path), so they are recorded op by
op. A dispatch mode sees the foreach op itself (`aten._foreach_add_.List`).
"""
from __future__ import annotations

import math
import operator
import threading
from collections import deque
from itertools import repeat

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.device import CPU
from ember._core.dispatch import runners
from ember._core.dispatch.inplace_out import write_inplace
from ember._core.dispatch.pointwise import run_pointwise_general
from ember._core.dispatch.process_state import state
from ember._core.dispatch.subclasses import PLAIN
from ember._core.dispatch.wrapping import bump_version, wrap
from ember._core.fp_errors import run_quietly, scalar_as
from ember._core.registry import OPS, OpDef, build_all, declare
from ember._ops.foreach_layout import GATHER_MIN, cut, flat_views, gathered, layout_of
from ember._ops.pointwise import _scaled, checked_scalar, scalar_into
from ember._ops.pointwise_ternary import lerp_number_into

Tensor = None          # ember.Tensor, read at first use from dispatch.Tensor (set_tensor_class)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
         "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
         "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]
# name -> (per-tensor op with a tensor operand, with a number operand, overloads, takes alpha)
BINARY = {
    "add": ("add.Tensor", "add.Tensor", "Scalar List ScalarList Tensor", True),
    "sub": ("sub.Tensor", "sub.Tensor", "Scalar List ScalarList", True),
    "mul": ("mul.Tensor", "mul.Tensor", "Scalar List ScalarList Tensor", False),
    "div": ("div.Tensor", "div.Tensor", "Scalar List ScalarList Tensor", False),
    "clamp_min": ("clamp_min.Tensor", "clamp_min.Tensor", "Scalar List ScalarList", False),
    "clamp_max": ("clamp_max.Tensor", "clamp_max.Tensor", "Scalar List ScalarList", False),
    "maximum": ("maximum", "clamp_min.Tensor", "Scalar List ScalarList", False),
    "minimum": ("minimum", "clamp_max.Tensor", "Scalar List ScalarList", False),
    "pow": ("pow.Tensor_Tensor", "pow.Tensor_Tensor", "List Scalar ScalarList", False),
}


class ForeachSpec:
    """How a foreach overload maps onto its per-tensor op: `pattern` gives, for each of the
    per-tensor op's arguments, where it comes from: ("list", j) position i of the list argument
    j, ("scalar", j) the number argument j, ("scalars", j) item i of the number list j,
    ("tensor", j) the tensor argument j, ("packed", j) item i of the 1-D tensor j,
    ("const", value). `increment` names the form the increment path knows (the kernel's last
    step adds, or subtracts, an increment to `self`)."""

    __slots__ = ("increment", "inplace", "lists", "pattern", "single")

    def __init__(self, single, pattern, inplace, increment=None):
        self.single = OPS[single]
        self.pattern = tuple(pattern)
        self.inplace = inplace
        self.lists = tuple(j for kind, j in pattern if kind == "list")
        self.increment = increment


SPECS: dict = {}        # OpDef -> ForeachSpec


def _declare(schema, single, pattern, inplace, doc, increment=None):
    options = {"kind": "generic", "method": False, "function": False,
               "differentiable": False, "doc": doc, "out": False}

    def build(op):      # on first use: NOTE [op entries are built on first use]
        OpDef.__init__(op, schema, None, **options)
        op.runner = foreach_step

    op = declare(schema, build, None, options)
    SPECS[op] = ForeachSpec(single, pattern, inplace, increment)
    runners.OWN_STEPS[op] = foreach_step


def _both(name, overload, arguments, single, pattern, doc, increment=None):
    """Declare the out-of-place and the in-place form of one overload."""
    suffix = f".{overload}" if overload else ""
    _declare(f"_foreach_{name}{suffix}(Tensor[] self{arguments}) -> Tensor[]", single, pattern,
             False, f"`{single}` at every position of the lists{doc}.", increment)
    _declare(f"_foreach_{name}_{suffix}(Tensor(a!)[] self{arguments}) -> ()", single, pattern,
             True, f"`{single}` at every position of the lists, written into `self`{doc}.",
             increment)


def _declare_all() -> None:
    for name in UNARY:
        _both(name, "", "", name, [("list", 0)], "")
    for name, (tensor_op, number_op, overloads, alpha) in BINARY.items():
        other = "exponent" if name == "pow" else "other"
        number = "exponent" if name == "pow" else "scalar"
        numbers = "exponent" if name == "pow" else "scalars"
        tail = [("const", 1)] if alpha else []
        for overload in overloads.split():
            if overload == "Scalar":
                _both(name, overload, f", Scalar {number}", number_op,
                      [("list", 0), ("scalar", 1)] + tail, " and a number",
                      increment=name if alpha else None)
            elif overload == "ScalarList":
                _both(name, overload, f", Scalar[] {numbers}", number_op,
                      [("list", 0), ("scalars", 1)] + tail, " and a list of numbers",
                      increment=name if alpha else None)
            elif overload == "List":
                _both(name, overload, f", Tensor[] {other}" + (", *, Scalar alpha=1" if alpha
                                                                else ""),
                      tensor_op, [("list", 0), ("list", 1)] + ([("scalar", 2)] if alpha else []),
                      " and a list of tensors", increment=name if alpha else None)
            else:   # Tensor: one 0-d tensor for every position
                _both(name, overload, ", Tensor other" + (", *, Scalar alpha=1" if alpha else ""),
                      tensor_op, [("list", 0), ("tensor", 1)] + ([("scalar", 2)] if alpha else []),
                      " and one 0-d tensor", increment=name if alpha else None)
    for name in ("addcmul", "addcdiv"):
        lists = [("list", 0), ("list", 1), ("list", 2)]
        _both(name, "Scalar", ", Tensor[] tensor1, Tensor[] tensor2, Scalar value=1", name,
              lists + [("scalar", 3)], " with one value", increment=name)
        _both(name, "ScalarList", ", Tensor[] tensor1, Tensor[] tensor2, Scalar[] scalars", name,
              lists + [("scalars", 3)], " with a value per position", increment=name)
        _both(name, "Tensor", ", Tensor[] tensor1, Tensor[] tensor2, Tensor scalars", name,
              lists + [("packed", 3)], " with a value per position (a 1-D tensor)",
              increment=name)
    ends = [("list", 0), ("list", 1)]
    _both("lerp", "List", ", Tensor[] tensors1, Tensor[] weights", "lerp.Tensor",
          ends + [("list", 2)], " with a weight tensor per position")
    _both("lerp", "Scalar", ", Tensor[] tensors1, Scalar weight", "lerp.Tensor",
          ends + [("scalar", 2)], " with one weight")
    _both("lerp", "ScalarList", ", Tensor[] tensors1, Scalar[] weight", "lerp.Tensor",
          ends + [("scalars", 2)], " with a weight per position")


def _declare_built(schema, doc):
    """A generic list op without kernel or function (its runner set by the caller), declared
    (as the indexed entry, NOTE [op families load on first use]) and built."""
    options = {"kind": "generic", "method": False, "function": False,
               "differentiable": False, "doc": doc, "out": False}
    op = declare(schema, lambda op: OpDef.__init__(op, schema, None, **options), None, options)
    build_all((op,))
    return op


def _declare_copy() -> None:
    """`_foreach_copy_`: `copy` (src broadcast and cast to self's dtype) written into self at
    every position; its step is the per-tensor op's back-end step and in-place write."""
    op = _declare_built("_foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking="
                        "False) -> ()", "`copy_` at every position of the lists.")
    op.runner = _copy_lists
    runners.OWN_STEPS[op] = _copy_lists


def _copy_lists(op, args):
    copy = OPS["copy"]
    selves, sources = args[0], args[1]
    non_blocking = args[2] if len(args) > 2 else False
    for j in (0, 1):
        runners.check_tensor_list(op, j, args[j])
    if len(selves) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    if len(sources) != len(selves):
        raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                           f"{len(selves)} and {len(sources)}")
    # the plain path (no mode; plain CPU tensors of one dtype, none needing grad: the public
    # function's "plain" call): each array copied in place, as Tensor.copy_'s own fast path
    plain = not state.slow and _all_plain_cpu(list(selves) + list(sources))
    for t, src in zip(selves, sources):
        shape = t._data.shape
        if src._data.shape != shape:        # (copy_'s checks)
            dispatch.check_broadcastable(None, (shape, src._data.shape))
        if src._data.shape != shape and np.broadcast_shapes(shape, src._data.shape) != shape:
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast "
                               f"shape {list(np.broadcast_shapes(shape, src._data.shape))}")
        if plain and (0 not in t._data.strides or t._data.size <= 1):
            np.copyto(t._data, src._data, casting="unsafe")
            bump_version(t)
        else:
            write_inplace(copy, t, runners.run_generic_general(copy, (t, src, non_blocking)))


def _declare_norm() -> None:
    """`_foreach_norm.Scalar`: the vector norm (`norm.ScalarOpt_dim_dtype` over every dim) of
    every tensor of a list; its step is that op's back-end step at each position, so meta and
    fake lists get its meta rule (the gradient clippers' total norm)."""
    op = _declare_built("_foreach_norm.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype="
                        "None) -> Tensor[]", "`linalg.vector_norm` of every tensor of a list.")
    op.runner = _norm_lists
    runners.OWN_STEPS[op] = _norm_lists


def _norm_lists(op, args):
    runners.check_tensor_list(op, 0, args[0])
    norm = OPS["norm.ScalarOpt_dim_dtype"]
    order = args[1] if len(args) > 1 else 2
    dtype = args[2] if len(args) > 2 else None
    return [dispatch.stack.backend_step(norm, (t, order, None, False, dtype)) for t in args[0]]


def _all_plain_cpu(tensors) -> bool:
    types = set(map(type, tensors))
    types.discard(Tensor)
    return types <= PLAIN and list(map(_DEVICE_OF, tensors)).count(CPU) == len(tensors) and \
        len(set(map(_ARRAY_DTYPE_OF, map(_DATA_OF, tensors)))) == 1


# --------------------------------------------------------------------------- the back-end step

def _check_lists(op, spec, args):
    """PyTorch's list checks: tensor lists of one length, not empty; number lists as long."""
    first = args[spec.lists[0]]
    for j in spec.lists:
        seq = args[j]
        if type(seq) is not list or not all(issubclass(kind, Tensor)
                                            for kind in set(map(type, seq))):
            runners.check_tensor_list(op, j, seq)
    count = len(first)
    if count == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for j in spec.lists[1:]:
        if len(args[j]) != count:
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                               f"{count} and {len(args[j])}")
    for kind, j in spec.pattern:
        if kind == "scalars" and len(args[j]) != count:
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        if kind == "packed":
            packed = args[j]
            if packed.ndim != 1:
                raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got "
                                   f"{packed.ndim} instead.")
            if packed._data.size != count:
                raise RuntimeError(f"Expected length of scalars to match input of length "
                                   f"{count} but got {packed._data.size} instead.")
    return count


def _per_tensor(spec, args, i, packed_values):
    out = []
    for kind, j in spec.pattern:
        if kind in ("list", "scalars"):
            out.append(args[j][i])
        elif kind == "packed":
            out.append(packed_values[i])
        elif kind == "const":
            out.append(j)
        else:
            out.append(args[j])
    return tuple(out)


def foreach_step(op, args):
    """Run a foreach overload (NOTE [foreach ops]): the array path or the per-tensor loop."""
    global Tensor
    if Tensor is None:
        Tensor = dispatch.Tensor
    spec = SPECS[op]
    count = _check_lists(op, spec, args)
    plan = _array_plan(spec, args)
    if plan is not None:        # (the kernels' NumPy warnings off: NOTE [floating-point warnings])
        return run_quietly(_array_path, spec, args, count, *plan)
    return _loop(spec, args, count)


def _loop(spec, args, count):
    single = spec.single
    packed = None
    for kind, j in spec.pattern:
        if kind == "packed":
            packed = args[j].tolist()
    step = run_pointwise_general
    if spec.inplace:
        for i in range(count):
            per = _per_tensor(spec, args, i, packed)
            write_inplace(single, per[0], step(single, per))
        return None
    return [step(single, _per_tensor(spec, args, i, packed)) for i in range(count)]


_DATA_OF = operator.attrgetter("_data")
_DEVICE_OF = operator.attrgetter("_device")
_SHAPE_OF = operator.attrgetter("shape")
_STRIDES_OF = operator.attrgetter("strides")
_REQUIRES_GRAD_OF = operator.attrgetter("_requires_grad")


def _array_plan(spec, args):
    """(the one NumPy dtype of every tensor, {list position: its flat buffer or None}) when the
    call can take the array path, else None. A list laid out flat (`layout_of`) tells its
    dtype, shapes and strides by the layout; the others are read with C-level passes (this
    runs on every call)."""
    if state.slow:          # below a mode: the loop (it runs the same arithmetic)
        return None
    dtypes = set()
    shapes = None
    flats = {}
    for kind, j in spec.pattern:
        if kind == "list":
            values = args[j]
        elif kind == "tensor":
            values = (args[j],)
            if args[j].ndim != 0:
                return None
        elif kind == "scalars":
            if not {float, int}.issuperset(map(type, args[j])):
                return None
            continue
        elif kind == "scalar":
            v = args[j]
            if type(v) is not float and type(v) is not int:
                return None
            continue
        elif kind == "packed":
            return None
        else:
            continue
        types = set(map(type, values))
        types.discard(Tensor)
        if not types <= PLAIN or list(map(_DEVICE_OF, values)).count(CPU) != len(values):
            return None
        arrays = list(map(_DATA_OF, values))
        if kind != "list":
            dtypes.add(arrays[0].dtype)
            continue
        layout = layout_of(arrays)
        if layout is not None:
            flat, list_shapes = layout
            flats[j] = flat
            dtypes.add(flat.dtype)
        else:
            flats[j] = None
            dtypes.add(arrays[0].dtype)
            if len(set(map(_ARRAY_DTYPE_OF, arrays))) != 1:
                return None
            list_shapes = list(map(_SHAPE_OF, arrays))
        if shapes is None:
            shapes = list_shapes
            if spec.inplace:
                if state.grad_enabled() and any(map(_REQUIRES_GRAD_OF, values)):
                    return None     # the in-place write's own checks (write_inplace)
                if layout is None and \
                        any(map(operator.contains, map(_STRIDES_OF, arrays), repeat(0))):
                    return None     # (a zero stride may repeat memory: write_inplace)
        elif shapes is not list_shapes and tuple(list_shapes) != tuple(shapes):
            return None     # broadcasting (or its errors): the per-tensor op's
    if len(dtypes) != 1:
        return None
    dtype = dtypes.pop()
    return (dtype, flats) if dtype in _FLOATS else None


_ARRAY_DTYPE_OF = operator.attrgetter("dtype")


def _kernel_args(spec, args, operands, np_dtype, scalar_of):
    """The per-tensor kernel's arguments: list operands from `operands`, numbers converted as
    the pointwise runner converts them (at the per-tensor op's tensor positions)."""
    single = spec.single
    tensor_positions = single.tensor_positions
    out = []
    for k, (kind, j) in enumerate(spec.pattern):
        if kind == "list":
            out.append(operands[j])
        elif kind == "tensor":
            out.append(args[j]._data)
        elif kind == "const":
            out.append(j)
        else:
            value = args[j] if kind == "scalar" else scalar_of[j]
            out.append(scalar_as(value, np_dtype) if k in tensor_positions else value)
    return out


def _uniform(values):
    first = values[0]
    for v in values:
        if v != first or type(v) is not type(first):
            return None
    return first


def _array_path(spec, args, count, np_dtype, known):
    single = spec.single
    kernel = single.kernels.get("cpu", single.kernel) if single.kernels else single.kernel
    scalar_of = {}
    uniform = True
    for kind, j in spec.pattern:
        if kind == "scalars":
            value = _uniform(args[j])
            if value is None:
                uniform = False
            scalar_of[j] = value
    flats = {}
    if uniform:
        for j in spec.lists:
            flat = known[j]
            if flat is None and count >= GATHER_MIN and not (spec.inplace and j == 0):
                flat = gathered(args[j])
            flats[j] = flat
    selves = args[0]
    others_flat = uniform and all(flats[j] is not None for j in spec.lists[1:])
    if uniform and others_flat and flats[0] is not None:
        if spec.inplace:
            _write_flat(spec, args, flats, np_dtype, scalar_of, kernel)
            _bump_all(selves)
            return None
        kernel_args = _kernel_args(spec, args, flats, np_dtype, scalar_of)
        result = np.empty(flats[0].size, np_dtype)
        ufunc = _UFUNCS.get(single.name)
        if spec.increment is not None:      # self + increment, as the kernel ends
            combine = np.subtract if spec.increment == "sub" else np.add
            combine(flats[0], _increment(spec, args, flats, np_dtype, scalar_of, flats[0]),
                    out=result)
        elif ufunc is not None:
            ufunc(*kernel_args, out=result)
        else:
            _blockwise(spec, kernel, kernel_args, result)
        views = flat_views(result, [t._data.shape for t in selves])
        return [wrap(v, dt.NP_TO_DTYPE[v.dtype], CPU) for v in views]
    if spec.inplace and spec.increment is not None and others_flat and count >= GATHER_MIN:
        _add_increment(spec, args, flats, np_dtype, scalar_of)
        return None
    # once per position
    per_scalars = {j: args[j] for kind, j in spec.pattern if kind == "scalars"}
    results = []
    for i in range(count):
        operands = {j: args[j][i]._data for j in spec.lists}
        scalars = {j: values[i] for j, values in per_scalars.items()}
        result = kernel(np, *_kernel_args(spec, args, operands, np_dtype, scalars))
        if spec.inplace:
            np.copyto(operands[0], result, casting="unsafe")
            bump_version(selves[i])
        else:
            if type(result) is not np.ndarray:
                result = np.asarray(result)         # (a 0-d kernel result may be a scalar)
            if result.dtype != np_dtype:
                result = result.astype(np_dtype)
            results.append(wrap(result, dt.NP_TO_DTYPE[result.dtype], CPU))
    return None if spec.inplace else results


def _bump_all(tensors) -> None:
    for t in tensors:
        storage = t._storage
        if storage is None:
            bump_version(t)
        else:
            storage._version += 1


# Per-tensor ops whose kernel is exactly one ufunc over its arguments: in place, the ufunc
# writes into `self` (`out=`), the same numbers without a temporary.
_UFUNCS = {"mul.Tensor": np.multiply, "div.Tensor": np.true_divide, "sqrt": np.sqrt,
           "neg": np.negative}


def _write_flat(spec, args, flats, np_dtype, scalar_of, kernel) -> None:
    """An in-place op on a flat `self`: its increment added (add/sub/addcmul/addcdiv), its
    ufunc written in place, or the kernel's result copied in."""
    target = flats[0]
    if spec.increment is not None:
        combine = np.subtract if spec.increment == "sub" else np.add
        combine(target, _increment(spec, args, flats, np_dtype, scalar_of, target), out=target)
        return
    kernel_args = _kernel_args(spec, args, flats, np_dtype, scalar_of)
    name = spec.single.name
    ufunc = _UFUNCS.get(name)
    if ufunc is not None:
        ufunc(*kernel_args, out=target)
    elif name == "lerp.Tensor" and np.ndim(kernel_args[2]) == 0:
        # the kernel's own arithmetic, written in place block by block
        for start in range(0, target.size, CHUNK):
            stop = min(start + CHUNK, target.size)
            lerp_number_into(target[start:stop], kernel_args[1][start:stop], kernel_args[2],
                             out=target[start:stop],
                             scratch=_scratch(stop - start, np_dtype))
    else:
        _blockwise(spec, kernel, kernel_args, target)


# Elements per block of a kernel run over flat buffers: its temporaries stay small (lerp's
# float64 ones are reused: random_float32_math.KEEP), and few blocks keep the per-block
# Python cost small.
CHUNK = 1 << 18


def _blockwise(spec, kernel, kernel_args, out) -> None:
    """out[a:b] = kernel(the arguments' blocks [a:b]), block by block: the kernels are
    element-wise, so the numbers are the whole call's."""
    lists = [k for k, (kind, _) in enumerate(spec.pattern) if kind == "list"]
    size = out.size
    for start in range(0, size, CHUNK):
        stop = min(start + CHUNK, size)
        block = list(kernel_args)
        for k in lists:
            block[k] = kernel_args[k][start:stop]
        np.copyto(out[start:stop], kernel(np, *block), casting="unsafe")


class _Scratch(threading.local):
    def __init__(self):
        self.buffers = {}       # dtype -> a reusable buffer for increments (this thread's)
        self.pieces = {}        # views of those buffers (`_pieces`)


_SCRATCH = _Scratch()


def _scratch(size, np_dtype):
    buffers = _SCRATCH.buffers
    found = buffers.get(np_dtype)
    if found is None or found.size < size:
        found = buffers[np_dtype] = np.empty(size, np_dtype)
    return found[:size]


_CONVERTED: dict = {}


def _converted(convert, value, np_dtype):
    """convert(value, np_dtype), remembered for a float or int (the optimizers pass the same
    few numbers on every step, and every block of a step)."""
    if type(value) is not float and type(value) is not int:
        return convert(value, np_dtype)
    key = (convert, type(value), value, math.copysign(1.0, value), np_dtype)
    found = _CONVERTED.get(key)
    if found is None:
        if len(_CONVERTED) > 256:
            _CONVERTED.clear()
        found = _CONVERTED[key] = convert(value, np_dtype)
    return found


def _increment(spec, args, flats, np_dtype, scalar_of, like, out=None):
    """What the per-tensor kernel adds to (sub: subtracts from) `self`, computed as it
    computes it: add/sub: other * alpha (other a list, a 0-d tensor or a number); addcmul:
    (value * tensor1) * tensor2; addcdiv: (value * tensor1) / tensor2."""
    name = spec.increment
    if name in ("add", "sub"):
        kind, j = spec.pattern[1]
        if kind == "list":
            other = flats[1]
        elif kind == "tensor":
            other = args[1]._data
        else:
            other = scalar_as(args[j] if kind == "scalar" else scalar_of[j], np_dtype)
        kind, j = spec.pattern[2]
        alpha = j if kind == "const" else args[j]
        if type(alpha) is int and alpha == 1:
            return other
        if np.ndim(other) == 0 or (type(alpha) is not float and type(alpha) is not int):
            return _scaled(other, alpha, like)
        # _scaled's product, into a reusable buffer (its checks pass for a float alpha)
        return np.multiply(other, _converted(checked_scalar, alpha, other.dtype),
                           out=_scratch(other.size, other.dtype) if out is None else out)
    kind, j = spec.pattern[3]
    value = args[j] if kind == "scalar" else scalar_of[j]
    increment = _scratch(flats[1].size, flats[1].dtype) if out is None else out
    first = flats[1]
    if type(value) is not int or value != 1:     # (value * tensor1) first, as the kernels
        first = np.multiply(first, _converted(scalar_into, value, increment.dtype),
                            out=increment)
    if name == "addcmul":
        np.multiply(first, flats[2], out=increment)
    else:
        np.true_divide(first, flats[2], out=increment)
    return increment


def run_on_buffers(op, args, flats, out=None, change=None):
    """Overload `op`'s array-path kernel on 1-D buffers of one float dtype, for a caller that
    has checked what the array path checks (NOTE [optimizer updates in blocks]): `flats` maps
    each list argument's position to its buffer (all of one size), `args` holds the other
    arguments (a number list as one value repeated, or a list of one). In place it writes
    `flats[0]`; out of place it writes `out`. With `change` (an increment form only), `self`
    is not read: the increment alone is written into `change` (`self` + `change`, or for sub
    `self` - `change`, is then the op's result)."""
    spec = SPECS[op]
    single = spec.single
    np_dtype = flats[spec.lists[-1]].dtype
    scalar_of = {j: args[j][0] for kind, j in spec.pattern if kind == "scalars"}
    if change is not None:
        increment = _increment(spec, args, flats, np_dtype, scalar_of, change, out=change)
        if increment is not change:
            np.copyto(change, increment)
        return
    kernel = single.kernels.get("cpu", single.kernel) if single.kernels else single.kernel
    if spec.inplace:
        _write_flat(spec, args, flats, np_dtype, scalar_of, kernel)
        return
    if spec.increment is not None:      # self + increment, as the kernel ends
        combine = np.subtract if spec.increment == "sub" else np.add
        combine(flats[0], _increment(spec, args, flats, np_dtype, scalar_of, flats[0]),
                out=out)
        return
    kernel_args = _kernel_args(spec, args, flats, np_dtype, scalar_of)
    ufunc = _UFUNCS.get(single.name)
    if ufunc is not None:
        ufunc(*kernel_args, out=out)
    else:
        _blockwise(spec, kernel, kernel_args, out)


def _add_increment(spec, args, flats, np_dtype, scalar_of):
    """self[i] += increment for a `self` that is not laid out flat: the increment computed once
    on the flat operands (`_increment`), then added to (or for sub subtracted from) each
    tensor in place, the per-tensor kernels' last operation."""
    selves = args[0]
    increment = _increment(spec, args, flats, np_dtype, scalar_of, selves[0]._data)
    combine = np.subtract if spec.increment == "sub" else np.add
    arrays = list(map(_DATA_OF, selves))
    if np.ndim(increment) == 0:
        pieces = repeat(increment, len(arrays))
    else:
        pieces = _pieces(increment, tuple(map(_SHAPE_OF, arrays)))
    deque(map(combine, arrays, pieces, arrays), 0)     # (a C-level loop over the tensors)
    _bump_all(selves)


def _pieces(increment, shapes):
    """Views of the 1-D `increment` with `shapes`, one after the other; kept while the
    increment is the start of the same reusable buffer (`_scratch`: this thread's), cut
    afresh for other increments (a list operand itself, a fresh product)."""
    buffer = _SCRATCH.buffers.get(increment.dtype)
    if buffer is None or increment.base is not buffer or \
            increment.__array_interface__["data"][0] != buffer.__array_interface__["data"][0]:
        return cut(increment, shapes)
    pieces = _SCRATCH.pieces
    key = (increment.dtype, shapes)
    found = pieces.get(key)
    if found is not None and found[0] is buffer and found[1] == increment.size:
        return found[2]
    if len(pieces) > 8:
        pieces.clear()
    # (dtype, shapes) -> (the buffer, the size cut, the views)
    views = pieces[key] = (buffer, increment.size, cut(increment, shapes))
    return views[2]


_declare_all()
_declare_copy()
_declare_norm()
