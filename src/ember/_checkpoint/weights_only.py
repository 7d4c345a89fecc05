"""The weights-only unpickler: PyTorch's allow-list of globals by name, and an opcode table
that builds only tensors, containers and plain values. Every pickle `ember.load` reads with
`weights_only=True` (zip and legacy formats alike) goes through it."""
from __future__ import annotations

import codecs
import os
import pickle
import warnings
from collections import Counter, OrderedDict
from functools import lru_cache

from ember._checkpoint import reader
from ember._checkpoint.writer import _STORAGE_DTYPES

# NOTE [weights-only unpickling]: the C unpickler lets a file run BUILD (set any attribute of
# anything on the stack, classes and interned objects such as dtypes and devices included),
# INST/OBJ/NEWOBJ on any class, and many opcodes PyTorch's weights-only loader refuses. Overriding
# find_class alone therefore does not make a file harmless. This unpickler is the pure-Python
# one with a dispatch table holding only the opcodes PyTorch 2.13's weights-only loader accepts;
# the opcodes that call or mutate (REDUCE, NEWOBJ, BUILD, APPEND(S), SETITEM(S), BINPERSID) are
# replaced by versions that check their target, so nothing but fresh containers and tensors is
# ever changed. The allow-list is PyTorch's, by name: a name PyTorch refuses, ember refuses.

# Modules no add_safe_globals can open (as PyTorch).
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

# Names PyTorch allows that ember has no equivalent for: refused with their own message, so
# that a file PyTorch can load is not reported as hostile.
_UNSUPPORTED_PREFIXES = ("torch.cuda.sparse.", "torch.sparse.", "torch.QUInt4x2", "torch.QUInt2x4",
                         "torch.quint4x2", "torch.quint2x4", "torch.bits",
                         "torch.float8_e8m0fnu", "torch.float4_")
_UNSUPPORTED = {
    "torch._tensor._rebuild_from_type_v2", "torch.storage.TypedStorage",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor",
    "torch._utils._rebuild_device_tensor_from_numpy",
    "torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_nested_tensor",
    "torch._utils._rebuild_wrapper_subclass",
}
_TENSOR_CLASSES = ("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "BFloat16",
                   "Bool")
_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
                "float16", "bfloat16", "float32", "float64", "complex32", "complex64",
                "complex128", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                "int1", "int2", "int3", "int4", "int5", "int6", "int7",
                "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
                "qint8", "quint8", "qint32")


def _bytearray(*args):
    """`bytearray` for files: built from saved bytes, never from a count in the file."""
    if args and type(args[0]) is int:
        raise pickle.UnpicklingError("bytearray(n) in a checkpoint would allocate n bytes the "
                                     "file does not hold")
    return bytearray(*args)


@lru_cache(maxsize=1)
def allowed_globals() -> dict:
    """PyTorch's weights-only globals, by full name, mapped to what they mean in ember."""
    import ember
    from ember.nn.parameter import Parameter
    table = {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": reader._layout_named,
        "torch.Size": ember.Size, "torch.Tensor": ember.Tensor, "torch.device": ember.device,
        "_codecs.encode": codecs.encode, "builtins.bytearray": _bytearray,
        "builtins.set": set, "builtins.complex": complex,
        "torch._utils._rebuild_tensor": reader._rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": reader._rebuild_tensor,
        "torch._utils._rebuild_tensor_v3": reader._rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": reader._rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": reader._rebuild_parameter,
        "torch._utils._rebuild_sparse_tensor": reader._rebuild_sparse_tensor,
        "torch._utils._rebuild_qtensor": reader._rebuild_qtensor,
        "torch.storage.UntypedStorage": reader._StorageType("uint8"),
    }
    for name in _DTYPE_NAMES:
        if isinstance(getattr(ember, name, None), ember.dtype):
            table[f"torch.{name}"] = getattr(ember, name)
    from ember._dtypes_unsupported import QSCHEMES
    for name, scheme in QSCHEMES.items():
        table[f"torch.{name}"] = scheme
    for storage_class, dtype_name in _STORAGE_DTYPES.items():
        table[f"torch.{storage_class}"] = reader._StorageType(dtype_name)
        if not storage_class.startswith("Q"):      # (PyTorch has no CUDA quantized storages)
            table[f"torch.cuda.{storage_class}"] = reader._StorageType(dtype_name)
    return table


def _known_unsupported(full_name: str) -> bool:
    if full_name in _UNSUPPORTED or full_name.startswith(_UNSUPPORTED_PREFIXES):
        return True
    for prefix in ("torch.", "torch.cuda."):
        kind = full_name[len(prefix):] if full_name.startswith(prefix) else ""
        if kind.endswith("Tensor") and kind[:-len("Tensor")] in _TENSOR_CLASSES:
            return True
    return full_name.startswith("torch.") and full_name[6:] in _DTYPE_NAMES


def _shown_name(full_name: str) -> str:
    # PyTorch names builtins without their module in its messages.
    return full_name[len("builtins."):] if full_name.startswith("builtins.") else full_name


