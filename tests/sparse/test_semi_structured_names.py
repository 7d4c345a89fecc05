"""2:4 semi-structured sparsity without CUDA: PyTorch's CPU build refuses CPU tensors, and so
does ember (its CUDA back-end has no CUTLASS / cuSPARSELt kernels either)."""
from __future__ import annotations

import pytest
import torch

import ember


@pytest.mark.parametrize("convert", [
    lambda lib, w: lib.sparse.to_sparse_semi_structured(w),
    lambda lib, w: lib.sparse.SparseSemiStructuredTensorCUTLASS.from_dense(w),
    lambda lib, w: lib.sparse.SparseSemiStructuredTensorCUSPARSELT.from_dense(w),
])
def test_cpu_tensors_are_refused_alike(convert):
    rows = [[1.0, 0.0, 2.0, 0.0] * 4] * 32
    messages = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as caught:
            convert(lib, lib.tensor(rows))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert ember.sparse.SparseSemiStructuredTensor._FORCE_CUTLASS == \
        torch.sparse.SparseSemiStructuredTensor._FORCE_CUTLASS
    assert issubclass(ember.sparse.SparseSemiStructuredTensorCUTLASS, ember.Tensor)
