"""Kernels that run on the host for every back-end: `host_kernel` (a kernel decorator) and
`HostModule` (a library's functions, e.g. scipy.special, for device arrays).

NOTE [host kernels]: a kernel is written over `xp`, but some need what only NumPy and SciPy
have (LAPACK drivers through scipy.linalg, scipy.special functions that cupyx lacks or computes
otherwise, `ufunc.at` / `ufunc.accumulate` of ufuncs CuPy does not give them, NumPy-only
helpers). Such a kernel is declared with `@host_kernel` under its `@register_op`: on NumPy it
is called as it is (no cost but one `is` test); on another back-end (CuPy) its array arguments
are copied to the host, it runs with `xp = numpy`, and its array results are copied back to
the device. The values are then the CPU's, bit for bit, at the price of two transfers and a
synchronisation: so only kernels without a simple device formulation are tagged, and a kernel
that gains one (cupy.linalg, cupyx.scipy.special) drops the tag. The CPU path never changes:
an op whose kernel is a host kernel has the kernel as written for its CPU entry (NOTE [the
kernel table]), so its CPU calls skip the wrapper; the `is` test serves helpers called
directly.
"""
from __future__ import annotations

import functools

import numpy as np

from ember._backends.array_helpers import backend_helpers


def to_host(xp, value):
    """`value` with every `xp` array (in nested tuples / lists) copied to a NumPy array."""
    if isinstance(value, xp.ndarray):
        return xp.asnumpy(value)
    if isinstance(value, (tuple, list)):
        return type(value)(to_host(xp, v) for v in value)
    return value


def to_device(xp, value):
    """`value` with every NumPy array or scalar (in nested tuples / lists) copied to `xp`."""
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, xp.ndarray):
        return xp.asarray(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_device(xp, v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(to_device(xp, v) for v in value)
    return value


def host_kernel(kernel):
    """Run `kernel(xp, *args)` on host copies of its arrays off NumPy (NOTE [host kernels])."""
    @functools.wraps(kernel)
    def run(xp, *args, **kwargs):
        if backend_helpers(xp).host:         # NOTE [back-end helpers]
            return kernel(xp, *args, **kwargs)
        result = kernel(np, *to_host(xp, args),
                        **{name: to_host(xp, value) for name, value in kwargs.items()})
        return to_device(xp, result)
    run.host_kernel = True
    return run


def host_function(xp, function):
    """`function` (a NumPy / SciPy function) for `xp` arrays: it runs on host copies."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        result = function(*to_host(xp, args),
                          **{name: to_host(xp, value) for name, value in kwargs.items()})
        return to_device(xp, result)
    return run


class HostModule:
    """A library module (scipy.special) for `xp` arrays: the names in `device_names` come from
    `device_module` (its device version, which gives the host's values), every other function
    runs on host copies (NOTE [host kernels])."""

    def __init__(self, xp, host_module, device_module=None, device_names=()):
        self._xp = xp
        self._host = host_module
        self._device = device_module
        self._device_names = frozenset(device_names) if device_module is not None else ()

    def __getattr__(self, name):
        if name in self._device_names:
            found = getattr(self._device, name)
        else:
            found = host_function(self._xp, getattr(self._host, name))
        setattr(self, name, found)
        return found
