"""`MaskedTensor`: a tensor whose elements are either specified (mask True) or not (mask False),
as PyTorch's prototype `torch.masked.MaskedTensor`.

NOTE [masked tensor as a wrapper]: a MaskedTensor is a wrapper subclass
(`Tensor._make_wrapper_subclass`): it has the shape, dtype and device of its data but no array
of its own; it keeps a plain `_masked_data` and a bool `_masked_mask` of the same shape and
layout. Autograd records on the wrapper itself (it can be a leaf that requires grad); below
autograd its `__torch_dispatch__` (`_tensor_ops.py`) runs each op on the data and the mask and
wraps the pair again. Reductions, softmax and `where` are answered one level higher, in
`__torch_function__` (`_tensor_functions.py`), as composites whose gradients pass the mask
along, so the gradient of a MaskedTensor is a MaskedTensor with its mask.
"""
from __future__ import annotations

import warnings

from ember._C import DisableTorchFunctionSubclass
from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.registry import OPS
from ember._tensor import Tensor
from ember.autograd.function import Function

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]

_PROTOTYPE_WARNING = (
    "The PyTorch API of MaskedTensors is in prototype stage and will change in the near "
    "future. Please open a Github issue for features requests and see our documentation on the "
    "torch.masked module for further information about the project.")
_SUPPORTED_DTYPES = frozenset((dt.float16, dt.float32, dt.float64, dt.bool_, dt.int8, dt.int16,
                               dt.int32, dt.int64))


def is_masked_tensor(obj, /) -> bool:
    """Whether `obj` is a MaskedTensor."""
    return isinstance(obj, MaskedTensor)


def _layout_name(t) -> str:
    return getattr(t._data, "layout_name", "strided")


def _same_values(a, b) -> bool:
    return a.shape == b.shape and bool((a == b).all())


