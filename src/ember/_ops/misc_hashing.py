"""hash_tensor (an xor of the elements' 64-bit patterns), slice_inverse (the view that undoes
a slice), and the ops PyTorch runs only for other back-ends or nested tensors (native_norm,
to_padded_tensor), which raise PyTorch's NotImplementedError on the CPU."""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core.checked_entry import checked
from ember._core.checks import _check, _check_index, _check_not_implemented
from ember._core.dispatch.entry import handle as _handle
from ember._core.dispatch.entry import wants as _wants
from ember._core.dispatch.process_state import state as _state
from ember._core.registry import register_frontend, register_op
from ember._ops.reduction import is_all_dims, reduced_dims, reduction_meta

_UINT64 = np.dtype(np.uint64)


def _uint64_dtype(self_dtype, requested=None):
    from ember._core import dtype as dt
    return dt.uint64


def _hash_checks(self, dim, mode):
    _check(mode == 0, lambda: f"Unknown hash_tensor mode: {mode}")
    _check_not_implemented(self.dtype.kind != "c" and self.dtype != _UINT64, lambda: (
        f"\"xor_sum_cpu\" not implemented for '{_cpp_name(self.dtype)}'"))
    if 0 in self.shape:
        if is_all_dims(dim):
            raise RuntimeError(
                "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        for d in reduced_dims(dim, self.ndim):
            _check_index(self.shape[d] != 0, lambda d=d: (
                f"hash_tensor: Expected reduction dim {d} to have non-zero size."))


def _cpp_name(np_dtype) -> str:
    from ember._core import dtype as dt
    return dt.NP_TO_DTYPE[np_dtype]._cpp_name


def _bits(xp, self):
    """Each element as the 64 bits of its float64 or int64 (uint64 for unsigned and bool)
    value."""
    kind = self.dtype.kind
    if kind in "fV":                      # float16/32/64 and ml_dtypes' bfloat16
        return self.astype(np.float64).view(_UINT64)
    if kind in "ub":
        return self.astype(_UINT64)
    return self.astype(np.int64).view(_UINT64)


@register_op("hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) "
             "-> Tensor", kind="reduction", differentiable=False,
             meta=reduction_meta(_uint64_dtype, dtype_at=None),
             tags=("no_fp_errors", "out_dtype_exact"))
def hash_tensor(xp, self, dim=(), keepdim=False, mode=0):
    """hash_tensor(input, dim=(), *, keepdim=False, mode=0, out=None) -> Tensor: a uint64 hash
    of the elements (over `dim`, all by default): the xor of their bit patterns as float64 (or
    int64 for integers)."""
    _hash_checks(self, dim, mode)
    dims = reduced_dims(dim, self.ndim)
    bits = _bits(xp, self)
    if not dims:
        return bits.copy()
    return xp.bitwise_xor.reduce(bits, axis=dims, keepdims=keepdim)


@register_frontend("slice_inverse")
@checked("slice_inverse(Tensor self, Tensor src, int dim=0, SymInt? start=None, "
         "SymInt? end=None, SymInt step=1)")
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):
    """slice_inverse(input, src, dim=0, start=None, end=None, step=1) -> Tensor: the view of
    `input`'s storage with `src`'s sizes, strides and offset (the tensor that slicing
    `input` with these arguments came from, when `src` is that base)."""
    if _state.entry and _wants(locals()):
        return _handle(slice_inverse, locals())
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


def _unavailable(op_name, tensor):
    backend = "Meta" if tensor._device.type == "meta" else tensor._device.type.upper()
    raise NotImplementedError(
        f"Could not run 'aten::{op_name}' with arguments from the '{backend}' backend. This "
        "could be because the operator doesn't exist for this backend, or was omitted during "
        "the selective/custom build process (if using custom build).")


@register_frontend("native_norm", method=False)
@checked("native_norm(Tensor self, Scalar p=2)",
         "native_norm(Tensor self, Scalar? p, int[1] dim, bool keepdim, ScalarType? dtype)")
def native_norm(input, p=2, dim=None, keepdim=None, dtype=None, *, out=None):
    """native_norm(input, p=2) / native_norm(input, p, dim, keepdim, dtype): PyTorch's sparse
    norm kernel, which has no CPU kernel for dense tensors: PyTorch's NotImplementedError."""
    if _state.entry and _wants(locals()):
        return _handle(native_norm, locals())
    overload = "" if dim is None and keepdim is None and dtype is None else ".ScalarOpt_dim_dtype"
    _unavailable("native_norm" + overload, input)


@register_frontend("to_padded_tensor", function=False)
def to_padded_tensor(self, padding, output_size=None):
    """Tensor.to_padded_tensor(padding, output_size=None): a nested tensor padded into a
    regular one. ember has no nested tensors, and PyTorch refuses a strided tensor."""
    if _state.entry and _wants(locals()):
        return _handle(to_padded_tensor, locals())
    _check(isinstance(self, dispatch.Tensor), "to_padded_tensor: expected a Tensor")
    _unavailable("to_padded_tensor", self)
