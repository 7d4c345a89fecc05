"""`compile` and `OptimizedModule`: the wrapper that sends each call through capture
(NOTE [how capture runs] in convert_frame's neighbours and docs/architecture.md)."""
from __future__ import annotations

import functools
import types

from ember._dynamo import convert_frame
from ember._dynamo.backends import lookup_backend
from ember.nn import Module

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def reset() -> None:
    """Forget every capture: the cache per code object, the frames marked eager, the resume
    functions."""
    convert_frame.reset()


def is_compiling() -> bool:
    """Whether the caller runs inside capture (True in captured code, which reads it during
    capture; False when the same code runs eagerly)."""
    return convert_frame.is_compiling()


def disable(fn=None, recursive=True, *, reason=None):
    """Leave `fn` out of compilation: a call to it from captured code is a graph break and it
    runs eagerly (as a decorator, with or without arguments)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def disabled(*args, **kwargs):
        return fn(*args, **kwargs)
    disabled._ember_dynamo_disable = True
    return disabled


def _check_arguments(backend, mode, options):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    return lookup_backend(backend)


def compile_entry(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
                  options=None, disable=False):
    """compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None,
    options=None, disable=False): `model` (an nn.Module or a function) captured into graphs
    on its first call (NOTE [how capture runs]); without `model`, a decorator. A module comes
    back wrapped in an `OptimizedModule`, a function wrapped with its name and docstring
    kept; `disable=True` gives `model` itself back."""
    backend_fn = _check_arguments(backend, mode, options)
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
    if mode in ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs") and \
            backend_fn is lookup_backend("inductor"):
        backend_fn = _inductor_with_mode(backend_fn, mode)
    settings = convert_frame.CompileConfig(backend_fn, fullgraph, dynamic)
    if isinstance(model, Module):
        return OptimizedModule(model, settings)

    if type(model) is types.FunctionType and \
            not getattr(model, "_ember_dynamo_disable", False):
        call_compiled = convert_frame.call_compiled

        @functools.wraps(model)
        def compiled(*args, **kwargs):      # (a plain function: what _call would do)
            return call_compiled(model, args, kwargs, settings)
        return compiled

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return _call(model, args, kwargs, settings)
    return compiled


def _inductor_with_mode(inductor, mode):
    """The inductor backend with compile's `mode` bound (PyTorch hands it to inductor the
    same way, through the backend object torch.compile makes)."""
    def backend(gm, example_inputs):
        return inductor(gm, example_inputs, mode=mode)
    backend.__name__ = "inductor"
    return backend


def _call(target, args, kwargs, settings):
    if getattr(target, "_ember_dynamo_disable", False):
        return target(*args, **kwargs)
    if isinstance(target, types.MethodType) and isinstance(target.__func__,
                                                           types.FunctionType):
        return convert_frame.call_compiled(target.__func__, (target.__self__, *args), kwargs,
                                           settings)
    if isinstance(target, types.FunctionType):
        return convert_frame.call_compiled(target, args, kwargs, settings)
    convert_frame.say_once(("not a function", type(target)), "ember.compile: %s is not a "
                           "Python function; it runs eagerly", type(target).__name__)
    return target(*args, **kwargs)


class OptimizedModule(Module):
    """A compiled module: the original is its one child, `_orig_mod`, and everything else
    (attributes, methods, the call) goes through to it."""

    def __init__(self, mod, settings=None):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compile_settings"] = settings or convert_frame.CompileConfig(
            lookup_backend("inductor"), False)

    def forward(self, *args, **kwargs):
        from ember._dynamo.variables.nn_module import _has_hooks
        mod = self._orig_mod
        if _has_hooks(mod) or "forward" in mod.__dict__:
            # the module's own call (hooks, a replaced forward) runs as it is
            return mod(*args, **kwargs)
        return convert_frame.call_compiled(type(mod).forward, (mod, *args), kwargs,
                                           self._compile_settings)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "_orig_mod":
                raise
            return getattr(self._modules["_orig_mod"], name)
