"""What a MaskedTensor answers at the `__torch_dispatch__` level (NOTE [masked tensor as a
wrapper], `_tensor.py`), keyed by the op's aten name:

- element-wise unary ops run on the data and keep the mask;
- element-wise binary ops need the MaskedTensor operands' masks to be equal (PyTorch's
  ValueError otherwise) and keep that mask, broadcast to the result;
- shape and indexing ops ("passthrough") run on the data and on the mask alike;
- a few ops with their own rule (copies, `where`, `ones_like`, reductions the autograd
  formulas call on MaskedTensor gradients);
- the in-place forms of the element-wise ops (`add_` ...) replace the data and the mask.
Any other op warns and is refused (TypeError), as PyTorch's prototype does.
"""
from __future__ import annotations

import ember
from ember._core.checks import _check_type, _check_value
from ember.masked._tensor import MaskedTensor, is_masked_tensor


def _words(text: str) -> frozenset:
    return frozenset(text.split())


UNARY = _words(
    "abs absolute acos arccos acosh arccosh angle asin arcsin asinh arcsinh atan arctan atanh "
    "arctanh bitwise_not ceil clamp clip conj_physical cos cosh deg2rad digamma erf erfc erfinv "
    "exp exp2 expm1 fix floor frac lgamma log log10 log1p log2 logit i0 isnan nan_to_num neg "
    "negative positive pow rad2deg reciprocal round rsqrt sigmoid sign sgn signbit sin sinc sinh "
    "sqrt square tan tanh trunc")
BINARY = _words(
    "add atan2 arctan2 bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift "
    "div divide floor_divide fmod logaddexp logaddexp2 mul multiply nextafter remainder sub "
    "subtract true_divide eq ne le ge greater greater_equal gt less_equal lt less maximum minimum "
    "fmax fmin not_equal rsub")
PASSTHROUGH = _words(
    "select transpose split t slice index expand view _unsafe_view reshape flatten cat unsqueeze "
    "unfold stack new_zeros select_scatter slice_scatter select_backward slice_backward")
_DIM_REDUCTIONS = _words("sum mean amin amax argmin argmax prod all var std")


def _map(values, pick):
    """`values` (args, possibly nested in lists and tuples) with each MaskedTensor as pick(mt)."""
    out = []
    for v in values:
        if is_masked_tensor(v):
            out.append(pick(v))
        elif type(v) is list or type(v) is tuple:
            out.append(type(v)(_map(v, pick)))
        else:
            out.append(v)
    return out


def _data(mt):
    return mt._masked_data


def _mask(mt):
    return mt._masked_mask


def _wrap_pairs(data, mask):
    if type(data) is list or type(data) is tuple:
        return type(data)(_wrap_pairs(d, m) for d, m in zip(data, mask))
    return MaskedTensor(data, mask)


def _on_values(fn, data, args):
    """fn on the stored values of a sparse `data`, rebuilt with its indices."""
    if data.is_sparse:
        data = data.coalesce()
        return ember.sparse_coo_tensor(data.indices(), fn(data.values(), *args), data.shape)
    return ember.sparse_csr_tensor(data.crow_indices(), data.col_indices(),
                                   fn(data.values(), *args), data.shape)


def _unary(func, *args, **kwargs):
    _check_value(not kwargs, "MaskedTensor unary ops require that len(kwargs) == 0. If you need "
                 "support for this, please open an issue on Github.")
    for a in args[1:]:
        _check_type(not isinstance(a, ember.Tensor),
                    "MaskedTensor unary ops do not support additional Tensor arguments")
    self = args[0]
    data = self._masked_data
    if data.is_sparse or data.is_sparse_csr:
        result = _on_values(func, data, args[1:])
    else:
        result = func(data, *args[1:])
    return MaskedTensor(result, self._masked_mask)


def _same(a, b) -> bool:
    _check_value(a.layout == b.layout, lambda: (
        f"`a` and `b` must have the same layout. Got {a.layout} and {b.layout}"))
    if a.is_sparse:
        return _same(a.values(), b.values()) and _same(a.indices(), b.indices())
    if a.is_sparse_csr:
        return (_same(a.crow_indices(), b.crow_indices())
                and _same(a.col_indices(), b.col_indices()) and _same(a.values(), b.values()))
    return a.dim() == b.dim() and bool(ember.eq(a, b.to(a.dtype)).all())


def _masks_match(a, b) -> bool:
    if is_masked_tensor(a) and is_masked_tensor(b):
        return _same(a._masked_mask, b._masked_mask)
    return True


