"""Joining and broadcasting: cat/concat/concatenate, stack, h/v/d/column_stack, block_diag,
cartesian_prod, combinations (fresh tensors) and broadcast_tensors, broadcast_shapes, meshgrid,
atleast_1d/2d/3d (views, built from the view ops so they share storage).

Joining promotes its inputs to one dtype as PyTorch does; lists of tensors reach the kernels
as lists of arrays. The gradient of a join is the incoming gradient cut back into the pieces
(narrowed and reshaped to each input's shape); see NOTE [gradients of a Tensor[] argument].
"""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._core import arguments, dispatch
from ember._core import dtype as dt
from ember._core.arguments import type_name
from ember._core.checks import _check, _check_type, _check_value
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import cast
from ember._core.promotion import promote_types
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import Size, infer_size, wrap_dim


def _dtype_of(a):
    return a.dtype if isinstance(a.dtype, dt.dtype) else dt.NP_TO_DTYPE[a.dtype]


def _promoted(items):
    result = _dtype_of(items[0])
    for a in items[1:]:
        result = promote_types(result, _dtype_of(a))
    return result


def _call(name, *args):
    return dispatch.call(OPS[name], args)


# NOTE [gradients of a Tensor[] argument]: the autograd node calls a list argument's formula
# once per tensor that needs a gradient, with its position in `ctx.list_index`. `_per_tensor`
# turns a formula giving the gradients of the whole list into such a formula: the whole list is
# computed at the first call and kept in `ctx.memo` for the others.
def _per_tensor(all_grads):
    def formula(ctx):
        if ctx.memo is None:
            ctx.memo = all_grads(ctx)
        return ctx.memo[ctx.list_index]
    return formula


def _joined_grads(grad, tensors, shapes, dim):
    """The pieces of `grad` for `tensors` joined as `shapes` along `dim` by cat's rules (a 1-d
    empty piece takes no part), each reshaped to its tensor's shape."""
    dim = _cat_shape([_Shaped(tuple(s), None) for s in shapes], dim)[1]
    grads, start = [], 0
    for t, shape in zip(tensors, shapes):
        if len(shape) == 1 and shape[0] == 0:
            # An empty piece of the gradient itself, so it stays in a double-backward graph.
            grads.append(_call("narrow", grad, dim, 0, 0).reshape(tuple(t.shape)))
            continue
        grads.append(_call("narrow", grad, dim, start, shape[dim]).reshape(tuple(t.shape)))
        start += shape[dim]
    return grads


# --------------------------------------------------------------------------- cat / stack

