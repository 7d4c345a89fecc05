"""`ember.save` / `ember.load` in PyTorch's checkpoint format, so files pass both ways between
ember and PyTorch.

The format, and how ember writes PyTorch's global names without importing torch: NOTE
[checkpoint format] in `_checkpoint/__init__.py`; the pre-1.6 (non-zip) format is read too.

`load` defaults to `weights_only=True`, as PyTorch 2.6+ does: only tensors, containers, numbers,
strings, dtypes, sizes and devices (plus `add_safe_globals`) may be unpickled. With
`weights_only=False`, other `torch.*` globals resolve to the `ember.*` objects of the same path.
A path is written atomically (NOTE [atomic save] in _checkpoint/atomic_write.py): the old file
or the whole new one, with open()'s mode, through symlinks, leaving nothing after a kill.
"""
from __future__ import annotations

import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np

from ember._checkpoint.atomic_write import replace_file
from ember._checkpoint.reader import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    read_archive,
    safe_globals,
)
from ember._checkpoint.writer import write_archive

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals",
           "save"]


def save(obj, f, pickle_module=pickle, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save `obj` (tensors, state dicts, any picklable object) to a path or a writable binary
    file object, in PyTorch's zip checkpoint format."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("ember writes only the zip checkpoint format "
                                  "(_use_new_zipfile_serialization=True)")
    if not isinstance(f, (str, os.PathLike)):
        write_archive(obj, f, "archive", pickle_protocol)
        return
    path = os.fspath(f)
    archive = os.path.splitext(os.path.basename(path))[0] or "archive"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    if os.path.isdir(path):
        raise RuntimeError(f"invalid file name: {path} (a directory)")
    # A failed, interrupted or killed save leaves the old file whole and nothing beside it
    # (NOTE [atomic save] in _checkpoint/atomic_write.py).
    replace_file(path, lambda stream: write_archive(obj, stream, archive, pickle_protocol))


# What PyTorch raises for a file that is no checkpoint (it hands it to pickle), and a
# RuntimeError like ember's other unreadable checkpoints: either class catches them.
class _EmptyCheckpoint(RuntimeError, EOFError):
    pass


class _NotACheckpoint(RuntimeError, pickle.UnpicklingError):
    pass


class _MmapNeedsPath(ValueError):
    pass


def _check_pickle_arguments(pickle_module, weights_only, pickle_load_args):
    """The TypeError the unpickler PyTorch hands `pickle_load_args` to gives for a keyword it
    does not take (the weights-only one takes only `encoding`, pickle's also `fix_imports`,
    `errors` and `buffers`); raised where PyTorch first unpickles, after the file is open."""
    if pickle_module not in (None, pickle):
        return
    allowed = ("encoding",) if weights_only else ("encoding", "fix_imports", "errors", "buffers")
    for name in pickle_load_args:
        if name not in allowed:
            raise TypeError(f"load() got an unexpected keyword argument '{name}'")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Load an object saved by `ember.save` or `torch.save`. `weights_only` (default True)
    refuses any global but tensors, containers and plain values (NOTE [weights-only
    unpickling]); `mmap=True` maps the storages from the file instead of reading them."""
    import ember
    from ember._checkpoint.weights_only import failure_message, resolve_weights_only
    weights_only = resolve_weights_only(weights_only, pickle_module, pickle_load_args)
    pickle_load_args.setdefault("encoding", "utf-8")
    is_path = isinstance(f, (str, os.PathLike))
    name = os.fspath(f) if is_path else getattr(f, "name", repr(f))
    opened = None
    try:
        whole = data = None
        if is_path:
            source = opened = open(os.fspath(f), "rb")
            if not mmap:
                # The file's bytes, read once into memory the storages then view: an
                # uninitialised buffer (bytearray(n) would write zeros first), and the zip's
                # directory and pickle read from the file itself (a BytesIO of the buffer
                # would copy it).
                size = os.fstat(opened.fileno()).st_size
                whole = data = np.empty(size, np.uint8)
                if opened.readinto(memoryview(whole)) != size:
                    raise EOFError("the file changed size while it was read")
                opened.seek(0)
        else:
            source = f
        start = source.tell()
        head = source.read(4)
        source.seek(start)
        if head != b"PK\x03\x04":       # (a zip starts with a local file header, as PyTorch tests)
            # PyTorch's order: mmap's refusal, the unpickler's keywords, then the bytes.
            if mmap:
                raise RuntimeError("mmap can only be used with files saved with `ember.save("
                                   f"{name}, _use_new_zipfile_serialization=True)`, please "
                                   "save your checkpoint with this option in order to use mmap.")
            _check_pickle_arguments(pickle_module, weights_only, pickle_load_args)
            if head[:1] != b"\x80":         # neither a zip nor a pickle
                raise (_EmptyCheckpoint if not head else _NotACheckpoint)(
                    f"ember.load could not read the checkpoint {name}: "
                    f"{'it is empty' if not head else 'it is neither a zip nor a pickle'}")
            from ember._checkpoint.legacy import read_legacy
            result = read_legacy(source, weights_only, pickle_load_args)
        else:
            def zip_open():                 # (what PyTorch checks once the zip is open)
                if mmap and not is_path:
                    raise _MmapNeedsPath("f must be a file path in order to use the mmap "
                                         "argument")
                _check_pickle_arguments(pickle_module, weights_only, pickle_load_args)

            # Storages of a file read whole are views of its bytes: no copy per record.
            result = read_archive(source, weights_only, pickle_load_args,
                                  mmap_path=os.fspath(f) if mmap and is_path else None,
                                  whole=None if mmap else whole,
                                  restore_devices=map_location is None,
                                  opened=zip_open)
    except pickle.UnpicklingError as exc:
        if not weights_only or isinstance(exc, _NotACheckpoint):
            raise
        raise pickle.UnpicklingError(failure_message(str(exc))) from None
    except (zipfile.BadZipFile, EOFError, KeyError, ValueError, OSError) as exc:
        if isinstance(exc, (FileNotFoundError, IsADirectoryError, PermissionError,
                            _EmptyCheckpoint, _MmapNeedsPath)) or is_path and opened is None:
            raise                       # (and open()'s own errors: a path with a NUL byte)
        reason = "it is empty" if data is not None and len(data) == 0 else \
            f"{type(exc).__name__}: {exc}"
        raise RuntimeError(f"ember.load could not read the checkpoint {name}: {reason} (the "
                           "file is truncated, corrupt, or not a checkpoint)") from exc
    finally:
        if opened is not None:
            opened.close()
    if map_location is not None:
        result = _map_location(result, map_location, ember)
    return result


def _map_location(obj, map_location, ember):
    def move(t):
        if callable(map_location) and not isinstance(map_location, (str, ember.device)):
            moved = map_location(t, "cpu")
            return t if moved is None else moved
        target = map_location.get("cpu", "cpu") if isinstance(map_location, dict) \
            else map_location
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
