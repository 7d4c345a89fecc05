"""The neutral form of a fuzzed call's values, and what each library makes of them.

A drawn call (fuzz_strategies.py) is a plain description that pickles: every argument value is
a tuple naming its kind, e.g. ("tensor", (2, 3), "float32", False) or ("str", "a"). A worker
(fuzz_worker.py) builds the real value with its own library (`build`), makes the call and
sends back a plain summary of the result (`summarize`) or of the exception (`describe_error`).
Both workers build from the same description, so ember and PyTorch see the same call.
"""
from __future__ import annotations

import math

import numpy as np

_NUMPY_DTYPES = {"float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
                 "bool", "complex64", "complex128"}


def tensor_values(shape, dtype_name):
    """The same deterministic values in both libraries: small, mixed-sign, few zeros."""
    count = int(np.prod(shape)) if shape else 1
    base = (np.arange(count) * 7 % 11 - 5).astype(np.float64) / 2
    if dtype_name == "bool":
        values = (np.arange(count) % 3) != 1
    elif dtype_name == "uint8":
        values = np.abs(base * 2).astype(np.uint8)
    elif dtype_name.startswith(("int", "uint")):
        values = (base * 2).astype(np.int64)
    elif dtype_name.startswith("complex"):
        values = base + 1j * base[::-1]
    else:
        values = base
    return values.reshape(shape)


def build(desc, lib):
    """The library's value for the description `desc`."""
    kind = desc[0]
    if kind == "tensor":
        _, shape, dtype_name, requires_grad = desc
        values = tensor_values(shape, dtype_name)
        if dtype_name in _NUMPY_DTYPES:
            tensor = lib.tensor(values.astype(dtype_name))
        else:                                   # bfloat16 and the wide unsigned ints
            tensor = lib.tensor(values.astype(np.float64 if dtype_name.startswith("b")
                                              else np.int64)).to(getattr(lib, dtype_name))
        if requires_grad:
            tensor.requires_grad_(True)
        return tensor
    if kind in ("int", "float", "bool", "complex", "str", "bytes"):
        return desc[1]
    if kind == "none":
        return None
    if kind == "nan":
        return math.nan
    if kind == "numpy":                           # ("numpy", "int64", 1)
        return getattr(np, desc[1])(desc[2])
    if kind == "ndarray":
        return np.array(desc[1])
    if kind == "list":
        return [build(item, lib) for item in desc[1]]
    if kind == "tuple":
        return tuple(build(item, lib) for item in desc[1])
    if kind == "size":
        return lib.Size(desc[1])
    if kind == "dtype":
        return getattr(lib, desc[1])
    if kind == "numpy_dtype":
        return getattr(np, desc[1])
    if kind == "python_type":
        return {"int": int, "float": float, "bool": bool, "str": str}[desc[1]]
    if kind == "layout":
        return getattr(lib, desc[1])
    if kind == "memory_format":
        return getattr(lib, desc[1])
    if kind == "device":
        return lib.device(desc[1])
    if kind == "generator":
        generator = lib.Generator()
        generator.manual_seed(desc[1])
        return generator
    if kind == "object":
        return object()
    return _build_more(desc, lib)


def _build_more(desc, lib):
    """The kinds only the entry-point families draw (fuzz_entries_*.py)."""
    import array
    import io
    kind = desc[0]
    if kind == "ellipsis":
        return Ellipsis
    if kind == "slice":
        return slice(*(build(part, lib) for part in desc[1:]))
    if kind in ("bytearray", "memoryview"):
        return (bytearray if kind == "bytearray" else memoryview)(desc[1])
    if kind == "memoryview_strided":
        return memoryview(bytearray(desc[1]))[::2]
    if kind == "array":
        return array.array(desc[1], desc[2])
    if kind == "ndarray_obj":
        return np.array(desc[1], dtype=object)
    if kind == "ndarray_dtype":
        return np.array(desc[1], dtype=getattr(np, desc[2], None) or desc[2])
    if kind == "dict":
        return {1: 2}
    if kind == "set":
        return {1, 2}
    if kind == "range":
        return range(desc[1])
    if kind == "generator_expr":
        return (i for i in range(desc[1]))
    if kind == "path":
        return desc[1]
    if kind == "bytesio":
        return io.BytesIO(desc[1])
    if kind == "tmpfile":
        return _temporary_file(desc[1])
    if kind in ("saved", "saved_file"):       # the library's own save of a tensor, maybe cut
        stream = io.BytesIO()
        lib.save({"w": lib.arange(6.0).reshape(2, 3), "n": 3}, stream)
        data = stream.getvalue()
        if desc[1] is not None:
            data = data[:desc[1]]
        return io.BytesIO(data) if kind == "saved" else _temporary_file(data)
    raise ValueError(f"unknown value kind {kind!r}")


TEMPORARY_FILES = []       # removed by the worker after each call


def _temporary_file(data: bytes) -> str:
    import tempfile
    handle, path = tempfile.mkstemp(suffix=".pt")
    with open(handle, "wb") as stream:
        stream.write(data)
    TEMPORARY_FILES.append(path)
    return path


_SUMMARY_LIMIT = 20000      # elements: beyond this only shape and dtype are compared


def summarize(value, lib):
    """A plain, library-neutral summary of a call's result."""
    if isinstance(value, lib.Tensor):
        dtype_name = str(value.dtype).rsplit(".", 1)[-1]
        shape = tuple(value.shape)
        if value.device.type != "cpu" or value.layout != lib.strided or \
                value.numel() > _SUMMARY_LIMIT:
            return ("tensor", shape, dtype_name, None)
        plain = value.detach()
        if dtype_name in ("bfloat16", "float16"):
            plain = plain.float()
        return ("tensor", shape, dtype_name, np.array(plain.tolist()))
    if isinstance(value, (tuple, list)):
        return ("sequence", [summarize(item, lib) for item in value])
    if isinstance(value, dict):
        return ("sequence", [("plain", repr(k)) for k in value] +
                [summarize(item, lib) for item in value.values()])
    if isinstance(value, (bool, int, float, complex, str)) or value is None:
        return ("plain", value)
    if isinstance(value, lib.dtype):
        return ("dtype", str(value).rsplit(".", 1)[-1])
    return ("other", type(value).__name__)


# Classes that PyTorch itself never raises for bad arguments: seen in ember they mean an
# internal failed on input that should have been refused (the "foreign" exceptions).
FOREIGN_NAMES = frozenset(("AttributeError", "KeyError", "AssertionError", "NameError",
                           "UnboundLocalError", "ZeroDivisionError", "RecursionError",
                           "SystemError", "FloatingPointError", "AxisError", "LookupError",
                           "UnicodeDecodeError", "ModuleNotFoundError", "ImportError",
                           "StopIteration", "MemoryError"))


def describe_error(exc):
    """(class name, module, names of its bases, message) of an exception."""
    cls = type(exc)
    bases = tuple(base.__name__ for base in cls.__mro__)
    return (cls.__name__, cls.__module__, bases, str(exc)[:300])
