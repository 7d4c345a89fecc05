"""`ember.from_dlpack`: a tensor sharing memory with any DLPack producer (NumPy, CuPy, torch...).

CPU data goes through `numpy.from_dlpack`, CUDA data through `cupy.from_dlpack`; the result
views the producer's memory, no copy. NumPy's DLPack importer knows no bfloat16/float8, so such
producers raise (ember's own tensors of those dtypes are shared directly).
"""
from __future__ import annotations

import numpy as np

from ember._core import dispatch
from ember._core import dtype as dt
from ember._core.checks import _check
from ember._core.device import CPU, as_device

# DLPack device codes (DLDeviceType) ember can import from.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST = 1, 2, 3


def from_dlpack(ext_tensor):
    """A tensor viewing the memory of `ext_tensor` (an object with `__dlpack__`)."""
    if isinstance(ext_tensor, dispatch.Tensor):
        return ext_tensor.detach()
    _check(hasattr(ext_tensor, "__dlpack__") and hasattr(ext_tensor, "__dlpack_device__"), (
        "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
        "only once, so you might have already constructed a tensor from it once."))
    device_type, device_index = ext_tensor.__dlpack_device__()
    if int(device_type) in (_DL_CPU, _DL_CUDA_HOST):
        array = np.from_dlpack(ext_tensor)
        device = CPU
    else:
        _check(int(device_type) == _DL_CUDA, lambda: (
            f"from_dlpack: unsupported DLPack device type {int(device_type)}"))
        import cupy
        array = cupy.from_dlpack(ext_tensor)
        device = as_device(f"cuda:{int(device_index)}")
    dtype = dt.from_numpy_dtype(array.dtype)
    return dispatch.wrap(array, dtype, device)