def resolve_global(module: str, name: str, user_globals: dict):
    """The object a weights-only GLOBAL `module.name` loads, or UnpicklingError."""
    full_name = f"{module}.{name}"
    if module in _BLOCKED_MODULES:
        raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full_name} whose "
                                     f"module {module} is blocked.")
    found = allowed_globals().get(full_name)
    if found is None:
        found = user_globals.get(full_name)
    if found is not None:
        return found
    if _known_unsupported(full_name):
        raise pickle.UnpicklingError(f"GLOBAL {full_name} is allowed by PyTorch's weights-only "
                                     "loader but ember cannot load it")
    shown = _shown_name(full_name)
    raise pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`ember.serialization.add_safe_globals([{shown}])` or the "
        f"`ember.serialization.safe_globals([{shown}])` context manager to allowlist this global "
        "if you trust this class/function.")


@lru_cache(maxsize=1)
def _allowed_ids() -> frozenset:
    # By identity: an object equal to an allowed one must not pass as it. The table's objects
    # live as long as the process, so their ids stay theirs.
    return frozenset(id(v) for v in allowed_globals().values())


def _load_reduce(self) -> None:
    stack = self.stack
    args = stack.pop()
    func = stack[-1]
    if id(func) not in self.allowed_ids:
        raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")
    _refuse_allocation(func, args)
    stack[-1] = func(*args)


@lru_cache(maxsize=1)
def _tensor_classes() -> tuple:
    import ember
    from ember.nn.parameter import Parameter
    return ember.Tensor, Parameter


def _refuse_allocation(cls, args) -> None:
    if isinstance(cls, type) and cls in _tensor_classes():
        if any(type(a) is int for a in args):
            raise pickle.UnpicklingError(f"{cls.__name__}(sizes) in a checkpoint would allocate "
                                         "memory the file does not hold")


def _load_newobj(self) -> None:
    from ember.nn.parameter import Parameter
    args = self.stack.pop()
    cls = self.stack.pop()
    if cls is Parameter:
        self.append(Parameter(*args))
        return
    if not (isinstance(cls, type) and id(cls) in self.allowed_ids):
        raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes "
                                     f"allowlisted via `add_safe_globals` but got {cls!r}")
    _refuse_allocation(cls, args)
    self.append(cls.__new__(cls, *args))


def _load_build(self) -> None:
    import ember
    from ember.nn.parameter import Parameter
    state = self.stack.pop()
    inst = self.stack[-1]
    kind = type(inst)
    if kind is OrderedDict or kind is Counter:
        # Fresh containers of this load: their instance dict is theirs to fill.
        _check_state(isinstance(state, dict), kind, state)
        inst.__dict__.update(state)
    elif kind is Parameter:
        reader.set_loaded_attributes(inst, state)
    elif any(kind is t for t in self.user_globals.values()):
        _build_as_pickle_does(inst, state)       # the user vouched for this type
    elif kind is ember.Tensor:
        raise pickle.UnpicklingError("ember cannot load a Tensor rebuilt from BUILD state "
                                     "(PyTorch's pre-0.4 set_ form)")
    elif any(kind is v for v in allowed_globals().values()):
        # set, complex, bytearray, Size, device: no instance dict, and the slots of interned
        # devices are shared by every tensor, so nothing is set (PyTorch fails here too).
        raise AttributeError(f"'{kind.__module__}.{kind.__name__}' object has no attribute "
                             "'__dict__' and its attributes are not writable")
    else:
        raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                     f"allowlisted via `add_safe_globals`, but got {kind}")


def _check_state(ok: bool, kind, state) -> None:
    if not ok:
        raise pickle.UnpicklingError(f"BUILD state of a {kind.__name__} must be a dict, "
                                     f"not {type(state).__name__}")


def _build_as_pickle_does(inst, state) -> None:
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        inst.__dict__.update(state)
    if slotstate:
        for key, value in slotstate.items():
            setattr(inst, key, value)


def _load_append(self) -> None:
    item = self.stack.pop()
    target = self.stack[-1]
    if type(target) is not list:
        raise pickle.UnpicklingError(f"Can only append to lists, but got {type(target)}")
    target.append(item)


def _load_appends(self) -> None:
    items = self.pop_mark()
    target = self.stack[-1]
    if type(target) is not list:
        raise pickle.UnpicklingError(f"Can only extend lists, but got {type(target)}")
    target.extend(items)


def _check_mapping(self, opcode: str) -> None:
    if type(self.stack[-1]) not in (dict, OrderedDict, Counter):
        raise pickle.UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                     f"collections.Counter, but got {type(self.stack[-1])}")


def _load_setitem(self) -> None:
    value = self.stack.pop()
    key = self.stack.pop()
    _check_mapping(self, "SETITEM")
    self.stack[-1][key] = value


def _load_setitems(self) -> None:
    items = self.pop_mark()
    _check_mapping(self, "SETITEMS")
    target = self.stack[-1]
    for i in range(0, len(items) - 1, 2):
        target[items[i]] = items[i + 1]


