"""Ops that rearrange or replicate elements into a fresh tensor: flip, roll, rot90, repeat,
tile, repeat_interleave, tril/triu (and their index factories), diag, diag_embed, diagflat,
trace. Joining ops (cat, stack, meshgrid, ...) live in shape_join.py.

Kernels return fresh, C-contiguous arrays (never a view of an input, never negative strides);
each generic op has a meta rule computing its shape from the input shapes. Each derivative undoes
the rearrangement on the gradient (flip back, roll back, rotate back) or sums the copies that
replication made (repeat, tile, repeat_interleave).
"""
from __future__ import annotations

import math

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.arguments import combination_error, parser_error
from ember._core.checks import _check, _check_not_implemented
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import wrap_dim, wrap_dims


def _call(name, *args):
    return dispatch.call(OPS[name], args)


def _fresh(xp, a):
    """A C-contiguous copy of `a` that owns its memory."""
    return xp.array(a, copy=True, order="C")


def _same(self, *args, **kwargs):
    """Meta rule of an op whose result has its input's shape and dtype."""
    return (self.shape, self.dtype)


# --------------------------------------------------------------------------- flip / roll / rot90

@register_op("flip(Tensor self, int[] dims) -> Tensor", out=False, meta=_same, saves=(),
             derivatives={"self": lambda c: _call("flip", c.grad, c.dims)})
def flip(xp, self, dims):
    """flip(input, dims) -> Tensor: reverse the order of elements along `dims`."""
    axes = wrap_dims(dims, self.ndim) if self.ndim else wrap_dims(dims, 0)
    if self.ndim == 0 or not axes:
        return _fresh(xp, self)
    _check_flip_kernel(self, axes)
    return _fresh(xp, xp.flip(self, axes))


def _check_flip_kernel(self, axes):
    """PyTorch's CPU flip of complex32 moves whole rows only: flipping the last dim of a
    non-empty complex32 tensor is its NotImplementedError (NOTE [complex32 storage])."""
    _check_not_implemented(self.dtype.names is None or self.ndim - 1 not in axes or
                           self.size == 0, "\"flip_cpu\" not implemented for 'ComplexHalf'")


def _check_min_dims(a, ndim):
    _check(a.ndim >= ndim, lambda: f"Input must be >= {ndim}-d.")


@register_op("fliplr(Tensor self) -> Tensor", out=False, meta=_same, saves=(),
             derivatives={"self": lambda c: _call("fliplr", c.grad)})
def fliplr(xp, self):
    """fliplr(input) -> Tensor: reverse the columns (dim 1)."""
    _check_min_dims(self, 2)
    _check_flip_kernel(self, (1,))
    return _fresh(xp, xp.flip(self, 1))


@register_op("flipud(Tensor self) -> Tensor", out=False, meta=_same, saves=(),
             derivatives={"self": lambda c: _call("flipud", c.grad)})
def flipud(xp, self):
    """flipud(input) -> Tensor: reverse the rows (dim 0)."""
    _check_min_dims(self, 1)
    return _fresh(xp, xp.flip(self, 0))


