"""`TorchDispatchMode`: a mode at the `__torch_dispatch__` level, below autograd.

Inside `with mode:` its `__torch_dispatch__(func, types, args, kwargs)` receives each op entry
an op runs (`func` looks like `ember.ops.aten.add.Tensor`; in-place ops come as their
`add_` form) with autograd already done above it: calling `func(*args, **kwargs)` runs the op
below the mode and records nothing.
"""
from __future__ import annotations

import ember._decomp  # noqa: F401 -- NOTE [composites decompose under modes]
from ember._core.dispatch import stack


class TorchDispatchMode(stack.ModeOnStack):
    """Subclass and define `__torch_dispatch__(self, func, types, args=(), kwargs=None)`;
    inside `with mode:` it receives every op entry run in this thread, below autograd."""

    _stack_name = "dispatch_modes"
    # False: PyTorch's CompositeImplicit ops reach this mode as their decompositions (NOTE
    # [composites decompose under modes]); True: as themselves (the profiler's events).
    _sees_composites = False

    def __init__(self, _dispatch_key=None):
        pass

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError


def _get_current_dispatch_mode():
    modes = stack.modes.dispatch_modes
    return modes[-1] if modes else None


def _get_current_dispatch_mode_stack() -> list:
    return list(stack.modes.dispatch_modes)


def is_traceable_wrapper_subclass(t) -> bool:
    return False
