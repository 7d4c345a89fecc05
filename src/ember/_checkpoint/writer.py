"""Writing checkpoints: a protocol-2 pickler that writes ember tensors, dtypes, sizes and
devices under PyTorch's global names, and the zip archive around it (NOTE [checkpoint format] in
__init__.py)."""
from __future__ import annotations

import io
import os
import pickle
import struct
import types
import zlib
from collections import OrderedDict

import numpy as np

from ember._checkpoint.torch_names import lookup, torch_name

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
    "qint8": "QInt8Storage", "quint8": "QUInt8Storage", "qint32": "QInt32Storage",
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


def _dtypes_without_tensors():
    """The dtype objects of another class (quantized, sub-byte: NOTE [dtypes without
    tensors]), pickled as PyTorch's dtypes too."""
    from ember._dtypes_unsupported import DTYPES
    return DTYPES.values()


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
        # Through save(): a dtype met again is fetched from the memo, not written twice (which
        # trips pickle's memo check).
        self.save(_global_for(("torch", str(obj).split(".")[1])))

    dispatch[_dtype_class] = save_dtype
    for _kind in {type(d) for d in _dtypes_without_tensors()}:
        dispatch[_kind] = save_dtype

    def save_global(self, obj, name=None) -> None:
        # ember's classes and functions are written under PyTorch's names (NOTE [PyTorch's
        # module paths]), once pickle's own check has found them where they say they live.
        module = getattr(obj, "__module__", None) or ""
        qualname = name or getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "")
        theirs = torch_name(module, qualname) if module.startswith("ember") else None
        if theirs is None or not _reachable(obj, module, qualname):
            super().save_global(obj, name)
            return
        self.write(b"c" + theirs[0].encode() + b"\n" + theirs[1].encode() + b"\n")
        self.memoize(obj)

    dispatch[types.FunctionType] = save_global

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            if obj.untyped:
                return ("storage", _UNTYPED_STORAGE, obj.key, obj.location, obj.nbytes)
            itemsize = _itemsize(obj.dtype_name)
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
        if t.is_quantized:
            return self._reduce_quantized(t)
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


    def _reduce_quantized(self, t):
        """PyTorch's record of a quantized tensor (NOTE [quantized tensors]): its integers in
        a typed storage (`torch.QUInt8Storage` ...), the quantizer as (qscheme, scale,
        zero_point) or (qscheme, scales, zero_points, axis)."""
        data = t._data
        entry = self.storages.get(id(data))
        if entry is None:
            integers = np.ascontiguousarray(data.array)
            payload = memoryview(integers.reshape(-1).view(np.uint8)) if integers.size else b""
            entry = (str(len(self.storages)), payload, data)
            self.storages[id(data)] = entry
        key, payload, _ = entry
        dtype_name = str(t.dtype).split(".")[1]
        ref = _StorageRef(key, dtype_name, len(payload), False)
        scheme = _global_for(("torch", data.qscheme))
        if data.per_tensor:
            quantizer = (scheme, data.scale, data.zero_point)
        else:
            quantizer = (scheme, t.q_per_channel_scales(), t.q_per_channel_zero_points(),
                         data.axis)
        size = tuple(t.shape)
        return (_global_for(("torch._utils", "_rebuild_qtensor")),
                (ref, 0, size, _row_major_strides(size), quantizer, t.requires_grad,
                 OrderedDict()))


def _reachable(obj, module: str, qualname: str) -> bool:
    try:
        return lookup(module, qualname) is obj
    except (ImportError, AttributeError):
        return False


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


def _itemsize(dtype_name: str) -> int:
    import ember
    return getattr(ember, dtype_name).itemsize


def _np_dtype(dtype_name: str):
    import ember
    return getattr(ember, dtype_name)._np


def _storage_payload(t, storage):
    """The storage's bytes (a view of the storage itself when it is contiguous: no copy)."""
    root = storage._array
    if root.size == 0:
        return b""
    if root.flags.c_contiguous:
        return memoryview(root.reshape(-1).view(np.uint8))
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
# NOTE [zip records written in one pass]: the archive is written front to back, each record's
# header with its CRC and size already known (zipfile writes a header, the data, then seeks back
# to rewrite the header: three system calls a record on a file). The bytes are those zipfile
# writes for a `ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))` stored record: version 2.0
# (4.5 with zip64), Unix, mode 0o600, DOS date 1980-01-01, the 64-byte alignment padding as the
# local extra field (repeated in the central directory), and zip64 fields where sizes, offsets
# or the record count overflow the classic ones.
_ZIP64_LIMIT = (1 << 31) - 1
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_CENTRAL_HEADER = struct.Struct("<4s4B4HL2L5H2L")
_DOS_DATE = 33          # 1980-01-01
_MODE_0600 = 0o600 << 16


