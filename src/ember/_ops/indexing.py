"""Indexing: `Tensor.__getitem__` / `__setitem__`, `index` / `index_put`, masks and nonzero.

(`where(condition)`, the one-argument form, is part of the `where` frontend in
pointwise_logic.py.)

The gather / scatter / index_* / take / put family lives in indexing_scatter.py.

NOTE [how an index expression is applied]: as in PyTorch, an expression is applied left to
right. Integers (and 0-d integer tensors), slices, None and Ellipsis are *basic*: they narrow
or unsqueeze a view of the input, so a basic-only expression returns a view. Python bools,
integer tensors, index lists and boolean masks are *advanced*: each leaves an index array at
the dim it names (a mask leaves one per dim it covers; a bool unsqueezes and leaves [0] or []).
The advanced arrays are then applied together by `index.Tensor`, which places the broadcast
index dims by NumPy's rule (in place when adjacent, first otherwise). Integers never count as
advanced indices here, unlike NumPy: `x[0, :, [1, 2]]` selects dim 0 first.
"""
from __future__ import annotations

import operator
import warnings

import numpy as np
from numpy import ndarray

from ember._backends.array_helpers import backend_helpers
from ember._backends.meta import MetaArray
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check, _check_index, _check_not_implemented, _check_value
from ember._core.device import CPU, META
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.fp_errors import cast, run_quietly
from ember._core.host_kernels import to_device, to_host
from ember._core.registry import OPS, register_frontend, register_op
from ember._ops.filling import fill_value
from ember._ops.view import unsqueeze as unsqueeze_kernel

_FULL = slice(None)


def cpp_name(array_or_dtype) -> str:
    """PyTorch's C++ name of a dtype ("Float", "Long") for error messages."""
    np_dtype = getattr(array_or_dtype, "dtype", array_or_dtype)
    return dt.NP_TO_DTYPE[np.dtype(np_dtype)]._cpp_name


def check_in_bounds(xp, index, size, dim, error=RuntimeError, negative=False, prefix=""):
    """Raise PyTorch's "index i is out of bounds for dimension d with size n" for a bad entry."""
    if index.size == 0:
        return
    low, high = int(index.min()), int(index.max())
    floor = -size if negative else 0
    if low < floor or high >= size:
        bad = low if low < floor else high
        raise error(f"{prefix}index {bad} is out of bounds for dimension {dim} with size {size}")


def accumulate_dtype(array):
    """Half types accumulate in float32 (as PyTorch's CPU kernels); others in their own dtype."""
    return np.float32 if array.dtype in (dt.float16._np, dt.bfloat16._np) else array.dtype


# NOTE [scatter reductions on CuPy]: CuPy has `ufunc.at` only for add (int32, int64, uint32,
# uint64, float16, float32, float64) and maximum / minimum; the other reductions (prod) and
# dtypes (int8, int16, uint8, bool, complex) reduce on the host (NOTE [host kernels]).
_DEVICE_AT = {
    "sum": frozenset(np.dtype(t) for t in ("int32", "int64", "uint32", "uint64", "float16",
                                           "float32", "float64")),
    "amax": frozenset(np.dtype(t) for t in ("int32", "int64", "uint32", "uint64", "float32",
                                            "float64")),
}
_DEVICE_AT["mean"] = _DEVICE_AT["add"] = _DEVICE_AT["sum"]
_DEVICE_AT["amin"] = _DEVICE_AT["amax"]


def device_at(reduce, compute) -> bool:
    """Whether `xp.<ufunc>.at` of this reduction runs on CuPy in the dtype `compute`."""
    return np.dtype(compute) in _DEVICE_AT.get(reduce, ())



# --------------------------------------------------------------------------- index expressions

def _as_items(index):
    """The index expression as a tuple of items (a short list holding slices etc. is a tuple)."""
    if type(index) is tuple:
        return index
    if isinstance(index, (list, np.ndarray)) and _sequence_as_tuple(index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated; "
                      "use x[tuple(seq)] instead of x[seq].", UserWarning, stacklevel=3)
        return tuple(index)
    return (index,)


def _sequence_as_tuple(seq) -> bool:
    # NumPy's old heuristic, which PyTorch keeps: a short sequence holding any slice, None,
    # Ellipsis, sequence or tensor is read as a tuple of indices.
    if len(seq) >= 32:
        return False
    for item in seq:
        if item is None or item is Ellipsis or isinstance(
                item, (slice, list, tuple, np.ndarray, dispatch.Tensor)):
            return True
    return False


_INT64_LIMIT = 1 << 63


