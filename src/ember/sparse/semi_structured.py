"""2:4 semi-structured sparsity (`to_sparse_semi_structured`): two of every four values kept,
packed for NVIDIA's sparse tensor cores (CUTLASS or cuSPARSELt kernels). Only CUDA tensors
qualify, as in PyTorch; ember's CUDA back-end (CuPy) has neither kernel library, so converting a
CUDA tensor raises `not_supported` and a CPU one PyTorch's RuntimeError."""
from __future__ import annotations

from ember._tensor import Tensor

__all__ = ["SparseSemiStructuredTensor", "SparseSemiStructuredTensorCUSPARSELT",
           "SparseSemiStructuredTensorCUTLASS", "to_sparse_semi_structured"]


class SparseSemiStructuredTensor(Tensor):
    """A 2:4 sparse matrix in its packed form (values `packed`, positions `meta`)."""

    _DEFAULT_ALG_ID: int = 0
    _FORCE_CUTLASS: bool = False
    _FUSE_TRANSPOSE: bool = False
    _PROTOTYPE_WARNING_SHOWN: bool = False
    _BACKEND = "semi-structured"

    @classmethod
    def _validate_device_dim_dtype_shape(cls, original_tensor) -> None:
        if original_tensor.device.type != "cuda":
            raise RuntimeError(f"Error original_tensor.device= {original_tensor.device} is not "
                               "supported! Only CUDA tensors are currently supported.")
        if original_tensor.dim() != 2:
            raise RuntimeError(f"Error original_tensor.dim = {original_tensor.dim()} is not "
                               "supported! Only 2d tensors are currently supported.")
        from ember._backends.cuda import not_supported
        raise not_supported(f"{cls.__name__} ({cls._BACKEND} kernels)")

    @classmethod
    def from_dense(cls, original_tensor):
        cls._validate_device_dim_dtype_shape(original_tensor)


class SparseSemiStructuredTensorCUTLASS(SparseSemiStructuredTensor):
    _BACKEND = "CUTLASS"


class SparseSemiStructuredTensorCUSPARSELT(SparseSemiStructuredTensor):
    _BACKEND = "cuSPARSELt"


def to_sparse_semi_structured(original_tensor, transposed: bool = False):
    """The 2:4 packed form of a dense CUDA matrix (CUTLASS's unless `_FORCE_CUTLASS` is off and
    cuSPARSELt is there)."""
    cls = SparseSemiStructuredTensorCUTLASS if SparseSemiStructuredTensor._FORCE_CUTLASS \
        else SparseSemiStructuredTensorCUSPARSELT
    return cls.from_dense(original_tensor)
