"""Autocast in the dispatcher: the per-thread autocast state and the handler that casts an
op's tensor inputs by the op's policy before autograd records the op.

NOTE [autocast is a handler]: enabling autocast for a device type in a thread pushes
`_handler` on that thread's autograd-level handlers (stack.py) and opens an entry, which
sets `state.slow`; so with autocast off the plain call reads nothing new, and with it on
every call takes the layered path. The handler casts through `below` (the handlers under it,
then autograd), so each cast is recorded (`ToCopyBackward0`) and gradients flow back to the
float32 inputs in their own dtype, as PyTorch's Autocast key sits above Autograd.

The policy tables (op entry -> kind) are filled by `ember.amp.policy` when autocast is first
used; this module only knows the kinds:

    "lower"       floating inputs (not float64) run in the autocast dtype
    "fp32"        floating inputs (not float64) run in float32
    "fp32_dtype"  the op's own `dtype=` is set to float32 when not given (CUDA reductions)
    "promote"     floating inputs run in the widest floating dtype among them
"""
from __future__ import annotations

import threading

from ember._core import dtype as dtypes
from ember._core.dispatch import stack

# others: float16
DEFAULT_DTYPES = {"cpu": dtypes.bfloat16, "hpu": dtypes.bfloat16, "xla": dtypes.bfloat16}
policies: dict = {}      # device type -> {OpDef: kind}; "cuda"'s table serves accelerators
# device type -> {OpDef: dtype}: users' rules (torch.library.register_autocast): the op's
# floating inputs on that device (not float64) run in the dtype.
custom_policies: dict = {}
to_copy = None           # the `_to_copy` entry (set with the policies)
_dtype_positions: dict = {}   # OpDef -> index of its `dtype` argument ("fp32_dtype" ops)


class _ThreadAutocast(threading.local):
    def __init__(self):
        self.enabled = {}          # device type -> True, for the types enabled in this thread
        self.dtypes = {}           # device type -> dtype set with set_autocast_dtype
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}            # id(leaf) -> (leaf, its lower-precision copy)
        self.installed = False


local = _ThreadAutocast()


def is_enabled(device_type: str) -> bool:
    return device_type in local.enabled


def get_dtype(device_type: str):
    found = local.dtypes.get(device_type)
    if found is not None:
        return found
    return DEFAULT_DTYPES.get(device_type, dtypes.float16)


def set_dtype(device_type: str, dtype) -> None:
    local.dtypes[device_type] = dtype


def set_enabled(device_type: str, enabled: bool) -> None:
    if enabled:
        local.enabled[device_type] = True
    else:
        local.enabled.pop(device_type, None)
    wanted = bool(local.enabled)
    if wanted is local.installed:
        return
    local.installed = wanted
    if wanted:
        stack.modes.handlers.append(_handler)
        stack.open_entry()
    else:
        stack.modes.handlers.remove(_handler)
        stack.close_entry()


def clear_cache() -> None:
    local.cache.clear()


def _first_tensor(op, args):
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, stack.Tensor):
            return v
    for i in op.list_positions:
        for v in args[i]:
            if isinstance(v, stack.Tensor):
                return v
    return None


def _handler(op, args, below):
    first = _first_tensor(op, args)
    if first is None:
        return below(op, args)
    device_type = first._device.type
    if device_type not in local.enabled:
        return below(op, args)
    table = policies.get(device_type) or policies.get("cuda", {})
    kind = table.get(op)
    if kind is None:
        custom = custom_policies.get(device_type)
        target = None if custom is None else custom.get(op)
        if target is None:
            return below(op, args)
        return below(op, _cast_all(op, args, device_type, target, below))
    lower = get_dtype(device_type)
    if kind == "lower":
        target = lower
    elif kind == "fp32":
        target = dtypes.float32
    elif kind == "promote":
        target = _widest(op, args, device_type, lower)
    else:                                   # "fp32_dtype"
        position = _dtype_positions[op]
        if args[position] is None and _eligible(first, device_type):
            args = args[:position] + (dtypes.float32,) + args[position + 1:]
        return below(op, args)
    return below(op, _cast_args(op, args, device_type, target, target is lower, below))


def _eligible(v, device_type):
    dtype = v._dtype
    return v._device.type == device_type and dtype.is_floating_point and \
        dtype is not dtypes.float64


def _widest(op, args, device_type, lower):
    """PyTorch's choice for "promote" ops: float32 when any eligible input is float32, else
    the autocast dtype; float64 inputs are left out, and half meeting bfloat16 is an error."""
    current = lower
    for v in _tensors(op, args):
        if not _eligible(v, device_type):
            continue
        found = v._dtype
        if current is dtypes.float32 or found is dtypes.float32:
            current = dtypes.float32
        elif current is not found:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _tensors(op, args):
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, stack.Tensor):
            yield v
    for i in op.list_positions:
        for v in args[i]:
            if isinstance(v, stack.Tensor):
                yield v


def _cast_args(op, args, device_type, target, to_lower, below):
    args = list(args)
    for i in op.tensor_positions:
        v = args[i]
        if isinstance(v, stack.Tensor):
            args[i] = _cast(v, device_type, target, to_lower, below)
    for i in op.list_positions:
        values = args[i]
        args[i] = type(values)(
            _cast(v, device_type, target, to_lower, below) if isinstance(v, stack.Tensor) else v
            for v in values)
    return tuple(args)


def _cast_all(op, args, device_type, target, below):
    """A user's rule: every floating tensor on the device but float64 to `target` (no weight
    cache)."""
    def cast(v):
        if isinstance(v, stack.Tensor) and _eligible(v, device_type) and v._dtype is not target:
            return below(to_copy, (v, target, None, None, None, False, None))
        return v
    args = list(args)
    for i in op.tensor_positions:
        args[i] = cast(args[i])
    for i in op.list_positions:
        args[i] = type(args[i])(cast(v) for v in args[i])
    return tuple(args)


def _cast(v, device_type, target, to_lower, below):
    if v._dtype is target or not _eligible(v, device_type):
        return v
    # The weight cache: a float32 leaf that requires grad (a parameter) is cast once per
    # outermost autocast region, so its copies share one ToCopyBackward0 node. A copy made
    # under no_grad has no node to share, so it is not kept.
    cacheable = to_lower and local.cache_enabled and v._dtype is dtypes.float32 and \
        v._requires_grad and v._grad_fn is None and v._base is None and \
        stack.state.grad_enabled()
    if cacheable:
        hit = local.cache.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
    cast = below(to_copy, (v, target, None, None, None, False, None))
    if cacheable:
        local.cache[id(v)] = (v, cast)
    return cast


def install_policies(tables: dict, to_copy_op) -> None:
    """Set the policy tables ({device type: {OpDef: kind}}) once, from ember.amp.policy."""
    global to_copy
    to_copy = to_copy_op
    policies.update(tables)
    for table in tables.values():
        for op, kind in table.items():
            if kind == "fp32_dtype":
                names = [a.name for a in op.schema.arguments]
                _dtype_positions[op] = names.index("dtype")
