"""`ember.save` / `ember.load` in PyTorch's checkpoint format, so files pass both ways between
ember and PyTorch.

NOTE [checkpoint format]: a checkpoint is an uncompressed zip archive `<name>/...` holding
`data.pkl` (the object, pickled with protocol 2), one `data/<key>` record per storage (its raw
little-endian bytes, 64-byte aligned), and `version`, `byteorder`, `.format_version`,
`.storage_alignment`, `.data/serialization_id`. In the pickle a tensor is a call of
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)` (v3 with
an explicit dtype for dtypes that have no typed storage class), a Parameter of
`torch._utils._rebuild_parameter`, and a storage a persistent id
`('storage', torch.<Type>Storage, key, location, numel)`. ember writes these names as pickle
globals without importing torch (a pure-Python pickler with stand-ins for them) and maps them back
to its own functions when loading. Views of one storage keep sharing it.

`load` defaults to `weights_only=True`, as PyTorch 2.6+ does: only tensors, containers, numbers,
strings, dtypes, sizes and devices (plus `add_safe_globals`) may be unpickled. With
`weights_only=False`, other `torch.*` globals resolve to the `ember.*` objects of the same path.
Files are written to a temporary name beside the target and renamed into place.
"""
from __future__ import annotations

import io
import os
import pickle
import struct
import tempfile
import zipfile
from collections import OrderedDict

import numpy as np

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals",
           "save"]

_ALIGNMENT = 64
_FORMAT_VERSION = "3\n"