def _roll_args(ndim, shifts, dims, empty=False):
    """(shifts, wrapped dims or None); an empty tensor's dims are not checked against its
    rank (PyTorch returns an empty tensor's copy before looking at them)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims or ())
    _check(len(shifts) > 0, "`shifts` required")
    if not dims:
        _check(len(shifts) == 1, lambda: (
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0"))
        return shifts, None
    _check(len(shifts) == len(dims), lambda: (
        f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"))
    if empty:
        return shifts, tuple(dims)
    return shifts, tuple(wrap_dim(d, ndim) for d in dims)


def _roll_meta(self, shifts, dims=()):
    _roll_args(self.ndim, shifts, dims, self.size == 0)
    return (self.shape, self.dtype)


def _roll_back(c):
    shifts, _ = _roll_args(c.grad.ndim, c.shifts, c.dims, c.grad.numel() == 0)
    return _call("roll", c.grad, tuple(-s for s in shifts), c.dims)


@register_op("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", out=False,
             meta=_roll_meta, varargs=False, saves=(), derivatives={"self": _roll_back})
def roll(xp, self, shifts, dims=()):
    """roll(input, shifts, dims=None) -> Tensor: rotate elements along dims (or flattened)."""
    shifts, axes = _roll_args(self.ndim, shifts, dims, self.size == 0)
    if self.size == 0:
        return _fresh(xp, self.copy())
    if axes is None:
        return _fresh(xp, xp.roll(self.reshape(-1), shifts[0]).reshape(self.shape))
    return _fresh(xp, xp.roll(self, shifts, axes))


def _rot90_args(ndim, k, dims):
    dims = tuple(dims)
    _check(len(dims) == 2, lambda: f"expected total rotation dims == 2, but got dims = "
                                    f"{len(dims)}")
    _check(ndim >= 2, lambda: f"expected total dims >= 2, but got total dims = {ndim}")
    d0, d1 = wrap_dim(dims[0], ndim), wrap_dim(dims[1], ndim)
    _check(d0 != d1, lambda: f"expected rotation dims to be different, but got dim0 = {d0} "
                             f"and dim1 = {d1}")
    return k % 4, d0, d1


def _rot90_meta(self, k=1, dims=(0, 1)):
    k, d0, d1 = _rot90_args(self.ndim, k, dims)
    shape = list(self.shape)
    if k % 2:
        shape[d0], shape[d1] = shape[d1], shape[d0]
    return (tuple(shape), self.dtype)


@register_op("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", out=False,
             meta=_rot90_meta, saves=(),
             derivatives={"self": lambda c: _call("rot90", c.grad, -c.k, c.dims)})
def rot90(xp, self, k=1, dims=(0, 1)):
    """rot90(input, k=1, dims=[0, 1]) -> Tensor: rotate by k quarter turns in the dims plane."""
    k, d0, d1 = _rot90_args(self.ndim, k, dims)
    _check_flip_kernel(self, ((), (d1,), (d0, d1), (d0,))[k % 4])   # the dims it flips
    return _fresh(xp, xp.rot90(self, k, (d0, d1)))


# --------------------------------------------------------------------------- repeat / tile

def _repeat_shape(shape, repeats):
    repeats = tuple(int(r) for r in repeats)
    _check(len(repeats) >= len(shape), (
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
        "tensor"))
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    result = tuple(s * r for s, r in zip(padded, repeats))
    for r in repeats:
        _check(r >= 0, lambda: f"Trying to create tensor with negative dimension {r * 1}: "
                               f"{list(result)}")
    return padded, repeats, result


def _sum_copies(grad, shape, repeats):
    """The gradient of tiling `shape` `repeats` times: each copy's gradient summed."""
    padded, repeats, _ = _repeat_shape(shape, repeats)
    split = []
    for r, s in zip(repeats, padded):
        split += [r, s]
    grad = grad.reshape(tuple(split))
    copies = [2 * d for d, r in enumerate(repeats) if r != 1]
    if copies:
        grad = grad.sum(copies, keepdim=True)
    return grad.reshape(tuple(shape))


@register_op("repeat(Tensor self, SymInt[] repeats) -> Tensor", function=False, out=False,
             meta=lambda self, repeats: (_repeat_shape(self.shape, repeats)[2], self.dtype),
             saves=(), derivatives={"self": lambda c: _sum_copies(c.grad, c.self.shape,
                                                                   c.repeats)})
def repeat(xp, self, repeats):
    """repeat(*repeats) -> Tensor: tile the tensor `repeats` times along each dim."""
    padded, repeats, _ = _repeat_shape(self.shape, repeats)
    return _fresh(xp, xp.tile(self.reshape(padded), repeats))


def _tile_repeats(ndim, dims):
    dims = tuple(int(d) for d in dims)
    return (1,) * (ndim - len(dims)) + dims


@register_op("tile(Tensor self, SymInt[] dims) -> Tensor", out=False,
             meta=lambda self, dims: (_repeat_shape(
                 self.shape, _tile_repeats(self.ndim, dims))[2], self.dtype),
             saves=(), derivatives={"self": lambda c: _sum_copies(
                 c.grad, c.self.shape, _tile_repeats(c.self.ndim, c.dims))},
             node_name="RepeatBackward0")
def tile(xp, self, dims):
    """tile(input, dims) -> Tensor: repeat the tensor; short `dims` are padded with ones."""
    return repeat(xp, self, _tile_repeats(self.ndim, dims))


# --------------------------------------------------------------------------- repeat_interleave

