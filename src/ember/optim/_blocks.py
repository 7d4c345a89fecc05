"""The optimizers' list operations on the plain CPU path, block by block over flat buffers: the
`_foreach_*` ops' CPU kernels applied to one cache-sized block of every list at a time.

NOTE [optimizer updates in blocks]: an update (NOTE [optimizer updates as ops]) on the plain
path, where nothing can observe its ops (no mode, no overriding subclass), with every tensor a
CPU tensor of one float dtype, each state list laid out flat (`keep_flat`) and every step
count equal, runs once per block of `CHUNK` elements with `BLOCKS` as its list operations:
- each list is that block of a flat buffer: the state's own buffers, the gradients gathered
  once per step into a read-only buffer, and the parameters, gathered only when the update
  reads them; an update that only adds an increment to them (Adam's final addcdiv_, SGD's
  add_) leaves the increment in that buffer and each parameter adds its slice, the kernels'
  own last operation (`run_on_buffers(change=...)` in _ops/foreach.py);
- each list op is the `_foreach_*` overload FOREACH would call, run by its array-path kernel
  (`run_on_buffers`): the per-tensor op's operations in its order, so the numbers are
  FOREACH's and EACH's bit for bit (tests/optim/test_optim_ops.py compares the paths);
- the step counts go up once per step (in the first block), and their values are one number;
  other 0-d state entries (NAdam's mu_product) are scaled once too (`Counts`);
- an update that writes the parameters twice (NAdam's two addcdiv_) says so (`gather`), so
  their values are gathered rather than one increment formed (a second increment raises);
- an update whose ops need whole tensors (ASGD's foreach form: its next eta from each step
  count tensor) does not run in blocks (`run(..., blocks=False)`).
A block of every buffer an update touches fits in a core's cache, so its dozen passes run from
cache rather than memory, and the Python cost per op is paid once per block instead of once per
tensor. Out-of-place results are block-sized scratch buffers reused from block to block.
"""
from __future__ import annotations

import operator
import threading
from collections import deque
from itertools import repeat

import numpy as np

from ember._core.dispatch import bump_version
from ember._core.lazy_method import LazyModule
from ember._core.registry import OPS

# (the op families load on the first step, not at `import ember.optim`)
_foreach = LazyModule("ember._ops.foreach", globals(), "_foreach")
_foreach_layout = LazyModule("ember._ops.foreach_layout", globals(), "_foreach_layout")

# Elements per block: a block of each buffer an update touches (parameters, gradients, up to
# four state buffers, a few scratch buffers, lerp's float64 work) stays in a core's L2 cache.
CHUNK = 1 << 17

_DATA_OF = operator.attrgetter("_data")
_SHAPE_OF = operator.attrgetter("shape")
_OP = {name: OPS[name] for name in (
    "_foreach_neg", "_foreach_add.List", "_foreach_add_.List", "_foreach_add_.Scalar",
    "_foreach_mul_.Scalar", "_foreach_lerp_.Scalar", "_foreach_addcmul_.Scalar",
    "_foreach_addcmul.Scalar", "_foreach_addcdiv_.Scalar", "_foreach_addcdiv_.ScalarList",
    "_foreach_sqrt", "_foreach_sqrt_", "_foreach_maximum_.List", "_foreach_div_.ScalarList",
    "_foreach_abs", "_foreach_abs_", "_foreach_add.Scalar", "_foreach_add_.ScalarList",
    "_foreach_sub.List", "_foreach_mul.Scalar", "_foreach_mul.ScalarList", "_foreach_mul.List",
    "_foreach_mul_.ScalarList", "_foreach_mul_.List", "_foreach_div.Scalar",
    "_foreach_div.ScalarList", "_foreach_div.List", "_foreach_div_.Scalar", "_foreach_div_.List",
    "_foreach_reciprocal", "_foreach_reciprocal_", "_foreach_sign_",
    "_foreach_addcmul_.ScalarList", "_foreach_neg_", "_foreach_sign")}


class _Params:
    """The parameters' block: gathered values, or (`change`) the increment the update adds."""


PARAMS = _Params()


class _Buffers(threading.local):
    def __init__(self):
        self.arrays = {}        # (name, dtype) -> this thread's reusable 1-D buffer
        self.pieces = {}        # (dtype, shapes) -> (buffer, size, its views): `_pieces`


_BUFFERS = _Buffers()


