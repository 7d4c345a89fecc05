"""`compile` and `OptimizedModule` (NOTE [compile runs eagerly])."""
from __future__ import annotations

import functools

from ember._dynamo.exc import InvalidBackend
from ember.nn import Module

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# The names `list_backends()` gives by default (the debugging backends are accepted too).
_BACKENDS = ("cudagraphs", "inductor", "openxla", "tvm")
_DEBUG_BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition")


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The names `compile(backend=...)` accepts (without the debugging ones by default)."""
    return sorted(_BACKENDS) if exclude_tags else sorted(_BACKENDS + _DEBUG_BACKENDS)


def reset() -> None:
    """Forget compiled code: there is none to forget (NOTE [compile runs eagerly])."""


def is_compiling() -> bool:
    """Whether the caller runs inside a graph being traced: never, in ember."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Leave `fn` out of compilation: it already runs eagerly, so `fn` comes back unchanged
    (as a decorator, with or without arguments)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def _check_arguments(backend, mode, options):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS + _DEBUG_BACKENDS:
        raise InvalidBackend(backend)


def compile_entry(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
                  options=None, disable=False):
    """compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None,
    options=None, disable=False): `model` (an nn.Module or a function) prepared for the
    compiler; without `model`, a decorator. ember runs the result eagerly (NOTE [compile runs
    eagerly]): a module comes back wrapped in an `OptimizedModule`, a function wrapped with
    its name and docstring kept; `disable=True` gives `model` itself back."""
    _check_arguments(backend, mode, options)
    if model is None:
        def decorate(target):
            return compile_entry(target, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
        return decorate
    if not callable(model):
        raise AssertionError(  # noqa: TRY004 (PyTorch raises AssertionError here)
            f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled


class OptimizedModule(Module):
    """A compiled module: the original is its one child, `_orig_mod`, and everything else
    (attributes, methods, the call) goes through to it."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":
                raise
            return getattr(self._modules["_orig_mod"], name)
