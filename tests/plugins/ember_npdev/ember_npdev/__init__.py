"""A test plug-in back-end for ember: device 'npdev', tensors held in (copied) NumPy arrays.

Loaded by ember at import through the `ember.backends` entry point. It registers its own kernels
for a handful of ops and counts their calls, so tests can see its kernels really ran.
"""
import os
import types

import numpy as np

CALLS = {"add": 0, "mul": 0, "sum": 0, "to_device": 0}


def _to_host(array):
    return np.array(array, copy=True)


def _from_host(array, device):
    CALLS["to_device"] += 1
    return np.array(array, copy=True)


def _add(xp, self, other, alpha=1):
    CALLS["add"] += 1
    return xp.add(self, other if alpha == 1 else other * alpha)


def _mul(xp, self, other):
    CALLS["mul"] += 1
    return xp.multiply(self, other)


def _sum(xp, self, dim=None, keepdim=False, dtype=None):
    CALLS["sum"] += 1
    axis = None if dim is None or dim == () else tuple(dim)
    out = xp.sum(self, axis=axis, keepdims=keepdim)
    return xp.asarray(out, dtype=np.int64 if self.dtype.kind in "biu" else self.dtype)


def autoload():
    import ember
    from ember.utils import backend_registration as registration

    registration.rename_privateuse1_backend("npdev")
    registration.register_device_backend("npdev", np, _to_host, _from_host)
    registration.register_kernel("add.Tensor", "npdev", _add)
    registration.register_kernel("mul.Tensor", "npdev", _mul)
    registration.register_kernel("sum.dim_IntList", "npdev", _sum)
    module = types.ModuleType("ember.npdev")
    module.is_available = lambda: True
    module.device_count = lambda: 1
    module.current_device = lambda: 0
    module.synchronize = lambda device=None: None
    module.CALLS = CALLS
    ember._register_device_module("npdev", module)
    registration.generate_methods_for_privateuse1_backend()


def autoload_failing():
    if os.environ.get("EMBER_NPDEV_FAIL") == "1":
        raise ImportError("ember_npdev was asked to fail (EMBER_NPDEV_FAIL=1)")
