"""Which Tensor subclasses act like plain tensors and which ask to see the calls made on them.

NOTE [plain-acting subclasses]: a subclass whose `__torch_function__` is the disabled one
(`ember._C._disabled_torch_function_impl`, as `nn.Parameter` has) and which defines no
`__torch_dispatch__` is run exactly like a Tensor: the fast paths take `type(t) is Tensor or
type(t) in PLAIN` and its results are plain Tensors. Any other subclass (one that keeps
Tensor's default `__torch_function__`, which re-wraps results in the subclass, or overrides it)
is in OVERRIDING: ops on it go down the layered path, to the `__torch_function__` level (FUNCTION)
and/or the `__torch_dispatch__` level (DISPATCH). The sets are filled once per class, when it is
defined (`Tensor.__init_subclass__`).
"""
from __future__ import annotations

PLAIN: set = set()          # subclasses run as plain tensors
OVERRIDING: set = set()     # subclasses that are not plain (either or both below)
FUNCTION: set = set()       # subclasses whose __torch_function__ sees their calls
DISPATCH: set = set()       # subclasses whose __torch_dispatch__ sees their op entries


modes = None                # stack.py's per-thread mode state (set by stack.py)


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """A `__torch_function__` that opts a subclass out of the `__torch_function__` level: runs
    `func` with subclass handling off, as PyTorch's does (NOTE [the public entry])."""
    modes.subclass_off += 1
    try:
        return func(*args, **(kwargs or {}))
    finally:
        modes.subclass_off -= 1


def classify(cls, tensor_cls) -> None:
    """Put `cls` (a subclass of Tensor) in PLAIN or OVERRIDING."""
    for kind in (PLAIN, OVERRIDING, FUNCTION, DISPATCH):
        kind.discard(cls)
    function = getattr(cls, "__torch_function__", None)
    function = getattr(function, "__func__", function)
    dispatch_hook = getattr(cls, "__torch_dispatch__", None)
    default_dispatch = getattr(tensor_cls, "__torch_dispatch__", None)
    overrides_dispatch = getattr(dispatch_hook, "__func__", dispatch_hook) is not \
        getattr(default_dispatch, "__func__", default_dispatch)
    if function is not _disabled_torch_function_impl:
        FUNCTION.add(cls)
    if overrides_dispatch:
        DISPATCH.add(cls)
    if cls in FUNCTION or cls in DISPATCH:
        OVERRIDING.add(cls)
    else:
        PLAIN.add(cls)
