"""The fake cupyx.scipy.special: SciPy's functions of the names CuPy 14.2 has, under the fake
CuPy's rules (device arrays only). It cannot reproduce cupyx's own numerical differences."""
import scipy.special as _special
from cupy import _Submodule
from cupy._names import SPECIAL as _SPECIAL_NAMES

_module = _Submodule(_special, _SPECIAL_NAMES, "cupyx.scipy.special")


def __getattr__(name):
    return getattr(_module, name)