def _cat_shape(items, dim):
    """(result shape, wrapped dim, the items that take part) with PyTorch's checks; a 1-d
    tensor of size 0 is skipped (the legacy rule), whatever its neighbours' shapes."""
    _check_value(len(items) > 0, "torch.cat(): expected a non-empty list of Tensors")
    # Plain tests first: the messages (and their closures) are built only on failure.
    for i, a in enumerate(items):
        if a.ndim == 0:
            _check(False, f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    used = [(i, a) for i, a in enumerate(items) if not (a.ndim == 1 and a.shape[0] == 0)]
    if not used:
        return (0,), 0, []
    first = used[0][1]
    ndim = first.ndim
    dim = wrap_dim(dim, ndim)
    first_shape = tuple(first.shape)
    for i, a in used[1:]:
        if a.ndim != ndim:
            _check(False, f"Tensors must have same number of dimensions: got {ndim} and "
                          f"{a.ndim}")
        shape = tuple(a.shape)
        if shape != first_shape:
            for d in range(ndim):
                if d != dim and shape[d] != first_shape[d]:
                    _check(False, f"Sizes of tensors must match except in dimension {dim}. "
                                  f"Expected size {first_shape[d]} but got size {shape[d]} "
                                  f"for tensor number {i} in the list.")
    shape = list(first.shape)
    shape[dim] = sum(a.shape[dim] for _, a in used)
    return tuple(shape), dim, [a for _, a in used]


def _plain_cat(items, dim) -> bool:
    """Whether `items` (NumPy arrays) may join as they are: one dtype, one rank of at least 1,
    no legacy empty 1-d piece and `dim` in range. Nothing to promote or skip: the common case.
    The sizes off `dim` are NumPy's to check (`cat` takes the checked way when they differ,
    for PyTorch's message)."""
    if not items or type(dim) is not int:
        return False
    first = items[0]
    ndim, dtype = first.ndim, first.dtype
    if not -ndim <= dim < ndim:
        return False
    for a in items:
        if type(a) is not np.ndarray or a.dtype != dtype or a.ndim != ndim or \
                (ndim == 1 and not a.shape[0]):
            return False
    return True


def _cat_meta(tensors, dim=0):
    return (_cat_shape(tensors, dim)[0], _promoted(tensors))


def _join(xp, items, dim, result_dtype):
    np_dtype = result_dtype._np
    items = [cast(a, np_dtype) if a.dtype != np_dtype else a for a in items]
    return backend_helpers(xp).concatenate(items, dim)      # NOTE [back-end helpers]


@register_op("cat(Tensor[] tensors, int dim=0) -> Tensor", method=False, meta=_cat_meta,
             aliases=("concat", "concatenate"), saves=(),
             derivatives={"tensors": _per_tensor(lambda c: _joined_grads(
                 c.grad, c.tensors, [tuple(t.shape) for t in c.tensors], c.dim))},
                 tags=("fp_errors", "out_aliasing_after_resize", "out_casts"))
def cat(xp, tensors, dim=0):
    """cat(tensors, dim=0, *, out=None) -> Tensor: join tensors along an existing dim."""
    if _plain_cat(tensors, dim):
        try:
            return backend_helpers(xp).concatenate(tensors, dim)
        except ValueError:
            pass            # sizes differ off `dim`: _cat_shape raises PyTorch's error
    shape, dim, used = _cat_shape(tensors, dim)
    result = _promoted(tensors)
    if not used:
        return xp.zeros(shape, result._np)
    return _join(xp, used, dim, result)


def _stack_shape(items, dim):
    _check(len(items) > 0, "stack expects a non-empty TensorList")
    first = items[0]
    for i, a in enumerate(items[1:], 1):
        _check(a.shape == first.shape, lambda: (
            f"stack expects each tensor to be equal size, but got {list(first.shape)} at entry "
            f"0 and {list(a.shape)} at entry {i}"))
    dim = wrap_dim(dim, first.ndim + 1)
    shape = tuple(first.shape)
    return shape[:dim] + (len(items),) + shape[dim:], dim


def _stack_grads(c):
    dim = _stack_shape(c.tensors, c.dim)[1]
    return [_call("select.int", c.grad, dim, k) for k in range(len(c.tensors))]


@register_op("stack(Tensor[] tensors, int dim=0) -> Tensor", method=False,
             meta=lambda tensors, dim=0: (_stack_shape(tensors, dim)[0], _promoted(tensors)),
             saves=(), derivatives={"tensors": _per_tensor(_stack_grads)},
             tags=("fp_errors", "out_casts"))
def stack(xp, tensors, dim=0):
    """stack(tensors, dim=0, *, out=None) -> Tensor: join tensors along a new dim."""
    _, dim = _stack_shape(tensors, dim)
    np_dtype = _promoted(tensors)._np
    return xp.stack([cast(a, np_dtype) if a.dtype != np_dtype else a for a in tensors],
                    axis=dim)


def _at_least(a, ndim):
    """`a`'s shape padded the way atleast_1d/2d/3d pad it."""
    shape = tuple(a.shape)
    if len(shape) >= ndim:
        return shape
    if ndim == 3 and len(shape) == 2:
        return shape + (1,)
    if ndim == 3 and len(shape) == 1:
        return (1,) + shape + (1,)
    return (1,) * (ndim - len(shape)) + shape


class _Shaped:
    """Shape and dtype of a (meta) tensor padded by `_at_least`, for the shared shape checks."""

    __slots__ = ("dtype", "ndim", "shape")

    def __init__(self, shape, dtype):
        self.shape, self.ndim, self.dtype = shape, len(shape), dtype


def _stacked(name, ndim, dim_for):
    def padded(items, reshape):
        _check(len(items) > 0, lambda: f"{name} expects a non-empty TensorList")
        return [reshape(a, _at_least(a, ndim)) for a in items]

    def meta(tensors):
        items = padded(tensors, lambda a, shape: _Shaped(shape, a.dtype))
        return (_cat_shape(items, dim_for(items))[0], _promoted(tensors))

    def kernel(xp, tensors):
        items = padded(tensors, lambda a, shape: a.reshape(shape))
        shape, dim, used = _cat_shape(items, dim_for(items))
        result = _promoted(tensors)
        return _join(xp, used, dim, result) if used else xp.zeros(shape, result._np)
    kernel.__name__ = name
    kernel.__doc__ = f"{name}(tensors, *, out=None) -> Tensor."
    return kernel, meta


def _make_stack(name, ndim, dim_for, aliases=()):
    kernel, meta = _stacked(name, ndim, dim_for)

    def grads(c):
        shapes = [_at_least(t, ndim) for t in c.tensors]
        dim = dim_for([_Shaped(s, None) for s in shapes])
        return _joined_grads(c.grad, c.tensors, shapes, dim)
    register_op(f"{name}(Tensor[] tensors) -> Tensor", method=False, meta=meta,
                aliases=aliases, saves=(), derivatives={"tensors": _per_tensor(grads)},
                node_name="CatBackward0", tags=("fp_errors",))(kernel)


_make_stack("hstack", 1, lambda items: 0 if items[0].ndim == 1 else 1)
_make_stack("vstack", 2, lambda items: 0, aliases=("row_stack",))
_make_stack("dstack", 3, lambda items: 2)


def _column_shape(a):
    return (a.shape[0] if a.ndim else 1, 1) if a.ndim <= 1 else tuple(a.shape)


def _column_items(tensors, reshape):
    _check(len(tensors) > 0, "column_stack expects a non-empty TensorList")
    return [reshape(a, _column_shape(a)) for a in tensors]


@register_op("column_stack(Tensor[] tensors) -> Tensor", method=False,
             meta=lambda tensors: (_cat_shape(_column_items(
                 tensors, lambda a, s: _Shaped(s, a.dtype)), 1)[0], _promoted(tensors)),
             saves=(), derivatives={"tensors": _per_tensor(lambda c: _joined_grads(
                 c.grad, c.tensors, [_column_shape(t) for t in c.tensors], 1))},
             node_name="CatBackward0", tags=("fp_errors",))
def column_stack(xp, tensors):
    """column_stack(tensors, *, out=None) -> Tensor: 0-d/1-d inputs become columns, then
    everything is joined along dim 1."""
    items = _column_items(tensors, lambda a, shape: a.reshape(shape))
    _, dim, used = _cat_shape(items, 1)
    return _join(xp, used, dim, _promoted(tensors))


# --------------------------------------------------------------------------- block_diag etc.

def _block_shapes(tensors):
    shapes = []
    for i, a in enumerate(tensors):
        _check(a.ndim <= 2, lambda: (
            f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
            f"{a.ndim} dimensions"))
        shapes.append((1, 1) if a.ndim == 0 else (1, a.shape[0]) if a.ndim == 1
                      else tuple(a.shape))
    return shapes


def _block_meta(tensors):
    shapes = _block_shapes(tensors)
    dtype = _promoted(tensors) if tensors else dt.get_default_dtype()
    return ((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype)


def _block_grads(c):
    grads, row, col = [], 0, 0
    for t, (rows, cols) in zip(c.tensors, _block_shapes(c.tensors)):
        block = _call("narrow", _call("narrow", c.grad, 0, row, rows), 1, col, cols)
        grads.append(block.reshape(tuple(t.shape)))
        row, col = row + rows, col + cols
    return grads


@register_op("block_diag(Tensor[] tensors) -> Tensor", function=False, method=False,
             out=False, meta=_block_meta, saves=(),
             derivatives={"tensors": _per_tensor(_block_grads)}, tags=("fp_errors",))
def _block_diag(xp, tensors):
    """block_diag(*tensors) -> Tensor: the inputs as blocks on a diagonal."""
    shapes = _block_shapes(tensors)
    dtype = _promoted(tensors) if tensors else dt.get_default_dtype()
    out = xp.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), dtype._np)
    row = col = 0
    for a, (rows, cols) in zip(tensors, shapes):
        out[row:row + rows, col:col + cols] = a.reshape(rows, cols)
        row, col = row + rows, col + cols
    return out


