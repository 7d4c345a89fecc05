"""Reading checkpoints: storage records checked and read from the zip (or mapped from the file
with mmap=True), tensors rebuilt over them inside their bounds, the user's safe globals, and the
unpickler of `weights_only=False` (PyTorch's global names mapped to ember's). The weights-only
unpickler and PyTorch's allow-list: weights_only.py."""
from __future__ import annotations

import pickle

import numpy as np

from ember._checkpoint.torch_names import ember_object, torch_name
from ember._core.checks import _check, _check_type

_safe_globals: dict = {}


def add_safe_globals(safe_globals) -> None:
    """Allow these classes/functions (or (object, "module.name") pairs) in weights-only
    loading."""
    for item in safe_globals:
        if isinstance(item, tuple):
            obj, name = item
        else:
            obj, name = item, f"{item.__module__}.{item.__qualname__}"
            # Files name ember's classes by PyTorch's paths (NOTE [PyTorch's module paths]).
            theirs = torch_name(item.__module__, item.__qualname__)
            if theirs is not None:
                _safe_globals[".".join(theirs)] = obj
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


# NOTE [checked tensor extents]: a file's size, stride and offset become an `as_strided` view of
# the record's bytes, which NumPy does not bound: every element a tensor can reach must lie inside
# its storage record, checked in Python ints (no overflow) before any view or array is built.
# Records themselves are checked against the bytes the file holds before they are read or
# allocated (zip: `_record_offsets` and `_check_record`; legacy: `legacy._LegacyStorages`).
_INT64_MAX = 2**63 - 1


def _check_extent(size, stride, storage_offset, itemsize: int, nbytes: int) -> int:
    """The element count of a tensor over a storage of `nbytes` bytes, after checking that
    every element it reaches is in the storage (RuntimeError as PyTorch's when not)."""
    _check_type(type(size) in (tuple, list) and type(stride) in (tuple, list)
                and all(type(n) is int for n in (*size, *stride))
                and type(storage_offset) is int,
                lambda: f"tensor record has size {size!r}, stride {stride!r} and offset "
                        f"{storage_offset!r}; expected tuples of ints and an int")
    _check(len(size) == len(stride),
           lambda: f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    _check(storage_offset >= 0, lambda: f"Tensor: invalid storage offset {storage_offset}")
    numel = 1
    for n in size:
        numel *= n
        _check(n >= 0 and numel <= _INT64_MAX, "numel: integer multiplication overflow")
    if numel == 0:
        return 0
    last = storage_offset
    for n, step in zip(size, stride):
        _check(step >= 0, lambda: "Storage size calculation overflowed with "
                                  f"sizes={list(size)} and strides={list(stride)}")
        last += (n - 1) * step
    _check((last + 1) * itemsize <= _INT64_MAX,
           lambda: f"Storage size calculation overflowed with sizes={list(size)} and "
                   f"strides={list(stride)}")
    _check((last + 1) * itemsize <= nbytes, "Trying to resize storage that is not resizable")
    return numel


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False,
                    backward_hooks=None, metadata=None, dtype=None):
    import ember
    from ember._core import dispatch
    from ember._core.device import CPU
    _check_type(type(storage) is LoadedStorage,
                lambda: f"tensor record has storage {type(storage).__name__}, not a storage")
    dtype_obj = getattr(ember, storage.dtype_name) if dtype is None else dtype
    _check_type(isinstance(dtype_obj, ember.dtype),
                lambda: f"tensor record has dtype {dtype_obj!r}, not an ember.dtype")
    payload = storage.payload
    np_dtype = np.dtype(dtype_obj._np)
    itemsize = np_dtype.itemsize
    usable = len(payload) - len(payload) % itemsize
    numel = _check_extent(size, stride, storage_offset, itemsize, usable)
    # NOTE [checked tensor extents]: from here on the view stays inside `payload`.
    flat = np.frombuffer(payload, dtype=np.uint8)[:usable].view(np_dtype) if usable else \
        np.zeros(0, np_dtype)
    if numel:
        array = np.lib.stride_tricks.as_strided(
            flat[storage_offset:], shape=tuple(size),
            strides=tuple(s * itemsize for s in stride))
    else:
        array = np.zeros(tuple(size), np_dtype)
    t = dispatch.wrap(array, dtype_obj, CPU)
    if array.size:
        t._storage = storage.shared(flat)
    if storage.location != "cpu":
        t = _restored(t, storage.location)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params,
                     requires_grad=False, backward_hooks=None):
    """PyTorch's record of a quantized tensor: its integers (a QUInt8Storage ...) and the
    quantizer (NOTE [quantized tensors])."""
    import ember
    from ember._core.dispatch.quantized import STORED, QuantizedData, make_quantized
    _check_type(type(storage) is LoadedStorage and storage.dtype_name in STORED,
                lambda: f"quantized tensor record has storage {storage!r}, not a quantized "
                        "storage")
    _check_type(isinstance(quantizer_params, tuple) and quantizer_params,
                lambda: f"quantized tensor record has quantizer {quantizer_params!r}")
    np_dtype = np.dtype(STORED[storage.dtype_name])
    payload = storage.payload
    usable = len(payload) - len(payload) % np_dtype.itemsize
    numel = _check_extent(size, stride, storage_offset, np_dtype.itemsize, usable)
    flat = np.frombuffer(payload, dtype=np.uint8)[:usable].view(np_dtype)
    array = np.lib.stride_tricks.as_strided(
        flat[storage_offset:], shape=tuple(size),
        strides=tuple(s * np_dtype.itemsize for s in stride)).copy() if numel else \
        np.zeros(tuple(size), np_dtype)
    scheme = getattr(quantizer_params[0], "name", None)
    if scheme in ("per_tensor_affine", "per_tensor_symmetric"):
        _, scale, zero_point = quantizer_params
        data = QuantizedData(array, "per_tensor_affine", float(scale), int(zero_point))
    elif scheme in ("per_channel_affine", "per_channel_affine_float_qparams"):
        _, scales, zero_points, axis = quantizer_params
        data = QuantizedData(array, scheme, np.asarray(scales.double().numpy()),
                             np.asarray(zero_points.numpy()), int(axis))
    else:
        raise RuntimeError(f"Can't deserialize quantized tensor with qscheme {scheme}")
    t = make_quantized(data, getattr(ember, storage.dtype_name))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _restored(t, location: str):
    """`t` (read on the host) on the device it was saved from (load without map_location)."""
    import ember
    device = ember.device(location)
    if device.type == "cuda" and not ember.cuda.is_available():
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but ember.cuda.is_available() is "
            "False. If you are running on a CPU-only machine, please use ember.load with "
            "map_location=ember.device('cpu') to map your storages to the CPU.")
    return t.to(device)


