"""Assorted ops and Tensor methods: diff, isin, fill_diagonal_, and the methods that are not ops
(is_nonzero, is_same_size, resize_, resize_as_, apply_, map_, dim_order).

diff, isin and fill_diagonal are registry entries; the rest are hand-written frontends that read
or rewrite a tensor's metadata, or call Python back for every element, so there is nothing for
the registry to describe.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.array_utils import byte_bounds

from ember._backends import get_backend
from ember._backends.meta import iterator_order
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.arguments import parser_error
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_type
from ember._core.device import CPU, META
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import promote_types, result_type_from, scalar_type_of
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.shape import wrap_dim
from ember._ops.filling import fill_value as _fill_value

_BOOL = np.dtype(np.bool_)
_HALF = frozenset(np.dtype(d._np) for d in (dt.float16, dt.bfloat16))


def _dtype_of(value) -> dt.dtype:
    """The ember dtype of a Tensor (meta rules) or of a raw array (kernels)."""
    if isinstance(value, dispatch.Tensor):
        return value._dtype
    return dt.NP_TO_DTYPE[np.dtype(value.dtype)]


# --------------------------------------------------------------------------- diff

def _diff_checks(self, n, dim, prepend, append):
    """PyTorch's argument checks; returns the wrapped dim."""
    _check(self.ndim >= 1, "diff expects input to be at least one-dimensional")
    _check(n >= 0, lambda: f"order must be non-negative but got {n}")
    if n == 0 and prepend is None and append is None:
        return None                   # (PyTorch copies the input before it wraps the dim)
    axis = wrap_dim(dim, self.ndim)
    for other in (prepend, append):
        if other is None:
            continue
        _check(other.ndim == self.ndim,
               "diff expects prepend or append to be the same dimension as input")
        for d in range(self.ndim):
            if d != axis:
                _check(other.shape[d] == self.shape[d], lambda d=d, other=other: (
                    "diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({d}) = "
                    f"{self.shape[d]}, but got tensor.size({d}) = {other.shape[d]}"))
    return axis


def _diff_dtype(self_dtype, prepend, append):
    """prepend and append join the input as `cat` would: their dtypes promote together."""
    result = self_dtype
    for other in (prepend, append):
        if other is not None:
            result = promote_types(result, _dtype_of(other))
    return result


def _diff_length(self, axis, prepend, append):
    return sum(t.shape[axis] for t in (prepend, self, append) if t is not None)


def _diff_meta(self, n=1, dim=-1, prepend=None, append=None):
    axis = _diff_checks(self, n, dim, prepend, append)
    if axis is None:                  # (n = 0 alone: a copy)
        return tuple(self.shape), self._dtype
    length = _diff_length(self, axis, prepend, append)
    shape = list(self.shape)
    shape[axis] = length - min(n, length)
    return tuple(shape), _diff_dtype(self._dtype, prepend, append)


def _diff_input_grad(c):
    """The gradient of the joined input cat(prepend, self, append): each order of differencing
    d[i] = z[i + 1] - z[i] sends g[i - 1] - g[i] back to z[i]."""
    self, prepend, append = c.self, c.prepend, c.append
    axis = wrap_dim(c.dim, self.ndim)
    length = _diff_length(self, axis, prepend, append)
    grad = c.grad
    if c.n >= length:
        shape = list(self.shape)
        shape[axis] = length
        return grad.new_zeros(tuple(shape))
    for _ in range(c.n):
        shape = list(grad.shape)
        shape[axis] = 1
        zero = grad.new_zeros(tuple(shape))
        grad = dispatch.call(OPS["cat"], ([zero, grad], axis)) - \
            dispatch.call(OPS["cat"], ([grad, zero], axis))
    return grad


