"""Tensors as the contiguous arrays a CommBackend moves, and results written back in place.

NOTE [no copy for contiguous tensors]: a contiguous CPU tensor's own NumPy memory (a flat view
of `_data`) is handed to MPI, which reads and writes it directly; only a non-contiguous tensor,
or a reduction over a dtype MPI cannot reduce, goes through a contiguous staging array that is
copied back when the operation completes. Every tensor written is marked modified (its version
counter bumped), as an in-place op would.

NOTE [reducing the dtypes MPI lacks]: MPI reduces integers, bool, float32/64 and complex64/128.
float16, bfloat16 and the float8 types are reduced in float32 and complex32 in complex64, then
rounded back once: the result is the correctly rounded reduction, never a sum accumulated in
half precision.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ember._core import complex_half, dispatch
from ember._core.dispatch.wrapping import bump_version
from ember.distributed.reduce_op import ReduceOp

_WIDENED = {np.dtype(np.float16): np.dtype(np.float32),
            np.dtype(ml_dtypes.bfloat16): np.dtype(np.float32),
            np.dtype(ml_dtypes.float8_e4m3fn): np.dtype(np.float32),
            np.dtype(ml_dtypes.float8_e5m2): np.dtype(np.float32)}
_BITWISE = (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def check_tensor(tensor, name: str = "tensor") -> None:
    if not isinstance(tensor, dispatch.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"torch.Tensor\n             but got {type(tensor)} instead.")
    if tensor._device.type != "cpu":
        raise RuntimeError(f"No backend type associated with device type "
                           f"{tensor._device.type}: ember.distributed's MPI back-end serves CPU "
                           f"tensors (a NCCL back-end for CUDA tensors is not written yet)")


def check_tensor_list(tensors, name: str) -> None:
    if not isinstance(tensors, (list, tuple)) or not all(
            isinstance(t, dispatch.Tensor) for t in tensors):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[torch.Tensor]\n             but got {type(tensors)} instead.")
    for t in tensors:
        check_tensor(t, name)


def check_reduction(tensor, op, what: str) -> None:
    kind = tensor._data.dtype.kind
    is_complex = kind == "c" or complex_half.is_chalf(tensor._data.dtype)
    if is_complex and op not in (ReduceOp.SUM, ReduceOp.AVG):      # as supports_complex
        raise ValueError(f"{what} does not support {op} on complex tensors")
    if op in _BITWISE and kind not in "biu":
        raise RuntimeError(f"{what}: {op} needs an integer or bool tensor, got "
                           f"{tensor.dtype}")
    if op is ReduceOp.AVG and (kind in "biu"):
        raise RuntimeError(f"{what}: ReduceOp.AVG needs a floating point or complex tensor, "
                           f"got {tensor.dtype}")
    if op in (ReduceOp.PREMUL_SUM, ReduceOp.UNUSED):
        raise ValueError(f"{what}: {op} is not supported by ember's MPI back-end")


def reduced_dtype(np_dtype):
    """The dtype a reduction runs in (NOTE [reducing the dtypes MPI lacks])."""
    if complex_half.is_chalf(np_dtype):
        return np.dtype(np.complex64)
    return _WIDENED.get(np_dtype, np_dtype)


class Staged:
    """One tensor's memory as a flat contiguous array (`buf`), in `dtype` when given."""

    __slots__ = ("buf", "copied", "tensor")

    def __init__(self, tensor, dtype=None):
        array = tensor._data
        self.tensor = tensor
        if (dtype is None or dtype == array.dtype) and array.flags.c_contiguous:
            self.buf = array.reshape(-1)                  # NOTE [no copy for contiguous tensors]
            self.copied = False
        else:
            self.buf = _as_flat(array, dtype or array.dtype)
            self.copied = True

    def write_back(self, divisor=None) -> None:
        """Put `buf` (divided by `divisor` when given: ReduceOp.AVG) into the tensor (nothing
        to copy for an aliased buffer) and mark it modified."""
        buf = self.buf
        if divisor is not None:
            np.true_divide(buf, divisor, out=buf)
        if self.copied:
            write_into(self.tensor, buf)
        bump_version(self.tensor)


def _as_flat(array, dtype):
    if complex_half.is_chalf(array.dtype) and dtype != array.dtype:
        return np.ascontiguousarray(complex_half.widen(array)).reshape(-1)
    return np.ascontiguousarray(array, dtype=dtype).reshape(-1)


def write_into(tensor, flat) -> None:
    """Copy the flat array `flat` into `tensor`'s memory (casting to its dtype)."""
    array = tensor._data
    flat = flat.reshape(array.shape)
    if complex_half.is_chalf(array.dtype) and flat.dtype != array.dtype:
        flat = complex_half.narrow(flat)
    np.copyto(array, flat, casting="unsafe")


def flat_bytes(tensor):
    """A contiguous tensor's memory as a flat array (a view), or a contiguous copy."""
    array = tensor._data
    return array.reshape(-1) if array.flags.c_contiguous else np.ascontiguousarray(
        array).reshape(-1)
