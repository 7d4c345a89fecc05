"""A NumPy stand-in for CuPy, for checking the CUDA tests' own logic on a machine without a GPU:

    PYTHONPATH=tools/fake_cupy:src python -m pytest tests/cuda

ember's 'cuda' back-end then loads with this module as its `xp`: arrays are NumPy arrays, but
the module is not `numpy`, so the non-CPU paths (host copies, `xp is np` tests, devices) run.
It cannot find kernels that call NumPy on CuPy arrays, and cupyx (SciPy's special functions on
the GPU) and the memory pool are missing: those tests fail under it. Never on a real run's path.
"""
import types

import numpy as _np

__version__ = "0.0-fake"


def __getattr__(name):
    return getattr(_np, name)


def asnumpy(a):
    return _np.asarray(a).copy()


def asarray(a, dtype=None, order=None, **kw):
    if isinstance(a, _np.ndarray):
        return _np.asarray(a, dtype=dtype, order=order)
    return _np.array(a, dtype=dtype, copy=True, order=order or "K")


def array(a, dtype=None, copy=True, **kw):
    return _np.array(a, dtype=dtype, copy=copy, **kw)


class Device:
    def __init__(self, index=0):
        self.id = index

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        pass

    def synchronize(self):
        pass


class _Runtime:
    @staticmethod
    def getDeviceCount():
        return 1

    @staticmethod
    def getDeviceProperties(i):
        return {"name": b"Fake NumPy GPU", "totalGlobalMem": 1 << 34, "major": 9, "minor": 0,
                "multiProcessorCount": 1}

    @staticmethod
    def memGetInfo():
        return (1 << 33, 1 << 34)

    @staticmethod
    def runtimeGetVersion():
        return 13000


cuda = types.SimpleNamespace(runtime=_Runtime(), Device=Device)


class _Pool:
    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def free_all_blocks(self):
        pass


_pool = _Pool()


def get_default_memory_pool():
    return _pool


random = types.SimpleNamespace(seed=lambda s: None)