def _index_tensor(value, lift=False):
    """A sequence index (list, ndarray, str ...) as PyTorch makes it: its data read as
    `tensor(value)` reads it (with that function's errors), then int64 unless bool or uint8;
    `lift`: through lift_fresh, for a mode to see."""
    from ember._ops.creation_data import data_array
    array = data_array(value, None, "cpu", copy=True)[0]
    if array.dtype.kind != "b" and array.dtype != np.uint8:
        array = array.astype(np.int64)
    made = dispatch.wrap_array(array)
    # (made from data: a mode sees it enter, NOTE [data enters through lift_fresh])
    return dispatch.call(OPS["lift_fresh"], (made,)) if lift else made


def _bad_item(item):
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {type(item).__name__})")


def _specified_dims(items) -> int:
    """The input dims an index names, counted before any item is converted, as PyTorch counts
    them: a bool or uint8 tensor its dims, None, Ellipsis and True/False none, the rest one."""
    count = 0
    for item in items:
        if isinstance(item, dispatch.Tensor):
            count += item._data.ndim if _is_mask(item) else 1
        elif not (item is None or item is Ellipsis or type(item) is bool):
            count += 1
    return count


def _checked_slice(item, self=None, earlier=()):
    """A slice whose parts are None or integers (Python's TypeError for others) and whose step
    is positive (PyTorch's ValueError), checked as the slice is read; `earlier`: the items
    before it, whose ints PyTorch has already applied (an out-of-bounds one is its error)."""
    for part in (item.start, item.stop, item.step):
        if part is not None and type(part) is not int and (
                isinstance(part, (float, complex, str, np.floating)) or
                not hasattr(type(part), "__index__")):
            if earlier:
                _check_earlier_ints(self._data.shape, earlier)
            raise TypeError("slice indices must be integers or None or have an __index__ "
                            "method")
    _check_step(item)
    return item


def _check_earlier_ints(shape, items):
    """PyTorch applies an index's items in order: an int out of bounds before a bad item is
    the error (as far as the dims are known: up to an ellipsis or a tensor)."""
    dim = result_dim = 0
    for item in items:
        kind = type(item)
        if kind is int:
            if dim < len(shape):
                size = shape[dim]
                if not -size <= item < size:
                    raise IndexError(f"index {item} is out of bounds for dimension "
                                     f"{result_dim} with size {size}")
            dim += 1
        elif kind is slice:
            dim += 1
            result_dim += 1
        elif item is None or kind is bool:
            result_dim += 1
        else:
            return


def _normalize(self, index):
    """(items, number of input dims they consume); tensors classified, ints made plain. As in
    PyTorch, too many indices are refused before any item is converted."""
    items = []
    consumed = 0
    given = _as_items(index)
    ndim = self._data.ndim
    if type(index) is slice:
        _checked_slice(index)               # (a lone slice is read before the dims count)
    if len(given) > ndim and _specified_dims(given) > ndim:     # (free for short indices)
        _too_many(ndim)
    for item in given:
        kind = type(item)
        if kind is int:
            _check_value(-_INT64_LIMIT <= item < _INT64_LIMIT, "Overflow when unpacking long long")
            consumed += 1
        elif kind is slice:
            item = _checked_slice(item, self, items)
            consumed += 1
        elif item is None or item is Ellipsis or kind is bool:
            pass
        else:
            if isinstance(item, (list, tuple, np.ndarray, range, str, bytes, bytearray)):
                # (lifted where a mode watches a plain tensor being indexed; a wrapper
                # subclass's own setitem walks the index's arrays)
                item = _index_tensor(item, dispatch.state.slow and type(self._data) is ndarray)
            elif not isinstance(item, dispatch.Tensor):
                if isinstance(item, (float, complex, np.floating, np.bool_)) \
                        or not hasattr(item, "__index__"):
                    _bad_item(item)
                item = operator.index(item)
                consumed += 1
                items.append(item)
                continue
            kind_char = item._dtype._np.kind
            if item._dtype is dt.uint8 or kind_char == "b":
                if item._dtype is dt.uint8:
                    warnings.warn("indexing with dtype uint8 is deprecated, please use a dtype "
                                  "bool instead.", UserWarning, stacklevel=3)
                if item._data.ndim == 0:
                    item = _ZeroDimMask(item)
                else:
                    consumed += item._data.ndim
            elif kind_char in "iu":
                if item._data.ndim == 0:
                    item = int(item.item())
                consumed += 1
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool "
                                 "tensors")
        items.append(item)
    if consumed > ndim:
        _too_many(ndim)
    return items, consumed