class MaskedTensor(Tensor):
    """MaskedTensor(data, mask, requires_grad=False): `data` where `mask` is True, unspecified
    elsewhere. Both are tensors of one shape and layout (strided, sparse COO or CSR)."""

    def __new__(cls, data, mask, requires_grad=False):
        if is_masked_tensor(data) or not isinstance(data, Tensor):
            raise TypeError("data must be a Tensor")
        if is_masked_tensor(mask) or not isinstance(mask, Tensor):
            raise TypeError("mask must be a Tensor")
        warnings.warn(_PROTOTYPE_WARNING, UserWarning, stacklevel=2)
        if data.requires_grad:
            warnings.warn("It is not recommended to create a MaskedTensor with a tensor that "
                          "requires_grad. To avoid this, you can use data.detach().clone()",
                          UserWarning, stacklevel=2)
        return Tensor._make_wrapper_subclass(cls, data.shape, dtype=data.dtype,
                                             device=data.device, requires_grad=requires_grad)

    def __init__(self, data, mask, requires_grad=False):
        layout = _layout_name(data)
        if layout != _layout_name(mask):
            raise TypeError("data and mask must have the same layout.")
        if layout == "sparse_coo":
            data, mask = data.coalesce(), mask.coalesce()
            if data._nnz() != mask._nnz():
                data = _sparse_where(mask, data)
        elif layout == "sparse_csr" and data._nnz() != mask._nnz():
            data = _sparse_where(mask, data)
        self._masked_data = data.detach().clone()
        self._masked_mask = mask.detach().clone()
        self._validate_members()

    def _validate_members(self) -> None:
        data, mask = self._masked_data, self._masked_mask
        layout = _layout_name(data)
        if layout == "sparse_coo":
            if not _same_values(data.indices(), mask.indices()):
                raise ValueError("data and mask are both sparse COO tensors but do not have "
                                 "the same indices.")
        elif layout == "sparse_csr" and not (
                _same_values(data.crow_indices(), mask.crow_indices())
                and _same_values(data.col_indices(), mask.col_indices())):
            raise ValueError("data and mask are both sparse CSR tensors but do not share "
                                 "either crow or col indices.")
        if mask.dtype is not dt.bool_:
            raise TypeError("mask must have dtype bool.")
        if data.dtype not in _SUPPORTED_DTYPES:
            raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if data.shape != mask.shape:
            raise ValueError("data.size() must equal mask.size()")

    def _set_data_mask(self, data, mask) -> None:
        self._masked_data = data
        self._masked_mask = mask
        self._validate_members()

    # ------------------------------------------------------------------ contents
    def get_data(self):
        """The data as a plain tensor (masked-out elements hold whatever they held);
        differentiable: its gradient comes back to this MaskedTensor with this mask."""
        return GetData.apply(self)

    def get_mask(self):
        """The bool mask: True where an element is specified."""
        return self._masked_mask

    def to_tensor(self, value):
        """A plain tensor: the data, with `value` where the mask is False."""
        return self.get_data().masked_fill(~self.get_mask(), value)

    def is_sparse_coo(self) -> bool:
        return _layout_name(self._masked_data) == "sparse_coo"

    def is_sparse_csr(self) -> bool:
        return _layout_name(self._masked_data) == "sparse_csr"

    @property
    def is_sparse(self) -> bool:
        return self.is_sparse_coo() or self.is_sparse_csr()

    @property
    def layout(self):
        return self._masked_data.layout

    def stride(self, dim=None):
        return self._masked_data.stride(dim)

    def is_contiguous(self, memory_format=None) -> bool:
        if self.is_sparse:
            raise ValueError("MaskedTensors with sparse data do not have is_contiguous")
        return self._masked_data.is_contiguous()

    def item(self):
        if not self._masked_mask.all().item():
            raise ValueError("__torch_dispatch__, aten._local_scalar_dense.default: expected a "
                             "mask tensor")
        return self._masked_data.item()

    def to_dense(self):
        from ember.masked._tensor_functions import to_dense
        return to_dense(self)

    def to_sparse(self):
        from ember.masked._tensor_functions import to_sparse
        return to_sparse(self)

    def to_sparse_csr(self):
        from ember.masked._tensor_functions import to_sparse_csr
        return to_sparse_csr(self)

    def detach(self):
        # Tensor.detach skips the dispatcher when no mode is open; a wrapper must see it.
        return dispatch.call(OPS["detach"], (self,))

    def __setitem__(self, index, value):
        raise TypeError("no implementation found for 'aten.index_put_' on types that implement "
                        "__torch_dispatch__: [<class 'ember.masked.MaskedTensor'>]")

    def tolist(self):
        raise RuntimeError(".tolist() is not supported for tensor subclasses, got MaskedTensor")

    def __lt__(self, other):
        other = other._masked_data if is_masked_tensor(other) else other
        return MaskedTensor(self._masked_data < other, self._masked_mask)

    def __repr__(self, *, tensor_contents=None) -> str:
        from ember.masked._tensor_repr import masked_tensor_repr
        return masked_tensor_repr(self)

    __str__ = __repr__

    # ------------------------------------------------------------------ the two levels
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        from ember.masked._tensor_functions import function_handler
        kwargs = kwargs or {}
        handler = function_handler(func)
        if handler is not None:
            return handler(*args, **kwargs)
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        # The ops below answer in __torch_dispatch__ with MaskedTensors already; plain results
        # (sizes, flags) stay as they are.
        with DisableTorchFunctionSubclass():
            return func(*args, **kwargs)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        from ember.masked._tensor_ops import dispatch_handler
        handler = dispatch_handler(func)
        if handler is not None:
            return handler(func, *args, **(kwargs or {}))
        warnings.warn(
            f"{func.overloadpacket.__name__} is not implemented in __torch_dispatch__ for "
            "MaskedTensor.\nIf you would like this operator to be supported, please file an "
            "issue for a feature request at https://github.com/pytorch/maskedtensor/issues with "
            "a minimal reproducible code snippet.\nIn the case that the semantics for the "
            "operator are not trivial, it would be appreciated to also include a proposal for "
            "the semantics.", stacklevel=2)
        return NotImplemented



def _sparse_where(mask, data):
    """`data` at `mask`'s entries (the entries `mask` stores, zero where data has none)."""
    return data.to_dense().sparse_mask(mask) if mask.is_sparse else \
        data.to_dense().sparse_mask(mask.to_sparse()).to_sparse_csr()


class GetData(Function):
    @staticmethod
    def forward(ctx, mt):
        ctx.mask = mt._masked_mask
        return mt._masked_data.detach()

    @staticmethod
    def backward(ctx, grad_output):
        if is_masked_tensor(grad_output):
            return grad_output
        return MaskedTensor(grad_output, ctx.mask)


class Constructor(Function):
    """as_masked_tensor: differentiable; the gradient of `data` is the MaskedTensor gradient."""

    @staticmethod
    def forward(ctx, data, mask):
        return MaskedTensor(data, mask)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


def masked_tensor(data, mask, requires_grad=False) -> MaskedTensor:
    """A MaskedTensor leaf holding copies of `data` and `mask` (as `torch.tensor` copies)."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask) -> MaskedTensor:
    """A MaskedTensor that keeps `data`'s autograd history (as `torch.as_tensor`)."""
    return Constructor.apply(data, mask)
