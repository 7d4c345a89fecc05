"""`ember.utils.dlpack`: tensors to and from DLPack capsules, PyTorch's legacy exchange
(`to_dlpack(t)` gives a capsule; `from_dlpack` takes a capsule or any object with
`__dlpack__`, sharing its memory)."""
from __future__ import annotations

import ctypes

from ember._dlpack import from_dlpack as _from_producer
from ember._tensor import Tensor

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType:
    """DLPack's device codes (DLDeviceType)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A DLPack capsule ('dltensor') viewing `tensor`'s memory; consumed once by a reader."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return tensor.__dlpack__()


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype = ctypes.c_int
_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _Capsule:
    """An unconsumed 'dltensor' capsule as a DLPack producer (what NumPy and CuPy read)."""

    def __init__(self, capsule) -> None:
        self.capsule = capsule
        # A DLManagedTensor starts with its DLTensor: the data pointer, then the device.
        address = _get_pointer(capsule, b"dltensor")
        self.device = _DLDevice.from_address(address + ctypes.sizeof(ctypes.c_void_p))

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self.capsule

    def __dlpack_device__(self):
        return self.device.device_type, self.device.device_id


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of `ext_tensor`: an object with `__dlpack__` (NumPy, CuPy,
    PyTorch tensors) or a 'dltensor' capsule not consumed yet."""
    if type(ext_tensor).__name__ == "PyCapsule":
        if not _is_valid(ext_tensor, b"dltensor"):
            raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor "
                               "capsules can be consumed only once, so you might have already "
                               "constructed a tensor from it once.")
        ext_tensor = _Capsule(ext_tensor)
        if ext_tensor.device.device_type in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
            import numpy as np

            from ember._core import dtype as dt
            from ember._core import dispatch
            from ember._core.device import CPU
            # NumPy reads a capsule of DLPack before 1.0 (which has no read-only flag) as
            # read-only memory; the producer's memory is writable, as PyTorch shares it.
            array = np.asarray(_Writable(np.from_dlpack(ext_tensor)))
            return dispatch.wrap(array, dt.from_numpy_dtype(array.dtype), CPU)
    return _from_producer(ext_tensor)


class _Writable:
    """The memory of a read-only array, offered writable (it keeps the array alive)."""

    def __init__(self, array) -> None:
        self.array = array
        self.__array_interface__ = {
            "data": (array.__array_interface__["data"][0], False), "shape": array.shape,
            "typestr": array.dtype.str, "descr": array.dtype.descr, "strides": array.strides,
            "version": 3}