def _too_many(ndim):
    _check_index(ndim != 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in "
                 "Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    raise IndexError(f"too many indices for tensor of dimension {ndim}")


def _check_step(item):
    if item.step is not None:
        step = operator.index(item.step)
        _check_value(step != 0, "slice step cannot be zero")
        _check_value(step > 0, "step must be greater than zero")


def _insert_dim(self, array, dim):
    """array[..., None at dim] with the stride PyTorch's unsqueeze gives the new dim."""
    xp = np if isinstance(array, np.ndarray) else dispatch.get_backend(self._device.type).xp
    return unsqueeze_kernel(xp, array, dim)


_SPANNED = object()     # a dim a mask index covers beyond its first (`_walk`'s keep_masks)


class _ZeroDimMask:
    """A 0-d bool (or uint8) tensor index: a new dim of size 1, taken or not. PyTorch reads its
    value once that dim is in (a mode sees unsqueeze, then _local_scalar_dense)."""

    __slots__ = ("mask",)

    def __init__(self, mask):
        self.mask = mask


class _BoolIndex:
    """The index a True/False item (or a 0-d mask) stands for, made in the item's turn: when
    the walk's steps are replayed as ops, after the item's unsqueeze (PyTorch's order)."""

    __slots__ = ("item", "tensor")

    def __init__(self, item):
        self.item, self.tensor = item, None

    def resolve(self):
        if self.tensor is None:
            item = self.item
            self.tensor = _bool_index(item if type(item) is bool else bool(item.mask.item()))
        return self.tensor


def _bool_index(chosen: bool):
    """The index a True/False item stands for: [0] or an empty one. Under modes it is made as
    PyTorch makes it (empty, then fill_ with 0 when there is an element to fill)."""
    if not dispatch.state.slow:
        return dispatch.wrap_array(np.zeros(1 if chosen else 0, np.int64))
    empty = OPS["empty.memory_format"]
    index = dispatch.call(empty, empty.bind(([1 if chosen else 0],), {"dtype": dt.int64}))
    if chosen:
        dispatch.call_inplace(OPS["fill.Scalar"], (index, 0))
    return index


def _walk(self, array, items, consumed, steps, keep_masks=False):
    """Apply the basic items to `array` (a view of self's data); collect advanced indices.

    Returns (view array, {result dim: index tensor}). When `steps` is a list, the basic steps
    are also recorded there as (op name, dim, argument) so they can be replayed as ops.
    """
    advanced = {}
    dim = 0
    ndim = self._data.ndim
    for item in items:
        kind = type(item)
        if kind is int:
            size = array.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            # The trailing Ellipsis keeps a 0-d result an array view, not a NumPy scalar.
            array = array[(_FULL,) * dim + (item, Ellipsis)]
            if steps is not None:
                steps.append(("select", dim, item))
        elif kind is slice:
            _check_step(item)
            array = array[(_FULL,) * dim + (item,)]
            if steps is not None:
                steps.append(("slice", dim, item))
            dim += 1
        elif item is None:
            array = _insert_dim(self, array, dim)
            if steps is not None:
                steps.append(("unsqueeze", dim, None))
            dim += 1
        elif item is Ellipsis:
            # As in PyTorch, a second Ellipsis is allowed and spans no dims.
            dim += ndim - consumed
            consumed = ndim
        elif kind is bool or kind is _ZeroDimMask:
            array = _insert_dim(self, array, dim)
            if steps is not None:
                steps.append(("unsqueeze", dim, None))
            holder = advanced[dim] = _BoolIndex(item)
            if steps is not None:
                steps.append(("bool_index", dim, holder))   # made when the steps are replayed
            else:
                holder.resolve()
            dim += 1
        elif not _is_mask(item):
            advanced[dim] = item
            dim += 1
        else:
            mask = item._data
            _check_mask_shape(mask.shape, array.shape, dim)
            if keep_masks and not mask.ndim and item._device is META:
                item.item()     # PyTorch reads a 0-d mask: "cannot be called on meta tensors"
            if keep_masks and mask.ndim:
                # setitem's ops take the mask itself as PyTorch's index_put_ does (so meta and
                # fake tensors need no nonzero): one index covering mask.ndim dims
                advanced[dim] = item
                for k in range(1, mask.ndim):
                    advanced[dim + k] = _SPANNED
                dim += mask.ndim
                continue
            if item._device is META:
                # The mask's nonzero, as PyTorch's index runs it: no meta rule (its shape is
                # the data's), so a FakeTensorMode raises DynamicOutputShapeException.
                dispatch.call(OPS["nonzero"], (item,))
            _check_not_implemented(item._device is not META and self._device is not META,
                                   "indexing with a boolean mask on the meta device: the "
                                   "result shape depends on the data")
            for k, nz in enumerate(_nonzero_arrays(mask)):
                advanced[dim + k] = dispatch.wrap(nz, dt.int64, item._device)
            dim += mask.ndim
    return array, advanced


def _is_mask(t) -> bool:
    return t._dtype._np.kind == "b" or t._dtype is dt.uint8


def _check_mask_shape(mask_shape, shape, dim):
    for k, size in enumerate(mask_shape):
        if dim + k >= len(shape) or size != shape[dim + k]:
            raise IndexError(f"The shape of the mask {list(mask_shape)} at index {k} does not "
                             f"match the shape of the indexed tensor {list(shape)} at index "
                             f"{dim + k}")


def _nonzero_arrays(mask):
    return tuple(mask.nonzero())


def _data_for_walk(self):
    # Basic indexing only takes views: a meta stand-in with true strides (never read) gives
    # the view's true strides (NOTE [meta view strides] in dispatch/runners.py).
    # A wrapper subclass's MetaArray and a sparse tensor's components are walked the same way
    # (their ops are replayed, _wants_ops).
    data = self._data
    if type(data) is ndarray:
        return data
    if type(data) is MetaArray:
        return data.stand_in(strided=True)
    if self._device is not CPU and self._device == CPU:      # NOTE [sparse layout]
        return MetaArray(data.shape, data.dtype).stand_in(strided=True)
    return data


def _view_of(self, array):
    if self._device is META:
        array = dispatch.MetaArray(array.shape, array.dtype,
                                   array.strides if any(array.strides) else None)
    return dispatch.wrap_view(array, self, self._dtype)


def _replay(self, steps, alias=True):
    """The basic steps as registry ops, so autograd and dispatch modes see them (`alias`: a
    walk that selects all of self gives an alias; else self itself)."""
    result = self
    for name, dim, arg in steps:
        if name == "select":
            result = dispatch.call(OPS["select.int"], (result, dim, arg))
        elif name == "slice":
            size = result.shape[dim]
            start, stop, step = arg.indices(size)
            stop = max(stop, start)
            if (start, stop, step) == (0, size, 1):
                continue        # a whole dim: no op, as in PyTorch (sparse tensors have none)
            result = dispatch.call(OPS["slice.Tensor"], (result, dim, start, stop, step))
        elif name == "bool_index":
            arg.resolve()
        else:
            result = dispatch.call(OPS["unsqueeze"], (result, dim))
    if result is self and alias:
        result = dispatch.call(OPS["alias"], (self,)) if "alias" in OPS else _view_of(self,
                                                                                      self._data)
    return result


def _index_list(advanced, device):
    last = max(advanced)
    found = []
    for d in range(last + 1):
        t = advanced.get(d)
        if t is _SPANNED:
            continue
        if type(t) is _BoolIndex:
            t = t.resolve()
        if t is not None and t._device is not device:
            t = t.to(device)
        found.append(t)
    return found


def _wants_ops(self):
    # Autograd, dispatch modes, wrapper subclasses (a MetaArray of their own on a real device,
    # answering ops in __torch_dispatch__) and sparse tensors must see registry ops; the plain
    # path builds the view directly.
    return (self._requires_grad or dispatch.state.slow
            or type(self._data) is not ndarray and _stands_in(self)) \
        and "select.int" in OPS and "slice.Tensor" in OPS


def _stands_in(self) -> bool:
    """Whether `self._data` is no array of its device (a wrapper subclass, a sparse tensor)."""
    data = self._data
    return type(data) is MetaArray or self._device is not CPU and self._device == CPU


def _lone_slice(self, index):
    """x[a:b:c] alone is one slice.Tensor with the bounds as written (PyTorch's, a whole
    dimension included: `x[:]` is slice(x, 0, 0, INT64_MAX)), where the bounds are plain ints
    and the step positive; None otherwise (the general walk checks and reports)."""
    bounds = (0 if index.start is None else index.start,
              _INT64_MAX if index.stop is None else index.stop,
              1 if index.step is None else index.step)
    if self.ndim == 0 or any(type(b) is not int for b in bounds) or bounds[2] <= 0:
        return None
    return (self, 0) + bounds


_INT64_MAX = (1 << 63) - 1


def getitem(self, index):
    """self[index]: basic indexing gives a view, advanced indexing a copy (PyTorch's rules)."""
    if _state.entry and _wants(locals()):
        return _handle(getitem, locals())
    if type(index) is slice and _wants_ops(self):
        lone = _lone_slice(self, index)
        if lone is not None:
            return dispatch.call(OPS["slice.Tensor"], lone)
    items, consumed = _normalize(self, index)
    steps = [] if _wants_ops(self) else None
    data = _data_for_walk(self)
    array, advanced = _walk(self, data, items, consumed, steps)
    if advanced and (not steps if steps is not None else array is data):
        result = self        # purely advanced: index.Tensor reads self itself (autograd sees it)
    elif steps is not None:
        result = _replay(self, steps)
    else:
        result = _view_of(self, array)
    if advanced:
        result = dispatch.call(OPS["index.Tensor"], (result, _index_list(advanced,
                                                                         self._device)))
    return result


def setitem(self, index, value):
    """self[index] = value: write through `index` in place (value broadcast and cast)."""
    if _state.entry and _wants(locals()):
        return _handle(setitem, locals())
    if type(index) is bool:
        # PyTorch: x[False] = v writes nothing (a number is still converted and checked: a
        # mode sees its lift_fresh); x[True] = v writes all of x.
        if not index:
            if not isinstance(value, dispatch.Tensor):
                _value_array(self, value)
                if _setitem_as_ops(self):
                    _lifted(self, value)
            return
        index = None
    if _setitem_as_ops(self):
        _setitem_ops(self, index, value)
        return
    if _setitem_needs_grad(self, value):
        _setitem_with_grad(self, index, value)
        return
    if not isinstance(value, dispatch.Tensor):
        value = _value_array(self, value)       # (PyTorch converts a number before the index)
    items, consumed = _normalize(self, index)
    array, advanced = _walk(self, _data_for_walk(self), items, consumed, None)
    if advanced and isinstance(value, dispatch.Tensor):
        # Advanced assignment is index_put_, which takes no implicit dtype conversion.
        _check(value._dtype is self._dtype, lambda: (
            "Index put requires the source and destination dtypes match, got "
            f"{self._dtype._cpp_name} for the destination and {value._dtype._cpp_name} for "
            "the source."))
    if isinstance(value, dispatch.Tensor):
        value = _value_array(self, value)
    if advanced:
        indices = _index_list(advanced, self._device)
        arrays = [None if t is None else t._data for t in indices]
        target = advanced_shape(array.shape, arrays)
        if self._device is not META:
            xp = dispatch.get_backend(self._device.type).xp
            position = prepare_indices(xp, array.shape, arrays)
        _check_value_shape(value.shape, target, advanced=True)
        if self._device is not META:
            array[position] = value
    else:
        _check_value_shape(value.shape, array.shape, advanced=False)
        if self._device is CPU:
            run_quietly(np.copyto, array, value, "unsafe")
        elif self._device is not META:
            array[...] = value
    dispatch.bump_version(self)


def _setitem_as_ops(self) -> bool:
    """Under a dispatch mode or subclass, or for a wrapper subclass, setitem runs as the ops
    PyTorch's does (NOTE [setitem as ops]); the plain path writes the array directly."""
    return (dispatch.state.slow or type(self._data) is not ndarray and _stands_in(self)) \
        and "select.int" in OPS and "slice.Tensor" in OPS


# NOTE [setitem as ops]: PyTorch's `x[index] = value` converts a number to a 0-d tensor of x's
# dtype (a mode sees lift_fresh), walks the basic part of the index as views (select, slice,
# unsqueeze; a whole dim takes none), then writes: index_put_ on the view where the index has
# tensors, lists or masks; else copy_ where the shapes agree, fill_ from a 0-d value, or the
# value viewed without leading 1s, expanded and copied. Modes, fake tensors and traced graphs
# see those ops, so the write is in the graph.
def _setitem_ops(self, index, value):
    if not isinstance(value, dispatch.Tensor):
        _value_array(self, value)               # (the number's checks, before the index's)
        value = _lifted(self, value)
    items, consumed = _normalize(self, index)
    steps = []
    _, advanced = _walk(self, _data_for_walk(self), items, consumed, steps, keep_masks=True)
    target = _replay(self, steps, alias=False)
    if advanced:
        _check(value._dtype is self._dtype, lambda: (
            "Index put requires the source and destination dtypes match, got "
            f"{self._dtype._cpp_name} for the destination and {value._dtype._cpp_name} for "
            "the source."))
        indices = _index_list(advanced, self._device)
        dispatch.call_inplace(OPS["index_put"], (target, indices, value, False))
        return
    if tuple(target.shape) == tuple(value.shape):
        dispatch.call_inplace(OPS["copy"], (target, value, False))
    elif value.ndim == 0 and value._device is CPU:
        dispatch.call_inplace(OPS["fill.Tensor"], (target, value))
    else:
        stripped = _strip_ones(tuple(value.shape))
        value = dispatch.call(OPS["view"], (value, stripped))
        if stripped != tuple(target.shape):
            value = dispatch.call(OPS["expand"], (value, tuple(target.shape), False))
        dispatch.call_inplace(OPS["copy"], (target, value, False))


def _lifted(self, value):
    """A number as the 0-d tensor PyTorch's setitem makes of it (x's dtype, on the CPU)."""
    from ember._ops.creation_data import tensor
    return tensor(value, dtype=self._dtype)


def _setitem_needs_grad(self, value) -> bool:
    if not (self._requires_grad or isinstance(value, dispatch.Tensor) and value._requires_grad):
        return False
    return dispatch.state.record is not None and self._device is not META \
        and dispatch.state.grad_enabled()


def _setitem_with_grad(self, index, value):
    """self[index] = value under autograd, as one recorded index_put_.

    NOTE [setitem as index_put]: the expression is applied to one grid of coordinates per dim
    of self (broadcast views, so nothing of self's size is allocated); what it selects from
    them are index tensors of the target's shape, so `index_put_(self, those, value)` writes
    exactly self[index] = value, the value broadcast as setitem broadcasts it, and autograd
    records that one op.
    """
    items, consumed = _normalize(self, index)
    xp = dispatch.get_backend(self._device.type).xp
    shape = tuple(self._data.shape)
    steps = []
    walked, advanced = _walk(self, xp.broadcast_to(xp.zeros((), np.int64), shape), items,
                             consumed, steps)
    # PyTorch writes through a view when basic items narrow or reshape self (not for `:`, `...`).
    _check(not (self._requires_grad and self._grad_fn is None), lambda: (
        ("a view of a leaf Variable" if walked.shape != shape else "a leaf Variable")
        + " that requires grad is being used in an in-place operation."))
    target = walked.shape
    position = None
    if advanced:
        arrays = [None if t is None else t._data for t in _index_list(advanced, self._device)]
        position = prepare_indices(xp, walked.shape, arrays)
        target = advanced_shape(walked.shape, arrays)
    if isinstance(value, dispatch.Tensor):
        _check(not advanced or value._dtype is self._dtype, lambda: (
            "Index put requires the source and destination dtypes match, got "
            f"{self._dtype._cpp_name} for the destination and {value._dtype._cpp_name} for "
            "the source."))
        _check(value._device is self._device or value._device is CPU and value._data.ndim == 0,
               lambda: f"Expected all tensors to be on the same device, but found at least two "
                       f"devices, {self._device} and {value._device}!")
        if value._dtype is not self._dtype or value._device is not self._device:
            value = value.to(dtype=self._dtype, device=self._device)
    else:
        value = dispatch.wrap(xp.asarray(_value_array(self, value)), self._dtype, self._device)
    _check_value_shape(_strip_ones(value.shape), target, advanced=bool(advanced))
    coordinates = []
    for d, size in enumerate(shape):
        grid = xp.arange(size, dtype=np.int64).reshape((size,) + (1,) * (len(shape) - d - 1))
        grid = _apply_steps(xp.broadcast_to(grid, shape), steps)
        if position is not None:
            grid = grid[position]
        coordinates.append(dispatch.wrap(xp.ascontiguousarray(grid), dt.int64, self._device))
    dispatch.call_inplace(OPS["index_put"], (self, coordinates, value, False))


def _apply_steps(array, steps):
    """The basic steps `_walk` recorded, applied to another array of self's shape."""
    for name, dim, arg in steps:
        if name == "select":
            array = array[(_FULL,) * dim + (arg, Ellipsis)]
        elif name == "slice":
            array = array[(_FULL,) * dim + (arg,)]
        elif name == "bool_index":
            arg.resolve()
        else:
            array = array[(_FULL,) * dim + (None,)]
    return array


def _value_array(self, value):
    """The assigned value as an array of self's dtype on self's device (leading 1s dropped)."""
    dtype = self._dtype
    if isinstance(value, dispatch.Tensor):
        _check(value._device is self._device or value._device is CPU and value._data.ndim == 0,
               lambda: f"Expected all tensors to be on the same device, but found at least two "
                       f"devices, {self._device} and {value._device}!")
        array = value._data
        if self._device is META:
            return dispatch.MetaArray(_strip_ones(array.shape), dtype._np)
        if value._device is not self._device:
            array = dispatch.get_backend(self._device.type).xp.asarray(value._host())
        if array.dtype != dtype._np:
            if array.dtype.kind == "c" and not dtype.is_complex:
                array = array.real
            array = cast(array, dtype._np)
        return array.reshape(_strip_ones(array.shape))
    # Python numbers and NumPy integers (what PyTorch's parser takes for an int); not other
    # NumPy scalars (np.float32, np.bool_), nor arrays. The number is converted as fill_ does.
    if isinstance(value, (bool, int, float, complex, np.integer)):
        _check_value(type(value) is not int or -_INT64_LIMIT <= value < _INT64_LIMIT,
                     "Overflow when unpacking long long")
        # Converted as fill_ converts (NOTE [fills round into half types]).
        value = fill_value(value, dtype._np, half_rounds=True)
        if self._device is META:
            return dispatch.MetaArray((), dtype._np)
        return np.asarray(value)
    module = type(value).__module__
    raise TypeError(f"can't assign a {'' if module == 'builtins' else module + '.'}"
                    f"{type(value).__name__} to a ember.{dtype._cpp_name}Tensor")


def _strip_ones(shape):
    # PyTorch drops a value's leading size-1 dims before broadcasting it into the target.
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _check_value_shape(value_shape, target, advanced):
    value_shape = tuple(value_shape)
    ok = len(value_shape) <= len(target) and all(
        v == 1 or v == t for v, t in zip(reversed(value_shape), reversed(target)))
    if ok:
        return
    if advanced:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value_shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}")
    _check(len(value_shape) <= len(target), lambda: (
        f"expand(ember.Tensor{{{list(value_shape)}}}, size={list(target)}): the number of sizes "
        f"provided ({len(target)}) must be greater or equal to the number of dimensions in the "
        f"tensor ({len(value_shape)})"))
    for i, (v, t) in enumerate(zip(reversed(value_shape), reversed(target))):
        if v != 1 and v != t:
            raise RuntimeError(
                f"The expanded size of the tensor ({t}) must match the existing size ({v}) at "
                f"non-singleton dimension {len(target) - 1 - i}.  Target sizes: {list(target)}."
                f"  Tensor sizes: {list(value_shape)}")