def _diff_part(which):
    """The formula for one of prepend, self, append: its slice of the joined gradient."""
    def formula(c):
        if c.n == 0:                  # (the output is a copy of self alone)
            return c.grad if which == "self" else None
        self, prepend, append = c.self, c.prepend, c.append
        axis = wrap_dim(c.dim, self.ndim)
        grad = _diff_input_grad(c)
        start = 0
        for name, t in (("prepend", prepend), ("self", self), ("append", append)):
            if t is None:
                continue
            if name == which:
                return grad.narrow(axis, start, t.shape[axis])
            start += t.shape[axis]
        return None
    return formula


@register_op("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, "
             "Tensor? append=None) -> Tensor", meta=_diff_meta, saves=(),
             derivatives={"self": _diff_part("self"), "prepend": _diff_part("prepend"),
                          "append": _diff_part("append")},
             node_name="SubBackward0", tags=("fp_errors",))
def diff(xp, self, n=1, dim=-1, prepend=None, append=None):
    """diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None) -> Tensor: the n-th
    forward difference along dim (logical xor for bools), after joining prepend and append."""
    _check_type(isinstance(n, int), lambda: (
        f"diff(): argument 'n' (position 2) must be int, not {type(n).__name__}"))
    axis = _diff_checks(self, n, dim, prepend, append)
    if n == 0:                      # (a copy of the input: prepend and append are not joined)
        return self.copy()
    result = _diff_dtype(_dtype_of(self), prepend, append)._np
    parts = [t.astype(result, copy=False) for t in (prepend, self, append) if t is not None]
    z = xp.concatenate(parts, axis=axis) if len(parts) > 1 else parts[0].copy()
    head = [slice(None)] * z.ndim
    tail = [slice(None)] * z.ndim
    head[axis], tail[axis] = slice(1, None), slice(None, -1)
    head, tail = tuple(head), tuple(tail)
    for _ in range(n):
        if z.shape[axis] == 0:
            break
        if z.dtype == _BOOL:
            z = xp.logical_xor(z[head], z[tail])
        elif z.dtype.kind == "c":     # PyTorch's sub: NOTE [complex alpha multiplies]
            z = z[head] - z[tail] * z.dtype.type(1)
        else:
            z = z[head] - z[tail]
    return z


# --------------------------------------------------------------------------- isin

def _isin_dtype(elements, test_elements, sorting=False):
    """The dtype both sides are compared in (wrapped numbers weaken as in arithmetic).

    NOTE [isin compares in its path's dtype]: PyTorch takes one of two paths by the sizes
    (numpy's heuristic): fewer test elements than int(10 * n ** 0.145), n the number of
    elements, compare each pair in the result_type of the two (a number or a 0-d tensor
    weakens: isin(1e-30, float16 zeros) is True there); otherwise both sides are flattened,
    made unique and concatenated, and cat promotes their dtypes plainly (isin(1e-30, ten
    float16 zeros) is False). A number test element is `eq` (it weakens) on both paths."""
    dim_types, zero_types, scalar_types = [], [], []
    for v in (elements, test_elements):
        if hasattr(v, "ndim"):        # a Tensor (meta rule) or an array (kernel)
            own = _dtype_of(v)
            (dim_types if v.ndim or sorting else zero_types).append(own)
        elif sorting:                 # (a number is a double, long or bool tensor there)
            own = scalar_type_of(v)
            own = dt.float64 if own.is_floating_point else own
            dim_types.append(own)
        else:
            own = scalar_type_of(v)
            scalar_types.append(own)
        _check(not (own is dt.bool_ or own.is_complex), lambda own=own: (
            f"Unsupported input type encountered for isin(): {own._cpp_name}"))
    return result_type_from(dim_types, zero_types, scalar_types)


def _isin_sorts(elements, test_elements):
    """Whether PyTorch takes its sorting path (NOTE [isin compares in its path's dtype])."""
    if not hasattr(test_elements, "ndim"):
        return False
    count = elements.size if hasattr(elements, "ndim") else 1
    return test_elements.size >= int(10.0 * count ** 0.145)


