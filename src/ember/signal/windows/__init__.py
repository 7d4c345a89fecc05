"""ember.signal.windows, as torch.signal.windows: SciPy-style window functions (`sym=`
instead of `periodic=`), built from ember ops in `_windows.py`."""
from ember.signal.windows._windows import (
    bartlett,
    blackman,
    cosine,
    exponential,
    gaussian,
    general_cosine,
    general_hamming,
    hamming,
    hann,
    kaiser,
    nuttall,
)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
