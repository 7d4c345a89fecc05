"""A NumPy stand-in for CuPy, for checking ember's CUDA back-end on a machine without a GPU:

    PYTHONPATH=tools/fake_cupy:src python -m pytest tests/cuda

ember's 'cuda' back-end then loads with this module as its `xp`. A test-only tool: ember never
imports it. It is strict where CuPy is, so that kernels which would fail on a GPU fail here too:

- its arrays (`ndarray`, a NumPy subclass) refuse to meet plain NumPy arrays in ufuncs and
  functions ("Unsupported type"), and NumPy functions that CuPy lacks refuse them ("Implicit
  conversion"); `asnumpy` takes only its own arrays (so a kernel that returns host data fails);
- it offers only the names CuPy 14.2 defines (`_names.py`); `lib.stride_tricks.as_strided`
  takes no `writeable`; `ufunc.at` works for add (CuPy's dtypes), maximum and minimum only;
  `ufunc.accumulate` for add and multiply only; reductions give 0-d arrays, not scalars.

What it cannot show: CuPy's own numerical differences (float32 Bessel functions, lcm's int8
overflow, frexp of inf), dtype promotion quirks (bfloat16 in `where`), argument rules of CuPy's
own Python functions (tensordot's axes, einsum's ellipsis), and cupyx's special functions
(`cupyx` here is SciPy under the same strict rules). Known failures that are the fake's own,
passing on a GPU: the memory pool (it counts nothing), DLPack (NumPy's import is read-only),
histogram and unravel_index (NumPy scalars where CuPy gives 0-d arrays).
"""
import types

import numpy as _np

from cupy._names import CUPY as _CUPY_NAMES
from cupy._names import FFT as _FFT_NAMES
from cupy._names import LINALG as _LINALG_NAMES

__version__ = "0.0-fake"

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")
_ADD_AT_DTYPES = frozenset(_np.dtype(t) for t in (
    "int32", "int64", "float16", "float32", "float64", "uint32", "uint64", "complex64",
    "complex128"))
_MINMAX_AT_DTYPES = frozenset(_np.dtype(t) for t in (
    "int32", "int64", "float16", "float32", "float64", "uint32", "uint64"))


def _refuse_host(values):
    """CuPy's kernels take device arrays and scalars, never NumPy arrays."""
    for v in values:
        if type(v) is _np.ndarray:
            raise TypeError(f"Unsupported type {type(v)}")
        if isinstance(v, (list, tuple)):
            _refuse_host(v)


def _plain(value):
    if isinstance(value, ndarray):
        return value.view(_np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value


def _device(value):
    """A result as CuPy gives it: arrays on the device, scalars as 0-d arrays."""
    if isinstance(value, _np.ndarray):
        return value if isinstance(value, ndarray) else value.view(ndarray)
    if isinstance(value, _np.generic):
        return _np.asarray(value).view(ndarray)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_device(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_device(v) for v in value)
    return value


def _apply_ufunc(ufunc, method, inputs, out, kwargs):
    name = ufunc.__name__
    _refuse_host(inputs)
    if out is not None:
        out = out if isinstance(out, tuple) else (out,)
        _refuse_host(out)
        kwargs["out"] = tuple(_plain(o) for o in out)
    if method == "at":
        allowed = {"add": _ADD_AT_DTYPES, "maximum": _MINMAX_AT_DTYPES,
                   "minimum": _MINMAX_AT_DTYPES}.get(name)
        if allowed is None:
            raise NotImplementedError(f"`cupy_{name}.at` is not supported yet")
        if inputs[0].dtype not in allowed:
            raise TypeError(f"cupy.{name}.at only supports int32, int64, float16, float32, "
                            "float64, uint32, uint64 as data type")
    if method == "accumulate" and name not in ("add", "multiply"):
        raise NotImplementedError(f"`cupy_{name}.accumulate` is not supported yet")
    if method in ("reduceat", "outer") and name not in ("add", "multiply"):
        raise NotImplementedError(f"`cupy_{name}.{method}` is not supported yet")
    result = getattr(ufunc, method)(*_plain(inputs), **kwargs)
    if method == "at":
        return None
    if out is not None:
        return out[0] if len(out) == 1 else out
    return _device(result)


class ndarray(_np.ndarray):
    """A 'device' array: NumPy memory under CuPy's rules."""

    def get(self, *args, **kwargs):
        return self.view(_np.ndarray).copy()

    @property
    def __cuda_array_interface__(self):
        return self.__array_interface__

    @property
    def data(self):
        """CuPy's MemoryPointer: `.ptr` is the address of the first element."""
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0])

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if ufunc.__name__ not in _CUPY_NAMES:
            raise TypeError(f"fake cupy: no CuPy ufunc for {ufunc!r}: {_IMPLICIT}")
        return _apply_ufunc(ufunc, method, inputs, out, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        module = func.__module__ or ""
        names = (_LINALG_NAMES if "linalg" in module else _FFT_NAMES if "fft" in module
                 else _CUPY_NAMES)
        if func.__name__ not in names:
            raise TypeError(f"fake cupy: CuPy has no {module}.{func.__name__}: {_IMPLICIT}")
        _refuse_host(args)
        _refuse_host(tuple(kwargs.values()))
        return _device(func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))


