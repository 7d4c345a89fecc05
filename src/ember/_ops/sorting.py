"""Sorting and searching: sort, argsort, msort, topk, unique, unique_consecutive, histc,
bincount, bucketize and searchsorted.

NOTE [sort order]: every order here comes from one stable NumPy sort, so equal elements keep
their input order, in descending sorts too; NaN sorts above every number (first when
descending), as in PyTorch. Half types are ordered through float32, which holds them exactly;
the values themselves are always gathered from the input.

unique, unique_consecutive and bincount have no meta rule: their output shape depends on the
data.

sort, msort and topk pass their gradient back to where each value came from. argsort,
searchsorted, bucketize and histc are not differentiable, as in PyTorch; nor are unique,
unique_consecutive and bincount (PyTorch records them and fails only at backward).
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.arguments import combination_error, parser_error
from ember._core.checks import _check, _check_index, _check_type
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.promotion import promote_types, result_type_from, scalar_type_of
from ember._core.registry import OPS, register_frontend, register_op
from ember._core.return_types import return_type
from ember._core.shape import wrap_dim
from ember._ops.cumulative import named_call, not_implemented, scan_axis, selection_grad

_HALF = (np.dtype(dt.float16._np), np.dtype(dt.bfloat16._np))
_INT64 = np.dtype(np.int64)
_WIDE_UNSIGNED = (np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64))

sort_result = return_type("sort", ("values", "indices"))
topk_result = return_type("topk", ("values", "indices"))


def sort_keys(x):
    """`x` as an array NumPy can order (half types widened to float32 exactly)."""
    return x.astype(np.float32) if x.dtype in _HALF else x


def sort_order(xp, x, axis, descending):
    """Stable argsort along `axis` (see NOTE [sort order])."""
    keys = sort_keys(x)
    if not descending:
        return xp.argsort(keys, axis=axis, kind="stable")
    # Sorting the reversed input ascending and reversing the result keeps ties in input order.
    flipped = xp.argsort(xp.flip(keys, axis), axis=axis, kind="stable")
    return (x.shape[axis] - 1) - xp.flip(flipped, axis)


def _check_sortable(x, op_name):
    _check(x.dtype.kind != "c" and x.dtype.names is None,   # (names: complex32)
           lambda: f" {op_name} does not support complex dtypes on CPU")


# --------------------------------------------------------------------------- sort / argsort

def _sort(xp, self, dim, descending):
    wrap_dim(dim, self.ndim)                 # (PyTorch checks the dimension first)
    _check_sortable(self, "Sort")
    x, axis = scan_axis(self, dim)
    order = sort_order(xp, x, axis, descending)
    values = xp.take_along_axis(x, order, axis=axis)
    return values.reshape(self.shape), order.reshape(self.shape)


def _sort_meta(self, *args):
    dim = args[1] if len(args) == 3 else (args[0] if args else -1)
    shape = tuple(self._data.shape)
    wrap_dim(dim, len(shape))
    return [(shape, self._dtype), (shape, dt.int64)]


@register_op("sort(Tensor self, int dim=-1, bool descending=False) -> "
             "(Tensor values, Tensor indices)", function=False, method=False, meta=_sort_meta,
             saves=("result1",), derivatives={"self": selection_grad})
def _sort_default(xp, self, dim=-1, descending=False):
    """sort(input, dim=-1, descending=False) -> (values, indices): the elements along `dim`
    in order, and where each came from."""
    return _sort(xp, self, dim, descending)


@register_op("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
             "(Tensor values, Tensor indices)", function=False, method=False, meta=_sort_meta,
             saves=("result1",), derivatives={"self": selection_grad})
def _sort_stable(xp, self, stable, dim=-1, descending=False):
    """sort.stable(input, *, stable, dim=-1, descending=False) -> (values, indices): as
    sort, equal elements keeping their order."""
    # The CPU sort is always stable, so `stable` changes nothing.
    return _sort(xp, self, dim, descending)


_INT64_LIMIT = 1 << 63
_UNSET = object()        # an argument not given (told apart from one given as its default)


def sort_overload(name, plain, stable_form, input, positional, dim, descending, stable):
    """PyTorch's choice between `plain` (input, dim=-1, descending=False) and `stable_form`
    (input, *, stable, dim=-1, descending=False) of sort or argsort: `stable` given picks the
    stable form, whose dim and descending are keywords only. Returns (op, arguments in its
    schema's order), the parser's checks done."""
    if positional:
        if stable is not _UNSET or len(positional) > 2 or dim is not _UNSET or \
                len(positional) == 2 and descending is not _UNSET:
            keywords = {key: value for key, value in (
                ("dim", dim), ("descending", descending), ("stable", stable))
                if value is not _UNSET}
            raise combination_error(name, OPS[plain], (input, *positional), keywords)
        dim = positional[0]
        if len(positional) == 2:
            descending = positional[1]
    if dim is _UNSET:
        dim = -1
    if descending is _UNSET:
        descending = False
    if type(dim) is int and -_INT64_LIMIT <= dim < _INT64_LIMIT and (
            descending is False or descending is True) and (
            stable is _UNSET or stable is False or stable is True) and \
            isinstance(input, dispatch.Tensor):
        if stable is _UNSET:                # (all plain; PyTorch's overload by what was given)
            return OPS[plain], (input, dim, descending)
        return OPS[stable_form], (input, stable, dim, descending)
    if stable is _UNSET:
        return OPS[plain], parser_error(OPS[plain], (input, dim, descending), name,
                                        none_refused=True)
    op = OPS[stable_form]
    return op, parser_error(op, (input, stable, dim, descending), name, none_refused=True)


@register_frontend("sort")
def sort(input, *positional, dim=_UNSET, descending=_UNSET, stable=_UNSET, out=None):
    """sort(input, dim=-1, descending=False, *, stable=False, out=None) -> (values, indices):
    the elements along `dim` in order, and where each came from."""
    if _state.entry and _wants(locals()):
        return _handle(sort, locals())
    op, args = sort_overload("sort", "sort", "sort.stable", input, positional, dim, descending,
                             stable)
    if out is None:
        return sort_result(*dispatch.call(op, args))
    return sort_result(*dispatch.call_out(op, args, out))


def _argsort_meta(self, *args):
    return _sort_meta(self, *args)[1]


@register_op("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) "
             "-> Tensor", function=False, method=False, meta=_argsort_meta,
             differentiable=False)
def _argsort(xp, self, stable, dim=-1, descending=False):
    """argsort.stable(input, *, stable, dim=-1, descending=False) -> Tensor: the indices
    that sort `input` along `dim`."""
    return _sort(xp, self, dim, descending)[1]


# (The form without `stable`: the frontend runs the stable one; this entry gives the parser
# PyTorch's two overloads to check against and list.)
@register_op("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor",
             function=False, method=False, meta=_argsort_meta, differentiable=False)
def _argsort_default(xp, self, dim=-1, descending=False):
    """argsort(input, dim=-1, descending=False) -> Tensor: the indices that sort `input`
    along `dim`."""
    return _sort(xp, self, dim, descending)[1]


@register_frontend("argsort")
def argsort(input, *positional, dim=_UNSET, descending=_UNSET, stable=_UNSET, out=None):
    """argsort(input, dim=-1, descending=False, *, stable=False) -> Tensor: the indices that
    sort `input` along `dim`."""
    if _state.entry and _wants(locals()):
        return _handle(argsort, locals())
    if out is not None and stable is _UNSET:    # (only the stable form has an out=)
        keywords = {"out": out} if dim is _UNSET else {"dim": dim, "out": out}
        raise combination_error("argsort", OPS["argsort"], (input, *positional), keywords)
    op, args = sort_overload("argsort", "argsort", "argsort.stable", input, positional, dim,
                             descending, stable)
    if out is None:
        return dispatch.call(op, args)
    return dispatch.call_out(op, args, out)


def _msort_grad(c):
    grad = c.grad
    if grad.ndim == 0:
        return grad
    # The kernel's order (stable, ascending along dim 0), found again from the saved input.
    order = dispatch.call(OPS["argsort.stable"], (c.self, True, 0, False))
    return grad.new_zeros(grad.shape).scatter_add(0, order, grad)


@register_op("msort(Tensor self) -> Tensor",
             meta=lambda self: (tuple(self._data.shape), self._dtype),
             saves=("self",), derivatives={"self": _msort_grad})
def msort(xp, self):
    """msort(input, *, out=None) -> Tensor: `input` sorted along its first dim."""
    return _sort(xp, self, 0, False)[0]


# --------------------------------------------------------------------------- topk

def _topk_meta(self, k, dim=-1, largest=True, sorted=True):
    shape = list(self._data.shape)
    axis = wrap_dim(dim, len(shape))
    _check(0 <= k <= (shape[axis] if shape else 1), "selected index k out of range")
    if shape:
        shape[axis] = k
    return [(tuple(shape), self._dtype), (tuple(shape), dt.int64)]


@register_op("topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
             "(Tensor values, Tensor indices)", function=False, method=False, meta=_topk_meta,
             saves=("result1",), derivatives={"self": selection_grad})
def _topk(xp, self, k, dim=-1, largest=True, sorted=True):
    """topk(input, k, dim=-1, largest=True, sorted=True) -> (values, indices): the `k`
    largest (or smallest) elements along `dim` and their positions."""
    _check_type(isinstance(k, (int, np.integer)) and not isinstance(k, bool), lambda: (
        f"topk(): argument 'k' (position 2) must be int, not {type(k).__name__}"))
    _check_sortable(self, "topk")
    _check(self.dtype.kind != "b", " topk does not support bool dtypes on CPU")
    x, axis = scan_axis(self, dim)
    _check(0 <= k <= x.shape[axis], "selected index k out of range")
    if self.ndim == 0:
        # A 0-d input gives back its one element, for k=0 as well.
        return self.copy(), xp.zeros((), dtype=_INT64)
    # The sorted order is one valid answer for sorted=False too.
    order = xp.take(sort_order(xp, x, axis, largest), xp.arange(k), axis=axis)
    return xp.take_along_axis(x, order, axis=axis), order


@register_frontend("topk")
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """topk(input, k, dim=-1, largest=True, sorted=True, *, out=None) -> (values, indices):
    the `k` largest (or smallest) elements along `dim`."""
    if _state.entry and _wants(locals()):
        return _handle(topk, locals())
    return named_call(OPS["topk"], topk_result, (input, k, dim, largest, sorted), out)


# --------------------------------------------------------------------------- unique

def _check_unique_dtype(x):
    if x.dtype.kind == "c":
        not_implemented("unique", x.dtype)


def _groups(xp, starts, n, order, want_inverse, want_counts, inverse_shape):
    """Inverse and counts from the group starts of the (sorted) sequence; `order` maps sorted
    positions back to input positions (None: already in input order)."""
    inverse = counts = xp.zeros((0,), dtype=_INT64)
    if want_inverse:
        group = xp.cumsum(starts, dtype=_INT64) - 1
        if order is not None:
            unsorted = xp.empty(n, dtype=_INT64)
            unsorted[order] = group
            group = unsorted
        inverse = group.reshape(inverse_shape)
    if want_counts:
        first = xp.flatnonzero(starts)
        counts = xp.diff(xp.concatenate([first, xp.asarray([n])])).astype(_INT64)
    return inverse, counts


def _starts(xp, keys):
    """True where a run of equal rows begins (NaN never equals NaN, so each NaN is its own)."""
    differs = keys[1:] != keys[:-1]
    if keys.ndim > 1:
        differs = differs.any(axis=1)
    return xp.concatenate([xp.ones((min(len(keys), 1),), dtype=bool), differs])


def _rows(xp, self, dim):
    """(`self` with `dim` moved first, its slices flattened as rows) for unique over `dim`."""
    _check_index(self.ndim > 0, lambda: f"Dimension specified as {dim} but tensor has no "
                                        "dimensions")
    axis = wrap_dim(dim, self.ndim)
    moved = xp.moveaxis(self, axis, 0)
    _check(moved.shape[0] == 0 or self.size > 0, "There are 0 sized dimensions, and they "
           "aren't selected, so unique cannot be applied")
    width = int(np.prod(moved.shape[1:]))
    return moved, axis, sort_keys(moved.reshape(moved.shape[0], width))


@register_op("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, "
             "bool return_counts=False) -> (Tensor, Tensor, Tensor)", function=False,
             method=False, differentiable=False)
def _unique2(xp, self, sorted=True, return_inverse=False, return_counts=False):
    """_unique2(input, sorted=True, return_inverse=False, return_counts=False): the sorted
    distinct elements, each element's position among them, and how often each occurs."""
    _check_unique_dtype(self)
    flat = self.reshape(-1)
    order = xp.argsort(sort_keys(flat), kind="stable")
    ordered = flat[order]
    starts = _starts(xp, sort_keys(ordered))
    inverse, counts = _groups(xp, starts, flat.size, order, return_inverse, return_counts,
                              self.shape)
    return ordered[starts], inverse, counts


@register_op("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
             "bool return_counts=False) -> (Tensor, Tensor, Tensor)", function=False,
             method=False, differentiable=False)
def _unique_dim(xp, self, dim, sorted=True, return_inverse=False, return_counts=False):
    """unique_dim(input, dim, ...): the distinct slices along `dim` (sorted), the inverse
    map and the counts."""
    _check_unique_dtype(self)
    moved, axis, rows = _rows(xp, self, dim)
    n = rows.shape[0]
    # lexsort's last key is the primary one: order rows by their first column first.
    order = xp.lexsort(rows.T[::-1]) if rows.shape[1] else xp.arange(n)
    starts = _starts(xp, rows[order])
    inverse, counts = _groups(xp, starts, n, order, return_inverse, return_counts, (n,))
    values = xp.moveaxis(moved[order[starts]], 0, axis)
    return xp.ascontiguousarray(values), inverse, counts


@register_op("unique_consecutive(Tensor self, bool return_inverse=False, "
             "bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)",
             function=False, method=False, differentiable=False)
def _unique_consecutive(xp, self, return_inverse=False, return_counts=False, dim=None):
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None): each
    run of equal consecutive elements (or slices along `dim`) collapsed to one."""
    _check_unique_dtype(self)
    if dim is None:
        flat = self.reshape(-1)
        starts = _starts(xp, sort_keys(flat))
        inverse, counts = _groups(xp, starts, flat.size, None, return_inverse, return_counts,
                                  self.shape)
        return flat[starts], inverse, counts
    moved, axis, rows = _rows(xp, self, dim)
    starts = _starts(xp, rows)
    inverse, counts = _groups(xp, starts, rows.shape[0], None, return_inverse, return_counts,
                              (rows.shape[0],))
    return xp.ascontiguousarray(xp.moveaxis(moved[starts], 0, axis)), inverse, counts


def _pick(results, return_inverse, return_counts):
    values, inverse, counts = results
    if not (return_inverse or return_counts):
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + \
        ((counts,) if return_counts else ())


@register_frontend("unique")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None): the
    distinct elements (or slices along `dim`) in ascending order; a tuple adds the inverse
    indices and the counts when asked for."""
    if _state.entry and _wants(locals()):
        return _handle(unique, locals())
    if dim is None:
        op, args = OPS["_unique2"], (input, sorted, return_inverse, return_counts)
    else:
        op, args = OPS["unique_dim"], (input, dim, sorted, return_inverse, return_counts)
    if not _plain_flags(sorted, return_inverse, return_counts, dim):
        args = _unique_arguments(op, args, return_inverse, return_counts)
    return _pick(dispatch.call(op, args), return_inverse, return_counts)