def _interleave_int_meta(self, repeats, dim=None, output_size=None):
    _check(repeats >= 0, "Repeats must be non-negative")
    if dim is None:
        return ((math.prod(self.shape) * repeats,), self.dtype)
    dim = wrap_dim(dim, self.ndim)
    shape = list(self.shape) or [1]
    shape[dim] *= repeats
    return (tuple(shape), self.dtype)


def _interleave_layout(self, dim):
    """(the shape repeat_interleave repeats along, that dim): the flattened input for None."""
    if dim is None:
        return (self.numel(),), 0
    shape = tuple(self.shape) or (1,)
    return shape, wrap_dim(dim, len(shape))


def _sum_repeats(grad, self, count, dim):
    """The gradient of repeating every entry of `dim` `count` times: the copies summed."""
    shape, dim = _interleave_layout(self, dim)
    grad = grad.reshape(shape[:dim] + (shape[dim], count) + shape[dim + 1:]).sum(dim + 1)
    return grad.reshape(tuple(self.shape))


def _interleave_tensor_grad(c):
    repeats = c.repeats.reshape(-1)
    shape, dim = _interleave_layout(c.self, c.dim)
    if repeats.shape[0] == 1:
        return _sum_repeats(c.grad, c.self, int(repeats.item()), c.dim)
    # Entry i of `dim` was copied repeats[i] times: add each copy's gradient back into row i.
    from ember._ops.creation_ranges import arange
    rows = arange(shape[dim], device=c.grad.device)
    index = _call("repeat_interleave.self_Tensor", rows, repeats, 0, None)
    total = _call("index_add", c.grad.new_zeros(shape), dim, index, c.grad, 1)
    return total.reshape(tuple(c.self.shape))


@register_op("repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, "
             "SymInt? output_size=None) -> Tensor", function=False, method=False, out=False,
             meta=_interleave_int_meta, saves=(),
             derivatives={"self": lambda c: _sum_repeats(c.grad, c.self, c.repeats, c.dim)})
def repeat_interleave_int(xp, self, repeats, dim=None, output_size=None):
    """Repeat each element `repeats` times along `dim` (the flattened input if None)."""
    _interleave_int_meta(self, repeats, dim)
    if dim is not None and self.ndim == 0:
        # (PyTorch refuses a dim of a 0-d input here, naming the dim after the one wrapped.)
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{wrap_dim(dim, 0) + 1})")
    if output_size is not None:
        expected = (self.size if dim is None else self.shape[wrap_dim(dim, self.ndim)]) * repeats
        _check(output_size == expected, lambda: (
            f"repeat_interleave: Invalid output_size, expected {expected} but got "
            f"{output_size}"))
    if dim is None:
        return _fresh(xp, xp.repeat(self.reshape(-1), repeats))
    if self.ndim == 0:
        self = self.reshape(1)
    return _fresh(xp, xp.repeat(self, repeats, axis=wrap_dim(dim, self.ndim)))


def _check_repeats(repeats):
    _check_not_implemented(repeats.dtype.kind in "iu", lambda: (
        f"\"repeat_interleave_cpu\" not implemented for "
        f"'{dt.NP_TO_DTYPE[repeats.dtype]._cpp_name}'"))
    _check(repeats.ndim == 1, "repeat_interleave only accept 1D vector as repeat")
    _check(not (repeats < 0).any(), "repeats can not be negative")


def _check_output_size(repeats, output_size):
    if output_size is not None:
        _check(int(repeats.sum()) == output_size, "allocated size does not match required size")


@register_op("repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
             function=False, method=False, out=False, saves=(),
             derivatives={"repeats": lambda c: None})
def repeat_interleave_indices(xp, repeats, output_size=None):
    """Each index i repeated repeats[i] times."""
    _check_repeats(repeats)
    repeats = repeats.reshape(-1)
    if repeats.size:                          # (PyTorch checks nothing more for no repeats)
        _check_output_size(repeats, output_size)
    return _fresh(xp, xp.repeat(xp.arange(repeats.shape[0], dtype=repeats.dtype), repeats))


@register_op("repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
             "SymInt? output_size=None) -> Tensor", function=False, method=False, out=False,
             saves=("repeats",),
             derivatives={"self": _interleave_tensor_grad, "repeats": lambda c: None})