def _buffer(name, size, dtype):
    arrays = _BUFFERS.arrays
    found = arrays.get((name, dtype))
    if found is None or found.size < size:
        found = arrays[(name, dtype)] = np.empty(size, dtype)
    return found[:size]


def _number(value):
    """A number list of the update (one value per tensor, all equal here) as its value."""
    return value[0] if type(value) is list else value


def _overload(name, other):
    """`name`'s overload for a second operand: a block (List), a number per tensor (all equal
    here: ScalarList, passed as a list of one) or a number (Scalar)."""
    if type(other) is np.ndarray or other is PARAMS:
        return f"{name}.List", other
    if type(other) is list:
        return f"{name}.ScalarList", [other[0]]
    return f"{name}.Scalar", other


class Blocks:
    """The list operations on blocks (NOTE [optimizer updates in blocks]); one per step."""

    foreach = True      # (the update takes FOREACH's form: it is FOREACH, block by block)

    def __init__(self, params, dtype, size, shapes):
        self.params = params
        self.shapes = shapes
        self.dtype = dtype
        self.size = size
        self.p_flat = _buffer("params", size, dtype)
        self.params_mode = None     # None, "values" (gathered) or "change" (an increment)
        self.combine = None         # np.add / np.subtract: how the change meets the params
        self.changed_at = -1        # the block whose change was formed last
        self.pending = []           # (flat 0-d entries, value) written by `finish`
        self.start = self.stop = 0
        self.scratch_used = 0
        self.steps = None
        self.grads = None           # the gathered gradients
        self.grads_written = False

    # ---------------------------------------------------------------- blocks and operands

    def _fresh(self):
        """A scratch block for an out-of-place result (reused from block to block)."""
        k = self.scratch_used
        self.scratch_used += 1
        return _buffer(f"scratch{k}", CHUNK, self.dtype)[:self.stop - self.start]

    def _read(self, x):
        if x is PARAMS:
            if self.params_mode is None:
                np.concatenate([p._data.reshape(-1) for p in self.params], out=self.p_flat)
                self.params_mode = "values"
            elif self.params_mode == "change":
                raise RuntimeError("optimizer blocks: the parameters were read after their "
                                   "increment was formed")
            return self.p_flat[self.start:self.stop]
        return x

    def _inplace(self, name, target, *rest):
        """An in-place op: on the parameters, their change alone where only it is needed."""
        op = _OP[name]
        if target is PARAMS and self.params_mode != "values" and name in _INCREMENTS:
            if self.changed_at == self.start:
                raise RuntimeError("optimizer blocks: a second increment of the parameters "
                                   "(the update must call `gather` first)")
            self.changed_at = self.start
            self.params_mode = "change"
            self.combine = _INCREMENTS[name]
            _foreach.run_on_buffers(op, (None,) + rest, _flats(op, (None,) + rest),
                           change=self.p_flat[self.start:self.stop])
            return
        args = (self._read(target),) + tuple(self._read(x) for x in rest)
        if args[0].base is self.grads.base:
            self.grads_written = True
        _foreach.run_on_buffers(op, args, _flats(op, args))

    def _fresh_op(self, name, *args):
        op = _OP[name]
        args = tuple(self._read(x) for x in args)
        out = self._fresh()
        _foreach.run_on_buffers(op, args, _flats(op, args), out=out)
        return out

    # ---------------------------------------------------------------- the list operations

    def reads_of_single_tensor_adam(self, params) -> None:
        pass        # (blocks run unobserved: NOTE [an observed step reads as PyTorch's])

    def neg(self, xs):
        return self._fresh_op("_foreach_neg", xs)

    def add(self, xs, ys, alpha=1):
        return self._fresh_op("_foreach_add.List", xs, ys, alpha)

    def add_(self, xs, ys, alpha=1):
        self._inplace("_foreach_add_.List", xs, ys, alpha)

    def add_scalar_(self, xs, value):
        if type(value) is list:
            self._inplace("_foreach_add_.ScalarList", xs, [value[0]], 1)
        else:
            self._inplace("_foreach_add_.Scalar", xs, value, 1)

    def mul_(self, xs, value):
        if type(xs) is Counts:      # (0-d state entries beside the step counts: NAdam's)
            if self.start == 0:
                np.multiply(xs.flat, _number(value), out=xs.flat)
            return
        name, value = _overload("_foreach_mul_", value)
        self._inplace(name, xs, value)

    def lerp_(self, xs, ends, weight):
        self._inplace("_foreach_lerp_.Scalar", xs, ends, weight)

    def addcmul_(self, xs, t1, t2, value=1):
        self._inplace("_foreach_addcmul_.Scalar", xs, t1, t2, value)

    def addcmul(self, xs, t1, t2, value=1):
        return self._fresh_op("_foreach_addcmul.Scalar", xs, t1, t2, value)

    def addcdiv_(self, xs, t1, t2, value=1):
        self._inplace("_foreach_addcdiv_.Scalar", xs, t1, t2, _number(value))

    def sqrt(self, xs):
        return self._fresh_op("_foreach_sqrt", xs)

    def sqrt_(self, xs):
        self._inplace("_foreach_sqrt_", xs)

    def maximum_(self, xs, ys):
        self._inplace("_foreach_maximum_.List", xs, ys)

    def div_fresh(self, xs, values):
        self._inplace("_foreach_div_.ScalarList", xs, [_number(values)])
        return xs

    def abs(self, xs):
        return self._fresh_op("_foreach_abs", xs)

    def abs_(self, xs):
        self._inplace("_foreach_abs_", xs)

    def add_scalar(self, xs, value):
        return self._fresh_op("_foreach_add.Scalar", xs, _number(value), 1)

    def sub(self, xs, ys):
        return self._fresh_op("_foreach_sub.List", xs, ys, 1)

    def mul(self, xs, other):
        name, other = _overload("_foreach_mul", other)
        return self._fresh_op(name, xs, other)

    def div(self, xs, other):
        name, other = _overload("_foreach_div", other)
        return self._fresh_op(name, xs, other)

    def div_(self, xs, other):
        name, other = _overload("_foreach_div_", other)
        self._inplace(name, xs, other)

    def reciprocal_(self, xs):
        self._inplace("_foreach_reciprocal_", xs)

    def rdiv(self, values, xs):
        out = self._fresh_op("_foreach_reciprocal", xs)
        self._inplace("_foreach_mul_.Scalar", out, _number(values))
        return out

    def sign_(self, xs):
        self._inplace("_foreach_sign_", xs)

    def copy_(self, xs, ys):
        np.copyto(self._read(xs), self._read(ys))

    def neg_(self, xs):
        self._inplace("_foreach_neg_", xs)

    def copy_numbers_(self, xs, values):
        """Write a number into 0-d state entries (ASGD's eta and mu), rounded as `as_tensor`
        rounds it, once per step."""
        if self.start == 0:     # (written at the end: every block reads the old values)
            import ember
            self.pending.append((xs.flat, ember.as_tensor(_number(values))._data))

    # Rprop's per-tensor steps, on the block's arrays (exact operations: comparisons, masked
    # writes, the clamp)

    def signs(self, xs):
        return self._fresh_op("_foreach_sign", xs)

    def sign_factors_(self, xs, plus, minus):
        xs[xs > 0] = plus
        xs[xs < 0] = minus
        xs[xs == 0] = 1

    def clamp_(self, xs, low, high):
        np.clip(xs, low, high, out=xs)

    def clone(self, xs):
        out = self._fresh()
        np.copyto(out, self._read(xs))
        return out

    def zero_where_(self, xs, keys, value, single):
        xs[keys == value] = 0

    def complete(self, values):
        return True         # (a step with a missing entry does not run in blocks: `plan`)

    def gather(self, params):
        """The update writes the parameters more than once (NAdam's two addcdiv_): their
        values are gathered, not an increment formed."""
        self._read(params)

    def increment(self, steps):
        if self.start == 0:
            np.add(steps.flat, 1, out=steps.flat)

    def values(self, steps, reads=1):
        """The step counts (or another 0-d state entry: NAdam's mu_product) as numbers."""
        return [float(steps.flat[0])]

    def reread(self, steps, counts):
        """The counts again (the blocks run only on the plain path: no mode to see a read)."""
        return counts

    # ---------------------------------------------------------------- the step

    def finish(self) -> None:
        """Write the parameters back (their values, or their slices of the change added), and
        the 0-d entries `copy_numbers_` set."""
        for flat, value in self.pending:
            flat[...] = value
        if self.params_mode is None:
            return
        arrays = list(map(_DATA_OF, self.params))
        pieces = _pieces(self.p_flat, self.shapes)
        if self.params_mode == "values":
            deque(map(np.copyto, arrays, pieces), 0)
        else:
            deque(map(self.combine, arrays, pieces, arrays), 0)
        deque(map(bump_version, self.params), 0)


