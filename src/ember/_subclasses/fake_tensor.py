"""Fake tensors (torch._subclasses.fake_tensor): tensors with a shape, dtype, strides and a
device but no data, and the dispatch mode that computes them through the ops' meta rules.

Inside `with FakeTensorMode():` factories give FakeTensors and every op on FakeTensors runs its
meta rule; a FakeTensor outside the mode still dispatches to its mode. Nothing is allocated or
computed, so a model's shapes, dtypes and strides (and its gradients' under backward) come out
at no cost. Data-dependent work is refused with PyTorch's exceptions:
`DataDependentOutputException` (`item`, `tolist`, `bool(t)`) and `DynamicOutputShapeException`
(ops whose output shape depends on the data: nonzero, masked_select, unique ...).

NOTE [a fake tensor is a meta tensor inside]: a FakeTensor's `_device` is META and its `_data`
a MetaArray (shape, dtype, strides); only its public face (`device`, `is_cpu`, `is_cuda`,
`is_meta`, repr) reports `fake_device`, the device the real tensor would live on. So every
back-end step, meta rule, view, in-place write and autograd node treats it as the meta tensor it
is, and the mode's work is only at the edges: on the way in, real tensors are converted (or
refused), factories' devices swapped for meta and data-dependent ops refused; on the way out,
meta results are dressed as FakeTensors on the inputs' common device. Views keep their base
and storage (the base is the FakeTensor the view was taken of), so version counters and
in-place checks work as for meta tensors.
"""
from __future__ import annotations

import contextlib
import weakref

from ember._backends.meta import MetaArray
from ember._core.device import CPU, META, as_device, get_default_device_or_none, placed
from ember._core.dispatch import stack
from ember._core.dispatch.inplace_out import InplaceOp, copy_into_out, write_inplace
from ember._core.dispatch.out_forms import OutOp
from ember._core.dispatch.runners import OWN_STEPS
from ember._core.dispatch.subclasses import _disabled_torch_function_impl
from ember._core.registry import OPS, OpDef
from ember._tensor import Tensor
from ember.utils._python_dispatch import TorchDispatchMode

__all__ = [
    "DataDependentOutputException",
    "DynamicOutputShapeException",
    "FakeTensor",
    "FakeTensorConverter",
    "FakeTensorDeviceMismatchError",
    "FakeTensorMode",
    "MetadataMismatchError",
    "UnsupportedFakeTensorException",
    "UnsupportedOperatorException",
    "in_kernel_invocation_manager",
    "is_fake",
    "maybe_get_fake_mode",
    "unset_fake_temporarily",
]

# A fake tensor made from data (`tensor(3)`) keeps its value when it has at most this many
# elements, so `item()` on it and on ops of such constants still answers, as in PyTorch.
CONSTANT_NUMEL_LIMIT = 1

_SLOTS = ("_data", "_dtype", "_device", "_storage", "_requires_grad", "_grad_fn", "_grad",
          "_base")


# --------------------------------------------------------------------------- exceptions

class UnsupportedFakeTensorException(RuntimeError):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class DynamicOutputShapeException(RuntimeError):
    """The op's output shape depends on the input's values (nonzero, masked_select ...)."""

    def __init__(self, func):
        super().__init__(func)
        self.func = func


class DataDependentOutputException(RuntimeError):
    """The op's output is a value read from the data (`item`, `tolist`, `bool(t)`)."""

    def __init__(self, func):
        super().__init__(func)
        self.func = func


class UnsupportedOperatorException(RuntimeError):
    def __init__(self, func):
        super().__init__(func)
        self.func = func


class FakeTensorDeviceMismatchError(RuntimeError):
    pass


class MetadataMismatchError(RuntimeError):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


# Tensor.item's op (NOTE [item is an op under modes], _ops/conversion.py).
_LOCAL_SCALAR_DENSE = OPS["_local_scalar_dense"]


# --------------------------------------------------------------------------- FakeTensor