class LoadedStorage:
    """A storage record as the unpickler hands it to `_rebuild_tensor`: its bytes, its typed
    dtype, and the one `UntypedStorage` every tensor rebuilt over it shares (so views loaded
    together stay views). One per record per load: concurrent loads share nothing."""

    __slots__ = ("dtype_name", "location", "payload", "storage")

    def __init__(self, payload, dtype_name: str, location: str = "cpu") -> None:
        self.payload = payload
        self.dtype_name = dtype_name
        self.storage = None
        self.location = location     # the device its tensors are restored to ("cpu": none)

    def shared(self, flat):
        if self.storage is None:
            from ember._core.storage import UntypedStorage
            self.storage = UntypedStorage(flat)
        return self.storage


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    return _rebuild_tensor(storage, storage_offset, size, stride, requires_grad,
                           backward_hooks, metadata, dtype=dtype)


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from ember.nn.parameter import Parameter
    param = Parameter(data, requires_grad)
    if state:
        set_loaded_attributes(param, state)
    return param


def set_loaded_attributes(param, state) -> None:
    """A loaded Parameter's extra attributes (PyTorch saves them as its state). Names starting
    with `_` and names the class defines are refused: they are ember's own (its storage, dtype,
    version counter, methods), and a file setting them could make the tensor lie about its
    bytes."""
    if not isinstance(state, dict):
        raise pickle.UnpicklingError(f"Parameter state must be a dict, not "
                                     f"{type(state).__name__}")
    for key, value in state.items():
        if not isinstance(key, str) or key.startswith("_") or hasattr(type(param), key):
            raise pickle.UnpicklingError(f"a checkpoint may not set the attribute {key!r} of "
                                         "a Parameter")
        param.__dict__[key] = value


def _rebuild_from_type_v2(function, new_type, args, state):
    """PyTorch's record of a tensor of a subclass or with attributes of its own (a lazy
    module's buffers): the tensor `function(*args)` builds, as `new_type`, with `state`
    restored. Read with weights_only=False only (the file is trusted)."""
    tensor = function(*args)
    if type(tensor) is not new_type:
        tensor = tensor.as_subclass(new_type)
    setstate = getattr(type(tensor), "__setstate__", None)
    if setstate is not None and getattr(setstate, "__qualname__", "").split(".")[0] not in (
            "Tensor", "object"):
        setstate(tensor, state)
        return tensor
    attributes, slots = state if isinstance(state, tuple) else (state, None)
    if attributes:
        tensor.__dict__.update(attributes)
    for key, value in (slots or {}).items():
        setattr(tensor, key, value)
    return tensor