def _isin_kernel(xp, elements, test_elements, assume_unique=False, invert=False):
    """isin on arrays or numbers (the comparison is exact, so half types widen losslessly)."""
    common = _isin_dtype(elements, test_elements,
                         _isin_sorts(elements, test_elements))._np
    compute = np.dtype(np.float32) if np.dtype(common) in _HALF else common

    def as_array(v):
        if hasattr(v, "ndim"):
            return v.astype(common, copy=False).astype(compute, copy=False)
        return xp.asarray(dispatch.scalar_as(v, np.dtype(common))).astype(compute)
    a, b = as_array(elements), as_array(test_elements)
    # assume_unique is a speed hint: the answer is the same without it.
    return xp.isin(a, b, invert=invert)


def _isin_meta(elements, test_elements, assume_unique=False, invert=False):
    _isin_dtype(elements, test_elements)
    shape = tuple(elements.shape) if isinstance(elements, dispatch.Tensor) else ()
    return shape, dt.bool_


_ISIN = {"function": False, "method": False, "differentiable": False, "meta": _isin_meta}
register_op("isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, "
            "bool assume_unique=False, bool invert=False) -> Tensor", **_ISIN)(_isin_kernel)
register_op("isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, "
            "bool assume_unique=False, bool invert=False) -> Tensor", **_ISIN)(_isin_kernel)
register_op("isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, "
            "bool assume_unique=False, bool invert=False) -> Tensor", **_ISIN)(_isin_kernel)
_NUMBERS = (bool, int, float, complex, np.bool_, np.number)


@register_frontend(method=False)
def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """isin(elements, test_elements, *, assume_unique=False, invert=False, out=None) -> Tensor:
    whether each element of `elements` occurs in `test_elements` (either may be a number)."""
    if _state.entry and _wants(locals()):
        return _handle(isin, locals())
    Tensor = dispatch.Tensor
    if isinstance(elements, Tensor) and isinstance(test_elements, Tensor):
        op = OPS["isin.Tensor_Tensor"]
    elif isinstance(elements, Tensor) and isinstance(test_elements, _NUMBERS):
        op = OPS["isin.Tensor_Scalar"]
    elif isinstance(elements, _NUMBERS) and isinstance(test_elements, Tensor):
        op = OPS["isin.Scalar_Tensor"]
    else:
        raise TypeError(
            "isin() received an invalid combination of arguments - got "
            f"({type(elements).__name__}, {type(test_elements).__name__}), but expected one "
            "of:\n * (Tensor elements, Tensor test_elements)\n"
            " * (Number element, Tensor test_elements)\n"
            " * (Tensor elements, Number test_element)")
    args = (elements, test_elements, assume_unique, invert)
    args = parser_error(op, args, "isin", none_refused=True)  # (the parser's errors first)
    if out is None:
        return dispatch.call(op, args)
    return dispatch.call_out(op, args, out)


# --------------------------------------------------------------------------- fill_diagonal_

def _fill_diagonal_checks(shape):
    _check(len(shape) >= 2, "dimensions must larger than 1")
    if len(shape) > 2:
        _check(all(s == shape[0] for s in shape), "all dimensions of input must be of equal length")


def _fill_diagonal_meta(self, fill_value, wrap=False):
    _fill_diagonal_checks(tuple(self.shape))
    return tuple(self.shape), self._dtype


@register_op("fill_diagonal(Tensor self, Scalar fill_value, bool wrap=False) -> Tensor",
             function=False, method=False, inplace=True, meta=_fill_diagonal_meta, saves=(),
             derivatives={"self": lambda c: dispatch.call(OPS["fill_diagonal"],
                                                           (c.grad, 0, c.wrap))},
             tags=("fp_errors", "keeps_layout", "writes_where_changed"))
