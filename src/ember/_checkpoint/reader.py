"""Reading checkpoints: the unpickler that maps PyTorch's global names to ember's (refusing
everything else under weights_only), storages read from the zip records (or mapped from the
file with mmap=True), and the weights-only allow-list."""
from __future__ import annotations

import pickle
from collections import OrderedDict

import numpy as np

from ember._checkpoint.writer import _STORAGE_DTYPES
from ember._core.checks import _check_type

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
    payload = storage.payload
    dtype_obj = getattr(ember, dtype if dtype is not None else storage.dtype_name)
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
        t._storage = storage.shared(flat)
    if storage.location != "cpu":
        t = _restored(t, storage.location)
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
                           backward_hooks, metadata, dtype=str(dtype).split(".")[1])


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from ember.nn.parameter import Parameter
    param = Parameter(data, requires_grad)
    if state:
        param.__dict__.update(state)
    return param


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
    def __init__(self, dtype_name) -> None:
        self.dtype_name = dtype_name


def _torch_global(module: str, name: str):
    """What a `torch.*` global of a checkpoint means in ember (None when unknown)."""
    import ember
    if module == "torch._utils":
        table = {"_rebuild_tensor_v2": _rebuild_tensor, "_rebuild_tensor_v3": _rebuild_tensor_v3,
                 "_rebuild_parameter": _rebuild_parameter,
                 "_rebuild_parameter_with_state": _rebuild_parameter,
                 "_rebuild_sparse_tensor": _rebuild_sparse_tensor}
        return table.get(name)
    if module == "torch" and name in _STORAGE_DTYPES:
        return _StorageType(_STORAGE_DTYPES[name])
    if module == "torch.storage" and name == "UntypedStorage":
        return _StorageType("uint8")
    if module == "torch.serialization" and name == "_get_layout":
        return _layout_named
    if module == "torch" and name == "Size":
        return ember.Size
    if module == "torch" and name == "device":
        return ember.device
    if module == "torch":
        value = getattr(ember, name, None)
        if isinstance(value, (ember.dtype, ember.layout)):
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
    def __init__(self, file, records, weights_only: bool, restore_devices=False,
                 **kwargs) -> None:
        super().__init__(file, **kwargs)
        self.records = records
        self.weights_only = weights_only
        self.restore_devices = restore_devices   # put tensors back on their saved devices
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
        _, storage_type, key, location, _numel = pid
        found = self.loaded.get(key)
        if found is None:
            dtype_name = storage_type.dtype_name if isinstance(storage_type, _StorageType) \
                else "uint8"
            where = location if self.restore_devices and isinstance(location, str) else "cpu"
            found = self.loaded[key] = LoadedStorage(self.records(key), dtype_name, where)
        return found


def _record_offsets(whole, zf) -> dict:
    """name -> (data offset in the file, size) of every stored (uncompressed) record; `whole`
    is the file's bytes (or a mapping of it)."""
    import struct
    offsets = {}
    for info in zf.infolist():
        if info.compress_type != 0:
            continue
        start = info.header_offset
        name_len, extra_len = struct.unpack("<HH", bytes(whole[start + 26:start + 30]))
        data_start = start + 30 + name_len + extra_len
        if data_start + info.file_size > len(whole):
            raise EOFError(f"record {info.filename} is truncated")
        offsets[info.filename] = (data_start, info.file_size)
    return offsets


def read_archive(source, weights_only: bool, pickle_load_args: dict, mmap_path=None,
                 whole=None, restore_devices=False):
    """Unpickle the checkpoint in the zip `source`. Storages are views of `whole` (the file's
    bytes, already in memory) when given, mapped copy-on-write from `mmap_path` with mmap=True,
    else read record by record."""
    import io
    import zipfile
    zf = zipfile.ZipFile(source)
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
        if whole is not None:
            offsets = _record_offsets(whole, zf)
            view = memoryview(whole)

            def record(key):
                name = f"{prefix}data/{key}"
                found = offsets.get(name)
                if found is None:
                    return bytearray(zf.read(name))
                start, size = found
                return view[start:start + size]
        else:
            def record(key):
                return bytearray(zf.read(f"{prefix}data/{key}"))
        unpickler = _Unpickler(io.BytesIO(zf.read(pickles[0])), record, weights_only,
                               restore_devices, **pickle_load_args)
        return unpickler.load()