# Globals of PyTorch's files that only weights_only=False reads.
_TRUSTED_GLOBALS = {("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2}


def _layout_named(name):
    """`torch.serialization._get_layout("torch.sparse_coo")`: ember's layout of that name."""
    import ember
    layout = getattr(ember, name.rpartition(".")[2], None)
    _check_type(isinstance(layout, ember.layout), lambda: f"unknown layout {name}")
    return layout


def _rebuild_sparse_tensor(layout, data):
    """PyTorch's sparse record: (indices, values, size[, is_coalesced]) for COO,
    (crow_indices, col_indices, values, size) for CSR (ccol_indices, row_indices for CSC)."""
    from ember._ops.sparse import rebuild_sparse
    if layout.name in ("sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"):
        return rebuild_sparse(layout.name, data[:3], data[3])
    _check_type(layout.name == "sparse_coo", lambda: f"unsupported sparse layout {layout}")
    return rebuild_sparse("sparse_coo", data[:2], data[2], data[3] if len(data) > 3 else False)


class _StorageType:
    """A storage class of the file (`torch.FloatStorage` ...): the dtype its records hold."""

    def __init__(self, dtype_name) -> None:
        self.dtype_name = dtype_name

    def itemsize(self) -> int:
        import ember
        return getattr(ember, self.dtype_name).itemsize


def _ascii(text):
    """A persistent id's tag as text (files read with encoding="bytes" give bytes)."""
    return text.decode("ascii", "replace") if isinstance(text, bytes) else text


def _python3_name(module: str, name: str):
    """Python 2's module and global names (protocol 2 writes `__builtin__`) as Python 3's."""
    import _compat_pickle
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _check_storage_id(pid, length: int):
    """The fields of a storage persistent id, checked: (storage type, key, location, numel)."""
    if len(pid) != length:
        raise pickle.UnpicklingError(f"storage persistent id has {len(pid)} fields, "
                                     f"expected {length}")
    storage_type, key, location, numel = pid[1], _ascii(pid[2]), _ascii(pid[3]), pid[4]
    if type(storage_type) is not _StorageType:
        raise pickle.UnpicklingError(f"storage persistent id names {storage_type!r}, not a "
                                     "storage class")
    _check_type(isinstance(key, str) and isinstance(location, str) and type(numel) is int,
                lambda: f"storage persistent id {pid!r} has a malformed key, location or size")
    _check(numel >= 0, lambda: f"storage {key} declares {numel} elements")
    return storage_type, key, location, numel


def _check_record(record_size: int, nbytes: int) -> None:
    # PyTorch's words; its records are untyped, hence "1 bytes/element".
    _check(record_size == nbytes,
           lambda: f"record size ({record_size} bytes) does not match expected size ({nbytes} "
                   f"bytes = {nbytes} elements * 1 bytes/element) for dtype Byte")


class _ZipStorages:
    """The storages of one zip checkpoint, as the unpickler asks for them (persistent ids);
    a record's size is checked against the one its id declares before it is read."""

    def __init__(self, record_size, record, restore_devices: bool) -> None:
        self.record_size = record_size
        self.record = record
        self.restore_devices = restore_devices
        self.loaded: dict = {}

    def __call__(self, pid):
        if not (isinstance(pid, tuple) and pid and _ascii(pid[0]) == "storage"):
            raise pickle.UnpicklingError(f"Unknown persistent id {pid!r}")
        storage_type, key, location, numel = _check_storage_id(pid, 5)
        found = self.loaded.get(key)
        if found is None:
            _check_record(self.record_size(key), numel * storage_type.itemsize())
            where = location if self.restore_devices else "cpu"
            found = self.loaded[key] = LoadedStorage(self.record(key), storage_type.dtype_name,
                                                     where)
        return found


def _torch_global(module: str, name: str):
    """What a `torch.*` global means in ember with weights_only=False: PyTorch's allowed names
    first, then the `ember.*` object of the same path (None when there is none)."""
    import ember
    from ember._checkpoint.weights_only import allowed_globals
    found = allowed_globals().get(f"{module}.{name}")
    if found is not None:
        return found
    if module == "torch":
        value = getattr(ember, name, None)
        if isinstance(value, (ember.dtype, ember.layout)):
            return value
    trusted = _TRUSTED_GLOBALS.get((module, name))
    return trusted if trusted is not None else ember_object(module, name)


class _Unpickler(pickle.Unpickler):
    """The unpickler of `weights_only=False`: any global (the file is trusted), `torch.*` names
    mapped to ember's."""

    def __init__(self, file, persistent, **kwargs) -> None:
        super().__init__(file, **kwargs)
        self._persistent = persistent

    def find_class(self, module, name):
        module, name = _python3_name(module, name)
        if module.startswith("torch"):
            found = _torch_global(module, name)
            if found is not None:
                return found
        allowed = _safe_globals.get(f"{module}.{name}")
        if allowed is not None:
            return allowed
        if module == "torch" or module.startswith("torch."):
            module = "ember" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return self._persistent(pid)


def make_unpickler(file, persistent, weights_only: bool, pickle_load_args: dict):
    """The unpickler for one pickle of a checkpoint: NOTE [weights-only unpickling] when
    `weights_only`, else the C unpickler with `pickle_load_args`."""
    if weights_only:
        from ember._checkpoint.weights_only import WeightsOnlyUnpickler
        # Only `encoding` applies (others are a TypeError, as PyTorch's).
        return WeightsOnlyUnpickler(file, persistent, **pickle_load_args)
    return _Unpickler(file, persistent, **pickle_load_args)


# Deflate expands at most about 1032 to 1: a compressed record may not claim more.
_MAX_DEFLATE_RATIO = 1032


def _record_offsets(whole, zf) -> dict:
    """name -> (data offset in the file, size) of every stored (uncompressed) record; `whole`
    is the file's bytes (or a mapping of it)."""
    import struct
    offsets = {}
    for info in zf.infolist():
        if info.compress_type != 0:
            continue
        start = info.header_offset
        if start < 0 or start + 30 > len(whole):
            raise EOFError(f"record {info.filename} is truncated")
        name_len, extra_len = struct.unpack("<HH", bytes(whole[start + 26:start + 30]))
        data_start = start + 30 + name_len + extra_len
        if data_start + info.file_size > len(whole):
            raise EOFError(f"record {info.filename} is truncated")
        offsets[info.filename] = (data_start, info.file_size)
    return offsets


def read_archive(source, weights_only: bool, pickle_load_args: dict, mmap_path=None,
                 whole=None, restore_devices=False, opened=None):
    """Unpickle the checkpoint in the zip `source`. Storages are views of `whole` (the file's
    bytes, already in memory) when given, mapped copy-on-write from `mmap_path` with mmap=True,
    else read record by record. `opened` runs once the zip's directory has been read."""
    import io
    import zipfile
    zf = zipfile.ZipFile(source)
    if opened is not None:
        opened()
    with zf:
        names = zf.namelist()
        pickles = [n for n in names if n.endswith("data.pkl")]
        if not pickles:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not "
                               "found")
        prefix = pickles[0][:-len("data.pkl")]
        byteorder = prefix + "byteorder"
        if byteorder in names and zf.read(byteorder).decode() not in ("little", ""):
            raise RuntimeError("ember.load reads little-endian checkpoints only")
        if mmap_path is not None:
            import mmap
            with open(mmap_path, "rb") as stream:
                mapped = mmap.mmap(stream.fileno(), 0, flags=mmap.MAP_PRIVATE,
                                   prot=mmap.PROT_READ | mmap.PROT_WRITE)
            whole = mapped
        offsets = _record_offsets(whole, zf) if whole is not None else {}
        view = memoryview(whole) if whole is not None else None

        def info_of(key):
            return zf.getinfo(f"{prefix}data/{key}")      # KeyError: named by ember.load

        def record_size(key):
            info = info_of(key)
            # NOTE [checked tensor extents]: a compressed record may not claim more bytes
            # than its compressed ones can expand to; a stored one lies inside the file.
            _check(info.compress_type == 0
                   or info.file_size <= _MAX_DEFLATE_RATIO * max(info.compress_size, 1),
                   lambda: f"record data/{key} claims {info.file_size} bytes from "
                           f"{info.compress_size} compressed ones")
            return info.file_size

        def record(key):
            found = offsets.get(f"{prefix}data/{key}")
            if found is None:
                return bytearray(zf.read(info_of(key)))
            start, size = found
            return view[start:start + size]

        pickled = zf.read(pickles[0])
        storages = _ZipStorages(record_size, record, restore_devices)
        return make_unpickler(io.BytesIO(pickled), storages, weights_only,
                              pickle_load_args).load()