@register_frontend("unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None): `input`
    with each run of equal consecutive elements (or slices along `dim`) kept once."""
    if _state.entry and _wants(locals()):
        return _handle(unique_consecutive, locals())
    op, args = OPS["unique_consecutive"], (input, return_inverse, return_counts, dim)
    if not _plain_flags(True, return_inverse, return_counts, dim):
        args = _unique_arguments(op, args, return_inverse, return_counts)
    return _pick(dispatch.call(op, args), return_inverse, return_counts)


def _plain_flags(sorted, return_inverse, return_counts, dim):
    return (sorted is True or sorted is False) and (
        return_inverse is False or return_inverse is True) and (
        return_counts is False or return_counts is True) and (dim is None or type(dim) is int)


def _unique_arguments(op, args, return_inverse, return_counts):
    """PyTorch's unique and unique_consecutive are Python functions that pick their result by
    testing return_counts, then return_inverse, for truth (an array of several values is
    NumPy's ValueError there), then call the op, whose parser checks every argument."""
    bool(return_counts)
    bool(return_inverse)
    return parser_error(op, args, op.python_name, none_refused=True)


# --------------------------------------------------------------------------- histograms

@register_op("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
             meta=lambda self, bins=100, min=0, max=0: ((bins,), self._dtype),
             differentiable=False, tags=("fp_errors",))
def histc(xp, self, bins=100, min=0, max=0):
    """histc(input, bins=100, min=0, max=0, *, out=None) -> Tensor: counts of the elements in
    `bins` equal-width bins over [min, max] (the data's own range when min == max)."""
    _check_type(isinstance(bins, (int, np.integer)) and not isinstance(bins, bool), lambda: (
        f"histc(): argument 'bins' must be int, not {type(bins).__name__}"))
    if not dt.NP_TO_DTYPE[self.dtype].is_floating_point:
        not_implemented("histogram_cpu", self.dtype)
    _check(bins > 0, lambda: f"torch.histogram(): bins must be > 0, but got {bins} for "
                             "dimension 0")
    _check(not isinstance(min, complex) and not isinstance(max, complex),
           "value cannot be converted to type double without overflow")
    # PyTorch computes the bin of each element in the input's own dtype: so do we.
    kind = self.dtype.type
    low, high = kind(min), kind(max)
    if low == high and self.size:
        low, high = xp.min(self), xp.max(self)
    if low == high:
        low, high = low - kind(1), high + kind(1)
    _check(bool(xp.isfinite(low) & xp.isfinite(high)), lambda: (
        f"torch.histc: range of [{float(low)}, {float(high)}] is not finite"))
    _check(bool(low < high), "torch.histc: max must be larger than min")
    x = self.reshape(-1)
    x = x[(x >= low) & (x <= high)]
    position = ((x - low) * kind(bins) / (high - low)).astype(_INT64)
    # The right edge belongs to the last bin; a position whose product overflowed (a range
    # near the dtype's largest value) is counted in the first, as PyTorch's kernel counts it.
    position = xp.clip(position, 0, bins - 1)
    return xp.bincount(position, minlength=bins).astype(self.dtype)


@register_op("bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor",
             out=False, differentiable=False, tags=("fp_errors",))
def bincount(xp, self, weights=None, minlength=0):
    """bincount(input, weights=None, minlength=0) -> Tensor: how often each non-negative
    integer occurs in the 1-d `input` (summing `weights` instead of counting ones)."""
    if self.dtype.kind not in "iu" or self.dtype in _WIDE_UNSIGNED:   # (PyTorch's kernels)
        not_implemented("bincount_cpu", self.dtype)
    _check(minlength >= 0, "minlength should be >= 0")
    _check(self.ndim == 1 and (self.size == 0 or int(xp.min(self)) >= 0),
           "bincount only supports 1-d non-negative integral inputs.")
    _check(weights is None or (weights.ndim == 1 and weights.shape[0] == self.shape[0]),
           "weights should be 1-d and have the same length as input")
    if self.size == 0:
        return xp.zeros((minlength,), dtype=_INT64)
    index = self.astype(np.intp, copy=False)
    if weights is None:
        return xp.bincount(index, minlength=minlength).astype(_INT64)
    # float32 weights sum as float32; every other dtype sums as float64.
    result = weights.dtype if weights.dtype == np.float32 else np.dtype(np.float64)
    weights = weights.real if weights.dtype.kind == "c" else weights
    summed = xp.bincount(index, weights=weights.astype(np.float64), minlength=minlength)
    return summed.astype(result)


# --------------------------------------------------------------------------- searchsorted

def _check_search(boundaries, value, value_dtype, right, side, sorter):
    _check(side in (None, "left", "right"), lambda: (
        f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"))
    _check(not (side == "left" and right), lambda: (
        "torch.searchsorted(): side and right can't be set to opposites, got side of "
        f"{side} while right was {bool(right)}"))
    if sorter is not None:
        _check(sorter.shape == boundaries.shape, lambda: (
            "torch.searchsorted(): boundary and sorter must have the same size, but got "
            f"boundary tensor {list(boundaries.shape)}and got sorter tensor "
            f"{list(sorter.shape)}"))
        _check(sorter.dtype == _INT64, lambda: (
            "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
            f"{dt.NP_TO_DTYPE[sorter.dtype]._cpp_name}"))
    value_ndim = np.ndim(value)
    _check(boundaries.ndim == 1 or value_ndim > 0, lambda: (
        "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
        f"dimension is 1, but we got boundaries tensor dim({boundaries.ndim}) and input "
        f"value's dim({value_ndim}) numel({np.size(value)})"))
    _check(boundaries.ndim > 0, "torch.searchsorted(): boundaries tensor should have positive "
                                "dimension, but got 0 dimension")
    _check(boundaries.ndim == 1 or boundaries.shape[:-1] == np.shape(value)[:-1], lambda: (
        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
        "dimensions of boundaries tensor and input value tensor must match, but we got "
        f"boundaries tensor {list(boundaries.shape)} and input value tensor "
        f"{list(np.shape(value))}"))
    # NOTE [searchsorted promotes as arithmetic]: PyTorch takes the result_type of the
    # boundaries and the values, so a number or a 0-d tensor of values weakens to the
    # boundaries' kind (-1 among uint8 boundaries is 255; 5.50001 among float16 ones is 5.5).
    own = dt.NP_TO_DTYPE[boundaries.dtype]
    if not hasattr(value, "ndim"):
        common = result_type_from([own], [], [value_dtype])
    elif value.ndim == 0:
        common = result_type_from([own], [value_dtype], [])
    else:
        common = promote_types(own, value_dtype)
    if common is dt.bool_ and np.size(value) != 0:   # (no values: PyTorch returns first)
        not_implemented("searchsorted_out_cpu", common._np)
    return common


def _batched_search(xp, boundaries, values, right):
    """searchsorted for each row of boundaries (..., M) with its own values (..., K): sort each
    row of boundaries and values together, then count the boundaries ahead of each value."""
    m = boundaries.shape[-1]
    rows = int(np.prod(boundaries.shape[:-1]))
    parts = [boundaries.reshape(rows, m), values.reshape(rows, -1)]
    # The stable sort keeps equal keys in this order: on a tie a value goes before the
    # boundaries (left) or after them (right).
    if not right:
        parts.reverse()
    keys = xp.concatenate(parts, axis=1)
    is_boundary = xp.arange(keys.shape[1]) < m if right else \
        xp.arange(keys.shape[1]) >= keys.shape[1] - m
    order = xp.argsort(keys, axis=1, kind="stable")
    boundaries_so_far = xp.cumsum(is_boundary[order], axis=1)
    found = xp.empty_like(boundaries_so_far)
    xp.put_along_axis(found, order, boundaries_so_far, axis=1)
    found = found[:, m:] if right else found[:, :keys.shape[1] - m]
    return found.reshape(values.shape)


def _bisect_as_pytorch(xp, boundaries, values, right):
    """PyTorch's own binary search, all values at once: it moves right past a boundary unless
    `boundary >= value` (`>` for right), so a NaN on either side counts as smaller than
    everything, where NumPy sorts NaN last. Used only when NaNs are present."""
    m = boundaries.shape[-1]
    rows = int(np.prod(boundaries.shape[:-1]))
    table = boundaries.reshape(rows, m)
    wanted = values.reshape(rows, -1) if boundaries.ndim > 1 else values.reshape(1, -1)
    start = xp.zeros(wanted.shape, _INT64)
    end = xp.full(wanted.shape, m, _INT64)
    row = xp.arange(table.shape[0]).reshape(-1, 1)
    while bool((start < end).any()):
        active = start < end
        middle = (start + end) // 2
        pivot = table[row, xp.minimum(middle, m - 1)]
        stays = (pivot > wanted) if right else (pivot >= wanted)
        start = xp.where(active & ~stays, middle + 1, start)
        end = xp.where(active & stays, middle, end)
    return start.reshape(values.shape)


def _search(xp, boundaries, value, out_int32, right, side, sorter, value_dtype):
    common = _check_search(boundaries, value, value_dtype, right, side, sorter)
    right = bool(right) or side == "right"
    compute = np.float32 if common in (dt.float16, dt.bfloat16) else common._np
    boundaries = boundaries.astype(compute, copy=False)
    with np.errstate(all="ignore"):
        value = xp.asarray(value).astype(common._np).astype(compute, copy=False)
    if sorter is not None:
        _check(sorter.size == 0 or (int(sorter.min()) >= 0
                                    and int(sorter.max()) < boundaries.shape[-1]),
               "torch.searchsorted(): sorter index out of range")
        boundaries = xp.take_along_axis(boundaries, sorter, axis=-1)
    if boundaries.dtype.kind in "fc" and (xp.isnan(boundaries).any() or xp.isnan(value).any()):
        found = _bisect_as_pytorch(xp, boundaries, value, right)
    elif boundaries.ndim == 1:
        found = xp.searchsorted(boundaries, value, side="right" if right else "left")
    else:
        found = _batched_search(xp, boundaries, value, right)
    return xp.asarray(found).astype(np.int32 if out_int32 else _INT64)


def _search_meta(boundaries, value, out_int32=False, right=False, *rest):
    shape = tuple(value._data.shape) if isinstance(value, dispatch.Tensor) else ()
    return shape, dt.int32 if out_int32 else dt.int64


def _scalar_dtype(value):
    return scalar_type_of(value)


@register_op("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
             "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
             function=False, method=False, meta=_search_meta, differentiable=False)
def _searchsorted_tensor(xp, sorted_sequence, self, out_int32=False, right=False, side=None,
                         sorter=None):
    """searchsorted.Tensor(sorted_sequence, input, ...) -> Tensor: where each value of
    `input` would be inserted into the innermost dim of `sorted_sequence` to keep it sorted."""
    return _search(xp, sorted_sequence, self, out_int32, right, side, sorter,
                   dt.NP_TO_DTYPE[self.dtype])


@register_op("searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
             "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
             function=False, method=False, meta=_search_meta, differentiable=False)
def _searchsorted_scalar(xp, sorted_sequence, self, out_int32=False, right=False, side=None,
                         sorter=None):
    """searchsorted.Scalar(sorted_sequence, value, ...) -> Tensor: where the number `value`
    would be inserted into the innermost dim of `sorted_sequence` to keep it sorted."""
    return _search(xp, sorted_sequence, self, out_int32, right, side, sorter,
                   _scalar_dtype(self))


@register_frontend("searchsorted", method=False)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, out=None,
                 sorter=None):
    """searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    out=None, sorter=None) -> Tensor: where each value would be inserted into the innermost
    dim of `sorted_sequence` to keep it sorted."""
    if _state.entry and _wants(locals()):
        return _handle(searchsorted, locals())
    name = "searchsorted.Tensor" if isinstance(input, dispatch.Tensor) else "searchsorted.Scalar"
    args = (sorted_sequence, input, out_int32, right, side, sorter)
    if not (out_int32 is False or out_int32 is True) or not (right is False or right is True) \
            or not isinstance(sorted_sequence, dispatch.Tensor) or \
            side is not None and type(side) is not str:
        args = parser_error(OPS[name], args, "searchsorted", none_refused=True)
    if out is None:
        return dispatch.call(OPS[name], args)
    return dispatch.call_out(OPS[name], args, out)


def _bucketize(xp, value, boundaries, out_int32, right, value_dtype):
    _check(boundaries.ndim == 1, lambda: (
        f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})"))
    return _search(xp, boundaries, value, out_int32, right, None, None, value_dtype)


def _bucketize_meta(value, boundaries, out_int32=False, right=False):
    return _search_meta(boundaries, value, out_int32)


@register_op("bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, "
             "bool right=False) -> Tensor", function=False, method=False, meta=_bucketize_meta,
             differentiable=False)
def _bucketize_tensor(xp, self, boundaries, out_int32=False, right=False):
    """bucketize.Tensor(input, boundaries, *, out_int32=False, right=False) -> Tensor: the
    index of the bucket of the 1-d `boundaries` each value of `input` falls in."""
    return _bucketize(xp, self, boundaries, out_int32, right, dt.NP_TO_DTYPE[self.dtype])


@register_op("bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, "
             "bool right=False) -> Tensor", function=False, method=False, meta=_bucketize_meta,
             differentiable=False)
def _bucketize_scalar(xp, self, boundaries, out_int32=False, right=False):
    """bucketize.Scalar(value, boundaries, *, out_int32=False, right=False) -> Tensor: the
    index of the bucket of the 1-d `boundaries` the number `value` falls in."""
    return _bucketize(xp, self, boundaries, out_int32, right, _scalar_dtype(self))


@register_frontend("bucketize", method=False)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """bucketize(input, boundaries, *, out_int32=False, right=False, out=None) -> Tensor: the
    index of the bucket of the 1-d `boundaries` each element of `input` falls in."""
    if _state.entry and _wants(locals()):
        return _handle(bucketize, locals())
    name = "bucketize.Tensor" if isinstance(input, dispatch.Tensor) else "bucketize.Scalar"
    args = (input, boundaries, out_int32, right)
    args = parser_error(OPS[name], args, "bucketize", none_refused=True)  # (parser first)
    if out is None:
        return dispatch.call(OPS[name], args)
    return dispatch.call_out(OPS[name], args, out)
