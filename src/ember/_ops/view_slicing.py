"""Views that pick part of a tensor: narrow, select, slice, unbind, chunk, split, tensor_split,
h/v/dsplit, diagonal, unfold, as_strided, view_as_real/view_as_complex, alias.

Every result shares the input's storage (kind="view"); strides follow PyTorch's (see
NOTE [view strides follow PyTorch] in view.py). Ops returning several views return a tuple.

The scatter ops (slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter) write
`src` into a copy of `self` where the matching view would read. They are the views'
derivatives: the gradient of a view is the incoming gradient scattered into zeros, and the
gradient of a scatter reads the view back, so both differentiate again (double backward).
"""
from __future__ import annotations

from ember._backends import get_backend
from ember._backends.meta import MetaArray, StandIn
from ember._core import arguments, dispatch, strided, upcalls
from ember._core import dtype as dt
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_index, _check_type
from ember._core.device import META
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import wrap_dim
from ember._ops import grad_utils
from ember._ops.view import element_strides, strided_view
from ember._ops.view_backward import select_backward_of, slice_backward_of


def _call(name, *args):
    return dispatch.call(OPS[name], args)


def _zeros(grad, shape):
    return grad.new_zeros(tuple(shape))


def _narrowed(a, dim, start, length):
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, start + length)
    return a[tuple(index)]


def _narrow_grad(c, start):
    dim = wrap_dim(c.dim, c.self.ndim)
    if start < 0:
        start += c.self.shape[dim]
    return slice_backward_of(c.grad, c.self.shape, dim, start, start + c.length, 1)


@register_op("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
             kind="view", function=False, method=False, saves=(),
             derivatives={"self": lambda c: _narrow_grad(c, c.start)},
             node_name="SliceBackward0")