def _pieces(flat, shapes):
    """Views of the start of this thread's parameter buffer `flat` with `shapes`, kept while
    the buffer and the shapes stay the same."""
    key = (flat.dtype, shapes)
    pieces = _BUFFERS.pieces
    found = pieces.get(key)
    if found is not None and found[0] is flat.base and found[1] == flat.size:
        return found[2]
    if len(pieces) > 8:
        pieces.clear()
    views = _foreach_layout.cut(flat, shapes)
    pieces[key] = (flat.base, flat.size, views)
    return views


_INCREMENTS = {"_foreach_add_.List": np.add, "_foreach_addcdiv_.Scalar": np.add,
               "_foreach_addcmul_.Scalar": np.add}


def _flats(op, args):
    """{list position: buffer} of an op's arguments (its list positions, by its schema)."""
    return {j: args[j] for j in op.list_positions}


class Counts:
    """The step counts of a step in blocks: their flat buffer, whole (one count per tensor)."""

    __slots__ = ("flat",)

    def __init__(self, flat):
        self.flat = flat


def plan(params, lists):
    """(dtype, size, the parameters' shapes, each list as its flat buffer, as `Counts`, or as
    given) when the update
    can run in blocks (NOTE [optimizer updates in blocks]; the caller has checked that nothing
    observes the step), else None. lists[0] are the gradients. (C-level passes: this runs on
    every step.)"""
    arrays = list(map(_DATA_OF, params))
    grads = list(map(_DATA_OF, lists[0]))
    dtypes = set(map(_DTYPE_OF, arrays))
    dtypes.update(map(_DTYPE_OF, grads))
    if len(dtypes) != 1:
        return None
    dtype = dtypes.pop()
    if dtype != np.float32 and dtype != np.float64:
        return None
    shapes = tuple(map(_SHAPE_OF, arrays))
    if tuple(map(_SHAPE_OF, grads)) != shapes:
        return None
    size = sum(map(_SIZE_OF, arrays))
    if size == len(arrays):
        return None     # (one element each: state entries and step counts look alike)
    out = [grads]
    for values in lists[1:]:
        first = values[0]
        if first is None:
            out.append(values)      # (entries the update runs no ops on)
            continue
        if type(first) is dict:
            return None             # (states the update adds entries to: a first step)
        if any(map(operator.is_, values, repeat(None))):
            return None
        layout = _foreach_layout.layout_of(list(map(_DATA_OF, values)))
        if layout is None:
            return None
        flat, list_shapes = layout
        if list_shapes == shapes and flat.dtype == dtype:
            out.append(flat)
        elif flat.size == len(values) and flat.ndim == 1 and not any(map(len, list_shapes)):
            if flat.min() != flat.max():
                return None         # (counts that differ: parameters that joined later)
            out.append(Counts(flat))
        else:
            return None
    return dtype, size, shapes, out


