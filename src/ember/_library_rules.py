"""What torch.library attaches to an op besides its kernels, for ember's registry ops: the
fake-rule context (`get_ctx`), kernel lookup (`get_kernel`), autocast, `__torch_dispatch__` and
vmap rules, fallthrough registrations, and Triton's entry points. ember.library resolves the op
(a name, an `OpDef`, a `CustomOpDef`) and calls in here with its `OpDef`.

NOTE [rules attached to users' ops]: each rule lives where the level it changes looks for it,
so a call pays for a rule only on the path that can use it: autocast rules in the autocast
handler's table (`autocast.custom_policies`, read with autocast on), torch_dispatch rules in
`stack.dispatch_rules` (read when a mode or subclass is offered the op), vmap rules in
`VMAP_RULES` (read by `ember.func.vmap` when the function mapped is the op itself; a rule-less
op, or one called inside a mapped function, runs once per sample, which a correct rule
agrees with).
"""
from __future__ import annotations

import importlib
import threading

from ember._core import dtype as dt
from ember._core.dispatch import stack
from ember._core.dispatch.wrapping import meta_from_spec, wrap_array
from ember._core.kernel_table import STRIDED, as_key
from ember._tensor import Tensor

# --------------------------------------------------------------------------- get_ctx


class FakeImplCtx:
    """What a fake rule may ask of its call (`ember.library.get_ctx()` inside the rule)."""

    def __init__(self, op) -> None:
        self._op = op

    def new_dynamic_size(self, *, min=0, max=None):
        """A size only the data decides (nonzero's row count). ember's fake tensors have
        concrete shapes (no symbolic shape environment), so, as PyTorch's without one: the
        op's output shape is dynamic."""
        from ember._subclasses.fake_tensor import DynamicOutputShapeException
        raise DynamicOutputShapeException(self._op)

    def create_unbacked_symint(self, *, min=2, max=None):
        import warnings
        warnings.warn("create_unbacked_symint is deprecated, please use new_dynamic_size "
                      "instead", FutureWarning, stacklevel=2)
        return self.new_dynamic_size(min=min, max=max)


class _Current(threading.local):
    ctx = None


_current = _Current()


def get_ctx():
    """The context of the fake rule running now; None outside one."""
    return _current.ctx


def run_fake(op, fn, args):
    """`fn(*args)` as the fake rule of `op`, with `get_ctx()` answering inside it."""
    previous, _current.ctx = _current.ctx, FakeImplCtx(op)
    try:
        return fn(*args)
    finally:
        _current.ctx = previous

# --------------------------------------------------------------------------- get_kernel


_ALIAS_KEYS = frozenset({"Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
                         "CompositeExplicitAutogradNonFunctional",
                         "CompositeImplicitAutogradNestedTensor", "FuncTorchBatchedDecomposition"})


def _key_name(dispatch_key) -> str:
    from ember._dispatch_keys import DispatchKey
    if isinstance(dispatch_key, DispatchKey):
        return dispatch_key.name
    if not isinstance(dispatch_key, str) or dispatch_key not in DispatchKey.__members__:
        raise ValueError(f"Invalid dispatch key: {dispatch_key}")
    return dispatch_key


class _SafeKernelFunction:
    """One kernel of an op, as `get_kernel` finds it: `call_boxed(keyset, *args, **kwargs)`
    runs it on tensors, with no dispatch around it (no autograd, no modes)."""

    def __init__(self, op, key_name: str, kernel) -> None:
        self.op_handle = op
        self._key_name, self._kernel = key_name, kernel

    def __repr__(self) -> str:
        return f"SafeKernelFunction(debug='{self.op_handle.name} at {self._key_name}')"

    def call_boxed(self, keyset, *args, **kwargs):
        op = self.op_handle
        bound = op.bind(args, kwargs)
        if self._key_name == "Meta":
            return _single(meta_from_spec(op.meta(*bound)), op)
        device = next((a._device for a in _tensors(bound)), None)
        out = self._kernel(_array_module(device), *(_unwrap(a) for a in bound))
        return _single(_wrap(out, device), op)


def _tensors(args):
    for a in args:
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (v for v in a if isinstance(v, Tensor))


def _unwrap(a):
    if isinstance(a, Tensor):
        return a._data
    if isinstance(a, (list, tuple)) and any(isinstance(v, Tensor) for v in a):
        return type(a)(v._data if isinstance(v, Tensor) else v for v in a)
    return a


def _array_module(device):
    from ember._backends import BACKENDS, get_backend
    kind = "cpu" if device is None else device.type
    return (BACKENDS.get(kind) or get_backend(kind)).xp


def _wrap(out, device):
    from ember._core.device import CPU
    if isinstance(out, (tuple, list)):
        return tuple(_wrap(o, device) for o in out)
    if out is None or isinstance(out, Tensor):
        return out
    return wrap_array(out, CPU if device is None else device)