class _Global:
    """A stand-in written to the pickle as the global `module.name`."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args):
        # Callable only so that the pickler accepts it as the function of a reduce tuple.
        raise TypeError(f"{self.module}.{self.name} is a name written into checkpoints")


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_UNTYPED_STORAGE = _Global("torch.storage", "UntypedStorage")
_SIZE = _Global("torch", "Size")
_DEVICE = _Global("torch", "device")

# dtype name -> the typed storage class PyTorch pickles it with (others use v3 + dtype).
_STORAGE_CLASSES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage",
    "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
_STORAGE_DTYPES = {v: k for k, v in _STORAGE_CLASSES.items()}


class _StorageRef:
    """A storage as it appears in the pickle (its persistent id)."""

    __slots__ = ("dtype_name", "key", "nbytes", "untyped")

    def __init__(self, key, dtype_name, nbytes, untyped) -> None:
        self.key = key
        self.dtype_name = dtype_name
        self.nbytes = nbytes
        self.untyped = untyped


def _get_dtype_class():
    from ember._core.dtype import dtype
    return dtype


_dtype_class = _get_dtype_class()


class _Pickler(pickle._Pickler):
    """Protocol-2 pickler that writes ember tensors, dtypes, sizes and devices the way
    PyTorch pickles its own (NOTE [checkpoint format])."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol) -> None:
        super().__init__(file, protocol)
        self.storages: dict = {}       # id(storage) -> (key, bytes)

    def save_standin(self, obj) -> None:
        self.write(b"c" + obj.module.encode() + b"\n" + obj.name.encode() + b"\n")
        self.memoize(obj)

    dispatch[_Global] = save_standin

    def save_dtype(self, obj) -> None:
        self.save_standin(_global_for(("torch", str(obj).split(".")[1])))

    dispatch[_dtype_class] = save_dtype

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            if obj.untyped:
                return ("storage", _UNTYPED_STORAGE, obj.key, "cpu", obj.nbytes)
            itemsize = np.dtype(_np_dtype(obj.dtype_name)).itemsize
            storage_class = _global_for(("torch", _STORAGE_CLASSES[obj.dtype_name]))
            return ("storage", storage_class, obj.key, "cpu", obj.nbytes // itemsize)
        return None

    def reducer_override(self, obj):
        import ember
        from ember.nn.parameter import Parameter
        if isinstance(obj, Parameter):
            return (_REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, OrderedDict()))
        if isinstance(obj, ember.Tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, ember.Size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, ember.device):
            return (_DEVICE, (str(obj),))
        return NotImplemented

    def _reduce_tensor(self, t):
        from ember._core import dispatch
        if t.is_meta:
            raise NotImplementedError("Cannot save a meta tensor: it has no data")
        if t.device.type != "cpu":
            t = t.cpu()
        storage = dispatch.storage_of(t)
        entry = self.storages.get(id(storage))
        if entry is None:
            entry = (str(len(self.storages)), _storage_payload(t, storage), storage)
            self.storages[id(storage)] = entry
        key, payload, _ = entry
        itemsize = t.element_size()
        offset_bytes = _byte_offset(t, storage)
        dtype_name = str(t.dtype).split(".")[1]
        untyped = dtype_name not in _STORAGE_CLASSES
        ref = _StorageRef(key, dtype_name, len(payload), untyped)
        size = tuple(t.shape)
        stride = tuple(t.stride()) if t.numel() else _row_major_strides(size)
        args = (ref, offset_bytes // itemsize, size, stride, t.requires_grad, OrderedDict())
        if untyped:
            return (_REBUILD_V3, (*args, _global_for(("torch", dtype_name))))
        return (_REBUILD_V2, args)


def _row_major_strides(size) -> tuple:
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


_globals_cache: dict = {}


def _global_for(key) -> _Global:
    found = _globals_cache.get(key)
    if found is None:
        found = _globals_cache[key] = _Global(*key)
    return found


def _np_dtype(dtype_name: str):
    import ember
    return getattr(ember, dtype_name)._np


def _storage_payload(t, storage) -> bytes:
    root = storage._array
    if root.size == 0:
        return b""
    span = sum((n - 1) * s for n, s in zip(root.shape, root.strides)) + root.dtype.itemsize
    flat = np.lib.stride_tricks.as_strided(root, shape=(span // root.dtype.itemsize,),
                                           strides=(root.dtype.itemsize,))
    return np.ascontiguousarray(flat).tobytes()


def _byte_offset(t, storage) -> int:
    from ember._core.storage import _data_ptr
    if t._data.size == 0 or storage._array.size == 0:
        return 0
    return _data_ptr(t._data) - _data_ptr(storage._array)


# ---------------------------------------------------------------------------- saving
def _aligned_extra(zf, name: str) -> bytes:
    """A local-header extra field that puts the record's data on a 64-byte boundary."""
    start = zf.fp.tell() + 30 + len(name.encode())
    pad = (-(start + 4)) % _ALIGNMENT
    return b"FB" + struct.pack("<H", pad) + b"Z" * pad


def _write_record(zf, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.extra = _aligned_extra(zf, name)
    with zf.open(info, "w", force_zip64=len(data) > 0x7FFFFFFF) as out:
        out.write(data)


def _write_archive(obj, stream, archive: str, protocol: int) -> None:
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol)
    pickler.dump(obj)
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED) as zf:
        _write_record(zf, f"{archive}/data.pkl", buffer.getvalue())
        _write_record(zf, f"{archive}/.format_version", b"1")
        _write_record(zf, f"{archive}/.storage_alignment", str(_ALIGNMENT).encode())
        _write_record(zf, f"{archive}/byteorder", b"little")
        for key, payload, _ in sorted(pickler.storages.values(), key=lambda e: int(e[0])):
            _write_record(zf, f"{archive}/data/{key}", payload)
        _write_record(zf, f"{archive}/version", _FORMAT_VERSION.encode())
        serial = str(int.from_bytes(os.urandom(16), "little")).zfill(40)[:40]
        _write_record(zf, f"{archive}/.data/serialization_id", serial.encode())


def save(obj, f, pickle_module=pickle, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save `obj` (tensors, state dicts, any picklable object) to a path or a writable binary
    file object, in PyTorch's zip checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ember writes only the zip checkpoint format "
                                  "(_use_new_zipfile_serialization=True)")
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        archive = os.path.splitext(os.path.basename(path))[0] or "archive"
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise RuntimeError(f"Parent directory {directory} does not exist.")
        fd, temporary = tempfile.mkstemp(prefix=".ember-save-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as stream:
                _write_archive(obj, stream, archive, pickle_protocol)
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
        return
    _write_archive(obj, f, "archive", pickle_protocol)


# ---------------------------------------------------------------------------- loading
_safe_globals: dict = {}


def add_safe_globals(safe_globals) -> None:
    """Allow these classes/functions (or (object, "module.name") pairs) in weights-only
    loading."""
    for item in safe_globals:
        if isinstance(item, tuple):
            obj, name = item
        else:
            obj, name = item, f"{item.__module__}.{item.__qualname__}"
        _safe_globals[name] = obj


def get_safe_globals() -> list:
    return list(_safe_globals.values())


def clear_safe_globals() -> None:
    _safe_globals.clear()


class safe_globals:
    """Context manager: `add_safe_globals` for the duration of a `with` block."""

    def __init__(self, safe_globals) -> None:
        self.items = list(safe_globals)

    def __enter__(self):
        self.saved = dict(_safe_globals)
        add_safe_globals(self.items)
        return self

    def __exit__(self, *exc) -> None:
        _safe_globals.clear()
        _safe_globals.update(self.saved)


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None, dtype=None):
    import ember
    from ember._core import dispatch
    from ember._core.device import CPU
    payload, typed_dtype = storage
    dtype_obj = getattr(ember, dtype if dtype is not None else typed_dtype)
    np_dtype = np.dtype(dtype_obj._np)
    flat = np.frombuffer(payload, dtype=np.uint8).view(np_dtype) if len(payload) else \
        np.zeros(0, np_dtype)
    itemsize = np_dtype.itemsize
    if not size or all(s > 0 for s in size):
        array = np.lib.stride_tricks.as_strided(
            flat[storage_offset:], shape=tuple(size),
            strides=tuple(s * itemsize for s in stride)) if flat.size else \
            np.zeros(tuple(size), np_dtype)
    else:
        array = np.zeros(tuple(size), np_dtype)
    t = dispatch.wrap(array, dtype_obj, CPU)
    if array.size:
        t._storage = _shared_storage(payload, flat)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shared_storage(payload, flat):
    """One storage object per loaded record, so views loaded together share it."""
    from ember._core.storage import UntypedStorage
    found = _loading_storages.get(id(payload))
    if found is None:
        found = _loading_storages[id(payload)] = UntypedStorage(flat)
    return found


_loading_storages: dict = {}


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    return _rebuild_tensor(storage, storage_offset, size, stride, requires_grad,
                           backward_hooks, metadata, dtype=str(dtype).split(".")[1])


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from ember.nn.parameter import Parameter
    param = Parameter(data, requires_grad)
    if state:
        param.__dict__.update(state)
    return param


class _StorageType:
    def __init__(self, dtype_name) -> None:
        self.dtype_name = dtype_name


def _torch_global(module: str, name: str):
    """What a `torch.*` global of a checkpoint means in ember (None when unknown)."""
    import ember
    if module == "torch._utils":
        table = {"_rebuild_tensor_v2": _rebuild_tensor, "_rebuild_tensor_v3": _rebuild_tensor_v3,
                 "_rebuild_parameter": _rebuild_parameter,
                 "_rebuild_parameter_with_state": _rebuild_parameter}
        return table.get(name)
    if module == "torch" and name in _STORAGE_DTYPES:
        return _StorageType(_STORAGE_DTYPES[name])
    if module == "torch.storage" and name == "UntypedStorage":
        return _StorageType("uint8")
    if module == "torch" and name == "Size":
        return ember.Size
    if module == "torch" and name == "device":
        return ember.device
    if module == "torch":
        value = getattr(ember, name, None)
        if isinstance(value, ember.dtype):
            return value
    return None


_SAFE_BUILTINS = {("collections", "OrderedDict"): OrderedDict,
                  ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
                  ("builtins", "complex"): complex, ("builtins", "bytearray"): bytearray,
                  ("builtins", "slice"): slice}


def _weights_only_error(module, name) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        "Weights only load failed. In PyTorch 2.6, we changed the default value of the "
        "`weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` "
        "with `weights_only` set to `False` will likely succeed, but it can result in arbitrary "
        "code execution. Do it only if you got the file from a trusted source.\n Please file an "
        f"issue with the following so that we can make `weights_only=True` compatible with your "
        f"use case: WeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} was not "
        "an allowed global by default. Please use `torch.serialization.add_safe_globals"
        f"([{name}])` or the `torch.serialization.safe_globals([{name}])` context manager to "
        "allowlist this global if you trust this class/function.")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, records, weights_only: bool, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self.records = records
        self.weights_only = weights_only
        self.loaded: dict = {}

    def find_class(self, module, name):
        if module == "__builtin__":        # protocol 2 writes Python 2's module name
            module = "builtins"
        if module.startswith("torch"):
            found = _torch_global(module, name)
            if found is not None:
                return found
        if module == "_codecs" and name == "encode":
            import codecs
            return codecs.encode
        safe = _SAFE_BUILTINS.get((module, name))
        if safe is not None:
            return safe
        allowed = _safe_globals.get(f"{module}.{name}")
        if allowed is not None:
            return allowed
        if module == "collections" and name == "Counter":
            from collections import Counter
            return Counter
        if self.weights_only:
            raise _weights_only_error(module, name)
        if module == "torch" or module.startswith("torch."):
            module = "ember" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unknown persistent id {pid!r}")
        _, storage_type, key, _location, _numel = pid
        payload = self.loaded.get(key)
        if payload is None:
            payload = self.loaded[key] = self.records(key)
        dtype_name = storage_type.dtype_name if isinstance(storage_type, _StorageType) \
            else "uint8"
        return (payload, dtype_name)