class _Ufunc:
    """A NumPy ufunc under CuPy's rules (NumPy arrays refused, `.at`/`.accumulate` limits)."""

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__
        self.nin, self.nout = ufunc.nin, ufunc.nout

    def _run(self, method, args, kwargs):
        _refuse_host(args)
        out = kwargs.pop("out", None)
        return _apply_ufunc(self._ufunc, method, args, out, kwargs)

    def __call__(self, *args, **kwargs):
        return self._run("__call__", args, kwargs)

    def reduce(self, *args, **kwargs):
        return self._run("reduce", args, kwargs)

    def accumulate(self, *args, **kwargs):
        return self._run("accumulate", args, kwargs)

    def at(self, *args, **kwargs):
        return self._run("at", args, kwargs)

    def outer(self, *args, **kwargs):
        return self._run("outer", args, kwargs)

    def reduceat(self, *args, **kwargs):
        return self._run("reduceat", args, kwargs)


def _function(fn, qualified):
    def run(*args, **kwargs):
        _refuse_host(args)
        _refuse_host(tuple(kwargs.values()))
        return _device(fn(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))
    run.__name__ = getattr(fn, "__name__", qualified)
    run.__qualname__ = qualified
    return run


def _member(module, name, names, prefix):
    if name not in names:
        raise AttributeError(f"module '{prefix}' has no attribute '{name}'")
    value = getattr(module, name)
    if isinstance(value, _np.ufunc):
        return _Ufunc(value)
    if callable(value) and not isinstance(value, type):
        return _function(value, f"{prefix}.{name}")
    return value


_cache: dict = {}


def __getattr__(name):
    if name not in _cache:
        _cache[name] = _member(_np, name, _CUPY_NAMES, "cupy")
    return _cache[name]


class _Submodule:
    def __init__(self, module, names, prefix):
        self._module, self._names, self._prefix = module, names, prefix

    def __getattr__(self, name):
        value = _member(self._module, name, self._names, self._prefix)
        setattr(self, name, value)
        return value


linalg = _Submodule(_np.linalg, _LINALG_NAMES, "cupy.linalg")
fft = _Submodule(_np.fft, _FFT_NAMES, "cupy.fft")


def _as_strided(x, shape=None, strides=None):
    """CuPy's as_strided: no `subok`, no `writeable`."""
    _refuse_host((x,))
    return _device(_np.lib.stride_tricks.as_strided(_plain(x), shape, strides))


lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))


def asnumpy(a, stream=None, order="C", out=None):
    if not isinstance(a, ndarray):
        raise TypeError(f"fake cupy: asnumpy of a {type(a).__name__}: ember handed host data "
                        "where a device array belongs")
    return a.view(_np.ndarray).copy()


def asarray(a, dtype=None, order=None, **kw):
    if isinstance(a, ndarray):
        return _device(_np.asarray(a.view(_np.ndarray), dtype=dtype, order=order))
    return _device(_np.array(a, dtype=dtype, copy=True, order=order or "K"))


def array(a, dtype=None, copy=True, order="K", ndmin=0, **kw):
    return _device(_np.array(_plain(a), dtype=dtype, copy=copy, order=order, ndmin=ndmin))


def ascontiguousarray(a, dtype=None):
    return _device(_np.ascontiguousarray(_plain(a), dtype=dtype))


def from_dlpack(x):
    return _device(_np.from_dlpack(x))


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