register_frontend("_getitem", function=False, method=False,
                  dunders={"__getitem__": getitem, "__setitem__": setitem})(getitem)


# --------------------------------------------------------------------------- index / index_put

def _check_index_dtype(index):
    if index.dtype not in _INDEX_DTYPES:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


_INDEX_DTYPES = frozenset((np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8),
                           np.dtype(np.bool_)))


def _expand_masks(xp, shape, indices):
    """Replace boolean / uint8 masks by their nonzero index arrays; check index dtypes."""
    found = []
    for index in indices:
        if index is None:
            found.append(None)
            continue
        kind = index.dtype.kind
        if kind == "b" or index.dtype == np.uint8:
            _check_mask_shape(index.shape, shape, len(found))
            found.extend(index.nonzero())
        else:
            _check_index_dtype(index)
            found.append(index)
    _check_index(len(found) <= len(shape), lambda: (
        f"too many indices for tensor of dimension {len(shape)} (got {len(found)})"))
    return found


def _broadcast_index_shapes(shapes):
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(s)) for s in shapes)) from None


def advanced_shape(shape, indices):
    """The result shape of applying integer index arrays (None = whole dim) to `shape`."""
    dims = [d for d, index in enumerate(indices) if index is not None]
    if not dims:
        return tuple(shape)
    broadcast = _broadcast_index_shapes([indices[d].shape for d in dims])
    rest = [s for d, s in enumerate(shape) if d not in dims]
    if dims[-1] - dims[0] + 1 == len(dims):        # adjacent: the index dims stay in place
        first = dims[0]
        return tuple(rest[:first]) + tuple(broadcast) + tuple(rest[first:])
    return tuple(broadcast) + tuple(rest)


