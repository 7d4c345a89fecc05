"""Module hooks: per-module and global forward (pre-)hooks, backward hooks, state-dict hooks,
registration hooks, and the call path that runs them (taken only when some call hook is set:
NOTE [the plain module call] in module.py).

A hook table is an OrderedDict {handle id: hook}; "with_kwargs" and "always_call" are side
tables keyed by the same ids, removed together by the handle. Global call hooks run before a
module's own.
"""
from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict

from ember._tensor import Tensor
from ember.utils.hooks import RemovableHandle

# Global hooks (`ember.nn.modules.module.register_module_forward_hook` ...), seen by every
# module; module.py binds PyTorch's `_global_*` names to these same dicts.
global_forward_pre_hooks: OrderedDict = OrderedDict()
global_forward_hooks: OrderedDict = OrderedDict()
global_forward_hooks_always_called: OrderedDict = OrderedDict()
global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()
global_backward_pre_hooks: OrderedDict = OrderedDict()
global_backward_hooks: OrderedDict = OrderedDict()
global_buffer_registration_hooks: OrderedDict = OrderedDict()
global_module_registration_hooks: OrderedDict = OrderedDict()
global_parameter_registration_hooks: OrderedDict = OrderedDict()
# None until a global backward hook is registered; then whether they are "full" ones.
global_is_full_backward_hook: bool | None = None


def _add(table: OrderedDict, hook, prepend: bool = False, extra=None) -> RemovableHandle:
    handle = RemovableHandle(table, extra_dict=extra)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


class _WrappedHook:
    """A hook that gets its module (held weakly) as first argument; picklable."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state: dict) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# ---------------------------------------------------------------------- per-module registration
def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
    """`hook(module, args)` (or `hook(module, args, kwargs)` with `with_kwargs`) runs before
    forward; a non-None result replaces the arguments. `prepend` runs it before the others."""
    handle = _add(self._forward_pre_hooks, hook, prepend,
                  extra=self._forward_pre_hooks_with_kwargs)
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    return handle


def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                          always_call: bool = False):
    """`hook(module, args, output)` (or `hook(module, args, kwargs, output)`) runs after
    forward; a non-None result replaces the output. `always_call` runs it even when forward
    raised."""
    handle = _add(self._forward_hooks, hook, prepend,
                  extra=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def _claim_backward_kind(self, full: bool) -> None:
    if self._is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                           "single Module. Please use only one of them.")
    self._is_full_backward_hook = full


def register_full_backward_pre_hook(self, hook, prepend: bool = False):
    """`hook(module, grad_output)` runs when the gradients of the module's outputs arrive; a
    non-None result replaces grad_output."""
    return _add(self._backward_pre_hooks, hook, prepend)


def register_full_backward_hook(self, hook, prepend: bool = False):
    """`hook(module, grad_input, grad_output)` runs when the gradients of the module's inputs
    are computed; a non-None result replaces grad_input."""
    _claim_backward_kind(self, True)
    return _add(self._backward_hooks, hook, prepend)


def register_backward_hook(self, hook):
    """The deprecated form: hooks the autograd node of the module's last operation."""
    _claim_backward_kind(self, False)
    return _add(self._backward_hooks, hook)


def register_state_dict_pre_hook(self, hook):
    """`hook(module, prefix, keep_vars)` runs before `state_dict` collects this module."""
    return _add(self._state_dict_pre_hooks, hook)


def register_state_dict_post_hook(self, hook):
    """`hook(module, state_dict, prefix, local_metadata)` runs after `state_dict` collected
    this module; it may edit the dict in place and must return None."""
    hook._from_public_api = True
    return _add(self._state_dict_hooks, hook)


def register_state_dict_hook(self, hook):
    """The private form: a non-None result replaces the state dict (at the root)."""
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError("Cannot register the same function as the state dict post hook that "
                           "was previously registered via register_state_dict_post_hook")
    return _add(self._state_dict_hooks, hook)


def register_load_state_dict_pre_hook_private(self, hook, with_module: bool = False):
    """`hook([module,] state_dict, prefix, local_metadata, strict, missing_keys,
    unexpected_keys, error_msgs)` runs before this module loads its part of a state dict."""
    return _add(self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module
                                                               else None))


def register_load_state_dict_pre_hook(self, hook):
    """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
    unexpected_keys, error_msgs)` runs before this module loads its part of a state dict."""
    return register_load_state_dict_pre_hook_private(self, hook, with_module=True)


def register_load_state_dict_post_hook(self, hook):
    """`hook(module, incompatible_keys)` runs after this module and its children loaded; it
    may edit the key lists in place."""
    return _add(self._load_state_dict_post_hooks, hook)


# ---------------------------------------------------------------------- global registration
def register_module_forward_pre_hook(hook):
    """A forward pre-hook for every module (runs before the module's own)."""
    return _add(global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False):
    """A forward hook for every module (runs before the module's own)."""
    handle = _add(global_forward_hooks, hook, extra=global_forward_hooks_always_called)
    if with_kwargs:
        global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        global_forward_hooks_always_called[handle.id] = True
    return handle


