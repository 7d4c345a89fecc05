"""Saved-tensor hooks: `saved_tensors_hooks(pack_hook, unpack_hook)`, `save_on_cpu`,
`disable_saved_tensors_hooks` (reached as `ember.autograd.graph.*`, as in PyTorch).

While hooks are active the recorder stores each tensor a node saves for its formulas as
`pack_hook(tensor)`, and the formulas see `unpack_hook(packed)`. With no hooks the recorder
pays one list check.
"""
from __future__ import annotations

from ember._core import dispatch
from ember._core.checks import _check

_disabled: list = []        # error messages of the open disable_saved_tensors_hooks blocks
_saved_hooks: list = []     # (pack_hook, unpack_hook), innermost last


class _Packed:
    """A saved tensor as its pack hook returned it; unpacked when a formula reads it."""

    __slots__ = ("packed", "unpack_hook")

    def __init__(self, packed, unpack_hook):
        self.packed = packed
        self.unpack_hook = unpack_hook

    def unpack(self):
        value = self.unpack_hook(self.packed)
        _check(isinstance(value, dispatch.Tensor), lambda: (
            f"unpack_hook should return a Tensor, but got `{type(value).__name__}` instead"))
        return value


def pack_with_hooks(t):
    """`t` packed by the innermost saved-tensor hooks (for custom Functions too)."""
    pack_hook, unpack_hook = _saved_hooks[-1]
    # Ops inside the pack hook save their own tensors without hooks (no recursion).
    hooks = _saved_hooks[:]
    _saved_hooks.clear()
    try:
        packed = pack_hook(t)
    finally:
        _saved_hooks[:] = hooks
    return _Packed(packed, unpack_hook)


class saved_tensors_hooks:
    """Context manager: tensors saved for backward inside it go through `pack_hook` when saved
    and `unpack_hook` when a backward formula reads them."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _check(_disabled[-1] is None if _disabled else True, lambda: _disabled[-1])
        _saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.device, t.cpu())

        def unpack(packed):
            device, t = packed
            return t.to(device)
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Inside it, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _disabled.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _disabled.pop()