def fill_diagonal(xp, self, fill_value, wrap=False):
    """A copy of input with its main diagonal (i, i, ..., i) set to `fill_value`; with `wrap`
    a tall matrix's diagonal starts again every columns + 1 rows, as in NumPy."""
    shape = self.shape
    _fill_diagonal_checks(shape)
    if isinstance(fill_value, dispatch.Tensor):
        fill_value = fill_value.item()
    value = _fill_value(fill_value, self.dtype)
    out = self.copy(order="K")
    if self.size == 0:
        return out
    if self.ndim == 2:
        rows, cols = shape
        # Logical row-major positions (i, i) are i * (cols + 1); wrapping keeps going past
        # the square part.
        count = math.ceil(self.size / (cols + 1)) if wrap else min(rows, cols)
        flat = xp.arange(count) * (cols + 1)
        out[flat // cols, flat % cols] = value
    else:
        index = xp.arange(shape[0])
        out[(index,) * self.ndim] = value
    return out


# --------------------------------------------------------------------------- queries

@register_frontend()
@checked("is_nonzero(Tensor self)")
def is_nonzero(input) -> bool:
    """is_nonzero(input) -> bool: whether a one-element tensor is not zero (False, 0, 0.0)."""
    if _state.entry and _wants(locals()):
        return _handle(is_nonzero, locals())
    size = input.numel()
    _check(size != 0, "Boolean value of Tensor with no values is ambiguous")
    _check(size == 1, "Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


@register_frontend()
@checked("is_same_size(Tensor self, Tensor other)")
def is_same_size(input, other) -> bool:
    """is_same_size(input, other) -> bool: whether both tensors have the same shape."""
    if _state.entry and _wants(locals()):
        return _handle(is_same_size, locals())
    _check_type(isinstance(other, dispatch.Tensor), lambda: (
        f"is_same_size(): argument 'other' (position 1) must be Tensor, not "
        f"{type(other).__name__}"))
    return tuple(input.shape) == tuple(other.shape)


def _dense_in_order(shape, strides, order) -> bool:
    """Whether the dims, innermost first in `order`, are packed densely (size-1 dims free)."""
    expected = 1
    for d in order:
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _dim_order(shape, strides, check) -> tuple:
    """(dims from outermost to innermost in memory, whether `check` found the order open).

    A row-major (or only channels-last) layout answers at once (an empty tensor counts as
    row-major); otherwise an insertion sort by
    stride that leaves dims in place where the strides don't tell (a zero stride; equal
    strides unless the inner dim is the larger)."""
    ndim = len(shape)
    if ndim <= 1:
        return tuple(range(ndim)), False
    plain = 0 in shape or _dense_in_order(shape, strides, range(ndim - 1, -1, -1))
    channels_last = ndim == 4 and _dense_in_order(shape, strides, (1, 3, 2, 0))
    if plain and not channels_last:
        return tuple(range(ndim)), False
    if channels_last and not plain:
        return (0, 2, 3, 1), False

    def verdict(a, b):
        # 1: dim a lies outside dim b in memory; -1: inside; 0: no preference.
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] == strides[b]:
            return 1 if shape[a] > shape[b] else 0
        return -1 if strides[a] < strides[b] else 1

    order = iterator_order(ndim, verdict)       # innermost first
    unclear = check and any(verdict(a, b) != -1 for a, b in itertools.pairwise(order))
    return tuple(reversed(order)), unclear


_AMBIGUOUS = ("The tensor does not have unique dim order, or cannot map to exact one of the "
              "given memory formats.")
_BAD_CHECK = "The ambiguity_check argument must be a bool or a list of memory formats."


def dim_order(self, *, ambiguity_check=False) -> tuple:
    """Tensor.dim_order(*, ambiguity_check=False) -> tuple: the dims from outermost to innermost
    in memory. With `ambiguity_check` True a layout that allows several orders (a size-1 dim,
    equal neighbouring strides) is refused; with a list of memory formats it is accepted when
    exactly one of them describes it."""
    if _state.entry and _wants(locals()):
        return _handle(dim_order, locals())
    if isinstance(ambiguity_check, bool):
        formats, check_open = [], ambiguity_check
    else:
        _check_type(isinstance(ambiguity_check, list), _BAD_CHECK)
        for memory_format in ambiguity_check:
            _check_type(type(memory_format).__name__ == "memory_format", _BAD_CHECK)
        formats, check_open = ambiguity_check, True
    shape, strides = tuple(self.shape), self.stride()
    if check_open and (1 in shape or any(a == b for a, b in itertools.pairwise(strides))):
        matches = sum(bool(self.is_contiguous(memory_format=m)) for m in formats)
        _check(matches == 1, _AMBIGUOUS)
    order, unclear = _dim_order(shape, strides, bool(ambiguity_check))
    _check(not unclear, "The tensor does not have unique dim order.")
    return order


register_frontend("dim_order", function=False)(dim_order)


# --------------------------------------------------------------------------- resize_

def _sizes(sizes, name) -> tuple:
    if len(sizes) == 1 and not isinstance(sizes[0], int) and not hasattr(sizes[0], "__index__"):
        sizes = sizes[0]
    _check_type(isinstance(sizes, (tuple, list)) or hasattr(sizes, "__iter__"), lambda: (
        f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
        f"{type(sizes).__name__}"))
    result = []
    for s in sizes:
        _check_type(isinstance(s, int) or hasattr(s, "__index__"), lambda s=s: (
            f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
            f"{type(s).__name__}"))
        result.append(int(s))
    for s in result:
        _check(s >= 0, lambda s=s: f"Trying to create tensor with negative dimension {s}: {result}")
    return tuple(result)


def _resize(self, shape):
    """Give `self` the contiguous `shape` over its storage, from its storage offset, as
    PyTorch does; a storage too small is replaced by a larger one that starts with the old
    elements (the rest is zeros here, uninitialised in PyTorch).

    NOTE [resize_ allocates apart from other views]: growing the storage gives `self` a new
    buffer; other views of the old storage keep the old one (in PyTorch they follow along).
    """
    _check(not self._requires_grad, "cannot resize variables that require grad")
    data = self._data
    if tuple(data.shape) == shape:
        return self
    numel = math.prod(shape)
    storage = dispatch.storage_of(self)
    if self._device is META:
        self._data = type(data)(shape, data.dtype)
    elif self._device is CPU:
        itemsize = data.dtype.itemsize
        high = byte_bounds(storage._array)[1]
        available = max(high - self.data_ptr(), 0) // itemsize
        contiguous = tuple(int(s) * itemsize for s in _row_major(shape))
        if numel <= available:
            flat = np.lib.stride_tricks.as_strided(data, (available,), (itemsize,))
            self._data = np.lib.stride_tricks.as_strided(flat, shape, contiguous)
        else:
            grown = np.zeros(numel, data.dtype)
            if available:
                grown[:available] = np.lib.stride_tricks.as_strided(
                    data, (available,), (itemsize,))
            _replace_storage(self, grown.reshape(shape), storage)
            return self
    else:
        flat = data.reshape(-1) if self.is_contiguous() else data.ravel()
        if numel <= flat.size and self.is_contiguous():
            self._data = flat[:numel].reshape(shape)
        else:
            grown = _backend_zeros(self, numel)
            grown[:min(numel, flat.size)] = flat[:min(numel, flat.size)]
            _replace_storage(self, grown.reshape(shape), storage)
            return self
    storage._version += 1
    return self


def _row_major(shape):
    strides, step = [], 1
    for s in reversed(shape):
        strides.append(step)
        step *= max(s, 1)
    return tuple(reversed(strides))


def _backend_zeros(t, numel):
    return get_backend(t._device.type).xp.zeros(numel, t._data.dtype)


def _replace_storage(self, array, old_storage):
    self._data = array
    self._storage = None
    dispatch.storage_of(self)._version = old_storage._version + 1


def resize_(self, *sizes, memory_format=None):
    """Tensor.resize_(*sizes, memory_format=None) -> Tensor: give self the shape `sizes`, laid
    out contiguously over its storage (grown when too small). Values are kept in storage order,
    not in the old logical order."""
    if _state.entry and _wants(locals()):
        return _handle(resize_, locals())
    _check_type(sizes, 'resize_() missing 1 required positional arguments: "size"')
    _check(memory_format is None or getattr(memory_format, "name", None) == "contiguous_format",
           "resize_: only the contiguous memory format is supported")
    return _resize(self, _sizes(sizes, "resize_"))


def resize_as_(self, the_template, *, memory_format=None):
    """Tensor.resize_as_(the_template, *, memory_format=None) -> Tensor: resize_ to the
    template's shape."""
    if _state.entry and _wants(locals()):
        return _handle(resize_as_, locals())
    _check_type(isinstance(the_template, dispatch.Tensor), lambda: (
        "resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
        f"{type(the_template).__name__}"))
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)