_SIZE_OF = operator.attrgetter("size")
_DTYPE_OF = operator.attrgetter("dtype")


def run_blocks(update, params, lists, write_grads, dtype, size, shapes, flat_lists,
               **hyper) -> None:
    """Run `update(Blocks, ...)` once per block (NOTE [optimizer updates in blocks]) and record
    the writes (versions of the parameters and of every state list). The update works on a
    copy of the gradients: one it writes in place is written back with `write_grads`
    (foreach=True)."""
    grads = _buffer("grads", size, dtype)
    np.concatenate([g.reshape(-1) for g in flat_lists[0]], out=grads)
    run = Blocks(params, dtype, size, shapes)
    run.grads = grads
    flat_lists = [grads] + list(flat_lists[1:])
    for start in range(0, size, CHUNK):
        stop = min(start + CHUNK, size)
        run.start, run.stop, run.scratch_used = start, stop, 0
        block_lists = [values[start:stop] if type(values) is np.ndarray else values
                       for values in flat_lists]
        update(run, PARAMS, *block_lists, **hyper)
    run.finish()
    if run.grads_written and write_grads:
        # the foreach form writes the gradients in place (SGD's Nesterov step): as PyTorch's
        # foreach path, the gradients hold the result; its single-tensor path leaves them
        deque(map(np.copyto, map(_DATA_OF, lists[0]), _foreach_layout.cut(grads, shapes)), 0)
        deque(map(bump_version, lists[0]), 0)
    for given, values in zip(lists[1:], flat_lists[1:]):
        if type(values) is np.ndarray or type(values) is Counts:
            deque(map(bump_version, given), 0)