def _varargs_tensors(args):
    """f(a, b, c) and f([a, b, c]) both give [a, b, c]; anything but a tensor among them is
    the TypeError of PyTorch's parser (for a tensor list)."""
    items = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else \
        list(args)
    for j, item in enumerate(items):
        if not isinstance(item, dispatch.Tensor):
            raise TypeError(f"expected Tensor as element {j} in argument 0, but got "
                            f"{type_name(item)}")
    return items


@register_frontend(method=False)
def block_diag(*tensors):
    """block_diag(*tensors) -> Tensor: the inputs as blocks on a diagonal."""
    if _state.entry and _wants(locals()):
        return _handle(block_diag, locals())
    if not tensors:
        # PyTorch's answer for no blocks: one empty row of the default dtype.
        from ember._ops.creation import zeros
        return zeros(1, 0)
    return dispatch.call(OPS["block_diag"], (list(tensors),))


def _check_same_dtype(tensors, name):
    _check(len(tensors) > 0, f"{name} expects a non-empty TensorList")
    for a in tensors:
        _check(a.dtype == tensors[0].dtype, f"{name} expects all tensors to have the same dtype")


def _cartesian_meta(tensors):
    _check_same_dtype(tensors, "meshgrid")
    for a in tensors:
        _check(a.ndim == 1, lambda: f"Expect a 1D vector, but got shape {list(a.shape)}")
    if len(tensors) == 1:
        return (tuple(tensors[0].shape), tensors[0].dtype)
    return ((math.prod(a.shape[0] for a in tensors), len(tensors)), tensors[0].dtype)


