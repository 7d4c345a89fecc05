"""Saved tensors: what a node keeps of a tensor its derivative formulas read.

NOTE [saved tensors]: a node keeps only the tensors its op's entry names in `saves=`, each with
the version of its storage at save time; reading one at backward time checks that version and
raises PyTorch's "modified by an inplace operation" error when it moved. A tensor that is an
output of the node itself is kept as its data alone (array, storage, base), never as the output
object: the output points at the node through `grad_fn`, so keeping it would make a reference
cycle, and the graph would live until the cyclic collector ran. Unpacking such an output makes
a fresh tensor on the same storage whose `grad_fn` is the node again, so double backward
through it is still connected. After a backward without `retain_graph` the node releases its
saved tensors; reading one afterwards raises PyTorch's "backward through the graph a second
time" error. Tensors the formulas do not read are not kept at all: a formula sees only a
`TensorInfo` (shape, dtype, device) in their place, and reading anything else from it is an
error that names the op and the argument.
"""
from __future__ import annotations

import math

from ember._core import dispatch
from ember._core.checks import _check
from ember._core.dispatch import modes as _modes
from ember._core.dispatch import state as _state
from ember._core.dispatch import storage_of
from ember._core.shape import Size, wrap_dim
from ember.autograd.saved_hooks import _saved_hooks, pack_with_hooks

_new = object.__new__

FREED = ("Trying to backward through the graph a second time (or directly access saved "
         "tensors after they have already been freed). Saved intermediate values of the graph "
         "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
         "you need to backward through the graph a second time or if you need to access saved "
         "tensors after calling backward.")


class SavedTensor:
    """One tensor a node keeps for its formulas (see NOTE [saved tensors]): `unpack(node)`
    gives it back checked against its version, `release()` lets it go."""

    __slots__ = ()


class SavedInput(SavedTensor):
    """An input of the node: kept as the tensor itself (it holds no reference to the node)."""

    __slots__ = ("tensor", "version")

    def unpack(self, node):
        t = self.tensor
        if t is None:
            raise RuntimeError(FREED)
        storage = t._storage                # (t._version without the property's frame)
        if (0 if storage is None else storage._version) != self.version:
            _raise_modified(t, self.version, t._version)
        return t

    def check_version(self, node) -> None:
        t = self.tensor
        if t is not None:
            storage = t._storage
            if (0 if storage is None else storage._version) != self.version:
                _raise_modified(t, self.version, t._version)

    def release(self) -> None:
        self.tensor = None


class SavedOutput(SavedTensor):
    """An output of the node: kept as its data, storage and base only."""

    __slots__ = (
        "attributes",
        "base",
        "cls",
        "data",
        "device",
        "dtype",
        "output_nr",
        "storage",
        "version",
    )

    def unpack(self, node):
        _check(self.data is not None, FREED)
        t = self._as_tensor(node)
        if self.storage._version != self.version:
            _raise_modified(t, self.version, self.storage._version)
        if (_modes.dispatch_modes or _state.overriding) and hasattr(node, "_op"):
            dispatch.detach_for_modes(t, node._op, node._args)  # an op's node only
        return t

    def _as_tensor(self, node):
        t = dispatch.wrap(self.data, self.dtype, self.device)
        if self.cls is not None:        # a subclass: its class and attributes come back too
            t.__class__ = self.cls
            t.__dict__.update(self.attributes)
        t._storage = self.storage
        t._base = self.base
        if self.dtype.is_floating_point or self.dtype.is_complex:
            t._grad_fn = node
            t._requires_grad = True
            if self.output_nr:
                t.__dict__["_output_nr"] = self.output_nr
        return t

    def check_version(self, node) -> None:
        if self.data is not None and self.storage._version != self.version:
            _raise_modified(self._as_tensor(node), self.version, self.storage._version)

    def release(self) -> None:
        self.data = self.storage = self.base = None


class SavedPacked(SavedTensor):
    """A tensor saved while saved-tensor hooks were active: what its pack hook returned."""

    __slots__ = ("packed", "storage", "version")

    def unpack(self, node):
        _check(self.packed is not None, FREED)
        self.check_version(node)
        return self.packed.unpack()

    def check_version(self, node) -> None:
        if self.storage is not None and self.storage._version != self.version:
            _raise_modified(_Described(self), self.version, self.storage._version)

    def release(self) -> None:
        self.packed = self.storage = None


def _packed(t) -> SavedPacked:
    s = _new(SavedPacked)
    s.storage = storage_of(t)
    s.version = s.storage._version
    s.packed = pack_with_hooks(t)
    return s


def save_input(t) -> SavedTensor:
    """Keep input `t` (not an output of the node that saves it)."""
    if _saved_hooks:
        return _packed(t)
    s = _new(SavedInput)
    s.tensor = t
    s.version = t._version
    return s


def save_output(t, output_nr: int) -> SavedTensor:
    """Keep output `t` of the node being recorded as its data only (no reference back)."""
    if _saved_hooks:
        return _packed(t)
    s = _new(SavedOutput)
    s.storage = storage = storage_of(t)
    s.version = storage._version
    s.output_nr = output_nr
    s.data = t._data
    s.base = t._base
    s.dtype = t._dtype
    s.device = t._device
    if type(t) is dispatch.Tensor:
        s.cls = None
    else:
        s.cls = type(t)
        s.attributes = {k: v for k, v in t.__dict__.items() if k not in _AUTOGRAD_KEYS}
    return s


# What a tensor's __dict__ holds for autograd, not to be carried to a rebuilt saved output.
_AUTOGRAD_KEYS = frozenset(("_output_nr", "_view_version", "_accumulate", "_hooks",
                            "_post_accumulate_hooks", "_retains_grad"))


class _Described:
    """Enough of a packed saved output to name it in an error."""

    def __init__(self, saved):
        self.shape = Size(())
        self._dtype = None
        self._grad_fn = None


def _raise_modified(t, expected, now):
    fn = t._grad_fn
    which = ""
    if fn is not None:
        name = fn.name()
        # PyTorch names the forward op here: "ExpBackward0" -> "Exp".
        name = name[:name.rfind("Backward")] if "Backward" in name else name
        which = f", which is output {t.__dict__.get('_output_nr', 0)} of {name},"
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{_type_name(t)} {list(t.shape)}]{which} is at version {now}; "
        f"expected version {expected} instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def _type_name(t) -> str:
    dtype = t._dtype
    if dtype is None:
        return "torch.Tensor"
    return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor"}.get(
        dtype._name, f"torch.{dtype._cpp_name}Tensor")


class TensorInfo:
    """What a node keeps of a tensor argument its formulas do not read: its metadata.

    Formulas may ask for the shape, dtype and device of any argument (PyTorch saves sizes
    apart from tensors too); anything else means the op's `saves=` is missing a name."""

    __slots__ = ("_arg_name", "_op_name", "_shape", "device", "dtype")

    def __init__(self, t, op_name, arg_name):
        self._shape = t._data.shape
        self.dtype = t._dtype
        self.device = t._device
        self._op_name = op_name
        self._arg_name = arg_name

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    @property
    def _dtype(self):
        return self.dtype

    @property
    def _device(self):
        return self.device

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return self._shape[wrap_dim(dim, len(self._shape))]

    def numel(self) -> int:
        return math.prod(self._shape)

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def __getattr__(self, name):
        raise RuntimeError(
            f"the derivative of '{self._op_name}' reads '{name}' of its argument "
            f"'{self._arg_name}', which its registry entry does not save (add "
            f"'{self._arg_name}' to saves=)")
