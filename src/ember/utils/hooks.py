"""`RemovableHandle`: what a hook registration returns (`handle.remove()` takes the hook out
of its table and of any side tables, such as a module's with_kwargs set)."""
from __future__ import annotations

import weakref
from typing import Self

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


class RemovableHandle:
    """A handle to remove one hook from the dict it was added to (and from `extra_dict`)."""

    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra_dict = []
        elif not isinstance(extra_dict, list):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            table = ref()
            if table is not None and self.id in table:
                del table[self.id]

    def __getstate__(self):
        if self.extra_dict_ref:
            return (self.hooks_dict_ref(), self.id,
                    tuple(ref() for ref in self.extra_dict_ref))
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state) -> None:
        self.hooks_dict_ref = weakref.ref(state[0]) if state[0] is not None else \
            (lambda: None)
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2]) if len(state) > 2 \
            else ()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def unserializable_hook(f):
    """Mark a tensor hook as not to be serialized (kept for API compatibility)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    """Warn when `tensor` has backward hooks that pickling would drop."""
    if getattr(tensor, "_backward_hooks", None):
        import warnings
        warnings.warn("backward hooks on a tensor are not serialized", stacklevel=2)


def __getattr__(name):
    # `BackwardHook` lives with the Module code (nn/modules/module_backward_hooks.py); it is
    # reached here too, where PyTorch has it, without utils importing nn at import time.
    if name == "BackwardHook":
        from ember.nn.modules.module_backward_hooks import BackwardHook
        return BackwardHook
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