def _claim_global_backward_kind(full: bool) -> None:
    global global_is_full_backward_hook
    if global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    global_is_full_backward_hook = full


def register_module_backward_hook(hook):
    """The deprecated (non-full) backward hook, for every module."""
    _claim_global_backward_kind(False)
    return _add(global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    """A full backward pre-hook for every module."""
    return _add(global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """A full backward hook for every module."""
    _claim_global_backward_kind(True)
    return _add(global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """`hook(module, name, buffer)` runs when any module registers a buffer; a non-None
    result is registered instead."""
    return _add(global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    """`hook(module, name, submodule)` runs when any module registers a submodule."""
    return _add(global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """`hook(module, name, param)` runs when any module registers a parameter."""
    return _add(global_parameter_registration_hooks, hook)


# ---------------------------------------------------------------------- backward hook lists
def get_backward_hooks(self):
    """(full backward hooks, non-full backward hooks) that apply to this module."""
    full, non_full = [], []
    if global_is_full_backward_hook is True:
        full += global_backward_hooks.values()
    if self._is_full_backward_hook is True:
        full += self._backward_hooks.values()
    if global_is_full_backward_hook is False:
        non_full += global_backward_hooks.values()
    if self._is_full_backward_hook is False:
        non_full += self._backward_hooks.values()
    return full, non_full


def get_backward_pre_hooks(self):
    return [*global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]


def maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn) -> None:
    from ember.nn.modules.module_backward_hooks import warn_non_full_backward_hook
    warn_non_full_backward_hook(inputs, result, grad_fn)


# ---------------------------------------------------------------------- the hooked call
def _joined(global_table, own_table):
    # The global hooks first. A copy: a hook may remove itself (the lazy modules' does).
    if not global_table:
        return tuple(own_table.items())
    return (*global_table.items(), *own_table.items())


def call_with_hooks(module, args, kwargs):
    """Run `module.forward` with every hook that applies: forward pre-hooks, backward hooks
    wrapped around inputs and outputs, forward hooks; `always_call` hooks also on failure."""
    result = None
    called_always = set()
    try:
        full_hooks, non_full_hooks = [], []
        backward_pre_hooks = []
        if module._backward_pre_hooks or global_backward_pre_hooks:
            backward_pre_hooks = get_backward_pre_hooks(module)
        if module._backward_hooks or global_backward_hooks:
            full_hooks, non_full_hooks = get_backward_hooks(module)
        for hook_id, hook in _joined(global_forward_pre_hooks, module._forward_pre_hooks):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                hook_result = hook(module, args, kwargs)
                if hook_result is not None:
                    if not (isinstance(hook_result, tuple) and len(hook_result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {hook_result}.")
                    args, kwargs = hook_result
            else:
                hook_result = hook(module, args)
                if hook_result is not None:
                    args = hook_result if isinstance(hook_result, tuple) else (hook_result,)
        backward_hook = None
        if full_hooks or backward_pre_hooks:
            from ember.nn.modules.module_backward_hooks import BackwardHook
            backward_hook = BackwardHook(module, full_hooks, backward_pre_hooks)
            args = backward_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in _joined(global_forward_hooks, module._forward_hooks):
            if hook_id in module._forward_hooks_always_called or \
                    hook_id in global_forward_hooks_always_called:
                called_always.add(hook_id)
            if hook_id in module._forward_hooks_with_kwargs or \
                    hook_id in global_forward_hooks_with_kwargs:
                hook_result = hook(module, args, kwargs, result)
            else:
                hook_result = hook(module, args, result)
            if hook_result is not None:
                result = hook_result
        if backward_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a "
                              f"Tensor or a tuple of Tensors but received {type(result)}",
                              stacklevel=3)
            result = backward_hook.setup_output_hook(result)
        if non_full_hooks:
            from ember.nn.modules.module_backward_hooks import hook_last_node
            hook_last_node(module, args, result, non_full_hooks)
        return result
    except Exception:
        _run_always_called_hooks(module, args, kwargs, result, called_always)
        raise


def _run_always_called_hooks(module, args, kwargs, result, called) -> None:
    for hook_id, hook in global_forward_hooks.items():
        if hook_id in global_forward_hooks_always_called and hook_id not in called:
            try:
                hook_result = hook(module, args, result)
                if hook_result is not None:
                    result = hook_result
            # Reported as a warning: forward's error is the one raised.
            except Exception as error:  # noqa: BLE001
                warnings.warn("global module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {error}", stacklevel=3)
    for hook_id, hook in module._forward_hooks.items():
        if hook_id in module._forward_hooks_always_called and hook_id not in called:
            try:
                if hook_id in module._forward_hooks_with_kwargs:
                    hook_result = hook(module, args, kwargs, result)
                else:
                    hook_result = hook(module, args, result)
                if hook_result is not None:
                    result = hook_result
            # Reported as a warning: forward's error is the one raised.
            except Exception as error:  # noqa: BLE001
                warnings.warn("module forward hook with ``always_call=True`` raised an "
                              "exception that was silenced as another error was raised in "
                              f"forward: {error}", stacklevel=3)