def repeat_interleave_tensor(xp, self, repeats, dim=None, output_size=None):
    """Repeat element i of `dim` repeats[i] times (a 0-d `repeats` repeats every element)."""
    if dim is not None and self.ndim == 0:        # (checked before the repeats, as PyTorch)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    _check(repeats.ndim <= 1, "repeats must be 0-dim or 1-dim tensor")
    _check_repeats(repeats.reshape(-1))
    if dim is None:
        self, dim = self.reshape(-1), 0
    dim = wrap_dim(dim, self.ndim)
    if repeats.ndim == 1 and repeats.shape[0] != 1:
        _check(repeats.shape[0] == self.shape[dim], lambda: (
            f"repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{repeats.shape[0]} and input.size(0) = {self.shape[dim]}"))
    else:
        repeats = xp.full((self.shape[dim],), int(repeats.reshape(-1)[0]), dtype=repeats.dtype)
    _check_output_size(repeats, output_size)
    return _fresh(xp, xp.repeat(self, repeats, axis=dim))


def _repeat_interleave_method(self, repeats, dim=None, *, output_size=None):
    if _state.entry and _wants(locals()):
        return _handle(_repeat_interleave_method, locals())
    return repeat_interleave(self, repeats, dim, output_size=output_size)


_UNSET = object()        # an argument not given (told apart from None)


@register_frontend(method=_repeat_interleave_method)
def repeat_interleave(input=_UNSET, repeats=_UNSET, dim=None, *, output_size=None):
    """repeat_interleave(input, repeats, dim=None, *, output_size=None) -> Tensor, or
    repeat_interleave(repeats) -> the indices repeated."""
    if _state.entry and _wants(locals()):
        return _handle(repeat_interleave, locals())
    if input is _UNSET:                       # (repeat_interleave(repeats=...): the indices)
        if repeats is _UNSET:
            raise combination_error("repeat_interleave", OPS["repeat_interleave.Tensor"], (),
                                    {})
        input, repeats = repeats, _UNSET
    if repeats is _UNSET:
        op, args = OPS["repeat_interleave.Tensor"], (input, output_size)
        if dim is not None:
            raise combination_error("repeat_interleave", op, (input,), {
                "dim": dim, **({} if output_size is None else {"output_size": output_size})})
    elif isinstance(repeats, dispatch.Tensor):
        op, args = OPS["repeat_interleave.self_Tensor"], (input, repeats, dim, output_size)
    else:
        op, args = OPS["repeat_interleave.self_int"], (input, repeats, dim, output_size)
    if not (type(repeats) is int or repeats is _UNSET or isinstance(repeats, dispatch.Tensor)) \
            or not (dim is None or type(dim) is int) or output_size is not None:
        args = parser_error(op, args, "repeat_interleave", none_refused=True)
    return dispatch.call(op, args)


# --------------------------------------------------------------------------- triangles

def _tri_meta(name):
    def meta(self, diagonal=0):
        _check(self.ndim >= 2, f"{name}: input tensor must have at least 2 dimensions")
        return (self.shape, self.dtype)
    return meta


def _tri_mask(xp, shape, diagonal, lower):
    rows, cols = shape[-2], shape[-1]
    if lower:
        return xp.tri(rows, cols, diagonal, dtype=bool)
    return ~xp.tri(rows, cols, diagonal - 1, dtype=bool)


@register_op("tril(Tensor self, int diagonal=0) -> Tensor", inplace=True, meta=_tri_meta("tril"),
             tags=("writes_where_changed",), saves=(), derivatives={"self": lambda c: _call("tril", c.grad, c.diagonal)})
def tril(xp, self, diagonal=0):
    """tril(input, diagonal=0) -> Tensor: zero the elements above the `diagonal`."""
    _tri_meta("tril")(self)
    mask = _tri_mask(xp, self.shape, diagonal, lower=True)
    # astype: CuPy's where widens bfloat16 to float32.
    return xp.where(mask, self, xp.zeros((), self.dtype)).astype(self.dtype, copy=False)


@register_op("triu(Tensor self, int diagonal=0) -> Tensor", inplace=True, meta=_tri_meta("triu"),
             tags=("writes_where_changed",), saves=(), derivatives={"self": lambda c: _call("triu", c.grad, c.diagonal)})
def triu(xp, self, diagonal=0):
    """triu(input, diagonal=0) -> Tensor: zero the elements below the `diagonal`."""
    _tri_meta("triu")(self)
    mask = _tri_mask(xp, self.shape, diagonal, lower=False)
    # astype: CuPy's where widens bfloat16 to float32.
    return xp.where(mask, self, xp.zeros((), self.dtype)).astype(self.dtype, copy=False)


