"""The guard filters of `ember.compiler` (`compile(..., options={"guard_filter_fn": f})`): each
takes the guard entries (with `guard_type`, `value`, `is_global`, `orig_guard.source`) and
returns, per entry, whether to keep it."""
from __future__ import annotations


def skip_guard_on_inbuilt_nn_modules_unsafe(guard_entries) -> list:
    return [not entry.orig_guard.source.is_unspecialized_builtin_nn_module()
            for entry in guard_entries]


def skip_guard_on_all_nn_modules_unsafe(guard_entries) -> list:
    return [not entry.orig_guard.source.is_unspecialized_nn_module() for entry in guard_entries]


def keep_tensor_guards_unsafe(guard_entries, keep_parameters: bool = False) -> list:
    from ember.nn import Parameter
    return [entry.guard_type == "TENSOR_MATCH" and
            (keep_parameters or not isinstance(entry.value, Parameter))
            for entry in guard_entries]


def skip_guard_on_globals_unsafe(guard_entries) -> list:
    return [not entry.is_global for entry in guard_entries]


def skip_all_guards_unsafe(guard_entries) -> list:
    return [False] * len(guard_entries)


def keep_portable_guards_unsafe(guard_entries) -> list:
    """Keep the guards that hold in another process: global state, shapes, and local tensors'
    properties."""
    return [entry.guard_type in ("GLOBAL_STATE", "SHAPE_ENV") or
            entry.guard_type == "TENSOR_MATCH" and not entry.is_global
            for entry in guard_entries]
