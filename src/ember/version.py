"""`ember.version`: ember's version and the versions of what it runs on."""
from __future__ import annotations

__version__ = "0.1.0"
debug = False
cuda = None      # set when a CUDA back-end (CuPy) is in use: ember.version.cuda is its version
git_version = "unknown"
hip = None       # the attributes PyTorch's torch.version has; ember builds for neither
rocm = None
xpu = None


def _cuda_version():
    try:
        import cupy
    except ImportError:
        return None
    return cupy.cuda.runtime.runtimeGetVersion()
