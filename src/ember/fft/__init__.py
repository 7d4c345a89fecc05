"""ember.fft: discrete Fourier transforms, as torch.fft. The transforms are composites of the
registry ops `_fft_r2c`, `_fft_c2r`, `_fft_c2c` (`_ops/fft.py`); `_transforms.py` holds them,
`_helpers.py` the frequencies and shifts, `_args.py` what they share."""
from ember._tensor import Tensor
from ember.fft._helpers import fftfreq, fftshift, ifftshift, rfftfreq
from ember.fft._transforms import (  # noqa: F401  (hfft2 ... are public but not in __all__)
    fft,
    fft2,
    fftn,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

# PyTorch's list, in its order (it leaves out hfft2, hfftn, ihfft2, ihfftn).
__all__ = [  # noqa: RUF022
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "Tensor",
]