def narrow_int(xp, self, dim, start, length):
    """narrow(input, dim, start, length) -> Tensor: `length` entries of `dim` from `start`."""
    _check(self.ndim > 0, "narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, self.ndim)
    size = self.shape[dim]
    _check(length >= 0, "narrow(): length must be non-negative.")
    _check_index(-size <= start <= size, lambda: (
        f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"))
    if start < 0:
        start += size
    _check(start <= size - length, lambda: (
        f"start ({start}) + length ({length}) exceeds dimension size ({size})."))
    return _narrowed(self, dim, start, length)


@register_op("narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)",
             kind="view", function=False, method=False, saves=("start",),
             derivatives={"self": lambda c: _narrow_grad(c, int(c.start.item())),
                          "start": lambda c: None},
             node_name="SliceBackward0")
def narrow_tensor(xp, self, dim, start, length):
    """narrow(input, dim, start, length) with `start` a 0-d integer tensor."""
    _check(start.ndim == 0 and start.dtype.kind in "iu", (
        "start must be an 0-dim integral Tensor."))
    return narrow_int(xp, self, dim, int(start), length)


@register_frontend()
def narrow(input, dim, start, length):
    """narrow(input, dim, start, length) -> Tensor: a slice of `dim` (a view)."""
    if _state.entry and _wants(locals()):
        return _handle(narrow, locals())
    op = OPS["narrow.Tensor" if isinstance(start, dispatch.Tensor) else "narrow"]
    args = (input, dim, start, length)
    if type(dim) is not int or type(length) is not int or \
            type(start) is not int and op is not _NARROW_TENSOR:
        args = arguments.parser_error(op, args, "narrow", none_refused=True)
    return dispatch.call(op, args)


_NARROW_TENSOR = OPS["narrow.Tensor"]
_LISTS = (tuple, list)


@register_op("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", kind="view",
             saves=(), derivatives={"self": lambda c: select_backward_of(
                 c.grad, c.self.shape, c.dim, c.index)})
def select(xp, self, dim, index):
    """select(input, dim, index) -> Tensor: the slice at `index` of `dim`, without that dim."""
    return self[_select_where(self, dim, index)]


def _select_where(self, dim, index):
    """The basic index that selects `index` of `dim` (PyTorch's checks and messages)."""
    _check_index(self.ndim > 0, "select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, self.ndim)
    index = int(index)
    size = self.shape[dim]
    _check_index(-size <= index < size, lambda: (
        f"select(): index {index} out of range for tensor of size {list(self.shape)} at "
        f"dimension {dim}"))
    where = [slice(None)] * self.ndim
    where[dim] = index + size if index < 0 else index
    # The trailing Ellipsis keeps a 1-d input's result a 0-d view: NumPy answers an index of
    # integers only with a scalar copy.
    return (*where, Ellipsis)


def _slice_grad(c):
    size = c.self.shape[wrap_dim(c.dim, len(c.self.shape))]
    start, end, step = slice(c.start, c.end, c.step).indices(size)
    return slice_backward_of(c.grad, c.self.shape, c.dim, start, max(end, start), step)


@register_op("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, "
             "SymInt step=1) -> Tensor(a)", kind="view", function=False, method=False,
             saves=(), derivatives={"self": lambda c: _slice_grad(c)})
def slice_view(xp, self, dim=0, start=None, end=None, step=1):
    """self[start:end:step] along `dim` (what basic indexing records)."""
    dim = wrap_dim(dim, self.ndim)
    _check(step > 0, "slice step must be positive")
    where = [slice(None)] * self.ndim
    where[dim] = slice(*slice(start, end, step).indices(self.shape[dim]))
    return self[tuple(where)]


@register_op("alias(Tensor(a) self) -> Tensor(a)", kind="view", function=False, method=False,
             saves=(), derivatives={"self": lambda c: c.grad})
def alias(xp, self):
    """A new tensor over the same data and layout."""
    return self[...]


def _unbind_grad(c):
    if not c.grads:
        return c.self.new_zeros(tuple(c.self.shape))
    return _call("stack", list(c.grads), c.dim)


@register_op("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", kind="view",
             saves=(), derivatives={"self": _unbind_grad})
def unbind(xp, self, dim=0):
    """unbind(input, dim=0) -> tuple of Tensors: every slice of `dim`."""
    _check_index(self.ndim > 0, "Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, self.ndim)
    head = (slice(None),) * dim
    return tuple(self[head + (i,)] for i in range(self.shape[dim]))


def _pieces(a, dim, sizes):
    found, start = [], 0
    for size in sizes:
        found.append(_narrowed(a, dim, start, size))
        start += size
    return tuple(found)


def _sizes_bounds(sizes):
    bounds, start = [], 0
    for size in sizes:
        bounds.append((start, start + size))
        start += size
    return bounds


def _pieces_grad(c, bounds_for):
    """The gradient of a split into pieces along `c.dim` that cover the rows `bounds_for(size)`
    (start, stop) each: the pieces' gradients joined, summed where pieces overlap."""
    dim = wrap_dim(c.dim, c.self.ndim)
    size = c.self.shape[dim]
    bounds = bounds_for(size)
    grads = list(c.grads)
    tiles = all(lo == (bounds[k - 1][1] if k else 0) for k, (lo, _) in enumerate(bounds))
    if tiles and bounds[-1][1] == size:
        return _call("cat", grads, dim)
    total = _zeros(c.grad, c.self.shape)
    for g, (lo, hi) in zip(grads, bounds):
        if hi > lo:
            total = total + _call("slice_scatter", _zeros(c.grad, c.self.shape), g, dim, lo, hi,
                                  1)
    return total


def _split_bounds(split_size):
    def bounds(size):
        if size == 0 or split_size == 0:
            return [(0, size)]
        count = -(-size // split_size)
        return _sizes_bounds([split_size] * (count - 1) + [size - split_size * (count - 1)])
    return bounds


def _chunk_bounds(chunks):
    def bounds(size):
        if size == 0:
            return [(0, 0)] * chunks
        return _split_bounds(-(-size // chunks))(size)
    return bounds


def _check_has_dims(a):
    _check(a.ndim > 0, "split expects at least a 1-dimensional tensor")


@register_op("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
             kind="view", function=False, method=False, saves=(),
             derivatives={"self": lambda c: _pieces_grad(c, _split_bounds(c.split_size))})
def split_size(xp, self, split_size, dim=0):
    """split(input, split_size, dim=0): pieces of `split_size` (the last may be smaller)."""
    _check_has_dims(self)
    dim = wrap_dim(dim, self.ndim)
    size = self.shape[dim]
    _check(split_size >= 0, lambda: (
        f"split expects split_size be non-negative, but got split_size={split_size}"))
    _check(split_size > 0 or size == 0, lambda: (
        f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"))
    if size == 0 or split_size == 0:
        return (self,)
    count = -(-size // split_size)
    sizes = [split_size] * (count - 1) + [size - split_size * (count - 1)]
    return _pieces(self, dim, sizes)


@register_op("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> "
             "Tensor(a)[]", kind="view", saves=(),
             derivatives={"self": lambda c: _pieces_grad(
                 c, lambda size: _sizes_bounds([int(s) for s in c.split_sizes]))})
def split_with_sizes(xp, self, split_sizes, dim=0):
    """split_with_sizes(input, split_sizes, dim=0): pieces of the given sizes."""
    _check_has_dims(self)
    dim = wrap_dim(dim, self.ndim)
    size = self.shape[dim]
    sizes = [int(s) for s in split_sizes]
    for s in sizes:
        _check(s >= 0, lambda: (
            f"split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={sizes}"))
    _check(sum(sizes) == size, lambda: (
        f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
        f"at dimension {dim}), but got split_sizes={sizes}"))
    return _pieces(self, dim, sizes)


@register_frontend()
def split(tensor, split_size_or_sections, dim=0):
    """split(tensor, split_size_or_sections, dim=0) -> tuple of views."""
    if _state.entry and _wants(locals()):
        return _handle(split, locals())
    if isinstance(split_size_or_sections, (list, tuple)):
        return dispatch.call(OPS["split_with_sizes"],
                             (tensor, tuple(split_size_or_sections), dim))
    return dispatch.call(OPS["split.Tensor"], (tensor, split_size_or_sections, dim))


@register_op("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", kind="view",
             saves=(), derivatives={"self": lambda c: _pieces_grad(c, _chunk_bounds(c.chunks))},
             node_name="SplitBackward0")
def chunk(xp, self, chunks, dim=0):
    """chunk(input, chunks, dim=0) -> tuple: at most `chunks` pieces of equal size."""
    _check(self.ndim > 0, "chunk expects at least a 1-dimensional tensor")
    _check(chunks > 0, lambda: f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = wrap_dim(dim, self.ndim)
    size = self.shape[dim]
    if size == 0:
        # An empty dim gives `chunks` empty pieces (split would give one).
        return tuple(self[...] for _ in range(chunks))
    return split_size(xp, self, -(-size // chunks), dim)


def _section_bounds(size, sections):
    base, extra = divmod(size, sections)
    bounds, start = [], 0
    for k in range(sections):
        stop = start + base + (1 if k < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def _index_bounds(size, indices):
    """Python-slice semantics between consecutive indices (negative ones wrap, all clamp)."""
    bounds, start = [], 0
    for index in [int(i) for i in indices] + [size]:
        lo, hi, _ = slice(start, index).indices(size)
        bounds.append((lo, max(lo, hi)))
        start = index
    return bounds


def _by_bounds(a, dim, bounds):
    return tuple(_narrowed(a, dim, lo, hi - lo) for lo, hi in bounds)


@register_op("tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> "
             "Tensor(a)[]", kind="view", function=False, method=False, saves=(),
             derivatives={"self": lambda c: _pieces_grad(
                 c, lambda size: _section_bounds(size, c.sections))},
             node_name="SliceBackward0")
def tensor_split_sections(xp, self, sections, dim=0):
    """tensor_split(input, sections, dim=0): `sections` pieces, the first ones one larger."""
    _check(self.ndim > 0, lambda: (
        "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"))
    _check(sections > 0, lambda: f"number of sections must be larger than 0, got {sections}")
    dim = wrap_dim(dim, self.ndim)
    return _by_bounds(self, dim, _section_bounds(self.shape[dim], sections))


@register_op("tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> "
             "Tensor(a)[]", kind="view", function=False, method=False, varargs=False,
             saves=(), derivatives={"self": lambda c: _pieces_grad(
                 c, lambda size: _index_bounds(size, c.indices))},
             node_name="SliceBackward0")
def tensor_split_indices(xp, self, indices, dim=0):
    """tensor_split(input, indices, dim=0): split before each index."""
    _check(self.ndim > 0, lambda: (
        "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"))
    dim = wrap_dim(dim, self.ndim)
    return _by_bounds(self, dim, _index_bounds(self.shape[dim], indices))


_UNSET = object()        # an argument not given (told apart from None)


@register_frontend()
def tensor_split(input, tensor_indices_or_sections=_UNSET, dim=0, *, indices=_UNSET,
                 sections=_UNSET):
    """tensor_split(input, indices_or_sections, dim=0) -> tuple of views."""
    if _state.entry and _wants(locals()):
        return _handle(tensor_split, locals())
    # PyTorch's three overloads name the second argument differently; one of them is given:
    # a tensor, a list of indices or a number of sections.
    given = {name: value for name, value in (
        ("tensor_indices_or_sections", tensor_indices_or_sections), ("indices", indices),
        ("sections", sections)) if value is not _UNSET}
    if len(given) != 1:
        raise arguments.combination_error("tensor_split", OPS["tensor_split.sections"],
                                          (input,), {**given, "dim": dim})
    (name, chosen), = given.items()
    if name == "tensor_indices_or_sections" and isinstance(chosen, dispatch.Tensor):
        _check(chosen._device.type == "cpu", lambda: (
            "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
            f"{chosen._device}"))
        _check(chosen._dtype is dt.int64, lambda: (
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{chosen._dtype._cpp_name}"))
        _check(chosen.ndim <= 1, lambda: (
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            f"one-dimensional tensor, but got a tensor with {chosen.ndim} dims"))
        chosen = int(chosen.item()) if chosen.ndim == 0 else tuple(chosen.tolist())
    by_indices = name == "indices" or name != "sections" and type(chosen) in (list, tuple)
    op = OPS["tensor_split.indices" if by_indices else "tensor_split.sections"]
    if by_indices and type(chosen) not in (list, tuple) or \
            not by_indices and type(chosen) is not int or type(dim) is not int:
        if by_indices and not isinstance(chosen, (list, tuple)):    # (a bare int is no list)
            raise arguments.combination_error("tensor_split", op, (input,), {name: chosen})
        input, chosen, dim = arguments.parser_error(op, (input, chosen, dim), "tensor_split",
                                                    none_refused=True)
    elif by_indices:
        input, chosen, dim = arguments.parser_error(op, (input, chosen, dim), "tensor_split")
    return dispatch.call(op, (input, tuple(chosen) if by_indices else chosen, dim))


def _make_hvd_split(name, dim, min_dims):
    def fn(input, indices_or_sections):
        if _state.entry and _wants(locals()):
            return _handle(fn, locals())
        ndim = input.ndim
        _check(ndim >= min_dims, lambda: (
            f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a "
            f"tensor with {ndim} dimensions!"))
        split_dim = 0 if name == "hsplit" and ndim == 1 else dim
        if isinstance(indices_or_sections, int):
            size = input.shape[split_dim]
            sections = indices_or_sections
            _check(sections != 0 and size % sections == 0, lambda: (
                f"torch.{name} attempted to split along dimension {split_dim}, but the size of "
                f"the dimension {size} is not divisible by the split_size {sections}!"))
        return tensor_split(input, indices_or_sections, split_dim)
    fn.__name__ = name
    fn.__doc__ = f"{name}(input, indices_or_sections) -> tuple of views along dim {dim}."
    fn = checked(f"{name}(Tensor self, int sections)", f"{name}(Tensor self, int[] indices)")(fn)
    register_frontend(name)(fn)
    return fn


hsplit = _make_hvd_split("hsplit", 1, 1)
vsplit = _make_hvd_split("vsplit", 0, 2)
dsplit = _make_hvd_split("dsplit", 2, 3)


# --------------------------------------------------------------------------- diagonal / unfold

@register_op("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
             kind="view", saves=(), derivatives={"self": lambda c: _call(
                 "diagonal_scatter", _zeros(c.grad, c.self.shape), c.grad, c.offset, c.dim1,
                 c.dim2)})
def diagonal(xp, self, offset=0, dim1=0, dim2=1):
    """diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor: a diagonal as the last dim."""
    d1, d2 = wrap_dim(dim1, self.ndim), wrap_dim(dim2, self.ndim)
    _check(d1 != d2, lambda: f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    strides = element_strides(self)
    n1, n2 = self.shape[d1], self.shape[d2]
    if offset >= 0:
        length = max(min(n1, n2 - offset), 0)
        start = offset * strides[d2]
    else:
        length = max(min(n1 + offset, n2), 0)
        start = -offset * strides[d1]
    if length == 0:
        start = 0
    keep = [d for d in range(self.ndim) if d not in (d1, d2)]
    shape = [self.shape[d] for d in keep] + [length]
    new_strides = [strides[d] for d in keep] + [strides[d1] + strides[d2]]
    return strided_view(xp, self, shape, new_strides, start)


def _unfold_grad(c):
    """Each window's gradient added back at the rows it read (windows overlap when step <
    size)."""
    grad, self = c.grad, c.self
    if self.ndim == 0:
        return grad.sum()
    dim, size, step = wrap_dim(c.dimension, self.ndim), c.size, c.step
    count = grad.shape[dim]
    if step == size:
        # The windows tile a prefix of the dim: put each window's entries back in a row.
        rows = grad.movedim(-1, dim + 1).flatten(dim, dim + 1)
        return _call("slice_scatter", _zeros(grad, self.shape), rows, dim, 0, count * size, 1)
    total = _zeros(grad, self.shape)
    for j in range(size):
        total = total + _call("slice_scatter", _zeros(grad, self.shape), grad.select(-1, j), dim,
                              j, j + (count - 1) * step + 1, step)
    return total


@register_op("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
             kind="view", function=False, saves=(), derivatives={"self": _unfold_grad})
def unfold(xp, self, dimension, size, step):
    """unfold(dimension, size, step) -> Tensor: windows of `size` every `step` along a dim."""
    dim = wrap_dim(dimension, self.ndim)
    extent = self.shape[dim] if self.ndim else 1
    _check(size <= extent, lambda: (
        f"maximum size for tensor at dimension {dim} is {extent} but size is {size}"))
    _check(size >= 0, lambda: f"size is {size} but must be >= 0")
    _check(step > 0, lambda: f"step is {step} but must be > 0")
    if self.ndim == 0:
        return strided_view(xp, self, (size,), (1,))
    strides = element_strides(self)
    shape = list(self.shape)
    new_strides = list(strides)
    shape[dim] = (extent - size) // step + 1
    new_strides[dim] = strides[dim] * step
    return strided_view(xp, self, shape + [size], new_strides + [strides[dim]])


# --------------------------------------------------------------------------- complex views

# The (re, im) pairs and the complex numbers are the same values, so each view's gradient is
# the other view of the incoming gradient (made contiguous, which view_as_complex requires).

@register_op("view_as_real(Tensor(a) self) -> Tensor(a)", kind="view", method=False, saves=(),
             derivatives={"self": lambda c: _call("view_as_complex", c.grad.contiguous())})
def view_as_real(xp, self):
    """view_as_real(input) -> Tensor: a complex tensor as (..., 2) of its real type."""
    chalf = self.dtype.names is not None     # complex32: NOTE [complex32 storage]
    _check(self.dtype.kind == "c" or chalf, "view_as_real is only supported for complex tensors")
    if chalf:
        return self[..., None].view(dt.float16._np)
    real = self.real
    strides = tuple(2 * s for s in element_strides(self))
    return strided_view(xp, real, self.shape + (2,), strides + (1,))


@register_op("view_as_complex(Tensor(a) self) -> Tensor(a)", kind="view", method=False,
             saves=(),
             derivatives={"self": lambda c: _call("view_as_real", c.grad.contiguous())})
def view_as_complex(xp, self):
    """view_as_complex(input) -> Tensor: a (..., 2) float tensor read as complex numbers."""
    name = dt.NP_TO_DTYPE[self.dtype]._cpp_name
    _check(self.dtype in (dt.float16._np, dt.float32._np, dt.float64._np), lambda: (
        "view_as_complex is only supported for half, float and double tensors, but got a "
        f"tensor of scalar type: {name}"))
    _check(self.ndim > 0 and self.shape[-1] == 2, "Tensor must have a last dimension of size 2")
    strides = element_strides(self)
    _check(strides[-1] == 1, "Tensor must have a last dimension with stride 1")
    for s in strides[:-1]:
        _check(s % 2 == 0, "Tensor must have a stride divisible by 2 for all but last dimension")
    complex_np = dt.NP_TO_DTYPE[self.dtype].to_complex()._np
    # Re-stride first: the meta device's stand-in has zero strides, which NumPy's view refuses.
    pairs = strided_view(xp, self, self.shape, strides)
    return pairs.view(complex_np)[..., 0]


# --------------------------------------------------------------------------- as_strided

def _check_fits(size, stride, offset, available, itemsize, meta=False):
    """PyTorch's checks that the geometry (size, stride, offset) stays inside `available`
    elements (NOTE [strided views are checked against their storage]); on meta (nothing
    allocated) PyTorch checks only the strides, the offset and the element count."""
    _check(len(size) == len(stride), "mismatch in length of strides and shape")
    strided.refuse_negative_strides(stride)
    strided.check_offset(offset)
    if not meta:
        strided.check_in_storage(size, stride, offset, itemsize, available * itemsize)
    strided.check_numel(size)
    strided.byte_strides(stride, itemsize)


def _geometry(size, stride, storage_offset):
    offset = 0 if storage_offset is None else int(storage_offset)
    return tuple(int(s) for s in size), tuple(int(s) for s in stride), offset


def _non_overlapping(size, stride) -> bool:
    """True when no two positions of the geometry read one element (a sufficient test: with
    the dims sorted by stride, each stride steps past everything the smaller ones reach)."""
    reach = 0
    for n, s in sorted(((n, s) for n, s in zip(size, stride) if n > 1), key=lambda p: p[1]):
        if s <= reach:
            return False
        reach += (n - 1) * s
    return True


def _strided_grad(grad, numel, size, stride, offset):
    """The gradient of a flat tensor of `numel` elements from the gradient of its strided view
    (size, stride, offset): every element gets the sum over the positions that read it."""
    if 0 in size:
        return _zeros(grad, (numel,))
    # A stride-0 dim reads one element many times: sum it first.
    broadcast = [d for d, (n, s) in enumerate(zip(size, stride)) if s == 0 and n > 1]
    if broadcast:
        grad = grad.sum(broadcast, keepdim=True)
    keep = [d for d, (n, s) in enumerate(zip(size, stride)) if n > 1 and s != 0]
    size, stride = tuple(size[d] for d in keep), tuple(stride[d] for d in keep)
    grad = grad.reshape(size)
    if _non_overlapping(size, stride):
        return _call("as_strided_scatter", _zeros(grad, (numel,)), grad, size, stride, offset)
    # Overlapping windows: add up the scatters of the slices along the shortest dim.
    d = min(range(len(size)), key=lambda k: size[k])
    rest_size, rest_stride = size[:d] + size[d + 1:], stride[:d] + stride[d + 1:]
    total = _zeros(grad, (numel,))
    for k in range(size[d]):
        total = total + _strided_grad(grad.select(d, k), numel, rest_size, rest_stride,
                                      offset + k * stride[d])
    return total


def _as_strided_grad(c):
    self = c.self
    numel = self.shape[0] if self.ndim else 1
    size, stride, offset = _geometry(c.size, c.stride, c.storage_offset)
    return _strided_grad(c.grad, numel, size, stride, offset).reshape(tuple(self.shape))


@register_op("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, "
             "SymInt? storage_offset=None) -> Tensor(a)", kind="view", function=False,
             method=False, saves=(), derivatives={"self": _as_strided_grad})
def as_strided_storage(xp, self, size, stride, storage_offset=None):
    """A view with explicit element strides into `self`, taken as a flat storage (1-d)."""
    size, stride, offset = _geometry(size, stride, storage_offset)
    _check_fits(size, stride, offset, self.shape[0] if self.ndim else 1, self.itemsize,
                meta=type(self) is StandIn)
    return strided_view(xp, self, size, stride, offset)


def _flat_storage(input):
    """The whole storage of `input` as a 1-d tensor of its dtype, sharing that storage."""
    root = dispatch.storage_of(input)._array
    itemsize = input._dtype.itemsize
    count = root.nbytes // itemsize
    if input._device is META:
        flat = MetaArray((count,), input._dtype._np)
    else:
        xp = get_backend(input._device.type).xp
        flat = xp.lib.stride_tricks.as_strided(root, (root.size,), (root.itemsize,))
        if flat.dtype != input._dtype._np:
            flat = flat.view(xp.uint8)[:count * itemsize].view(input._dtype._np)
    return dispatch.wrap_view(flat, input, input._dtype)


def _storage_grad_to_input(grad, size, stride, offset):
    """The gradient of an input from the gradient of its flat storage: read back at the
    input's own positions; positions sharing one element (an expanded input) split it."""
    flat = grad.contiguous()
    if not _non_overlapping(size, stride):
        count = _strided_grad(flat.new_ones(size), flat.shape[0], size, stride, offset)
        flat = flat / grad_utils.where(count > 0, count, 1.0)
    return _call("as_strided", flat, size, stride, offset)


_storage_function = []


def _storage_of():
    """A custom Function giving `_flat_storage` a gradient edge to its input (made on first
    use; its base class comes from above, NOTE [upcalls])."""
    if not _storage_function:
        class StorageOf(upcalls.Function):
            @staticmethod
            def forward(ctx, input):
                ctx.geometry = (tuple(input.shape), tuple(input.stride()),
                                input.storage_offset())
                return _flat_storage(input)

            @staticmethod
            def backward(ctx, grad):
                return _storage_grad_to_input(grad, *ctx.geometry)
        _storage_function.append(StorageOf)
    return _storage_function[0]


@register_frontend()
def as_strided(input, size, stride, storage_offset=None):
    """as_strided(input, size, stride, storage_offset=None) -> Tensor: a view with explicit
    element strides, measured from the start of input's storage."""
    if _state.entry and _wants(locals()):
        return _handle(as_strided, locals())
    _check_type(isinstance(input, dispatch.Tensor), lambda: (
        f"as_strided(): argument 'input' must be Tensor, not {type(input).__name__}"))
    if not (type(size) in _LISTS and type(stride) in _LISTS and (
            storage_offset is None or type(storage_offset) is int)) or \
            size and type(size[0]) is not int or stride and type(stride[0]) is not int:
        for name, value in (("size", size), ("stride", stride)):
            _check_type(type(value) is not int, lambda name=name: (   # (no bare int)
                f"as_strided(): argument '{name}' must be tuple of ints, not int"))
        _, size, stride, storage_offset = arguments.parser_error(
            OPS["as_strided"], (input, size, stride, storage_offset), "as_strided",
            none_refused=True)                  # (the parser's errors first)
    if storage_offset is None:
        storage_offset = input.storage_offset()
    # The op reads the whole storage; under autograd its gradient reaches `input` through
    # the positions `input` itself covers (as PyTorch's as_strided backward does).
    # (On the slow path too, so forward AD sees the Function.)
    flat = _storage_of().apply(input) if input._requires_grad or dispatch.state.slow \
        else _flat_storage(input)
    return dispatch.call(OPS["as_strided"], (flat, tuple(size), tuple(stride), storage_offset))


def as_strided_(self, size, stride, storage_offset=None):
    """In-place form of `Tensor.as_strided`: gives `self` new sizes, strides and storage
    offset over its own storage, and returns `self`."""
    if _state.entry and _wants(locals()):
        return _handle(as_strided_, locals())
    arguments.tensor_(self, ("as_strided_", "input", 1))     # (also `torch.as_strided_`)
    from ember._ops.view import restride_in_place
    return restride_in_place(self, as_strided, size, stride, storage_offset)


register_frontend("as_strided_", function=False)(as_strided_)


# --------------------------------------------------------------------------- scatters

def _copy(xp, self):
    """A copy of `self` in its own memory order (as clone keeps a dense tensor's layout)."""
    return xp.array(self, copy=True, order="K")


def _check_src(src, part_shape):
    _check(tuple(src.shape) == tuple(part_shape), lambda: (
        f"expected src to have a size equal to the slice of self. src size = "
        f"{list(src.shape)}, slice size = {list(part_shape)}"))


def _scatter_meta(self, src, *args):
    return (self.shape, self.dtype)


@register_op("slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, "
             "SymInt? end=None, SymInt step=1) -> Tensor", out=False, meta=_scatter_meta,
             saves=(),
             derivatives={
                 "self": lambda c: _call("slice_scatter", c.grad, _zeros(c.grad, c.src.shape),
                                         c.dim, c.start, c.end, c.step),
                 "src": lambda c: _call("slice.Tensor", c.grad, c.dim, c.start, c.end,
                                        c.step)}, tags=("fp_errors",))
def slice_scatter(xp, self, src, dim=0, start=None, end=None, step=1):
    """slice_scatter(input, src, dim=0, start=None, end=None, step=1) -> Tensor: a copy of
    input with src written where input[start:end:step] along dim would read."""
    out = _copy(xp, self)
    part = slice_view(xp, out, dim, start, end, step)
    _check_src(src, part.shape)
    part[...] = src
    return out


@register_op("select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
             out=False, meta=_scatter_meta, saves=(),
             derivatives={
                 "self": lambda c: _call("select_scatter", c.grad,
                                         _zeros(c.grad, c.src.shape), c.dim, c.index),
                 "src": lambda c: _call("select.int", c.grad, c.dim, c.index)}, tags=("fp_errors",))
def select_scatter(xp, self, src, dim, index):
    """select_scatter(input, src, dim, index) -> Tensor: a copy of input with src written
    where input.select(dim, index) would read."""
    out = _copy(xp, self)
    where = _select_where(out, dim, index)
    _check_src(src, out[where].shape)
    out[where] = src
    return out


@register_op("diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) "
             "-> Tensor", out=False, meta=_scatter_meta, saves=(),
             derivatives={
                 "self": lambda c: _call("diagonal_scatter", c.grad,
                                         _zeros(c.grad, c.src.shape), c.offset, c.dim1, c.dim2),
                 "src": lambda c: _call("diagonal", c.grad, c.offset, c.dim1, c.dim2)},
                 tags=("fp_errors",))
def diagonal_scatter(xp, self, src, offset=0, dim1=0, dim2=1):
    """diagonal_scatter(input, src, offset=0, dim1=0, dim2=1) -> Tensor: a copy of input with
    src written where input.diagonal(offset, dim1, dim2) would read."""
    out = _copy(xp, self)
    part = diagonal(xp, out, offset, dim1, dim2)
    _check_src(src, part.shape)
    part[...] = src
    return out


def _in_memory_order(grad, result):
    """`grad` as a flat contiguous tensor in the memory order of `result` (whose storage the
    as_strided_scatter geometry addresses), and the permutation that order applies."""
    strides = result.stride()
    order = sorted(range(result.ndim), key=lambda d: -strides[d])
    return grad.permute(order).contiguous().reshape(-1), order


def _from_memory_order(flat, result, order):
    inverse = [0] * len(order)
    for position, d in enumerate(order):
        inverse[d] = position
    return flat.reshape(tuple(result.shape[d] for d in order)).permute(inverse)


def _as_strided_scatter_self_grad(c):
    flat, order = _in_memory_order(c.grad, c.result)
    size, stride, offset = _geometry(c.size, c.stride, c.storage_offset)
    cleared = _call("as_strided_scatter", flat, _zeros(c.grad, c.src.shape), size, stride,
                    offset)
    return _from_memory_order(cleared, c.result, order)


def _as_strided_scatter_src_grad(c):
    flat, _ = _in_memory_order(c.grad, c.result)
    size, stride, offset = _geometry(c.size, c.stride, c.storage_offset)
    return _call("as_strided", flat, size, stride, offset)


@register_op("as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, "
             "SymInt? storage_offset=None) -> Tensor", out=False, meta=_scatter_meta, saves=("result",),
             derivatives={"self": _as_strided_scatter_self_grad,
                          "src": _as_strided_scatter_src_grad},
             # Its strides address self's storage layout, which the result keeps.
             tags=("fp_errors", "keeps_layout"))
def as_strided_scatter(xp, self, src, size, stride, storage_offset=None):
    """as_strided_scatter(input, src, size, stride, storage_offset=None) -> Tensor: a copy of
    input with src written where the strided view (size, stride, storage_offset) of the
    copy's memory would read."""
    out = _copy(xp, self)
    size, stride, offset = _geometry(size, stride, storage_offset)
    _check_fits(size, stride, offset, out.size, out.itemsize)
    _check_src(src, size)
    if out.size:
        strided_view(xp, out, size, stride, offset)[...] = src
    return out
