"""Legacy tensor type names: `Tensor.type()`, `ember.typename`, and `ember.FloatTensor` & co.

NOTE [legacy type strings say "torch."]: `t.type()` returns PyTorch's own strings
('torch.FloatTensor', 'torch.cuda.LongTensor', 'torch.meta.FloatTensor'), not 'ember.' ones:
programs compare them with literals (`x.type() == 'torch.FloatTensor'`) and must keep working
under `import ember as torch`. Conversions accept both spellings ('torch.DoubleTensor',
'ember.DoubleTensor'), a dtype, or a legacy class (`ember.DoubleTensor`).
"""
from __future__ import annotations

from ember._core import dtype as dt
from ember._core.checks import _check_type, _check_value
from ember._core.device import CPU, as_device

_PREFIXES = ("torch.", "ember.")


def _type_name(dtype: dt.dtype) -> str:
    return dtype._cpp_name + "Tensor"


_BY_TYPE_NAME = {_type_name(d): d for d in dt.ALL_DTYPES}


def _module_for(device) -> str:
    """'torch' for CPU tensors, 'torch.<device type>' for others."""
    return "torch" if device is CPU else f"torch.{device.type}"


def legacy_type_name(t) -> str:
    """'torch.FloatTensor', 'torch.cuda.LongTensor', ...: see NOTE [legacy type strings]."""
    return f"{_module_for(t._device)}.{_type_name(t._dtype)}"


def typename(obj) -> str:
    """`ember.typename`: a tensor's legacy type name, else the object's qualified class name."""
    from ember._tensor import Tensor
    if isinstance(obj, Tensor):
        return legacy_type_name(obj)
    kind = type(obj)
    if kind.__module__ in ("builtins", None):
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def parse_type_name(name: str):
    """'torch.cuda.DoubleTensor' -> (float64, device 'cuda'); ValueError for unknown names."""
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            parts = name[len(prefix):].split(".")
            if len(parts) == 1 and parts[0] in _BY_TYPE_NAME:
                return _BY_TYPE_NAME[parts[0]], CPU
            if len(parts) == 2 and parts[1] in _BY_TYPE_NAME:
                return _BY_TYPE_NAME[parts[1]], as_device(parts[0])
    _check_value(False, lambda: f"invalid type: '{name}'")


def tensor_type(t, dtype=None, non_blocking=False):
    """`Tensor.type(dtype=None, non_blocking=False)`: the legacy name, or a converted tensor."""
    if dtype is None:
        return legacy_type_name(t)
    if isinstance(dtype, LegacyTensorType):
        target, device = dtype.dtype, dtype._device
    elif isinstance(dtype, str):
        target, device = parse_type_name(dtype)
    else:
        _check_type(isinstance(dtype, dt.dtype), "dtype must be a type, str, or dtype object")
        target, device = dtype, t._device
    if target is t._dtype and device is t._device:
        return t
    return t.to(device=device, dtype=target, non_blocking=non_blocking)


class LegacyTensorType(type):
    """The metaclass of `ember.FloatTensor` & co: `isinstance(t, ember.FloatTensor)` checks a
    tensor's dtype and device; calling the class builds a tensor of that dtype (legacy `new`)."""

    def __instancecheck__(cls, obj) -> bool:
        from ember._tensor import Tensor
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype and obj._device.type == \
            cls._device.type

    def __call__(cls, *args, **kwargs):
        from ember._ops.creation_data import legacy_tensor_new
        from ember._tensor import Tensor
        if cls._device is not CPU:
            kwargs.setdefault("device", cls._device)
        return legacy_tensor_new(Tensor, cls.dtype, args, kwargs, "typed")

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"

    @property
    def is_cuda(cls) -> bool:
        return cls._device.type == "cuda"


def _make_class(dtype: dt.dtype, device):
    module = "ember" if device is CPU else f"ember.{device.type}"
    return LegacyTensorType(_type_name(dtype), (), {
        "dtype": dtype, "_device": device, "__module__": module,
        "__doc__": f"Legacy name for {dtype} tensors on {device.type} (constructor and isinstance)."
    })


# ember.FloatTensor, ember.LongTensor, ... (CPU); ember.cuda.FloatTensor lives in ember.cuda.
LEGACY_CPU_TYPES = {_type_name(d): _make_class(d, CPU) for d in dt.ALL_DTYPES}


def legacy_cuda_types() -> dict:
    """The `ember.cuda.FloatTensor`-style classes (made on demand)."""
    cuda = as_device("cuda")
    return {_type_name(d): _make_class(d, cuda) for d in dt.ALL_DTYPES}

globals().update(LEGACY_CPU_TYPES)
