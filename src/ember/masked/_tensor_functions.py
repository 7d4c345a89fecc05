"""What a MaskedTensor answers at the `__torch_function__` level (NOTE [masked tensor as a
wrapper], `_tensor.py`): the reductions, softmax and `where`; and the layout conversions
MaskedTensor's methods call.

A reduction runs `ember.masked.<name>` on the plain data with the mask (NOTE [masked identity])
and wraps the result with the mask reduced by `any` over the same dims: an output element is
specified when any element it reduces is. The data leaves the wrapper through `get_data`,
whose gradient comes back as a MaskedTensor with the input's mask, and the result is wrapped by
`Constructor` (PyTorch's node name), whose gradient hands the plain data back, so the formulas
in between see plain tensors.
"""
from __future__ import annotations

import warnings

import ember
from ember._core.checks import _check_value
from ember.autograd.function import Function
from ember.masked._tensor import MaskedTensor, is_masked_tensor

REDUCTIONS = ("sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "all", "var", "std")


class Constructor(Function):
    """A plain result and its mask as a MaskedTensor; the gradient goes back as plain data."""

    @staticmethod
    def forward(ctx, data, mask):
        return MaskedTensor(data, mask)

    @staticmethod
    def backward(ctx, grad_output):
        if is_masked_tensor(grad_output):
            grad_output = grad_output._masked_data
        return grad_output, None


def _wrap(data, mask):
    return Constructor.apply(data, mask)


def _any_over(mask, dim, keepdim):
    dims = [dim] if isinstance(dim, int) else list(dim)
    for d in sorted((d % max(mask.dim(), 1) for d in dims), reverse=True):
        mask = ember.any(mask, dim=d, keepdim=keepdim)
    return mask


def _masked_all(data, mask, dim=None, keepdim=False):
    filled = data.masked_fill(~mask, True)
    return filled.all() if dim is None else ember.all(filled, dim=dim, keepdim=keepdim)


def _reduce_all(name, self):
    mask = self._masked_mask
    if self.is_sparse:
        data = self._masked_data
        values, value_mask = data.values(), mask.values()
        if name == "all":
            result = _masked_all(values, value_mask)
        else:
            result = getattr(ember.masked, name)(values, mask=value_mask)
        return _wrap(result, ember.any(value_mask))
    if name == "all":
        result = _masked_all(self._masked_data, mask)
    else:
        result = getattr(ember.masked, name)(self.get_data(), mask=mask)
    return _wrap(result, ember.any(mask))


def _reduce_dim(name, self, dim, keepdim=False, dtype=None):
    if self.is_sparse:
        warnings.warn(f"The sparse version of {name} is not implemented in reductions.\nIf you "
                      "would like this operator to be supported, please file an issue for a "
                      "feature request at https://github.com/pytorch/maskedtensor/issues with a "
                      "minimal reproducible code snippet.", stacklevel=3)
        return NotImplemented       # refused: TypeError, as in PyTorch
    mask = self._masked_mask
    if name == "all":
        result = _masked_all(self._masked_data, mask, dim, keepdim)
    else:
        result = getattr(ember.masked, name)(self.get_data(), dim=dim, keepdim=keepdim,
                                             dtype=dtype, mask=mask)
    return _wrap(result, _any_over(mask, dim, keepdim))


def _reduction(name):
    def reduce(*args, **kwargs):
        if len(args) == 1 and not kwargs:
            return _reduce_all(name, args[0])
        return _reduce_dim(name, *args, **kwargs)
    reduce.__name__ = name
    return reduce


def _softmax(input, dim, dtype=None):
    """Softmax over the specified elements; masked-out ones get 0 and keep their mask."""
    mask = input._masked_mask
    result = ember.masked.softmax(input.get_data(), dim, dtype=dtype, mask=mask)
    return _wrap(result, mask)


class _MaskedWhere(Function):
    @staticmethod
    def forward(ctx, condition, input, other):
        ctx.mark_non_differentiable(condition)
        ctx.condition = condition
        return ember.ops.aten.where.self(condition, input, other)

    @staticmethod
    def backward(ctx, grad_output):
        condition = ctx.condition
        unspecified = MaskedTensor(grad_output._masked_data,
                                   ember.zeros_like(grad_output._masked_mask))
        return (None, ember.ops.aten.where.self(condition, grad_output, unspecified),
                ember.ops.aten.where.self(condition, unspecified, grad_output))


def _where(*args, **kwargs):
    _check_value(len(args) == 3 and not kwargs, lambda: (
        f"__torch_function__, torch.where: len(args) must be 3 but got {len(args)}"))
    return _MaskedWhere.apply(*args)


def to_dense(self):
    if not self.is_sparse:
        return self
    return MaskedTensor(self._masked_data.to_dense(), self._masked_mask.to_dense())


def to_sparse(self):
    if self.is_sparse_coo():
        return self
    mask = self._masked_mask.to_dense().to_sparse().coalesce()
    return MaskedTensor(self._masked_data.to_dense().sparse_mask(mask), mask)


def to_sparse_csr(self):
    _check_value(self._masked_data.dim() == 2, lambda: (
        "Only 2D tensors can be converted to the SparseCsr layout but got shape: "
        f"{self._masked_data.size()}"))
    if self.is_sparse_csr():
        return self
    coo = to_sparse(self)
    return MaskedTensor(coo._masked_data.to_sparse_csr(), coo._masked_mask.to_sparse_csr())


_HANDLERS: dict = {}


def _build_handlers() -> dict:
    Tensor = ember.Tensor
    handlers = {}
    for name in REDUCTIONS:
        reduce = _reduction(name)
        handlers[getattr(ember, name)] = reduce
        handlers[getattr(Tensor, name)] = reduce
    handlers[ember.softmax] = handlers[Tensor.softmax] = _softmax
    handlers[ember.where] = handlers[Tensor.where] = _where
    return handlers


def function_handler(func):
    """The handler of a public function for MaskedTensor arguments, or None."""
    if not _HANDLERS:
        _HANDLERS.update(_build_handlers())
    return _HANDLERS.get(func)
