"""ember.backends: PyTorch's switches for the libraries it runs on (cudnn, cuda, mps, mkldnn, mkl,
openmp, opt_einsum, quantized ...). ember runs on NumPy and, for CUDA, on CuPy, so most of these
are flags with PyTorch's defaults that scripts set and read (`cudnn.benchmark = True`) and that
change nothing; `cuda.matmul.allow_tf32` is the float32 matmul precision switch, as in PyTorch.
Flag modules are module objects with properties (NOTE [back-end flags are module properties])."""
from __future__ import annotations

import contextlib

from ember.backends import (
    cpu,
    cuda,
    cudnn,
    cusparselt,
    kleidiai,
    mha,
    miopen,
    mkl,
    mkldnn,
    mps,
    nnpack,
    openmp,
    opt_einsum,
    python_native,
    quantized,
)
from ember.backends._props import (
    ContextProp,
    GenericModule,
    PropModule,
    disable_global_flags,
    flags_frozen,
    global_flag,
    wrap,
)

fp32_precision = "none"


def set_flags(_fp32_precision="none") -> tuple:
    """Set the default float32 precision of the back-ends; returns the previous value."""
    from ember.backends._precision import FP32Precision
    previous = (globals()["fp32_precision"],)
    if _fp32_precision is not None:
        FP32Precision("backends", "all", "none").fp32_precision = _fp32_precision  # (checks)
        globals()["fp32_precision"] = _fp32_precision
    return previous


@contextlib.contextmanager
def flags(fp32_precision="none"):
    previous = set_flags(fp32_precision)
    try:
        yield
    finally:
        set_flags(*previous)


class _BackendsModule(GenericModule):
    fp32_precision = global_flag(globals(), "fp32_precision")


__all__ = ["ContextProp", "GenericModule", "PropModule", "cpu", "cuda", "cudnn", "cusparselt",
           "disable_global_flags", "flags", "flags_frozen", "fp32_precision", "kleidiai", "mha",
           "miopen", "mkl", "mkldnn", "mps", "nnpack", "openmp", "opt_einsum", "python_native",
           "quantized", "set_flags"]

wrap(__name__, _BackendsModule)