def _binary(func, *args, **kwargs):
    _check_value(not kwargs, "len(kwargs) must equal 0")
    for a in args[2:]:
        _check_type(not isinstance(a, ember.Tensor), "MaskedTensor binary ops do not support "
                    "Tensor arguments aside from the lhs and rhs")
    _check_value(_masks_match(*args[:2]), "Input masks must match. If you need support for "
                 "this, please open an issue on Github.")
    data_args = _map(args, _data)
    first = data_args[0]
    if isinstance(first, ember.Tensor) and (first.is_sparse or first.is_sparse_csr):
        other = data_args[1]
        if isinstance(other, ember.Tensor) and other.layout == first.layout:
            _check_value(_same_indices(first, other), lambda: (
                f"{'sparse_coo' if first.is_sparse else 'sparse_csr'} indices must match. If "
                "you need support for this, please open an issue on Github."))
            other = other.coalesce().values() if other.is_sparse else other.values()
        result = _on_values(lambda values, *rest: func(values, other, *rest), first,
                            data_args[2:])
    else:
        result = func(*data_args)
    mask = args[0]._masked_mask if is_masked_tensor(args[0]) else args[1]._masked_mask
    if not (result.is_sparse or result.is_sparse_csr):
        mask = mask.expand_as(result)     # a plain operand may broadcast the data
    return MaskedTensor(result, mask)


def _same_indices(a, b) -> bool:
    if a.is_sparse:
        return _same(a.coalesce().indices(), b.coalesce().indices())
    return _same(a.crow_indices(), b.crow_indices()) and _same(a.col_indices(), b.col_indices())


def _passthrough(func, *args, **kwargs):
    data = func(*_map(args, _data), **kwargs)
    mask = func(*_map(args, _mask), **kwargs)
    return _wrap_pairs(data, mask)


def _on_data(func, self, *args, **kwargs):
    return MaskedTensor(func(self._masked_data, *args, **kwargs), self._masked_mask)


def _to_copy(func, self, *args, **kwargs):
    data = func(self._masked_data, *args, **kwargs)
    mask = func(self._masked_mask, *args, **dict(kwargs, dtype=ember.bool))
    return MaskedTensor(data, mask)


def _where(func, condition, input, other):
    _check_value(isinstance(condition, ember.Tensor), lambda: (
        f"__torch_dispatch__, {func}: expected args[0] to be a tensor"))
    if not is_masked_tensor(input):
        input = MaskedTensor(input, ember.ones_like(input, dtype=ember.bool))
    if not is_masked_tensor(other):
        other = MaskedTensor(other, ember.ones_like(other, dtype=ember.bool))
    return MaskedTensor(func(condition, input._masked_data, other._masked_data),
                        func(condition, input._masked_mask, other._masked_mask))


def _reduction(func, self, *args, **kwargs):
    """A reduction an autograd formula applies to a MaskedTensor gradient (the sum that undoes
    a broadcast): masked as at the function level, below autograd."""
    name = func.__name__.split(".")[0]
    data, mask = self._masked_data, self._masked_mask
    dim = args[0] if args else kwargs.pop("dim", None)
    keepdim = bool(args[1]) if len(args) > 1 else kwargs.pop("keepdim", False)
    if name == "all":
        filled = data.masked_fill(~mask, True)
        result = filled.all() if dim is None else ember.all(filled, dim=dim, keepdim=keepdim)
    else:
        result = getattr(ember.masked, name)(data, dim, keepdim=keepdim, mask=mask, **kwargs)
    if dim is None or dim == []:
        return MaskedTensor(result, mask.any())
    from ember.masked._tensor_functions import _any_over
    return MaskedTensor(result, _any_over(mask, dim, keepdim))


_SPECIAL = {
    "detach": _on_data,
    "clone": _on_data,
    "ones_like": _on_data,
    "_to_copy": _to_copy,
    "where": _where,
}


def _inplace(func, self, *args, **kwargs):
    """`mt.exp_()`, `mt.add_(other)` (and autograd accumulating a MaskedTensor gradient): the
    op on the data, then this MaskedTensor holds the result's data and mask."""
    result = dispatch_handler(func.op)(func.op, self, *args, **kwargs)
    self._set_data_mask(result._masked_data, result._masked_mask)
    return self


def dispatch_handler(func):
    """The handler of an op entry for MaskedTensor arguments, or None."""
    name = func.__name__.split(".")[0]
    if name.endswith("_") and (name[:-1] in UNARY or name[:-1] in BINARY):
        return _inplace
    if name in UNARY:
        return _unary
    if name in BINARY:
        return _binary
    if name in PASSTHROUGH:
        return _passthrough
    if name in _DIM_REDUCTIONS:
        return _reduction
    return _SPECIAL.get(name)