class _ZipWriter:
    """Stored records appended to `stream` (NOTE [zip records written in one pass])."""

    def __init__(self, stream) -> None:
        self.stream = stream
        try:
            self.position = stream.tell()
        except (AttributeError, OSError):
            self.position = 0       # a pipe or socket: offsets count from here, as zipfile's
        self.central: list = []

    def write_record(self, name: str, data) -> None:
        try:
            encoded, flags = name.encode("ascii"), 0
        except UnicodeEncodeError:
            encoded, flags = name.encode("utf-8"), 0x800
        size = memoryview(data).nbytes
        crc = zlib.crc32(data)
        zip64 = size > _ZIP64_LIMIT
        version = 45 if zip64 else 20
        # The zip64 sizes come first, so that the padding field aligns the data after both.
        zip64_extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        start = self.position + _LOCAL_HEADER.size + len(encoded) + len(zip64_extra)
        pad = (-(start + 4)) % _ALIGNMENT
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        local_extra = zip64_extra + extra
        local_size = 0xFFFFFFFF if zip64 else size
        header = _LOCAL_HEADER.pack(b"PK\003\004", version, 0, flags, 0, 0, _DOS_DATE, crc,
                                    local_size, local_size, len(encoded), len(local_extra))
        self.stream.write(header + encoded + local_extra)
        self.stream.write(data)
        self.central.append((encoded, flags, extra, size, crc, self.position))
        self.position += len(header) + len(encoded) + len(local_extra) + size

    def close(self) -> None:
        """Write the central directory and the end records."""
        start = self.position
        parts = []
        for encoded, flags, extra, size, crc, offset in self.central:
            zip64_fields = [size, size] if size > _ZIP64_LIMIT else []
            if offset > _ZIP64_LIMIT:
                zip64_fields.append(offset)
            if zip64_fields:
                extra = struct.pack(f"<HH{len(zip64_fields)}Q", 1, 8 * len(zip64_fields),
                                    *zip64_fields) + extra
            version = 45 if zip64_fields else 20
            stored_size = 0xFFFFFFFF if size > _ZIP64_LIMIT else size
            stored_offset = 0xFFFFFFFF if offset > _ZIP64_LIMIT else offset
            parts.append(_CENTRAL_HEADER.pack(
                b"PK\001\002", version, 3, version, 0, flags, 0, 0, _DOS_DATE, crc,
                stored_size, stored_size, len(encoded), len(extra), 0, 0, 0, _MODE_0600,
                stored_offset))
            parts.append(encoded)
            parts.append(extra)
        directory = b"".join(parts)
        end = start + len(directory)
        count, size = len(self.central), len(directory)
        if count > 0xFFFF or start > _ZIP64_LIMIT or size > _ZIP64_LIMIT:
            directory += struct.pack("<4sQ2H2L4Q", b"PK\006\006", 44, 45, 45, 0, 0, count,
                                     count, size, start)
            directory += struct.pack("<4sLQL", b"PK\006\007", 0, end, 1)
            count, size, start = min(count, 0xFFFF), min(size, 0xFFFFFFFF), min(start, 0xFFFFFFFF)
        directory += struct.pack("<4s4H2LH", b"PK\005\006", 0, 0, count, count, size, start, 0)
        self.stream.write(directory)


def write_archive(obj, stream, archive: str, protocol: int) -> None:
    """Pickle `obj` into the checkpoint zip written to `stream` (NOTE [checkpoint format])."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer, protocol)
    pickler.dump(obj)
    zf = _ZipWriter(stream)
    zf.write_record(f"{archive}/data.pkl", buffer.getvalue())
    zf.write_record(f"{archive}/.format_version", b"1")
    zf.write_record(f"{archive}/.storage_alignment", str(_ALIGNMENT).encode())
    zf.write_record(f"{archive}/byteorder", b"little")
    for key, payload, _ in sorted(pickler.storages.values(), key=lambda e: int(e[0])):
        zf.write_record(f"{archive}/data/{key}", payload)
    zf.write_record(f"{archive}/version", _FORMAT_VERSION.encode())
    serial = str(int.from_bytes(os.urandom(16), "little")).zfill(40)[:40]
    zf.write_record(f"{archive}/.data/serialization_id", serial.encode())
    zf.close()
