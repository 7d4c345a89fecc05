"""View ops: results share the input's storage (see NOTE [views share one version counter]).

Kernels return views of their input array and never copy; the dispatcher (kind="view") makes
the result share the base's storage. On the meta device the same kernels run on a zero-stride
stand-in array to find the result's shape. An op tagged "maybe_view" (reshape) returns a view
when the layout allows it and a fresh copy otherwise. Splitting views (narrow, select, split,
unbind, diagonal, as_strided, ...) live in view_slicing.py.

NOTE [view strides follow PyTorch]: `stride()` reads the array's real layout, so a view must
have the strides PyTorch gives the same op, also on size-1 dims where NumPy's choice differs
(unsqueeze, view, expand). Those kernels compute PyTorch's element strides and build the view
with `strided_view`.
"""
from __future__ import annotations

import math

import numpy as np

from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import StandIn
from ember._core import arguments, dispatch, upcalls
from ember._core import dtype as dt
from ember._core.checks import _check, _warn_once
from ember._core.device import CPU
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import Size, normalize_shape, sizes_or_keyword, wrap_dim, wrap_dims
from ember._ops.grad_utils import view_or_copy

# Derivatives shared by the reshaping views: the gradient takes the input's shape back.
# An `other` argument (view_as, expand_as) gives only its shape: it gets no gradient.
_RESHAPE_BACK = {"self": lambda c: c.grad.reshape(c.self.shape), "other": lambda c: None}
# expand/broadcast: the engine sums a broadcast gradient back to the input's shape (graph._fit).
_SUM_BACK = {"self": lambda c: c.grad, "other": lambda c: None}


def _permute_back(c):
    dims = wrap_dims(c.dims, c.grad.ndim)
    inverse = [0] * len(dims)
    for position, d in enumerate(dims):
        inverse[d] = position
    return c.grad.permute(inverse)


