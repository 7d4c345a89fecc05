"""`ember.version`: ember's version and the versions of what it runs on."""
from __future__ import annotations

# ember's own version; `__version__` (here and `ember.__version__`) is it, except under the alias
# (`python -m ember.run`, `alias_torch()`), where both say the PyTorch API level ember implements:
# programs gate on `torch.__version__` (NOTE [the alias answers as PyTorch]).
ember_version = "0.1.0"
__version__ = ember_version
# The PyTorch release whose API ember implements (its tests use that release as the oracle).
api_version = "2.13.0"
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