def _single(result, op):
    return result[0] if isinstance(result, tuple) and len(op.schema.returns) == 1 else result


def get_kernel(op, dispatch_key) -> _SafeKernelFunction:
    """The kernel `op` runs for `dispatch_key` ('CPU', 'CUDA', 'Meta', a sparse key ...)."""
    name = _key_name(dispatch_key)
    if name in _ALIAS_KEYS:
        raise RuntimeError("Alias keys do not have runtime kernel registrations.")
    if name == "Meta":
        if op.meta is None:
            raise RuntimeError(f"{op.name} has no kernel registered for the Meta key")
        return _SafeKernelFunction(op, name, op.meta)
    key = as_key(name) if name != "PrivateUse1" else as_key("PrivateUse1")
    kernel = op.table.resolve(key.layout, key.device)
    if kernel is None:
        raise RuntimeError(f"{op.name} has no kernel registered for the {name} key")
    if key.layout != STRIDED:
        raise NotImplementedError(f"get_kernel({op.name}, {name}): sparse kernels take the "
                                  "call's tensors through the dispatcher; call the op")
    return _SafeKernelFunction(op, name, kernel)

# --------------------------------------------------------------------------- fallthrough


def fallthrough_kernel():
    """Registered with `Library.impl(name, fallthrough_kernel, key)`: calls skip that key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def register_fallthrough(op, key_name: str) -> None:
    """A call of `op` passes `key_name` by: a back-end key's own kernel is taken out (the
    call reaches the op's shared kernel), an autograd key stops recording the op, and the
    keys ember has no level for (ADInplaceOrView, Autocast*, Python ...) already pass."""
    if key_name.startswith("Autograd"):
        op.derivatives = {}
        op.differentiable = False
        return
    if key_name in ("CPU", "CUDA", "Meta", "PrivateUse1") or key_name.startswith("Sparse"):
        if key_name == "Meta":
            op.meta = None
            return
        key = as_key(key_name)
        if key in op.table.entries:
            del op.table.entries[key]
            op.table._resolved.clear()
            op.table._running.clear()
            op._refresh_kernels()

# --------------------------------------------------------------------------- autocast


def register_autocast(op, device_type: str, cast_inputs) -> None:
    """Under autocast for `device_type`, the op's floating tensors on that device (float64
    excepted) are cast to `cast_inputs` before it runs."""
    from ember._core.dispatch import autocast
    from ember.amp.autocast_mode import is_autocast_available
    if not is_autocast_available(device_type):
        raise ValueError(f"Device type '{device_type}' does not support autocast.")
    if not isinstance(cast_inputs, dt.dtype):
        raise TypeError(f"register_autocast: cast_inputs must be a dtype, got {cast_inputs!r}")
    autocast.custom_policies.setdefault(device_type, {})[op] = cast_inputs

# --------------------------------------------------------------------------- torch_dispatch


def register_torch_dispatch(op, torch_dispatch_class, func) -> None:
    """`func(mode_or_class, func, types, args, kwargs)` answers for `torch_dispatch_class`'s
    `__torch_dispatch__` when it is offered `op`."""
    stack.dispatch_rules.setdefault(op, {})[torch_dispatch_class] = func

# --------------------------------------------------------------------------- vmap


VMAP_RULES: dict = {}          # OpDef -> rule(info, in_dims, *args, **kwargs)


class VmapInfo:
    """What a vmap rule is told of the map: the batch size and the randomness setting."""

    def __init__(self, batch_size: int, randomness: str) -> None:
        self.batch_size, self.randomness = batch_size, randomness

    def __repr__(self) -> str:
        return f"VmapInfo(batch_size={self.batch_size}, randomness='{self.randomness}')"


def register_vmap(op, func) -> None:
    if any(a.kwarg_only and (a.is_tensor or a.is_tensor_list) for a in op.schema.arguments):
        raise NotImplementedError(
            "register_vmap with kwarg-only Tensor args. In the original definition of the op, "
            "please make your tensors not kwarg-only. Otherwise, please file an issue")
    VMAP_RULES[op] = func

# --------------------------------------------------------------------------- Triton


def wrap_triton(triton_kernel, /):
    """A Triton kernel as a program launches it (`wrap_triton(kernel)[grid](...)`). Triton
    kernels need Triton: without it, the import error PyTorch gives."""
    triton_jit = importlib.import_module("triton.runtime.jit")
    autotuner = importlib.import_module("triton.runtime.autotuner")
    if isinstance(triton_kernel, (triton_jit.JITFunction, autotuner.Autotuner)):
        return triton_kernel
    raise RuntimeError("wrap_triton only works on functions annotated with triton.jit or "
                       "triton.autotune")
