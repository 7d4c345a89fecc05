"""Quantized tensors in the dispatcher: what one holds, and how calls on one find their kernels.

NOTE [quantized tensors]: a quantized tensor (`torch.quint8`, `qint8`, `qint32`) is an ordinary
`Tensor` whose `_dtype` is the quantized dtype, whose `_data` is a `QuantizedData` (the integer
array PyTorch calls `int_repr()` and the quantizer: per-tensor scale and zero point, or
per-channel scales, zero points and axis), and whose `_device` is `QUANTIZED_CPU`, a `device`
that prints, hashes and compares as `device('cpu')` but is not the interned `CPU`. So, as for
sparse tensors (NOTE [sparse layout]), every fast path leaves it to the layered path with no new
check on the dense hot path, and the back-end step finds the op's kernel-table entry for the key
("quantized", "cpu") (`QuantizedCPU` to torch.library) or raises PyTorch's "Could not run
'aten::op' with arguments from the 'QuantizedCPU' backend". The quantized dtypes keep no NumPy
dtype (NOTE [dtypes without tensors]): code that would compute on the integers as numbers
stops at `dtype._np`. The quantization arithmetic itself is `_ops/quantize.py`.
"""
from __future__ import annotations

import numpy as np

from ember._core.dispatch import sparse
from ember._core.dispatch.sparse import _SparseHost
from ember._core.kernel_table import register_layout

# The host as quantized tensors name it (the class prints as `device`; NOTE [sparse layout]).
QUANTIZED_CPU = object.__new__(_SparseHost)
QUANTIZED_CPU.type = "cpu"
QUANTIZED_CPU.index = None
QUANTIZED_CPU._hash = sparse.CPU._hash
QUANTIZED_CPU._prev_default = []

PER_TENSOR = ("per_tensor_affine", "per_tensor_symmetric")


class QuantizedData:
    """The `_data` of a quantized tensor: `array`, the stored integers (uint8 for quint8, int8
    for qint8, int32 for qint32), and the quantizer: `qscheme` (a name), `scale` (a float) and
    `zero_point` (an int) per tensor, or `scale` (float64) and `zero_point` (int64) arrays
    along `axis` per channel."""

    __slots__ = ("array", "axis", "qscheme", "scale", "zero_point")
    key_layout = "quantized"
    backend_name = "QuantizedCPU"

    def __init__(self, array, qscheme: str, scale, zero_point, axis=None):
        self.array = array
        self.qscheme = qscheme
        self.scale = scale
        self.zero_point = zero_point
        self.axis = axis

    @property
    def per_tensor(self) -> bool:
        return self.qscheme in PER_TENSOR

    @property
    def shape(self) -> tuple:
        return self.array.shape

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def size(self) -> int:
        return self.array.size

    @property
    def strides(self) -> tuple:
        return self.array.strides

    @property
    def dtype(self):
        return self.array.dtype

    @property
    def __array_interface__(self):      # (data_ptr reads the integers' address)
        return self.array.__array_interface__

    def with_array(self, array) -> QuantizedData:
        """The same quantizer over other integers (a reshaped or selected copy)."""
        return QuantizedData(array, self.qscheme, self.scale, self.zero_point, self.axis)

    def tolist(self):
        raise RuntimeError("tolist() is not supported for quantized tensors")


# The layout's key names and the `_data` class by which the dispatcher tells its tensors
# (NOTE [the kernel table]).
register_layout(QuantizedData.key_layout, {"cpu": QuantizedData.backend_name},
                data_type=QuantizedData)


def install() -> None:
    """Route calls with a quantized operand to the kernel table's quantized entries."""
    sparse.install()


def make_quantized(data: QuantizedData, dtype, requires_grad: bool = False):
    """A quantized tensor of `dtype` holding `data` (NOTE [quantized tensors])."""
    install()
    return sparse.keyed_tensor(data, dtype, QUANTIZED_CPU, requires_grad)


def write_quantized_inplace(self, result) -> None:
    """An in-place op on a quantized tensor (`relu_`): the result's integers written into
    its own (views of it see them); dtype, shape and quantizer must stay."""
    from ember._core.dispatch.wrapping import bump_version
    ours, theirs = self._data, result._data
    same = type(theirs) is QuantizedData and result._dtype is self._dtype and \
        theirs.shape == ours.shape and theirs.qscheme == ours.qscheme
    if not same:
        raise RuntimeError("in-place op on a quantized tensor gave a result of another dtype, "
                           "shape or quantization scheme")
    np.copyto(ours.array, theirs.array)
    bump_version(self)


def is_quantized(t) -> bool:
    return type(getattr(t, "_data", None)) is QuantizedData


STORED = {"quint8": np.uint8, "qint8": np.int8, "qint32": np.int32}
