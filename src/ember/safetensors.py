"""`ember.safetensors`: the safetensors format for programs that import ember directly, with the
API of `safetensors.torch` (save, load, save_file, load_file, save_model, load_model), over the
safetensors package's own serializer (loaded on first use). Programs that `import torch` under
`python -m ember.run` can use `safetensors.torch` itself: it runs on ember's tensors.

Files are written to a temporary name beside the target and renamed into place.
"""
from __future__ import annotations

import os
import tempfile

import numpy as np

__all__ = ["load", "load_file", "load_model", "save", "save_file", "save_model"]

# safetensors' header names of ember's dtypes.
_HEADER_NAMES = {"float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16",
                 "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8",
                 "bool": "BOOL", "complex64": "C64", "uint64": "U64", "uint32": "U32",
                 "uint16": "U16", "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2",
                 "float8_e4m3fnuz": "F8_E4M3FNUZ", "float8_e5m2fnuz": "F8_E5M2FNUZ"}
_DTYPES = {v: k for k, v in _HEADER_NAMES.items()}


def _specs(tensors: dict, keep_alive: list) -> dict:
    from safetensors import TensorSpec

    import ember
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    specs = {}
    for name, t in tensors.items():
        if not isinstance(t, ember.Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received "
                             f"{type(t)}")
        if t.layout != ember.strided:
            raise ValueError(f"You are trying to save a sparse tensor: `{name}` which this "
                             "library does not support. You can make it a dense tensor before "
                             "saving with `.to_dense()` but be aware this might make a much "
                             "larger file than needed.")
        dtype_name = str(t.dtype).split(".")[1]
        if dtype_name not in _HEADER_NAMES:
            raise ValueError(f"safetensors cannot store dtype {t.dtype}")
        array = np.ascontiguousarray(t.detach().cpu()._data)
        keep_alive.append(array)
        specs[name] = TensorSpec(dtype=dtype_name, shape=list(array.shape),
                                 data_ptr=array.ctypes.data, data_len=array.nbytes)
    return specs


def save(tensors: dict, metadata=None) -> bytes:
    """The safetensors bytes of a dict of tensors."""
    from safetensors import serialize
    keep_alive: list = []
    return bytes(serialize(_specs(tensors, keep_alive), metadata=metadata))


def save_file(tensors: dict, filename, metadata=None) -> None:
    """Write a dict of tensors to `filename` in the safetensors format."""
    data = save(tensors, metadata)
    path = os.fspath(filename)
    fd, temporary = tempfile.mkstemp(prefix=".ember-save-",
                                     dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def load(data: bytes) -> dict:
    """The tensors of safetensors bytes."""
    from safetensors import deserialize

    import ember
    result = {}
    for name, entry in deserialize(data):
        dtype = getattr(ember, _DTYPES[entry["dtype"]])
        shape = entry["shape"]
        if len(entry["data"]) == 0:
            result[name] = ember.empty(shape, dtype=dtype)
        else:
            result[name] = ember.frombuffer(entry["data"], dtype=dtype).reshape(shape)
    return result


def load_file(filename, device="cpu") -> dict:
    """The tensors stored in a safetensors file (on `device`)."""
    with open(os.fspath(filename), "rb") as stream:
        tensors = load(stream.read())
    if str(device) != "cpu":
        tensors = {k: v.to(device) for k, v in tensors.items()}
    return tensors


def save_model(model, filename, metadata=None, force_contiguous: bool = False) -> None:
    """Save `model.state_dict()`; tensors sharing memory are stored once, as
    safetensors.torch does."""
    state = model.state_dict()
    seen: dict = {}
    unique = {}
    for name, t in state.items():
        key = (t.data_ptr(), tuple(t.shape), t.dtype)
        if key in seen:
            continue
        seen[key] = name
        unique[name] = t.contiguous() if force_contiguous else t
    save_file(unique, filename, metadata)


def load_model(model, filename, strict: bool = True, device="cpu"):
    """Load a file written by `save_model` into `model`; returns (missing, unexpected)."""
    state = load_file(filename, device)
    missing, unexpected = model.load_state_dict(state, strict=False)
    names = set(state)
    by_data = {}
    for name, t in model.state_dict().items():
        by_data.setdefault((t.data_ptr(), tuple(t.shape), t.dtype), []).append(name)
    # A key left out because it shared memory with a saved one is not missing.
    missing = [k for k in missing
               if not any(other in names for group in by_data.values() if k in group
                          for other in group)]
    if strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict for {model.__class__.__name__}:\n"
                           f"\tMissing key(s) in state_dict: {missing}\n"
                           f"\tUnexpected key(s) in state_dict: {unexpected}")
    return missing, unexpected