def _cartesian_grads(c):
    if len(c.tensors) == 1:
        return [c.grad]
    # Column k of the rows holds tensor k's entry i at every grid point with coordinate i.
    grid = c.grad.reshape(tuple(t.shape[0] for t in c.tensors) + (len(c.tensors),))
    count = len(c.tensors)
    return [_call("select.int", grid, -1, k).sum([d for d in range(count) if d != k])
            for k in range(count)]


@register_op("cartesian_prod(Tensor[] tensors) -> Tensor", function=False, method=False,
             out=False, meta=_cartesian_meta, saves=(),
             derivatives={"tensors": _per_tensor(_cartesian_grads)}, tags=("fp_errors",))
def _cartesian_prod(xp, tensors):
    """cartesian_prod(*tensors) -> Tensor: every combination, one per row."""
    _cartesian_meta(tensors)
    if len(tensors) == 1:
        return tensors[0].copy()
    grids = xp.meshgrid(*tensors, indexing="ij")
    return xp.stack([g.reshape(-1) for g in grids], axis=1)


@register_frontend(method=False)
def cartesian_prod(*tensors):
    """cartesian_prod(*tensors) -> Tensor: every combination, one per row."""
    if _state.entry and _wants(locals()):
        return _handle(cartesian_prod, locals())
    return dispatch.call(OPS["cartesian_prod"], (list(tensors),))


def _combinations_meta(self, r=2, with_replacement=False):
    _check(self.ndim == 1, lambda: f"Expect a 1D vector, but got shape {list(self.shape)}")
    _check(r >= 0, lambda: f"Expect a non-negative number, but got {r}")
    if r == 0:
        return ((0,), self.dtype)
    n = self.shape[0]
    count = math.comb(n + r - 1, r) if with_replacement else math.comb(n, r)
    return ((count, r), self.dtype)


def _combinations_grad(c):
    n = c.self.shape[0]
    total = c.grad.new_zeros((n,))
    if c.grad.numel() == 0:
        return total
    # Each row lists the positions it took: add the row's gradient back at them.
    from ember._ops.creation_ranges import arange
    taken = _call("combinations", arange(n, device=c.grad.device), c.r, c.with_replacement)
    return _call("index_put", total, [taken.reshape(-1)], c.grad.reshape(-1), True)


@register_op("combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
             method=False, out=False, meta=_combinations_meta, saves=(),
             derivatives={"self": _combinations_grad}, tags=("fp_errors",))