def _open_zip(f):
    try:
        return zipfile.ZipFile(f)
    except zipfile.BadZipFile:
        raise RuntimeError("ember.load only reads PyTorch's zip checkpoint format (files "
                           "written by torch.save since PyTorch 1.6); this file is not one") \
            from None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by `ember.save` or `torch.save` (zip format). `weights_only`
    (default True) refuses any global but tensors, containers and plain values."""
    import ember
    if weights_only is None:
        weights_only = True
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "rb") as stream:
            data = stream.read()
        source = io.BytesIO(data)
    else:
        source = f
    with _open_zip(source) as zf:
        names = zf.namelist()
        pickles = [n for n in names if n.endswith("/data.pkl")]
        if not pickles:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not "
                               "found")
        prefix = pickles[0][:-len("data.pkl")]
        byteorder = prefix + "byteorder"
        if byteorder in names and zf.read(byteorder).decode() not in ("little", ""):
            raise RuntimeError("ember.load reads little-endian checkpoints only")

        def record(key):
            return bytearray(zf.read(f"{prefix}data/{key}"))
        unpickler = _Unpickler(io.BytesIO(zf.read(pickles[0])), record, weights_only,
                               **pickle_load_args)
        _loading_storages.clear()
        try:
            result = unpickler.load()
        finally:
            _loading_storages.clear()
    if map_location is not None:
        result = _map_location(result, map_location, ember)
    return result


def _map_location(obj, map_location, ember):
    def move(t):
        if callable(map_location) and not isinstance(map_location, (str, ember.device)):
            moved = map_location(t, "cpu")
            return t if moved is None else moved
        if isinstance(map_location, dict):
            target = map_location.get("cpu", "cpu")
        else:
            target = map_location
        return t if ember.device(target) == t.device else t.to(target)
    return _walk_tensors(obj, move, ember)


def _walk_tensors(obj, fn, ember):
    if isinstance(obj, ember.Tensor):
        return fn(obj)
    if isinstance(obj, OrderedDict):
        out = OrderedDict((k, _walk_tensors(v, fn, ember)) for k, v in obj.items())
        if hasattr(obj, "_metadata"):
            out._metadata = obj._metadata
        return out
    if type(obj) is dict:
        return {k: _walk_tensors(v, fn, ember) for k, v in obj.items()}
    if type(obj) in (list, tuple):
        return type(obj)(_walk_tensors(v, fn, ember) for v in obj)
    return obj
