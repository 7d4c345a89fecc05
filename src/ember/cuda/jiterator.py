"""`ember.cuda.jiterator`: elementwise CUDA kernels compiled from C++ source at run time. Making
one is allowed anywhere (as in PyTorch); calling it needs a CUDA build with the jiterator, which
ember's CuPy back-end is not."""
from __future__ import annotations

from ember._backends.cuda import _require, not_supported

__all__: list = []


class _JittedFunction:
    def __init__(self, code_string: str, return_by_ref: bool, num_outputs: int, **kwargs):
        self.code_string = code_string
        self.return_by_ref = return_by_ref
        self.num_outputs = num_outputs
        self.kwargs_dict = kwargs

    def __call__(self, *tensors, **kwargs):
        _require()
        raise not_supported("torch.cuda.jiterator")


def _create_jit_fn(code_string: str, **kwargs) -> _JittedFunction:
    return _JittedFunction(code_string, return_by_ref=False, num_outputs=1, **kwargs)


def _create_multi_output_jit_fn(code_string: str, num_outputs: int, **kwargs):
    return _JittedFunction(code_string, return_by_ref=True, num_outputs=num_outputs, **kwargs)
