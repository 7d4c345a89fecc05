"""`ember.cuda.sparse`: the legacy names of sparse CUDA tensors (`ember.cuda.sparse.FloatTensor`)."""
from __future__ import annotations

from ember.cuda._legacy import SPARSE_TENSOR_TYPES

globals().update(SPARSE_TENSOR_TYPES)
__all__ = sorted(SPARSE_TENSOR_TYPES)  # noqa: PLE0605 (a list)
