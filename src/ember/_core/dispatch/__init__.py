"""The dispatcher: run an `OpDef` on its arguments through the dispatch stack.

    call(op, args)            -> result tensor(s)
    call_out(op, args, out)   -> writes into `out` (PyTorch's out= semantics)
    call_inplace(op, args)    -> writes into args[0] (add_, mul_, ...)

`args` holds every schema argument positionally; the generated bindings fill in defaults.

    stack.py          the levels (__torch_function__, autograd, __torch_dispatch__, back-end),
                      per-thread mode state, entry points
    pointwise.py      type promotion and the pointwise runner
    runners.py        generic / view / factory runners and meta rules
    inplace_out.py    out= and in-place writes
    wrapping.py       kernel results as tensors
    subclasses.py     which Tensor subclasses act plain
    subclass_hooks.py Tensor's own methods on subclasses that see their calls
    devices.py        the common device of a call
    process_state.py  the process-wide switches (`dispatch.state`)
    entry.py          the public entry of hand-written public functions (__torch_function__)
"""
from __future__ import annotations

from ember._backends import get_backend  # noqa: F401  (re-exported; registers the back-ends)
from ember._backends.meta import MetaArray  # noqa: F401  (re-exported)
from ember._core.device import CPU  # noqa: F401  (re-exported)
from ember._core.dispatch import (
    inplace_out,
    pointwise,
    runners,
    stack,
    subclass_hooks,
    subclasses,
    wrapping,
)
from ember._core.dispatch.inplace_out import (  # noqa: F401
    call_inplace,
    call_out,
    check_exact_out_dtype,
    check_not_overlapping,
    copy_into_out,
    resize_out,
    write_array,
    write_inplace,
)
from ember._core.dispatch.pointwise import (  # noqa: F401
    UnsupportedOperand,
    check_broadcastable,
    clear_promotion_caches,
    scalar_as,
)
from ember._core.dispatch.process_state import state
from ember._core.dispatch.stack import (  # noqa: F401
    call,
    call_aten,
    close_entry,
    modes,
    open_entry,
    refresh_slow_path,
)
from ember._core.dispatch.wrapping import (  # noqa: F401
    bump_version,
    storage_of,
    wrap,
    wrap_array,
    wrap_data,
    wrap_view,
)

Tensor = None            # set by ember._tensor once the class exists


def set_tensor_class(cls) -> None:
    """Tell every dispatch module the Tensor class (ember._tensor defines it after them)."""
    global Tensor
    Tensor = cls
    for module in (inplace_out, pointwise, runners, stack, wrapping):
        module.Tensor = cls


def classify_subclass(cls) -> None:
    """A new Tensor subclass: plain-acting or overriding (NOTE [plain-acting subclasses])."""
    subclasses.classify(cls, Tensor)
    state.overriding = bool(subclasses.OVERRIDING)
    state.entry_subclass = any(not getattr(k, "_entry_exempt", False)
                               for k in subclasses.FUNCTION)
    stack.refresh_slow_path()       # state.entry follows state.entry_subclass
    # NOTE [subclass methods reach __torch_function__]
    subclass_hooks.install(cls, Tensor, stack.torch_function_wanted, stack.handle_torch_function)