def _indices_dtype(name, dtype):
    chosen = dt.int64 if dtype is None or dtype == "long" else dtype
    _check_not_implemented(chosen in (dt.int64, dt.int32), lambda: (
        f"\"{name}\" not implemented for '{chosen._cpp_name}'"))
    return chosen


def _tri_count(row, col, offset, lower):
    _check(row >= 0, lambda: f"row must be non-negative, got{row}")
    _check(col >= 0, lambda: f"col must be non-negative, got{col}")
    if lower:
        return sum(max(0, min(col, r + offset + 1)) for r in range(row))
    return sum(max(0, col - max(r + offset, 0)) for r in range(row))


def _tri_indices_meta(name, lower):
    def meta(row, col, offset=0, dtype="long", layout=None, device=None, pin_memory=None):
        return ((2, _tri_count(row, col, offset, lower)), _indices_dtype(name, dtype))
    return meta


def _tri_indices(xp, name, row, col, offset, dtype, lower):
    chosen = _indices_dtype(name, dtype)
    _tri_count(row, col, offset, lower)
    mask = _tri_mask(xp, (row, col), offset, lower)
    rows, cols = xp.nonzero(mask)
    return xp.stack([rows, cols]).astype(chosen._np)


_FACTORY_TAIL = ("*, ScalarType? dtype=long, Layout? layout=None, Device? device=None, "
                 "bool? pin_memory=None) -> Tensor")


@register_op(f"tril_indices(int row, int col, int offset=0, {_FACTORY_TAIL}", kind="factory",
             method=False, out=False, meta=_tri_indices_meta("tril_indices", True),
             differentiable=False)
def tril_indices(xp, row, col, offset=0, dtype="long", layout=None, device=None,
                 pin_memory=None):
    """tril_indices(row, col, offset=0) -> Tensor: (2, N) coordinates of the lower triangle."""
    return _tri_indices(xp, "tril_indices", row, col, offset, dtype, True)


@register_op(f"triu_indices(int row, int col, int offset=0, {_FACTORY_TAIL}", kind="factory",
             method=False, out=False, meta=_tri_indices_meta("triu_indices", False),
             differentiable=False)
def triu_indices(xp, row, col, offset=0, dtype="long", layout=None, device=None,
                 pin_memory=None):
    """triu_indices(row, col, offset=0) -> Tensor: (2, N) coordinates of the upper triangle."""
    return _tri_indices(xp, "triu_indices", row, col, offset, dtype, False)


# --------------------------------------------------------------------------- diagonals

