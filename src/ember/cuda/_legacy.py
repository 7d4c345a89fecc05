"""`ember.cuda.FloatTensor` & co and `ember.cuda.FloatStorage` & co: the legacy type names of CUDA
tensors and storages (isinstance checks work everywhere; constructing one needs CUDA, and
without it raises PyTorch's TypeError / AssertionError)."""
from __future__ import annotations

from ember import _legacy_types, _typed_storage
from ember._backends.cuda import _cupy, _require


class _CudaTensorType(_legacy_types.LegacyTensorType):
    def __call__(cls, *args, **kwargs):
        if _cupy() is None:
            raise TypeError(f"type torch.{cls.__module__.split('.', 1)[1]}.{cls.__name__} not "
                            "available. Torch not compiled with CUDA enabled.")
        return super().__call__(*args, **kwargs)


class _CudaSparseTensorType(_CudaTensorType):
    def __instancecheck__(cls, obj) -> bool:
        from ember._core.layout import sparse_coo
        return super().__instancecheck__(obj) and obj.layout is sparse_coo


def _tensor_types(meta, module: str, names) -> dict:
    made = {}
    for name, cls in _legacy_types.legacy_cuda_types().items():
        if names is None or name in names:
            made[name] = meta(name, (), {"dtype": cls.dtype, "_device": cls._device,
                                         "__module__": module, "__doc__": cls.__doc__})
    return made


# the CPU-build set PyTorch names: the 12 classic dtypes
CLASSIC = ("Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool",
           "ComplexFloat", "ComplexDouble")
TENSOR_TYPES = _tensor_types(_CudaTensorType, "ember.cuda",
                             {f"{n}Tensor" for n in CLASSIC[:10]})
SPARSE_TENSOR_TYPES = _tensor_types(_CudaSparseTensorType, "ember.cuda.sparse",
                                    {f"{n}Tensor" for n in CLASSIC[:9]})


class _CudaStorageMeta(_typed_storage._LegacyStorageMeta):
    def __instancecheck__(cls, instance) -> bool:
        return super().__instancecheck__(instance) and instance.device.type == "cuda"


class _CudaStorage(metaclass=_CudaStorageMeta):
    dtype = None

    def __new__(cls, *args, **kwargs):
        _require()
        return _typed_storage.TypedStorage(*args, dtype=cls.dtype, device="cuda", **kwargs)


STORAGE_TYPES = {
    name: _CudaStorageMeta(name, (_CudaStorage,), {
        "dtype": getattr(_typed_storage, name).dtype, "__module__": "ember.cuda",
        "__doc__": f"A CUDA {name[:-len('Storage')]} TypedStorage."})
    for name in _typed_storage.LEGACY_NAMES
}