def prepare_indices(xp, shape, indices):
    """Check integer index arrays (broadcast, bounds) and build the NumPy index tuple."""
    dims = [d for d, index in enumerate(indices) if index is not None]
    # (PyTorch checks an index as its kernel reads it: where the indices broadcast to nothing,
    # none is read, and an out-of-range entry beside an empty index is not an error)
    reads = 0 not in _broadcast_index_shapes([indices[d].shape for d in dims])
    position = []
    for d, index in enumerate(indices):
        if index is None:
            position.append(_FULL)
            continue
        if reads:
            check_in_bounds(xp, index, shape[d], d, error=IndexError, negative=True)
        position.append(index)
    return tuple(position)


def _index_meta(self, indices):
    arrays = []
    for t in indices:
        _check_not_implemented(t is None or not _is_mask(t),
                               "index: boolean masks on the meta device (data-dependent shape)")
        arrays.append(None if t is None else t._data)
    return advanced_shape(self._data.shape, arrays), self._dtype


# NOTE [indexing derivatives]: a read through indices (index, gather, index_select, take,
# masked_select) sends its gradient back by summing it into zeros at the same positions
# (index_put / scatter_add / index_add / put with accumulation, masked_scatter); a write sends
# the incoming gradient on with the overwritten positions zeroed, and the written values get
# the gradient read back at their positions. The pairs are each other's derivatives, so the
# formulas differentiate again. Index arguments get no gradient.

