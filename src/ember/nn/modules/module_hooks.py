"""Module hooks: per-module and global forward (pre-)hooks, backward hooks, state-dict hooks,
and the call path that runs them (taken only when some hook is set: NOTE [the plain module
call] in module.py).
"""
from __future__ import annotations

from collections import OrderedDict

from ember.utils.hooks import RemovableHandle

# Global hooks (`register_module_forward_hook` ...), seen by every module.
global_forward_pre_hooks: OrderedDict = OrderedDict()
global_forward_hooks: OrderedDict = OrderedDict()
global_forward_hooks_always_called: OrderedDict = OrderedDict()
global_backward_pre_hooks: OrderedDict = OrderedDict()
global_backward_hooks: OrderedDict = OrderedDict()
global_buffer_registration_hooks: OrderedDict = OrderedDict()
global_module_registration_hooks: OrderedDict = OrderedDict()
global_parameter_registration_hooks: OrderedDict = OrderedDict()

_GLOBAL_CALL_HOOKS = (global_forward_pre_hooks, global_forward_hooks,
                      global_backward_pre_hooks, global_backward_hooks)


def any_global_hooks() -> bool:
    return bool(global_forward_pre_hooks or global_forward_hooks or global_backward_pre_hooks
                or global_backward_hooks)


def _add(table: OrderedDict, hook, prepend: bool = False, extra=()) -> RemovableHandle:
    handle = RemovableHandle(table, extra_dict=list(extra))
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


# ---------------------------------------------------------------------- per-module registration
def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
    """`hook(module, args)` (or `hook(module, args, kwargs)` with `with_kwargs`) runs before
    forward; a non-None result replaces the arguments."""
    extra = (self._forward_pre_hooks_with_kwargs,)
    handle = _add(self._forward_pre_hooks, hook, prepend, extra)
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    return handle


def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                          always_call: bool = False):
    """`hook(module, args, output)` (or with kwargs) runs after forward; a non-None result
    replaces the output. `always_call` runs it even when forward raised."""
    extra = (self._forward_hooks_with_kwargs, self._forward_hooks_always_called)
    handle = _add(self._forward_hooks, hook, prepend, extra)
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def _check_backward_kind(self, full: bool) -> None:
    if self._is_full_backward_hook is not None and self._is_full_backward_hook is not full:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                           "single Module. Please use only one of them.")
    self._is_full_backward_hook = full


def register_full_backward_pre_hook(self, hook, prepend: bool = False):
    """`hook(module, grad_output)` runs before the module's input gradients are computed."""
    return _add(self._backward_pre_hooks, hook, prepend)


def register_full_backward_hook(self, hook, prepend: bool = False):
    """`hook(module, grad_input, grad_output)` runs when the gradients of the module's inputs
    are computed; a non-None result replaces grad_input."""
    _check_backward_kind(self, True)
    return _add(self._backward_hooks, hook, prepend)


def register_backward_hook(self, hook):
    """The deprecated form of `register_full_backward_hook`."""
    _check_backward_kind(self, False)
    return _add(self._backward_hooks, hook)


def register_state_dict_pre_hook(self, hook):
    """`hook(module, prefix, keep_vars)` runs before `state_dict` collects this module."""
    return _add(self._state_dict_pre_hooks, hook)


def register_state_dict_post_hook(self, hook):
    """`hook(module, state_dict, prefix, local_metadata)` runs after `state_dict`."""
    return _add(self._state_dict_hooks, hook)


def register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
    """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
    unexpected_keys, error_msgs)` runs before this module loads its part of a state dict."""
    if with_module:
        module = self

        def bound(*args):
            return hook(module, *args)
        return _add(self._load_state_dict_pre_hooks, bound)
    return _add(self._load_state_dict_pre_hooks, hook)


def register_load_state_dict_post_hook(self, hook):
    """`hook(module, incompatible_keys)` runs after `load_state_dict`; it may edit the key
    lists in place."""
    return _add(self._load_state_dict_post_hooks, hook)


# ---------------------------------------------------------------------- global registration
def register_module_forward_pre_hook(hook):
    """A forward pre-hook for every module (runs before the module's own)."""
    return _add(global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False):
    """A forward hook for every module (runs before the module's own)."""
    handle = _add(global_forward_hooks, hook, extra=(global_forward_hooks_always_called,))
    if always_call:
        global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    return _add(global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    return _add(global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook):
    return _add(global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook):
    return _add(global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    return _add(global_parameter_registration_hooks, hook)


# ---------------------------------------------------------------------- the hooked call
def call_with_hooks(module, args, kwargs):
    """Run `module.forward` with every forward pre-hook and hook that applies."""
    backward_hooks = (module._backward_hooks or module._backward_pre_hooks
                      or global_backward_hooks or global_backward_pre_hooks)
    called_always = set()
    try:
        for hook_id, hook in (*global_forward_pre_hooks.items(),
                              *module._forward_pre_hooks.items()):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                result = hook(module, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(module, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if backward_hooks:
            from ember.nn.modules.module_backward_hooks import BackwardHook
            state = BackwardHook(module)
            args = state.setup_input_hook(args)
        output = module.forward(*args, **kwargs)
        for hook_id, hook in (*global_forward_hooks.items(), *module._forward_hooks.items()):
            if hook_id in global_forward_hooks_always_called or \
                    hook_id in module._forward_hooks_always_called:
                called_always.add(hook_id)
            if hook_id in module._forward_hooks_with_kwargs:
                result = hook(module, args, kwargs, output)
            else:
                result = hook(module, args, output)
            if result is not None:
                output = result
        if backward_hooks:
            output = state.setup_output_hook(output)
        return output
    except Exception:
        for hook_id, hook in (*global_forward_hooks.items(), *module._forward_hooks.items()):
            always = (hook_id in global_forward_hooks_always_called
                      or hook_id in module._forward_hooks_always_called)
            if always and hook_id not in called_always:
                try:
                    if hook_id in module._forward_hooks_with_kwargs:
                        hook(module, args, kwargs, None)
                    else:
                        hook(module, args, None)
                except Exception as hook_error:
                    import warnings
                    warnings.warn("global module forward hook with ``always_call=True`` raised "
                                  f"an exception that was silenced as another error was raised "
                                  f"in forward: {hook_error}", stacklevel=2)
        raise
