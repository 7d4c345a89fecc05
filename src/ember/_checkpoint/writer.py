"""Writing checkpoints: a protocol-2 pickler that writes ember tensors, dtypes, sizes and
devices under PyTorch's global names, and the zip archive around it (NOTE [checkpoint format] in
__init__.py)."""
from __future__ import annotations

import io
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np

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

    __slots__ = ("dtype_name", "key", "location", "nbytes", "untyped")

    def __init__(self, key, dtype_name, nbytes, untyped, location="cpu") -> None:
        self.key = key
        self.location = location        # where the tensor lived: "cpu", "cuda:0" ...
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
                return ("storage", _UNTYPED_STORAGE, obj.key, obj.location, obj.nbytes)
            itemsize = np.dtype(_np_dtype(obj.dtype_name)).itemsize
            storage_class = _global_for(("torch", _STORAGE_CLASSES[obj.dtype_name]))
            return ("storage", storage_class, obj.key, obj.location, obj.nbytes // itemsize)
        return None

    def reducer_override(self, obj):
        # Called for every object pickled: plain containers and numbers leave at once.
        kind = type(obj)
        if kind in _PLAIN:
            return NotImplemented
        if kind is _Reduced:
            return (obj.function, obj.args)
        tensor, parameter, size, device = _classes()
        if isinstance(obj, parameter):
            return (_REBUILD_PARAMETER, (obj.detach(), obj.requires_grad, OrderedDict()))
        if isinstance(obj, tensor):
            return self._reduce_tensor(obj)
        if isinstance(obj, size):
            return (_SIZE, (tuple(obj),))
        if isinstance(obj, device):
            return (_DEVICE, (str(obj),))
        return NotImplemented

    def _reduce_tensor(self, t):
        from ember._core import dispatch
        from ember._core.storage import memory_owner
        if t.is_meta:
            raise NotImplementedError("Cannot save a meta tensor: it has no data")
        if hasattr(t._data, "layout_name"):
            # PyTorch's record: the layout and its component tensors (NOTE [sparse layout]).
            from ember._ops.sparse import sparse_parts
            layout_name, parts, size, coalesced = sparse_parts(t)
            data = (*parts, size, coalesced) if layout_name == "sparse_coo" else (*parts, size)
            # The layout as PyTorch writes it: torch.serialization._get_layout("torch.<name>").
            layout = (_global_for(("torch.serialization", "_get_layout")),
                      (f"torch.{layout_name}",))
            return (_global_for(("torch._utils", "_rebuild_sparse_tensor")),
                    (_Reduced(*layout), data))
        location = "cpu"
        if t.device.type != "cpu":
            # The bytes are saved from a host copy, under the device's name (as PyTorch's
            # "cuda:0"), so that ember.load puts the tensor back there.
            location = str(t.device)
            t = t.cpu()
        # `.data` aliases its tensor's memory under a version counter of its own (NOTE [.data
        # has its own version counter]): one record for both, as PyTorch writes them.
        storage = memory_owner(dispatch.storage_of(t))
        entry = self.storages.get(id(storage))
        if entry is None:
            entry = (str(len(self.storages)), _storage_payload(t, storage), storage)
            self.storages[id(storage)] = entry
        key, payload, _ = entry
        itemsize = t.element_size()
        offset_bytes = _byte_offset(t, storage)
        dtype_name = str(t.dtype).split(".")[1]
        untyped = dtype_name not in _STORAGE_CLASSES
        ref = _StorageRef(key, dtype_name, len(payload), untyped, location)
        size = tuple(t.shape)
        stride = tuple(t.stride()) if t.numel() else _row_major_strides(size)
        args = (ref, offset_bytes // itemsize, size, stride, t.requires_grad, OrderedDict())
        if untyped:
            return (_REBUILD_V3, (*args, _global_for(("torch", dtype_name))))
        return (_REBUILD_V2, args)


class _Reduced:
    """An object written to the pickle as `function(*args)` (through reducer_override)."""

    __slots__ = ("args", "function")

    def __init__(self, function, args) -> None:
        self.function = function
        self.args = args


def _row_major_strides(size) -> tuple:
    strides, step = [], 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


_PLAIN = frozenset({str, int, float, bool, type(None), dict, OrderedDict, list, tuple, bytes})
_class_cache: list = []


def _classes() -> tuple:
    """(Tensor, Parameter, Size, device), imported once."""
    if not _class_cache:
        import ember
        from ember.nn.parameter import Parameter
        _class_cache.extend((ember.Tensor, Parameter, ember.Size, ember.device))
    return tuple(_class_cache)


_globals_cache: dict = {}


def _global_for(key) -> _Global:
    found = _globals_cache.get(key)
    if found is None:
        found = _globals_cache[key] = _Global(*key)
    return found


def _np_dtype(dtype_name: str):
    import ember
    return getattr(ember, dtype_name)._np


def _storage_payload(t, storage):
    """The storage's bytes (a view of the storage itself when it is contiguous: no copy)."""
    root = storage._array
    if root.size == 0:
        return b""
    span = sum((n - 1) * s for n, s in zip(root.shape, root.strides)) + root.dtype.itemsize
    flat = np.lib.stride_tricks.as_strided(root, shape=(span // root.dtype.itemsize,),
                                           strides=(root.dtype.itemsize,))
    return memoryview(np.ascontiguousarray(flat).view(np.uint8))


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


def write_archive(obj, stream, archive: str, protocol: int) -> None:
    """Pickle `obj` into the checkpoint zip written to `stream` (NOTE [checkpoint format])."""
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