def combinations(xp, self, r=2, with_replacement=False):
    """combinations(input, r=2, with_replacement=False) -> Tensor: r-length combinations of
    a 1-D tensor's elements, one per row (in itertools' order)."""
    shape, _ = _combinations_meta(self, r, with_replacement)
    if r == 0:
        return xp.zeros((0,), self.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = list(pick(range(self.shape[0]), r))
    if not index:
        return xp.zeros(shape, self.dtype)
    return self[xp.asarray(index, dtype="int64")]


# --------------------------------------------------------------------------- broadcasting views

@register_frontend(method=False)
def broadcast_shapes(*shapes) -> Size:
    """broadcast_shapes(*shapes) -> Size: the shape all `shapes` broadcast to."""
    if _state.entry and _wants(locals()):
        return _handle(broadcast_shapes, locals())
    result = []
    for i, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        for s in shape:
            _check(s >= 0, lambda: f"Trying to create tensor with negative dimension {s}: "
                                   f"{list(shape)}")
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for k, size in enumerate(shape, len(result) - len(shape)):
            current = result[k]
            _check(current == size or current == 1 or size == 1, lambda: (
                "Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                f"between arg {_first_with(shapes, k - len(result), current)} and arg {i}."))
            if current == 1:
                result[k] = size
    return Size(result)


def _first_with(shapes, from_end, size):
    for j, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if len(shape) >= -from_end and shape[from_end] == size:
            return j
    return 0


@register_frontend(method=False)
def broadcast_tensors(*tensors):
    """broadcast_tensors(*tensors) -> tuple: every input expanded to their common shape."""
    if _state.entry and _wants(locals()):
        return _handle(broadcast_tensors, locals())
    tensors = _varargs_tensors(tensors)
    for t in tensors:
        _check_type(isinstance(t, dispatch.Tensor), lambda: (
            f"broadcast_tensors(): expected Tensors, got {type(t).__name__}"))
    # PyTorch's expand_outplace: sizes folded pair by pair (its message), and a tensor of the
    # common shape returned as it is (no expand for a mode to see).
    shape = tuple(tensors[0].shape) if tensors else ()
    for t in tensors[1:]:
        shape = infer_size(shape, tuple(t.shape))
    return tuple(t if tuple(t.shape) == shape else
                 dispatch.call(OPS["expand"], (t, shape, False)) for t in tensors)


_MESHGRID_WARNED = []


@register_frontend(method=False)
def meshgrid(*tensors, indexing=None):
    """meshgrid(*tensors, indexing=None) -> tuple: coordinate grids (views) of 0-d/1-d inputs;
    indexing 'ij' (the default, with a warning when not given) or 'xy'."""
    if _state.entry and _wants(locals()):
        return _handle(meshgrid, locals())
    if indexing is not None and type(indexing) is not str:      # (the parser's, first)
        indexing = arguments.str_(indexing, ("meshgrid", "indexing", None))
    tensors = _varargs_tensors(tensors)
    if indexing is None:
        if not _MESHGRID_WARNED:
            _MESHGRID_WARNED.append(True)
            warnings.warn(
                "torch.meshgrid: in an upcoming release, it will be required to pass the "
                "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    _check_same_dtype(tensors, "meshgrid")
    for t in tensors:
        _check(t.ndim <= 1, lambda: (
            f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"))
    _check(indexing in ("ij", "xy"), lambda: (
        f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'))
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    sizes = tuple(t.numel() for t in order)
    grids = []
    for k, t in enumerate(order):
        shape = tuple(s if i == k else 1 for i, s in enumerate(sizes))
        grid = dispatch.call(OPS["view"], (t, shape))
        grids.append(dispatch.call(OPS["expand"], (grid, sizes, False)))
    if swap:
        # 'xy' is 'ij' on the inputs with the first two swapped, outputs swapped back.
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def _make_atleast(ndim):
    def one(t):
        if t.ndim >= ndim:
            return t
        if t.ndim == 0:
            return dispatch.call(OPS["reshape"], (t, (1,) * ndim))
        # Unsqueeze rather than reshape: the new size-1 dims get PyTorch's strides. The
        # padding is the one _at_least describes (atleast_3d adds a dim at the end).
        trailing = 1 if ndim == 3 else 0
        for _ in range(ndim - t.ndim - trailing):
            t = dispatch.call(OPS["unsqueeze"], (t, 0))
        for _ in range(trailing):
            t = dispatch.call(OPS["unsqueeze"], (t, -1))
        return t

    def fn(*tensors):
        if _state.entry and _wants(locals()):
            return _handle(fn, locals())
        if len(tensors) == 1 and isinstance(tensors[0], dispatch.Tensor):
            return one(tensors[0])
        return tuple(one(t) for t in _varargs_tensors(tensors))
    fn.__name__ = f"atleast_{ndim}d"
    fn.__doc__ = f"atleast_{ndim}d(*tensors): each input viewed with at least {ndim} dims."
    return register_frontend(fn.__name__, method=False)(fn)


atleast_1d = _make_atleast(1)
atleast_2d = _make_atleast(2)
atleast_3d = _make_atleast(3)