def _load_binpersid(self) -> None:
    pid = self.stack.pop()
    if type(pid) is not tuple:
        raise pickle.UnpicklingError(f"persistent_load id must be a storage tuple, but got "
                                     f"{type(pid)}")
    if not pid or reader._ascii(pid[0]) != "storage":
        raise pickle.UnpicklingError("Only persistent_load of storage is allowed, but got "
                                     f"{type(pid[0]) if pid else 'an empty tuple'}")
    self.append(self.persistent_load(pid))


def _load_proto(self) -> None:
    proto = self.read(1)[0]
    if proto != 2:
        warnings.warn(f"Detected pickle protocol {proto} in the checkpoint, which was not the "
                      "default pickle protocol used by `ember.load` (2). The weights_only "
                      "unpickler might not support all instructions of this protocol.",
                      stacklevel=2)
    self.proto = proto


class _Dispatch(dict):
    def __missing__(self, opcode):
        raise pickle.UnpicklingError(f"Unsupported operand {opcode}")


_PLAIN_OPCODES = (pickle.GLOBAL, pickle.MARK, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2,
                  pickle.TUPLE3, pickle.NONE, pickle.NEWFALSE, pickle.NEWTRUE,
                  pickle.EMPTY_TUPLE, pickle.EMPTY_LIST, pickle.EMPTY_DICT, pickle.EMPTY_SET,
                  pickle.BININT, pickle.BININT1, pickle.BININT2, pickle.BINFLOAT,
                  pickle.BINUNICODE, pickle.SHORT_BINSTRING, pickle.BINGET, pickle.LONG_BINGET,
                  pickle.BINPUT, pickle.LONG_BINPUT, pickle.LONG1, pickle.STOP)
_CHECKED_OPCODES = {pickle.REDUCE: _load_reduce, pickle.NEWOBJ: _load_newobj,
                    pickle.BUILD: _load_build, pickle.APPEND: _load_append,
                    pickle.APPENDS: _load_appends, pickle.SETITEM: _load_setitem,
                    pickle.SETITEMS: _load_setitems, pickle.BINPERSID: _load_binpersid,
                    pickle.PROTO: _load_proto}


def _dispatch_table() -> _Dispatch:
    table = _Dispatch({op[0]: pickle._Unpickler.dispatch[op[0]] for op in _PLAIN_OPCODES})
    table.update({op[0]: handler for op, handler in _CHECKED_OPCODES.items()})
    return table


class WeightsOnlyUnpickler(pickle._Unpickler):
    """Unpickles one pickle of a checkpoint under NOTE [weights-only unpickling]; storages come
    from `persistent(pid)`."""

    dispatch = _dispatch_table()

    def __init__(self, file, persistent, encoding: str = "utf-8") -> None:
        super().__init__(file, encoding=encoding)
        self._persistent = persistent
        self.user_globals = dict(reader._safe_globals)     # fixed for this load
        # What REDUCE may call and NEWOBJ create; all alive for the load, so ids are theirs.
        self.allowed_ids = _allowed_ids() | {id(v) for v in self.user_globals.values()}

    def find_class(self, module, name):
        module, name = reader._python3_name(module, name)
        return resolve_global(module, name, self.user_globals)

    def persistent_load(self, pid):
        return self._persistent(pid)


_TRUE_VALUES = ("1", "y", "yes", "true")


def _env_flag(name: str) -> bool:
    return any(os.getenv(prefix + name, "0").lower() in _TRUE_VALUES
               for prefix in ("TORCH_", "EMBER_"))


def resolve_weights_only(weights_only, pickle_module, pickle_load_args: dict) -> bool:
    """`ember.load`'s `weights_only` after its default and the FORCE_(NO_)WEIGHTS_ONLY_LOAD
    environment variables (TORCH_ or EMBER_ prefixed), with PyTorch's precedence and warnings."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force, force_no = _env_flag("FORCE_WEIGHTS_ONLY_LOAD"), _env_flag("FORCE_NO_WEIGHTS_ONLY_LOAD")
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
                           "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set.")
    if force:
        weights_only = True
    elif force_no and not_set:
        # Only a call that did not choose is overridden.
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since "
                      "the `weights_only` argument was not explicitly passed to `ember.load`, "
                      "forcing weights_only=False.", UserWarning, stacklevel=3)
        weights_only = False
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=3)
    return bool(weights_only)


def failure_message(message: str) -> str:
    """What `ember.load` says when the weights-only unpickler refuses a file (as PyTorch)."""
    if "was not an allowed global by default" in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, do those steps only if you trust the source of the checkpoint. \n\t(1) "
                "Re-running `ember.load` with `weights_only` set to `False` will likely "
                "succeed, but it can result in arbitrary code execution. \n\t(2) Alternatively, "
                "to load with `weights_only=True` please check the recommended steps in the "
                f"following error message.\n\tWeightsUnpickler error: {message}")
    return ("Weights only load failed. Re-running `ember.load` with `weights_only` set to "
            "`False` will likely succeed, but it can result in arbitrary code execution. Do it "
            "only if you got the file from a trusted source.\n\nWeightsUnpickler error: "
            f"{message}")
