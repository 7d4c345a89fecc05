"""`ember.compiler`: the compiler's public switches and front: `compile` with its default
backend and stance (_front.py, NOTE [compile stance]), settings (config.py), guard filters
(_guards.py). Graph capture itself lives in `ember/_dynamo` (NOTE [how capture runs])."""
from __future__ import annotations

import contextlib

from ember._dynamo.backends import list_backends
from ember._dynamo.eval_frame import disable, is_compiling, reset
from ember.compiler import config
from ember.compiler._front import compile, get_default_backend, set_default_backend, set_stance
from ember.compiler._guards import (
    keep_portable_guards_unsafe,
    keep_tensor_guards_unsafe,
    skip_all_guards_unsafe,
    skip_guard_on_all_nn_modules_unsafe,
    skip_guard_on_globals_unsafe,
    skip_guard_on_inbuilt_nn_modules_unsafe,
)

_exporting = [False]
_guard_collectives = [False]


def is_dynamo_compiling() -> bool:
    """Whether the caller is being captured (True in captured code)."""
    return is_compiling()


def is_exporting() -> bool:
    """Whether the caller runs inside `ember.export.export`'s capture."""
    return _exporting[0]


@contextlib.contextmanager
def _exporting_now():
    previous = _exporting[0]
    _exporting[0] = True
    try:
        yield
    finally:
        _exporting[0] = previous


def assume_constant_result(fn):
    """Mark `fn`'s result as constant for tracing: not used by capture yet, `fn` comes back."""
    return fn


def allow_in_graph(fn):
    """Let `fn` into captured graphs as one call: not used by capture yet, `fn` comes back."""
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through: bool = False,
                        skip_signature_check: bool = False):
    """Register a Python stand-in for `original_fn` that capture may trace instead; the
    decorated stand-in comes back unchanged (ember's capture traces Python functions as
    they are)."""
    if not callable(original_fn):
        raise TypeError(f"substitute_in_graph expects a function but got {type(original_fn)!r}")

    def register(substitute):
        return substitute
    return register


def nested_compile_region(fn=None, *, options=None, max_reuse_entries: int = 8,
                          reuse_hash_fn=None):
    """Mark `fn` as a region compiled once and reused (a decorator; eagerly, `fn` runs as it
    is)."""
    def wrap(target):
        return target
    return wrap if fn is None else wrap(fn)


def wrap_numpy(fn):
    """Let `fn`, written for NumPy arrays, take and return tensors (converted at the
    boundary)."""
    import functools

    import numpy as np

    import ember
    from ember.utils import _pytree

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        args, kwargs = _pytree.tree_map_only(ember.Tensor, lambda t: t.numpy(), (args, kwargs))
        out = fn(*args, **kwargs)
        return _pytree.tree_map_only(np.ndarray, ember.from_numpy, out)
    return wrapped


def cudagraph_mark_step_begin() -> None:
    """Mark the start of an iteration for CUDA-graph trees: ember records no CUDA graphs."""


def set_enable_guard_collectives(enabled: bool) -> bool:
    """Whether compiled code in distributed jobs agrees on guard results (returns the previous
    value; ember's capture runs each rank alone)."""
    previous = _guard_collectives[0]
    _guard_collectives[0] = bool(enabled)
    return previous


def save_cache_artifacts():
    """The compiler's caches as bytes: None, ember keeps none that outlive the process."""
    return


def load_cache_artifacts(serialized_artifacts: bytes):
    """Load caches `save_cache_artifacts` wrote. ember writes none, so any bytes are foreign:
    as PyTorch does with bytes it cannot read, warn and load nothing (None)."""
    import warnings
    warnings.warn("ember.compiler.load_cache_artifacts: these are not cache artifacts ember "
                  "can load (it saves none); nothing was loaded", stacklevel=2)


def load_compiled_function(file, *, f_globals=None, external_data=None):
    """Load a function saved by PyTorch's AOT precompile: not in ember."""
    raise NotImplementedError("ember.compiler.load_compiled_function: ember has no AOT "
                              "precompile format")


__all__ = ["allow_in_graph", "assume_constant_result", "compile", "config",
           "cudagraph_mark_step_begin", "disable", "get_default_backend", "is_compiling",
           "is_dynamo_compiling", "is_exporting", "keep_portable_guards_unsafe",
           "keep_tensor_guards_unsafe", "list_backends", "load_cache_artifacts",
           "load_compiled_function", "nested_compile_region", "reset", "save_cache_artifacts",
           "set_default_backend", "set_enable_guard_collectives", "set_stance",
           "skip_all_guards_unsafe", "skip_guard_on_all_nn_modules_unsafe",
           "skip_guard_on_globals_unsafe", "skip_guard_on_inbuilt_nn_modules_unsafe",
           "substitute_in_graph", "wrap_numpy"]