def element_strides(a) -> tuple:
    """`a`'s strides in elements. The meta device's zero-stride stand-in (read-only, see
    MetaArray.stand_in) counts as contiguous, which is what every meta tensor is."""
    strides = a.strides
    if strides and not any(strides) and not getattr(a.flags, "writeable", True):
        return _contiguous(a.shape)
    item = a.itemsize
    return tuple(s // item for s in strides)


def strided_view(xp, a, shape, strides, offset=0):
    """A view of `a`'s memory with element `strides`, starting `offset` elements past a[0...]."""
    item = a.itemsize
    shape, strides = tuple(shape), tuple(strides)
    if not offset and a.size and a.flags.c_contiguous and math.prod(shape) == a.size \
            and strides == _contiguous(shape):
        # The common case (a contiguous view of a contiguous array): reshape is much cheaper.
        return a.reshape(shape)
    as_strided = xp.lib.stride_tricks.as_strided
    if offset:
        a = as_strided(a, (offset + 1,), (item,))[offset:]
    return as_strided(a, tuple(shape), tuple(s * item for s in strides))


def infer_size(shape, numel: int) -> tuple:
    """Resolve one -1 in `shape` so that it holds `numel` elements (PyTorch's messages)."""
    if type(shape) is tuple:
        if -1 not in shape:
            if math.prod(shape) == numel and min(shape, default=0) >= 0:
                return shape    # the common case: nothing to infer, nothing wrong
        elif min(shape) == -1 and shape.count(-1) == 1:
            known = -math.prod(shape)       # the other sizes' product (all >= 0)
            if known > 0 and numel % known == 0:
                # reshape(-1, features): one size inferred, nothing wrong
                at = shape.index(-1)
                return shape[:at] + (numel // known,) + shape[at + 1:]
    shape = tuple(int(s) for s in shape)
    infer_at = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            _check(infer_at is None, "only one dimension can be inferred")
            infer_at = i
        else:
            _check(s >= 0, lambda: f"invalid shape dimension {s}")
            known *= s
    if infer_at is not None:
        _check(known != 0 and numel % known == 0, lambda: (
            f"shape '{list(shape)}' is invalid for input of size {numel}"))
        return shape[:infer_at] + (numel // known,) + shape[infer_at + 1:]
    _check(known == numel, lambda: f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def view_strides(old_shape, old_strides, new_shape):
    """PyTorch's strides for viewing (old_shape, old_strides) as new_shape, or None when the
    layout can't be expressed without a copy. Dims are grouped into runs that are contiguous
    with each other; each run of the new shape must cover exactly one run of the old."""
    if not old_shape:
        return (1,) * len(new_shape)
    numel = math.prod(old_shape)
    if numel == 0:
        if tuple(old_shape) == tuple(new_shape):
            return tuple(old_strides)
        return _contiguous(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    run_stride = old_strides[-1]
    run_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        run_numel *= old_shape[d]
        run_ends = d == 0 or (old_shape[d - 1] != 1
                              and old_strides[d - 1] != run_numel * run_stride)
        if not run_ends:
            continue
        while view_d >= 0 and (view_numel < run_numel or new_shape[view_d] == 1):
            new_strides[view_d] = view_numel * run_stride
            view_numel *= new_shape[view_d]
            view_d -= 1
        if view_numel != run_numel:
            return None
        if d > 0:
            run_stride = old_strides[d - 1]
            run_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _contiguous_bytes(shape, itemsize):
    return tuple(s * itemsize for s in _contiguous(shape))


def _contiguous(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _view_as_shape(xp, a, shape):
    if a.flags.c_contiguous and a.size:
        return a.reshape(shape)     # a contiguous view of a contiguous array
    strides = view_strides(a.shape, element_strides(a), shape)
    _check(strides is not None, (
        "view size is not compatible with input tensor's size and stride (at least one "
        "dimension spans across two contiguous subspaces). Use .reshape(...) instead."))
    return strided_view(xp, a, shape, strides)


def _reshape_to(xp, a, shape):
    """A view when the layout allows it, else a fresh contiguous copy."""
    if a.size and type(a) is not StandIn:
        if a.flags.c_contiguous:
            return a.reshape(shape)     # a contiguous view of a contiguous array (as
            # _view_as_shape)
        if shape == a.shape and 1 not in shape:
            return a.view()             # (view_strides keeps every stride of such a shape)
    strides = view_strides(a.shape, element_strides(a), shape)
    if strides is None:
        if type(a) is StandIn:
            # A meta tensor: the copy would be contiguous (and there is no data to copy).
            return xp.lib.stride_tricks.as_strided(a, shape, _contiguous_bytes(shape, a.itemsize))
        return xp.ascontiguousarray(a).reshape(shape)
    return strided_view(xp, a, shape, strides)


# --------------------------------------------------------------------------- view / reshape

@register_op("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", kind="view", function=False,
             method=False,
             saves=(), derivatives=_RESHAPE_BACK)
def view_size(xp, self, size):
    """view(*shape) -> Tensor: the same data with another shape (no copy; may raise)."""
    shape = infer_size(size, self.size)
    if self.flags.c_contiguous and self.size:
        return self.reshape(shape)
    return _view_as_shape(xp, self, shape)


def _unsafe_view_meta(self, size):
    return infer_size(size, math.prod(self.shape)), self._dtype


@register_op("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", function=False,
             method=False, meta=_unsafe_view_meta, saves=(), derivatives=_RESHAPE_BACK)
def _unsafe_view(xp, self, size):
    """A view's shape change whose result autograd does not treat as a view (what matmul's
    and reshape's decompositions end with); ember gives it its own storage."""
    result = view_size(xp, self, size)
    return backend_helpers(xp).copy(result)          # NOTE [back-end helpers]


# PyTorch records no history for a dtype view (even to the same dtype).
@register_op("view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)", kind="view",
             function=False, method=False, differentiable=False)
def view_dtype(xp, self, dtype):
    """view(dtype) -> Tensor: the same bytes read as another dtype."""
    old = dt.NP_TO_DTYPE[self.dtype]
    if dtype.itemsize == old.itemsize:
        return self.view(dtype._np)
    how = f"to view {old._cpp_name} as {dtype._cpp_name} (different element sizes)"
    _check(self.ndim > 0, lambda: f"self.dim() cannot be 0 {how}")
    _check(element_strides(self)[-1] == 1 or self.shape[-1] == 1,
           lambda: f"self.stride(-1) must be 1 {how}, but got {element_strides(self)[-1]}")
    if dtype.itemsize > old.itemsize:
        ratio = dtype.itemsize // old.itemsize
        _check(self.shape[-1] % ratio == 0, lambda: (
            f"self.size(-1) must be divisible by {ratio} {how}, but got {self.shape[-1]}"))
        for i, s in enumerate(element_strides(self)[:-1]):
            _check(s % ratio == 0, lambda i=i, s=s: (
                f"self.stride({i}) must be divisible by {ratio} {how}, but got {s}"))
    # A size-1 last dim may have any stride; NumPy wants it contiguous (so does the stand-in).
    strides = element_strides(self)
    self = strided_view(xp, self, self.shape, strides[:-1] + (1,))
    return self.view(dtype._np)


@register_frontend(function=False)
def view(self, *args, size=None, dtype=None):
    """view(*shape) / view(dtype) -> Tensor: another shape or dtype over the same data."""
    if _state.entry and _wants(locals()):
        return _handle(view, locals())
    data = self._data
    if len(args) == 1 and type(args[0]) is int and size is None and dtype is None:
        # NOTE [view fast path], one size (`x.view(-1)`, `x.view(n)`): as below, less the
        # argument parsing.
        if type(self) is dispatch.Tensor and self._device is CPU and not self._requires_grad \
                and not _state.slow and data.flags.c_contiguous and data.size:
            n = args[0]
            return _wrap_view(data.reshape(data.size if n == -1 else infer_size(args, data.size)),
                              self)
        return dispatch.call(_VIEW_OP, (self, normalize_shape(args)))
    if dtype is not None or (len(args) == 1 and (isinstance(args[0], dt.dtype) or (
            isinstance(args[0], type) and args[0] in _PYTHON_TYPES))):
        chosen = dtype if dtype is not None else args[0]
        if not isinstance(chosen, dt.dtype):
            chosen = arguments.dtype_(chosen, ("view", "dtype", 1))   # (float is float64)
        return dispatch.call(OPS["view.dtype"], (self, chosen))
    if size is None and args:
        shape = normalize_shape(args)
    elif size is None:
        raise arguments.combination_error("view", _VIEW_OP, (), {})
    else:
        shape = sizes_or_keyword(args, size, "view", "size")
    if type(self) is dispatch.Tensor and self._device is CPU and not self._requires_grad \
            and not dispatch.state.slow and data.flags.c_contiguous and data.size:
        # NOTE [view fast path]: what the view op does for a plain contiguous CPU tensor, with
        # nothing to record and no mode watching; anything else goes through the registry.
        return dispatch.wrap_view(data.reshape(infer_size(shape, data.size)), self)
    return dispatch.call(_VIEW_OP, (self, shape))


_VIEW_OP = OPS["view"]
_wrap_view = dispatch.wrap_view
_PYTHON_TYPES = (int, float, bool, complex)


@register_op("view_as(Tensor(a) self, Tensor other) -> Tensor(a)", kind="view", function=False,
             saves=(), derivatives=_RESHAPE_BACK,
             node_name="ViewBackward0")
def view_as(xp, self, other):
    """view_as(other) -> Tensor: self viewed with other's shape."""
    return _view_as_shape(xp, self, infer_size(tuple(other.shape), self.size))


@register_op("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", kind="view",
             tags=("maybe_view",),
             saves=(), derivatives=_RESHAPE_BACK,
             node_name=view_or_copy)
def reshape(xp, self, shape):
    """reshape(input, shape) -> Tensor: a view when possible, else a copy."""
    return _reshape_to(xp, self, infer_size(shape, self.size))


@register_op("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)", kind="view",
             tags=("maybe_view",), function=False,
             saves=(), derivatives=_RESHAPE_BACK,
             node_name=view_or_copy)
def reshape_as(xp, self, other):
    """reshape_as(other) -> Tensor: reshape to other's shape."""
    return _reshape_to(xp, self, infer_size(tuple(other.shape), self.size))


@register_op("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
             kind="view", tags=("maybe_view",),
             saves=(), derivatives=_RESHAPE_BACK,
             node_name=view_or_copy)
def flatten(xp, self, start_dim=0, end_dim=-1):
    """flatten(input, start_dim=0, end_dim=-1) -> Tensor: merge a range of dims into one."""
    start, end = wrap_dim(start_dim, self.ndim), wrap_dim(end_dim, self.ndim)
    if self.ndim == 0:
        return _reshape_to(xp, self, (1,))
    _check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    shape = self.shape[:start] + (math.prod(self.shape[start:end + 1]),) + self.shape[end + 1:]
    return _reshape_to(xp, self, shape)


@register_op("ravel(Tensor(a) self) -> Tensor(a)", kind="view", tags=("maybe_view",),
             saves=(), derivatives=_RESHAPE_BACK, node_name=view_or_copy)
def ravel(xp, self):
    """ravel(input) -> Tensor: input as one dim, a view where its layout allows."""
    return _reshape_to(xp, self, (self.size,))


@register_op("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
             kind="view", tags=("maybe_view",), varargs=False,
             saves=(), derivatives=_RESHAPE_BACK,
             node_name="ViewBackward0")
def unflatten(xp, self, dim, sizes):
    """unflatten(input, dim, sizes) -> Tensor: split one dim into `sizes`."""
    dim = wrap_dim(dim, self.ndim)
    # (PyTorch wraps the dim as a 1-d tensor's, then fails reading a 0-d tensor's size.)
    _check(self.ndim > 0, "unflatten got an unexpected error:\nDimension specified as 0 but "
                          "tensor has no dimensions")
    _check(len(sizes) > 0, "unflatten: sizes must be non-empty")
    size = self.shape[dim]
    if -1 in tuple(sizes):
        inferred = infer_size(sizes, size)
    else:
        inferred = tuple(int(s) for s in sizes)
        _check(math.prod(inferred) == size, lambda: (
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{dim} ({size}) in the input tensor"))
    return _reshape_to(xp, self, self.shape[:dim] + tuple(inferred) + self.shape[dim + 1:])


# --------------------------------------------------------------------------- squeeze / unsqueeze

def _squeezed(xp, a, dims):
    keep = [d for d in range(a.ndim) if d not in dims or a.shape[d] != 1]
    strides = element_strides(a)
    return strided_view(xp, a, [a.shape[d] for d in keep], [strides[d] for d in keep])


@register_op("squeeze(Tensor(a) self) -> Tensor(a)", kind="view", function=False, method=False,
             saves=(), derivatives=_RESHAPE_BACK)
def squeeze_all(xp, self):
    """squeeze(input) -> Tensor: drop every size-1 dim."""
    return _squeezed(xp, self, range(self.ndim))


@register_op("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", kind="view", function=False,
             method=False,
             saves=(), derivatives=_RESHAPE_BACK,
             node_name="SqueezeBackward1")
def squeeze_dim(xp, self, dim):
    """squeeze(input, dim) -> Tensor: drop `dim` if it has size 1."""
    dims = wrap_dims((dim,), max(self.ndim, 1))    # (a 0-d tensor's dim checked as 1-d's)
    return _squeezed(xp, self, dims if self.ndim else ())


@register_op("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", kind="view",
             function=False, method=False, varargs=False,
             saves=(), derivatives=_RESHAPE_BACK,
             node_name="SqueezeBackward2")
def squeeze_dims(xp, self, dim):
    """squeeze(input, dims) -> Tensor: drop those of `dims` that have size 1."""
    dims = wrap_dims(dim, max(self.ndim, 1))       # (a 0-d tensor's dims checked as 1-d's)
    return _squeezed(xp, self, dims if self.ndim else ())


_UNSET = object()        # an argument not given (told apart from None)


def _squeeze_method(self, *dims, dim=_UNSET):
    # (The method takes the dims as varargs too: x.squeeze(0, 1), as PyTorch's does.)
    if _state.entry and _wants(locals()):
        return _handle(_squeeze_method, locals())
    if len(dims) == 1 and dim is _UNSET:
        dim = dims[0]
    elif dims:
        if dim is not _UNSET:
            raise TypeError("squeeze() got multiple values for argument 'dim'")
        dim = dims
    return squeeze(self, dim)


@register_frontend(method=_squeeze_method)
def squeeze(input, dim=_UNSET):
    """squeeze(input, dim=None) -> Tensor: remove size-1 dims (all, one, or a tuple of them)."""
    if _state.entry and _wants(locals()):
        return _handle(squeeze, locals())
    if dim is _UNSET:
        return dispatch.call(OPS["squeeze"], (input,))
    if type(dim) is int:
        return dispatch.call(OPS["squeeze.dim"], (input, dim))
    if type(dim) in _INT_LISTS and (not dim or type(dim[0]) is int):
        return dispatch.call(OPS["squeeze.dims"], (input, tuple(dim)))
    # NumPy integers, 0-d integer tensors; anything else fits no overload (NOTE [int lists]).
    fitting = arguments.fitting_overload((OPS["squeeze.dim"], OPS["squeeze.dims"]),
                                         (input, dim), "squeeze")
    if fitting is None:
        raise arguments.combination_error("squeeze", OPS["squeeze.dim"], (input, dim), {})
    op, args = fitting
    return dispatch.call(op, (args[0], tuple(args[1])) if op is OPS["squeeze.dims"] else args)


@register_op("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", kind="view",
             saves=(), derivatives=_RESHAPE_BACK)
def unsqueeze(xp, self, dim):
    """unsqueeze(input, dim) -> Tensor: insert a size-1 dimension at `dim` (a view)."""
    dim = wrap_dim(dim, self.ndim + 1)
    strides = element_strides(self)
    new_stride = 1 if dim >= self.ndim else self.shape[dim] * strides[dim]
    return strided_view(xp, self, self.shape[:dim] + (1,) + self.shape[dim:],
                        strides[:dim] + (new_stride,) + strides[dim:])


# --------------------------------------------------------------------------- dim reordering

@register_op("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", kind="view",
             aliases=("swapaxes", "swapdims"),
             saves=(), derivatives={"self": lambda c: c.grad.transpose(c.dim0, c.dim1)})
def transpose(xp, self, dim0, dim1):
    """transpose(input, dim0, dim1) -> Tensor: swap two dimensions (a view)."""
    dim0, dim1 = wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim)
    return self[...] if self.ndim == 0 else xp.swapaxes(self, dim0, dim1)


@register_op("t(Tensor(a) self) -> Tensor(a)", kind="view",
             saves=(), derivatives={"self": lambda c: c.grad.t()})
def t(xp, self):
    """t(input) -> Tensor: transpose a matrix (0-d and 1-d inputs are returned as they are)."""
    _check(self.ndim <= 2, lambda: (
        f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"))
    return self if self.ndim < 2 else xp.swapaxes(self, 0, 1)


@register_op("adjoint(Tensor(a) self) -> Tensor(a)", kind="view", function=False,
             method=False,
             saves=(), derivatives={"self": lambda c: c.grad.transpose(-2, -1)})
def _adjoint_view(xp, self):
    """The transposed view under adjoint (the frontend conjugates complex inputs)."""
    _check(self.ndim >= 2, lambda: (
        "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D "
        "tensor." if self.ndim == 1 else
        f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
        f"{self.ndim}-D tensor."))
    return xp.swapaxes(self, -2, -1)


@register_frontend()
def adjoint(input):
    """adjoint(input) -> Tensor: the conjugate transpose of the last two dims (on a 0-d
    tensor, deprecated, its conjugate)."""
    if _state.entry and _wants(locals()):
        return _handle(adjoint, locals())
    if not isinstance(input, dispatch.Tensor):
        arguments.refuse(("adjoint", "input", 1), "Tensor", input)
    if input.ndim == 0:
        _warn_once("adjoint_0d", "adjoint() is deprecated on 0-D tensors. Consider using "
                   "x.conj().")
        return input.conj()
    result = dispatch.call(OPS["adjoint"], (input,))
    if input._dtype.is_complex:
        from ember._ops.pointwise_math import conj
        result = conj(result)
    return result


@register_op("permute(Tensor(a) self, int[] dims) -> Tensor(a)", kind="view",
             saves=(), derivatives={"self": _permute_back})
def permute(xp, self, dims):
    """permute(input, dims) -> Tensor: reorder the dimensions (a view)."""
    _check(len(dims) == self.ndim, lambda: (
        f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
        f"length of the desired ordering of dimensions i.e. input.dim() = {self.ndim} is not "
        f"equal to len(dims) = {len(dims)}"))
    order = tuple(wrap_dim(d, self.ndim) for d in dims)
    _check(len(set(order)) == len(order), "permute(): duplicate dims are not allowed.")
    return xp.transpose(self, order)


def _movedim_order(ndim, source, destination):
    _check(len(source) == len(destination), lambda: (
        f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
        f"contain the same number of dims as destination ({list(destination)} dims)"))
    source = [wrap_dim(d, ndim) for d in source]
    destination = [wrap_dim(d, ndim) for d in destination]
    _check(len(set(source)) == len(source),
           lambda: f"movedim: repeated dim in `source` ({list(source)})")
    _check(len(set(destination)) == len(destination),
           lambda: f"movedim: repeated dim in `destination` ({list(destination)})")
    if ndim == 0:                   # (a 0-d tensor's dim 0 / -1 is itself: nothing moves)
        return ()
    order = [-1] * ndim
    for s, d in zip(source, destination):
        order[d] = s
    rest = iter(d for d in range(ndim) if d not in source)
    return tuple(next(rest) if o == -1 else o for o in order)


@register_op("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
             kind="view", function=False, method=False, varargs=False,
             saves=(),
             derivatives={"self": lambda c: c.grad.movedim(c.destination, c.source)},
             node_name="PermuteBackward0")
def movedim_intlist(xp, self, source, destination):
    """movedim(input, source, destination) -> Tensor: move dims to new positions."""
    return xp.transpose(self, _movedim_order(self.ndim, source, destination))


@register_op("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
             kind="view", function=False, method=False,
             saves=(),
             derivatives={"self": lambda c: c.grad.movedim(c.destination, c.source)},
             node_name="PermuteBackward0")
def movedim_int(xp, self, source, destination):
    """movedim(input, source, destination) -> Tensor: move one dim to a new position."""
    return xp.transpose(self, _movedim_order(self.ndim, (source,), (destination,)))


_INT_LISTS = (tuple, list, Size)
_ndarray = np.ndarray


@register_frontend()
def movedim(input, source, destination):
    """movedim(input, source, destination) -> Tensor: move dims (int or tuple) to new places."""
    if _state.entry and _wants(locals()):
        return _handle(movedim, locals())
    if type(source) is int and type(destination) is int:
        return dispatch.call(OPS["movedim.int"], (input, source, destination))
    lists = type(source) in _INT_LISTS and type(destination) in _INT_LISTS
    if lists and (not source or type(source[0]) is int) and (
            not destination or type(destination[0]) is int):
        return dispatch.call(OPS["movedim.intlist"], (input, tuple(source), tuple(destination)))
    # Else (int, int) (NumPy integers, 0-d integer tensors) or lists whose first items are
    # no plain ints (NOTE [int lists]): PyTorch's (int[], int[]) takes no bare int.
    args = (input, source, destination)
    fitting = arguments.fitting_overload(
        (OPS["movedim.intlist"],) if lists else (OPS["movedim.int"],), args, "movedim")
    if fitting is None:
        raise arguments.combination_error("movedim", OPS["movedim.int"], args, {})
    return dispatch.call(*fitting)


register_frontend("moveaxis")(movedim)


# --------------------------------------------------------------------------- expand

def _expand_geometry(shape, strides, size):
    size = tuple(int(s) for s in size)
    ndim = len(shape)
    _check(len(size) >= ndim, lambda: (
        f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(size)}): the number of sizes "
        f"provided ({len(size)}) must be greater or equal to the number of dimensions in the "
        f"tensor ({ndim})"))
    lead = len(size) - ndim
    new_shape, new_strides = [0] * len(size), [0] * len(size)
    for i in range(len(size) - 1, -1, -1):
        target = size[i]
        if i < lead:
            _check(target >= 0, lambda: (
                f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                f"non-existing dimension {i}"))
            if i == len(size) - 1:
                stride = 1
            else:
                stride = new_shape[i + 1] * new_strides[i + 1]
            new_shape[i], new_strides[i] = target, stride if target == 1 else 0
            continue
        current, stride = shape[i - lead], strides[i - lead]
        if target == -1:
            target = current
        if current != target:
            _check(current == 1, lambda: (
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"({current}) at non-singleton dimension {i}.  Target sizes: {list(size)}.  "
                f"Tensor sizes: {list(shape)}"))
            stride = 0
        new_shape[i], new_strides[i] = target, stride
    return tuple(new_shape), tuple(new_strides)


@register_op("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
             kind="view", function=False,
             saves=(), derivatives=_SUM_BACK)
def expand(xp, self, size, implicit=False):
    """expand(*sizes) -> Tensor: broadcast singleton dimensions to `sizes` (a view)."""
    if not self.ndim and type(self) is _ndarray and 1 not in size and min(size, default=0) >= 0:
        # A 0-d array (a full reduction's gradient) broadcast: every stride is 0, and the view
        # is made by ndarray's constructor over the array's own memory (NumPy's as_strided
        # costs several Python frames).
        return _ndarray(size, self.dtype, self, 0, (0,) * len(size))
    if type(self) is _ndarray and self.size and self.flags.c_contiguous:
        strides = _expanded_strides(self.shape, self.strides, size)
        if strides is not None:
            # The common case, valid as it stands: the view made by ndarray's constructor over
            # the array's own memory (as above).
            return _ndarray(size, self.dtype, self, 0, strides)
    shape, strides = _expand_geometry(self.shape, element_strides(self), size)
    return strided_view(xp, self, shape, strides)


def _expanded_strides(shape, strides, size):
    """The byte strides of `shape` (C-contiguous, byte `strides`) expanded to `size` when that
    needs no check to fail and no -1 resolved: existing dims kept or grown from 1, leading dims
    added with sizes above 1; else None (`_expand_geometry` then checks and resolves)."""
    lead = len(size) - len(shape)
    if lead < 0:
        return None
    new = [0] * lead
    for i, current in enumerate(shape):
        target = size[lead + i]
        if type(target) is not int:
            return None
        if target == current:
            new.append(strides[i])
        elif current == 1 and target >= 0:
            new.append(0)
        else:
            return None
    for i in range(lead):
        target = size[i]
        if type(target) is not int or target < 2:     # (a leading 1 has its own stride rule)
            return None
    return tuple(new)


@register_op("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", kind="view",
             function=False,
             saves=(), derivatives=_SUM_BACK,
             node_name="ExpandBackward0")
def expand_as(xp, self, other):
    """expand_as(other) -> Tensor: expand to other's shape."""
    shape, strides = _expand_geometry(self.shape, element_strides(self), other.shape)
    return strided_view(xp, self, shape, strides)


@register_op("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)", kind="view",
             saves=(), derivatives=_SUM_BACK,
             node_name="ExpandBackward0")
def broadcast_to(xp, self, size):
    """broadcast_to(input, shape) -> Tensor: expand to `shape` (a view)."""
    shape, strides = _expand_geometry(self.shape, element_strides(self), size)
    return strided_view(xp, self, shape, strides)


# --------------------------------------------------------------------------- in-place metadata

# PyTorch's node names for the in-place forms: the overloads of the in-place op are numbered
# after those of the out-of-place one (squeeze, squeeze.dim, squeeze.dims, squeeze_, ...).
_IN_PLACE_NODE_NAMES = {
    "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
    "SqueezeBackward2": "SqueezeBackward5", "UnsqueezeBackward0": "UnsqueezeBackward1",
    "TransposeBackward0": "TransposeBackward1", "TBackward0": "TBackward1",
    "AsStridedBackward0": "AsStridedBackward1",
}


def restride_in_place(self, make_view, *args, **kwargs):
    """Give `self` the shape and strides of the view `make_view(self, ...)` (squeeze_, t_,
    as_strided_ ...). Under autograd `self`'s history becomes the view's node, fed by its old
    history, as PyTorch records an in-place view op; the version moves as for any in-place op."""
    _check(not (self._requires_grad and self._grad_fn is None and dispatch.state.grad_enabled()),
           "a leaf Variable that requires grad is being used in an in-place operation.")
    result = make_view(self, *args, **kwargs)
    self._data = result._data
    dispatch.bump_version(self)
    fn = result._grad_fn
    if fn is not None and result._requires_grad:
        name = _IN_PLACE_NODE_NAMES.get(type(fn).__name__)
        if name is not None:
            fn.__class__ = upcalls.node_class_named(name)
        self._grad_fn = fn
        self._requires_grad = True
        self.__dict__.pop("_output_nr", None)
        if self._base is not None:
            self.__dict__["_view_version"] = self._version
    return self


def _in_place(name, op_for):
    def method(self, *args, **kwargs):
        if _state.entry and _wants(locals()):
            return _handle(method, locals())
        return restride_in_place(self, op_for, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"{name}(...) -> Tensor: {name[:-1]} changing this tensor's own shape."
    register_frontend(name, function=False)(method)


_in_place("squeeze_", squeeze)
_in_place("unsqueeze_", lambda self, dim: dispatch.call(OPS["unsqueeze"], (self, dim)))
_in_place("transpose_", lambda self, dim0, dim1: dispatch.call(OPS["transpose.int"],
                                                                (self, dim0, dim1)))
_in_place("swapaxes_", lambda self, axis0, axis1: dispatch.call(OPS["transpose.int"],
                                                                 (self, axis0, axis1)))
_in_place("swapdims_", lambda self, dim0, dim1: dispatch.call(OPS["transpose.int"],
                                                               (self, dim0, dim1)))
_in_place("t_", lambda self: dispatch.call(OPS["t"], (self,)))
