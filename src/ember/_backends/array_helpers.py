"""What a kernel written over `xp` asks of the array module it runs on: NOTE [back-end helpers].

NOTE [back-end helpers]: a kernel is one body for every back-end (NOTE [the kernel table]), but
a few steps differ by where the arrays live: the CPU takes large buffers from its caching
allocator (NOTE [CPU caching allocator]), has SciPy's fft and special functions, LAPACK's
partial results for a failed factorization, NumPy's `ufunc.reduceat`/`ufunc.at` in every
dtype, read-only overlapping windows and einsum's "..."; values computed on the host must be
moved to a device. A kernel asks `backend_helpers(xp)`, the helpers of the back-end whose
array module `xp` is, rather than comparing `xp` with NumPy: capabilities are flags (`host`, `reduceat`,
`einsum_ellipsis`), the rest methods. `HostArrays` serves NumPy, `DeviceArrays` any other
module (CuPy, a plug-in's), made on first use; a back-end with other needs subclasses
DeviceArrays and enters it with `register`. The lookup is one dict access; the hottest kernels
(linear, mm, sum, the window products) test the sizes first and ask only for large arrays.
"""
from __future__ import annotations

import importlib.util

import numpy as np

from ember._backends import cpu_allocator


class DeviceArrays:
    """The helpers for an array module that is not the host's (arrays in device memory)."""

    # Whether arrays are in host memory, with NumPy's numerics and LAPACK behind them (what
    # the CPU-only refinements need: PyTorch's summation order, a failed factorization's
    # partial result, float32 overflow checks, half-precision fused multiply-adds; the
    # `ufunc.at` reductions in every dtype; host kernels run as written).
    host = False
    reduceat = False            # ufunc.reduceat
    einsum_ellipsis = False     # einsum takes "..." in its equation

    def __init__(self, xp):
        self.xp = xp
        self._special = self._fft = None

    def copy(self, a):
        """A fresh C-contiguous copy of `a`."""
        return self.xp.array(a, copy=True, order="C")

    def concatenate(self, items, axis):
        return self.xp.concatenate(items, axis=axis)

    def matmul(self, a, b):
        return self.xp.matmul(a, b)

    def empty(self, shape, dtype):
        return self.xp.empty(shape, dtype)

    def from_host(self, values):
        """Host-computed values (a NumPy array) as an array of this module."""
        return self.xp.asarray(values)

    def to_host(self, a):
        """`a` as a NumPy array (random numbers are drawn on the host)."""
        return self.xp.asnumpy(a)

    def in_memory_order(self, a) -> bool:
        """Whether random values are drawn in `a`'s memory order (NumPy's layout flags)."""
        return True

    def strided_window(self, array, shape, strides):
        """An overlapping view (NOTE [strided windows on every back-end]): only read it."""
        return self.xp.lib.stride_tricks.as_strided(array, shape, strides)

    def special(self, device_names):
        """scipy.special for these arrays: cupyx.scipy.special's functions of `device_names`,
        scipy.special's on host copies otherwise (NOTE [host kernels]); None without SciPy."""
        if self._special is None and importlib.util.find_spec("scipy") is not None:
            from ember._core.host_kernels import HostModule
            device = (importlib.import_module("cupyx.scipy.special")
                      if importlib.util.find_spec("cupyx") is not None else None)
            self._special = HostModule(self.xp, importlib.import_module("scipy.special"),
                                       device, device_names)
        return self._special

    def fft(self):
        """(the fft module, whether it takes `workers`)."""
        return (self.xp.fft, False)


class HostArrays(DeviceArrays):
    """NumPy's helpers: large buffers from the CPU caching allocator, SciPy where present."""

    host = True
    reduceat = True
    einsum_ellipsis = True

    copy = staticmethod(cpu_allocator.copy)
    concatenate = staticmethod(cpu_allocator.concatenate)
    matmul = staticmethod(cpu_allocator.matmul)
    empty = staticmethod(cpu_allocator.empty)

    def from_host(self, values):
        return values

    def to_host(self, a):
        return a

    def in_memory_order(self, a) -> bool:
        return a.flags.c_contiguous

    def strided_window(self, array, shape, strides):
        # (read-only: no write may reach several elements at once)
        return np.lib.stride_tricks.as_strided(array, shape, strides, writeable=False)

    def special(self, device_names):
        if self._special is None and importlib.util.find_spec("scipy") is not None:
            # Imported here, on first use: SciPy is optional and `import ember` stays light.
            self._special = importlib.import_module("scipy.special")
        return self._special

    def fft(self):
        if self._fft is None:
            self._fft = ((importlib.import_module("scipy.fft"), True)
                         if importlib.util.find_spec("scipy") is not None else (np.fft, False))
        return self._fft


# id(xp) -> its helpers (an array module may be any object, hashable or not; the helpers hold
# the module, so its id is not reused while the entry lives).
_BY_XP: dict = {id(np): HostArrays(np)}


def backend_helpers(xp) -> DeviceArrays:
    """The helpers of the back-end whose array module is `xp`."""
    found = _BY_XP.get(id(xp))
    if found is None:
        found = _BY_XP[id(xp)] = DeviceArrays(xp)
    return found


def register(xp, helpers) -> None:
    """Enter a back-end's own helpers (a DeviceArrays subclass instance) for its module."""
    _BY_XP[id(xp)] = helpers