def index_arg(ctx):
    """The op's argument named `index` in a derivative formula. (`ctx.index` itself is the
    engine's position of a Tensor[] element, which hides an argument of that name.)"""
    return type(ctx).__getattr__(ctx, "index")


def _sum_to(grad, shape):
    """Sum `grad` down to `shape` (dims broadcasting added in front or expanded from 1)."""
    lead = grad.ndim - len(shape)
    dims = list(range(lead)) + [lead + i for i, size in enumerate(shape)
                                if size == 1 and grad.shape[lead + i] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)


def _index_self_grad(c):
    zeros = c.grad.new_zeros(tuple(c.self.shape))
    return dispatch.call(OPS["index_put"], (zeros, c.indices, c.grad, True))


def _index_put_self_grad(c):
    if c.accumulate:
        return c.grad
    return dispatch.call(OPS["index_put"], (c.grad, c.indices, c.grad.new_zeros(()), False))


def _index_put_values_grad(c):
    grad = dispatch.call(OPS["index.Tensor"], (c.grad, c.indices))
    # The values broadcast into the target after their leading 1s are dropped, which can
    # leave the target with fewer dims than the values: sum to the stripped shape first.
    shape = tuple(c.values.shape)
    stripped = _strip_ones(shape)
    if tuple(grad.shape) != stripped:
        grad = _sum_to(grad, stripped)
    return grad.reshape(shape)