class FakeTensor(Tensor):
    """A meta tensor that reports the device its real counterpart would be on (NOTE [a fake
    tensor is a meta tensor inside]). `fake_device` is that device, `fake_mode` the mode that
    made it, `constant` the real value of a small tensor made from data (else None)."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, fake_mode, elem, device, constant=None):
        if not isinstance(elem, Tensor) or elem._device is not META:
            raise AssertionError(f"FakeTensor: expected a meta tensor as elem, got "
                                 f"{type(elem).__name__} on {getattr(elem, 'device', None)}")
        t = object.__new__(cls)
        for name in _SLOTS:
            setattr(t, name, getattr(elem, name))
        state = t.__dict__
        state["fake_device"] = as_device(device)
        state["fake_mode"] = fake_mode
        state["constant"] = constant
        return t

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        # An op on fake tensors outside their mode: run it inside the mode.
        mode = _mode_of(args, kwargs)
        with mode:
            return func(*args, **(kwargs or {}))

    @staticmethod
    def from_tensor(t, fake_mode):
        return fake_mode.from_tensor(t)

    @property
    def device(self):
        if self.fake_mode.in_kernel_invocation:
            return META
        return self.fake_device

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        return self.device is META

    def item(self):
        constant = self.constant
        if constant is not None:
            return OWN_STEPS[_LOCAL_SCALAR_DENSE](_LOCAL_SCALAR_DENSE, (constant,))
        raise DataDependentOutputException(_LOCAL_SCALAR_DENSE)

    def tolist(self):
        constant = self.constant
        if constant is not None:
            return constant.tolist()
        raise DataDependentOutputException(_LOCAL_SCALAR_DENSE)

    def __repr__(self, *, tensor_contents=None) -> str:
        from ember._core import dtype as dt
        parts = ["..."]
        if self.fake_device.type != "cpu":
            parts.append(f"device='{self.fake_device}'")
        parts.append(f"size={tuple(self._data.shape)}")
        if self._dtype is not dt.get_default_dtype():
            parts.append(f"dtype={self._dtype}")
        grad_fn = self._grad_fn
        if grad_fn is not None:
            name = grad_fn.name() if hasattr(grad_fn, "name") else type(grad_fn).__name__
            parts.append(f"grad_fn=<{name}>")
        elif self._requires_grad:
            parts.append("requires_grad=True")
        return f"FakeTensor({', '.join(parts)})"

    __str__ = __repr__


def _mode_of(args, kwargs):
    for value in _flat((args, tuple((kwargs or {}).values()))):
        if isinstance(value, FakeTensor):
            return value.fake_mode
    raise AssertionError("FakeTensor.__torch_dispatch__: no fake tensor among the arguments")


def _flat(values):
    for v in values:
        if type(v) is list or type(v) is tuple:
            yield from _flat(v)
        else:
            yield v


def is_fake(x) -> bool:
    return isinstance(x, FakeTensor)


def maybe_get_fake_mode(t):
    return t.fake_mode if isinstance(t, FakeTensor) else None


# --------------------------------------------------------------------------- conversion

class FakeTensorConverter:
    """Real tensors to fake ones, one fake per real tensor while it lives (a parameter used
    twice is one fake tensor, so gradients meet)."""

    def __init__(self):
        self.tensor_memo = {}           # id(real) -> (weak reference to real, fake)

    def from_real_tensor(self, fake_mode, t, make_constant=False, shape_env=None, *,
                         source=None, symbolic_context=None, trace=True):
        # (A fake tensor, of this mode or another, is converted like a real one: a new fake.)
        if not isinstance(t, Tensor):
            raise TypeError(f"from_tensor(): expected a Tensor, got {type(t).__name__}")
        key = id(t)
        found = self.tensor_memo.get(key)
        if found is not None and found[0]() is t:
            return found[1]
        if hasattr(t._data, "layout_name"):
            raise UnsupportedFakeTensorException(
                f"fake tensors of the {t._data.layout_name} layout are not supported")
        data = t._data
        meta = MetaArray(data.shape, t._dtype._np, data.strides)
        elem = object.__new__(Tensor)
        elem._data, elem._dtype, elem._device = meta, t._dtype, META
        elem._storage = elem._grad_fn = elem._grad = elem._base = None
        elem._requires_grad = False
        constant = None
        if make_constant and data.size <= CONSTANT_NUMEL_LIMIT:
            constant = t.detach().clone()
        fake = FakeTensor(fake_mode, elem, _public_device(t), constant)
        if getattr(t, "_is_param", False) or _is_parameter(t):
            fake.__dict__["_is_param"] = True
        if t._requires_grad:
            fake._requires_grad = True
            if t._grad_fn is not None:
                # A non-leaf stays a non-leaf: one recorded copy above the fake leaf.
                from ember.autograd.grad_mode import enable_grad
                with enable_grad(), fake_mode:
                    fake = fake.clone()
        self.tensor_memo[key] = (weakref.ref(t, lambda _, key=key: self._forget(key)), fake)
        return fake

    def _forget(self, key):
        self.tensor_memo.pop(key, None)


def _public_device(t):
    return t.fake_device if isinstance(t, FakeTensor) else t.device


def _is_parameter(t) -> bool:
    from sys import modules
    parameter = modules.get("ember.nn.parameter")
    return parameter is not None and type(t) is parameter.Parameter


# --------------------------------------------------------------------------- the mode

class FakeTensorMode(TorchDispatchMode):
    """Inside `with FakeTensorMode():` tensors are FakeTensors and ops compute only their
    metadata. `allow_non_fake_inputs=True` converts real tensors met by an op (else an
    AssertionError, as PyTorch's); `from_tensor(real)` converts one explicitly."""

    def __init__(self, *, allow_fallback_kernels=True, allow_non_fake_inputs=False,
                 shape_env=None, static_shapes=None, export=False):
        super().__init__()
        self.allow_fallback_kernels = allow_fallback_kernels
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.shape_env = shape_env
        self.static_shapes = shape_env is None if static_shapes is None else static_shapes
        self.export = export
        self.fake_tensor_converter = FakeTensorConverter()
        self.in_kernel_invocation = False

    def is_our_fake(self, t) -> bool:
        return isinstance(t, FakeTensor) and t.fake_mode is self

    def from_tensor(self, tensor, *, static_shapes=None, source=None, symbolic_context=None,
                    trace=True):
        return self.fake_tensor_converter.from_real_tensor(self, tensor)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return self.dispatch(func, types, args, kwargs or {})

    def dispatch(self, func, types, args=(), kwargs=None):
        if type(func) is OutOp:             # NOTE [out forms]: the op, written into out
            kwargs = dict(kwargs or {})
            out = kwargs.pop("out")
            copy_into_out(out, self.dispatch(func.op, types, args, kwargs))
            return out
        inplace = type(func) is InplaceOp
        op = func.op if inplace else func
        if not isinstance(op, OpDef):
            raise UnsupportedOperatorException(func)
        args = list(op.bind(tuple(args), kwargs or {}))
        if op.redirect is not None:         # an overload form: its base op's rules
            op, to_base = op.redirect
            args = list(args if to_base is None else to_base(*args))
        if op is _LIFT_FRESH and not isinstance(args[0], FakeTensor):
            # NOTE [data enters through lift_fresh]: a tensor made from data is a constant.
            return self.fake_tensor_converter.from_real_tensor(self, args[0],
                                                              make_constant=True)
        fakes = self._fake_inputs(func, op, args)
        if op is _LOCAL_SCALAR_DENSE:       # a constant's value, else data-dependent
            if fakes and fakes[0].constant is not None:
                return OWN_STEPS[op](op, (fakes[0].constant,))
            raise DataDependentOutputException(func)
        if op.meta is None and op.kind in ("generic", "reduction") and op not in OWN_STEPS:
            raise DynamicOutputShapeException(func)
        if op.kind == "factory":
            device = self._factory_device(op, args, fakes)
        elif op is _TO_COPY:
            device = fakes[0].fake_device if args[3] is None else placed(as_device(args[3]))
            args[3] = None
        else:
            device = _common_device(op, fakes)
        constant = _constant_result(op, inplace, args, fakes)
        args = tuple(args)
        step = stack.backend_step
        self.in_kernel_invocation, previous = True, self.in_kernel_invocation
        try:
            if inplace:
                self_ = args[0]
                write_inplace(op, self_, step(op, args))
                self_.__dict__["constant"] = constant
                return self_
            result = step(op, args)
        finally:
            self.in_kernel_invocation = previous
        return self._dress(result, device, constant)

    def _fake_inputs(self, func, op, args):
        """The fake tensors among the op's arguments; real ones converted in `args`, or
        refused (PyTorch's AssertionError) without `allow_non_fake_inputs`."""
        fakes = []
        for i in op.tensor_positions:
            v = args[i]
            if isinstance(v, Tensor):
                args[i] = v = self._check_input(func, v, args)
                fakes.append(v)
        for i in op.list_positions:
            seq = args[i]
            if isinstance(seq, (list, tuple)):
                converted = [self._check_input(func, v, args) if isinstance(v, Tensor) else v
                             for v in seq]
                args[i] = converted
                fakes.extend(v for v in converted if v is not None)
        return fakes

    def _check_input(self, func, v, args):
        if type(v) is FakeTensor:
            if v.fake_mode is not self:
                raise AssertionError(f"Mixing fake modes NYI x.fake_mode={v.fake_mode!r} vs "
                                     f"self={self!r}")
            return v
        base = v._base
        if v._device is META and type(base) is FakeTensor and base.fake_mode is self:
            # A view of one of ours that ember made outside an op (as_strided's flat
            # storage): a fake view.
            return FakeTensor(self, v, base.fake_device)
        if not self.allow_non_fake_inputs:
            raise AssertionError(
                "Please convert all Tensors to FakeTensors first or instantiate "
                f"FakeTensorMode with 'allow_non_fake_inputs'. Found in {func}"
                f"({', '.join(_short(a) for a in args)})")
        return self.fake_tensor_converter.from_real_tensor(self, v)

    def _factory_device(self, op, args, fakes):
        where = _device_position(op)
        device = args[where]
        if device is None:
            device = fakes[0].fake_device if fakes else get_default_device_or_none() or CPU
        device = placed(as_device(device))
        args[where] = META
        return device

    def _dress(self, result, device, constant=None):
        """Meta results as FakeTensors on `device` (inputs returned as they are)."""
        if isinstance(result, Tensor):
            if type(result) is FakeTensor:
                return result
            return FakeTensor(self, result, device, constant)
        if type(result) is tuple or type(result) is list:
            return type(result)(self._dress(r, device) for r in result)
        return result


_LIFT_FRESH = OPS["lift_fresh"]
_TO_COPY = OPS["_to_copy"]
_device_positions: dict = {}


def _device_position(op):
    found = _device_positions.get(op)
    if found is None:
        found = _device_positions[op] = [a.name for a in op.schema.arguments].index("device")
    return found


def _common_device(op, fakes):
    """The device of an op's result: the fake tensors' device, where zero-dim CPU tensors act
    as scalars beside tensors on another device; two other devices are PyTorch's error."""
    common = None
    cpu_scalar = False
    for t in fakes:
        device = t.fake_device
        if device.type == "cpu" and t._data.ndim == 0:
            cpu_scalar = True
            continue
        if common is None:
            common = device
        elif device != common and op.schema.name != "copy":
            raise FakeTensorDeviceMismatchError(
                f"Expected all tensors to be on the same device, but found at least two "
                f"devices, {common} and {device}!")
    if common is None:
        common = CPU if cpu_scalar or not fakes else fakes[0].fake_device
    return common


def _constant_result(op, inplace, args, fakes):
    """The real value of the result when every tensor input is a fake with a constant and the
    op is deterministic and small (PyTorch's constant propagation), else None."""
    if not fakes or "nondeterministic_seeded" in op.tags or op.kind == "factory":
        return None
    if any(t.constant is None for t in fakes):
        return None
    swap = {id(t): t.constant for t in fakes}
    real = [swap.get(id(v), v) if isinstance(v, Tensor) else
            [swap.get(id(x), x) for x in v] if type(v) in (list, tuple) and
            any(isinstance(x, Tensor) for x in v) else v for v in args]
    if inplace:
        real[0] = real[0].clone()
    result = stack.backend_step(op, tuple(real))
    if isinstance(result, Tensor) and result._data.size <= CONSTANT_NUMEL_LIMIT:
        return result
    return None


def _short(value):
    if isinstance(value, FakeTensor):
        return repr(value)
    if isinstance(value, Tensor):
        return f"tensor(..., device='{value.device}', size={tuple(value.shape)})"
    return repr(value)


# --------------------------------------------------------------------------- helpers

@contextlib.contextmanager
def in_kernel_invocation_manager(fake_mode):
    """Inside, fake tensors of `fake_mode` report the meta device (their inside)."""
    previous = fake_mode.in_kernel_invocation
    fake_mode.in_kernel_invocation = True
    try:
        yield
    finally:
        fake_mode.in_kernel_invocation = previous


@contextlib.contextmanager
def unset_fake_temporarily():
    """Take the innermost FakeTensorMode off this thread's dispatch stack while inside;
    yields it (or None)."""
    modes = stack.modes.dispatch_modes
    index = next((i for i in range(len(modes) - 1, -1, -1)
                  if isinstance(modes[i], FakeTensorMode)), None)
    if index is None:
        yield None
        return
    mode = modes.pop(index)
    try:
        yield mode
    finally:
        modes.insert(index, mode)