def _diag_embed_shape(shape, offset, dim1, dim2):
    ndim = len(shape) + 1
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    _check(d1 != d2, lambda: f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (shape[-1] if shape else 1) + abs(offset)
    rest = iter(shape[:-1])
    return tuple(n if d in (d1, d2) else next(rest) for d in range(ndim)), d1, d2


def _diag_embed_grad(c):
    grad = _call("diagonal", c.grad, c.offset, c.dim1, c.dim2)
    return grad if c.self.ndim else grad.reshape(())


@register_op("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
             out=False, meta=lambda self, offset=0, dim1=-2, dim2=-1: (
                 _diag_embed_shape(self.shape, offset, dim1, dim2)[0], self.dtype),
             saves=(), derivatives={"self": _diag_embed_grad})
def diag_embed(xp, self, offset=0, dim1=-2, dim2=-1):
    """diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor: the last dim of `input` as
    the diagonals of matrices in the planes (dim1, dim2)."""
    shape, d1, d2 = _diag_embed_shape(self.shape, offset, dim1, dim2)
    out = xp.zeros(shape, self.dtype)
    length = self.shape[-1] if self.ndim else 1
    # Put the two diagonal dims last so the values' layout (batch..., length) lines up.
    moved = xp.moveaxis(out, (d1, d2), (-2, -1))
    steps = xp.arange(length)
    rows, cols = (steps, steps + offset) if offset >= 0 else (steps - offset, steps)
    moved[..., rows, cols] = self
    return out


def _diag_meta(self, diagonal=0):
    _check(self.ndim in (1, 2), lambda: f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")
    if self.ndim == 1:
        n = self.shape[0] + abs(diagonal)
        return ((n, n), self.dtype)
    rows, cols = self.shape
    length = min(rows, cols - diagonal) if diagonal >= 0 else min(rows + diagonal, cols)
    return ((max(length, 0),), self.dtype)


def _diag_grad(c):
    if c.self.ndim == 1:
        return _call("diagonal", c.grad, c.diagonal, 0, 1)
    return _call("diagonal_scatter", c.grad.new_zeros(tuple(c.self.shape)), c.grad, c.diagonal,
                 0, 1)


@register_op("diag(Tensor self, int diagonal=0) -> Tensor", meta=_diag_meta, saves=(),
             derivatives={"self": _diag_grad}, tags=("out_without_autograd",))
def diag(xp, self, diagonal=0):
    """diag(input, diagonal=0) -> Tensor: a 1-D input as a diagonal matrix, or a matrix's
    `diagonal` as a 1-D tensor."""
    _diag_meta(self, diagonal)
    if self.ndim == 1:
        return diag_embed(xp, self, diagonal, 0, 1)
    return _fresh(xp, xp.diagonal(self, diagonal))


def _diagonal_copy_meta(self, offset=0, dim1=0, dim2=1):
    d1, d2 = wrap_dim(dim1, self.ndim), wrap_dim(dim2, self.ndim)
    _check(d1 != d2, lambda: f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = self.shape[d1], self.shape[d2]
    length = min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2)
    keep = [self.shape[d] for d in range(self.ndim) if d not in (d1, d2)]
    return (tuple(keep) + (max(length, 0),), self.dtype)


# What diag() of a matrix is under modes (PyTorch's composite calls it there): the diagonal
# as a tensor of its own.
@register_op("diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
             out=False, function=False, method=False, meta=_diagonal_copy_meta, saves=(),
             derivatives={"self": lambda c: _call(
                 "diagonal_scatter", c.grad.new_zeros(tuple(c.self.shape)), c.grad, c.offset,
                 c.dim1, c.dim2)})
def diagonal_copy(xp, self, offset=0, dim1=0, dim2=1):
    """diagonal_copy(input, offset=0, dim1=0, dim2=1) -> Tensor: diagonal's values, copied."""
    _diagonal_copy_meta(self, offset, dim1, dim2)
    return _fresh(xp, xp.diagonal(self, offset, dim1, dim2))


@register_op("diagflat(Tensor self, int offset=0) -> Tensor", out=False,
             meta=lambda self, offset=0: (((self.numel() + abs(offset),) * 2), self.dtype),
             saves=(), derivatives={"self": lambda c: _call(
                 "diagonal", c.grad, c.offset, 0, 1).reshape(tuple(c.self.shape))})
def diagflat(xp, self, offset=0):
    """diagflat(input, offset=0) -> Tensor: the flattened input as a diagonal matrix."""
    return diag_embed(xp, self.reshape(-1), offset, 0, 1)


def _trace_meta(self):
    _check(self.ndim == 2, lambda: f"trace: expected a matrix, but got tensor with dim "
                                   f"{self.ndim}")
    _check_not_implemented(self.dtype is not dt.bool_, "\"trace\" not implemented for 'Bool'")
    return ((), dt.int64 if self.dtype._category <= dt.INT else self.dtype)


def _trace_grad(c):
    length = min(c.self.shape)
    return _call("diagonal_scatter", c.grad.new_zeros(tuple(c.self.shape)),
                 c.grad.expand((length,)), 0, 0, 1)


@register_op("trace(Tensor self) -> Tensor", out=False, meta=_trace_meta, saves=(),
             derivatives={"self": _trace_grad}, tags=("fp_errors",))
def trace(xp, self):
    """trace(input) -> Tensor: the sum of a matrix's main diagonal."""
    _check(self.ndim == 2, lambda: f"trace: expected a matrix, but got tensor with dim "
                                   f"{self.ndim}")
    _check_not_implemented(self.dtype.kind != "b", "\"trace\" not implemented for 'Bool'")
    values = xp.diagonal(self)
    if self.dtype.kind in "iu":
        return xp.asarray(values.sum(dtype="int64"))
    if self.dtype.itemsize <= 2 and self.dtype.kind == "f":
        return xp.asarray(values.astype("float32").sum()).astype(self.dtype)
    return xp.asarray(values.sum(dtype=self.dtype))