@register_op("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", function=False,
             method=False, meta=_index_meta, saves=("indices",),
             derivatives={"self": _index_self_grad})
def index(xp, self, indices):
    """self[indices]: advanced indexing with one (or no) index tensor per leading dim."""
    indices = _expand_masks(xp, self.shape, indices)
    position = prepare_indices(xp, self.shape, indices)
    if all(p is _FULL for p in position):
        return self.copy()
    return self[position]


def _index_put_meta(self, indices, values, accumulate=False):
    return self._data.shape, self._dtype


@register_op("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) "
             "-> Tensor", inplace=True, out=False, meta=_index_put_meta, saves=("indices",),
             derivatives={"self": _index_put_self_grad, "values": _index_put_values_grad},
             tags=("fp_errors",))
def index_put(xp, self, indices, values, accumulate=False):
    """index_put(input, indices, values, accumulate=False) -> Tensor: a copy with
    input[indices] = values (or += values when `accumulate`)."""
    for index in indices:                    # (PyTorch checks the indices' dtypes first)
        if index is not None:
            _check_index_dtype(index)
    # Then, as PyTorch: the masks and the indices' shapes (IndexError), the values' shape, the
    # values' dtype, and last the bounds.
    indices = _expand_masks(xp, self.shape, indices)
    _broadcast_index_shapes([index.shape for index in indices if index is not None])
    target = advanced_shape(self.shape, indices)
    _check_value_shape(_strip_ones(values.shape), target, advanced=True)
    _check(values.dtype == self.dtype, lambda: (
        f"Index put requires the source and destination dtypes match, got {cpp_name(self)} for "
        f"the destination and {cpp_name(values)} for the source."))
    position = prepare_indices(xp, self.shape, indices)
    values = values.reshape(_strip_ones(values.shape))
    out = self.copy()
    if not accumulate:
        out[position] = values
        return out
    compute = accumulate_dtype(out)
    if not backend_helpers(xp).host and not device_at("sum", compute):
        # NOTE [scatter reductions on CuPy]
        return to_device(xp, index_put(np, *to_host(xp, (self, indices, values)),
                                       accumulate))
    total = out.astype(compute)
    xp.add.at(total, position, xp.broadcast_to(values.astype(compute), target))
    return total.astype(self.dtype)