register_frontend("resize_", function=False)(resize_)
register_frontend("resize_as_", function=False)(resize_as_)


# --------------------------------------------------------------------------- apply_ / map_

def _python_callable_checks(self, name, others=()):
    for t in (self,) + tuple(others):
        _check(not t._requires_grad, lambda: (
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."))
    _check_type(self._device is CPU or self._device is META, lambda: (
        f"{name} is only implemented on CPU tensors"))


def _element_value(value, np_dtype):
    """The callable's answer as an element of `np_dtype` (a number or a one-element tensor)."""
    if isinstance(value, dispatch.Tensor):
        value = value.item()
    _check_type(isinstance(value, _NUMBERS), lambda: (
        f"must be real number, not {type(value).__name__}"))
    return _fill_value(value, np_dtype)


def apply_(self, callable):
    """Tensor.apply_(callable) -> Tensor: replace every element x of self (a CPU tensor) by
    callable(x), visiting them in logical order. Slow: one Python call per element."""
    if _state.entry and _wants(locals()):
        return _handle(apply_, locals())
    _python_callable_checks(self, "apply_")
    if self._device is META:      # no values to visit, as in PyTorch
        return self
    data = self._data
    values = data.tolist() if data.ndim else [data.item()]
    flat = np.empty(data.size, data.dtype)
    for i, value in enumerate(_flatten(values, data.ndim)):
        flat[i] = _element_value(callable(value), data.dtype)
    data[...] = flat.reshape(data.shape)
    return self


def map_(self, other, callable):
    """Tensor.map_(other, callable) -> Tensor: replace every element a of self (a CPU tensor)
    by callable(a, b), b the matching element of `other` broadcast to self's shape."""
    if _state.entry and _wants(locals()):
        return _handle(map_, locals())
    _check_type(isinstance(other, dispatch.Tensor), lambda: (
        f"map_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"))
    _python_callable_checks(self, "map_", (other,))
    _check_type(other._dtype is self._dtype, lambda: (
        f"map_: expected {self.type()} for 'other' (got {other.type()})"))
    return map_elements(self, (other,), callable)


def map_elements(self, others, callable):
    """self[i] = callable(self[i], *(o[i] for o in others)), the others broadcast to self's
    shape (the loop of map_ and map2_, after their checks)."""
    if self._device is META:
        return self
    data = self._data
    columns = [_flatten(data.tolist() if data.ndim else [data.item()], data.ndim)]
    for other in others:
        expanded = other.expand(tuple(data.shape))._data
        columns.append(_flatten(expanded.tolist() if data.ndim else [expanded.item()],
                                data.ndim))
    flat = np.empty(data.size, data.dtype)
    for i, values in enumerate(zip(*columns)):
        flat[i] = _element_value(callable(*values), data.dtype)
    data[...] = flat.reshape(data.shape)
    return self


def _flatten(values, ndim):
    """Python numbers from nested lists (`tolist()` of an array with `ndim` dims)."""
    for _ in range(max(ndim - 1, 0)):
        values = [v for row in values for v in row]
    return values


register_frontend("apply_", function=False)(apply_)
register_frontend("map_", function=False)(map_)
