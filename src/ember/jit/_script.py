"""`script`, `trace` and the ScriptModule / ScriptFunction they return, all running the Python
code as written (NOTE [jit runs eagerly], ember/jit/__init__.py)."""
from __future__ import annotations

import builtins
import contextlib
import functools
import warnings

_TRACING = [0]
_SCRIPTING = [0]
_NO_ARCHIVE = ("ember has no TorchScript (NOTE [jit runs eagerly]): {what} is not available; "
               "save and load the module's state_dict with ember.save / ember.load instead")
_SCRIPTED_CLASSES: dict = {}


def is_tracing() -> bool:
    return _TRACING[0] > 0


def is_scripting() -> bool:
    return _SCRIPTING[0] > 0


@contextlib.contextmanager
def _flag(counter, value):
    """Run with `counter` set to `value` (nested calls restore what they found)."""
    previous, counter[0] = counter[0], value
    try:
        yield
    finally:
        counter[0] = previous


def _deprecated(name, instead="Please use `torch.compile` instead."):
    # PyTorch 2.13's own words, `torch.` included, as ember's other deprecation warnings.
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", DeprecationWarning,
                  stacklevel=3)


def run_as_python(fn):
    """`fn` run with is_scripting() False, as `ignore`d functions run under TorchScript."""
    @functools.wraps(fn)
    def python(*args, **kwargs):
        with _flag(_SCRIPTING, 0):
            return fn(*args, **kwargs)
    return python


def _nn_module():
    from ember.nn import Module
    return Module


class ScriptFunction:
    """A function `script` or `trace` returned: calling it runs the Python function."""

    def __init__(self, fn, scripted):
        self._function = fn
        self._scripted = scripted       # is_scripting() is True inside a scripted function
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        if not self._scripted:
            return self._function(*args, **kwargs)
        with _flag(_SCRIPTING, _SCRIPTING[0] + 1):
            return self._function(*args, **kwargs)

    @property
    def name(self) -> str:
        return self._function.__name__

    @property
    def qualified_name(self) -> str:
        return f"{self._function.__module__}.{self._function.__qualname__}"

    @property
    def code(self):
        raise NotImplementedError(_NO_ARCHIVE.format(what="TorchScript code"))

    @property
    def graph(self):
        raise NotImplementedError(_NO_ARCHIVE.format(what="a TorchScript graph"))

    def save(self, f, **kwargs):
        raise NotImplementedError(_NO_ARCHIVE.format(what="ScriptFunction.save"))


def _script_module_base():
    Module = _nn_module()
    base = _SCRIPTED_CLASSES.get("ScriptModule")
    if base is None:
        class ScriptModule(Module):
            """A module `script` or `trace` returned: the module's own class with this one
            mixed in, sharing the original's parameters, buffers and submodules."""

            def __call__(self, *args, **kwargs):
                if not self._scripted:
                    return super().__call__(*args, **kwargs)
                with _flag(_SCRIPTING, _SCRIPTING[0] + 1):
                    return super().__call__(*args, **kwargs)

            @property
            def original_name(self) -> str:
                return self._original_name

            @property
            def code(self):
                raise NotImplementedError(_NO_ARCHIVE.format(what="TorchScript code"))

            @property
            def graph(self):
                raise NotImplementedError(_NO_ARCHIVE.format(what="a TorchScript graph"))

            def save(self, f, **kwargs):
                raise NotImplementedError(_NO_ARCHIVE.format(what="ScriptModule.save"))

        base = _SCRIPTED_CLASSES["ScriptModule"] = ScriptModule
    return base


def _as_script_module(module, scripted):
    """`module` as a ScriptModule; `scripted` (script, not trace) makes is_scripting() True
    while it runs, as TorchScript's compiled code sees it."""
    base = _script_module_base()
    if builtins.isinstance(module, base):
        return module
    cls = type(module)
    scripted_cls = _SCRIPTED_CLASSES.get(cls)
    if scripted_cls is None:
        scripted_cls = type(cls.__name__, (base, cls), {"__module__": cls.__module__,
                                                       "__qualname__": cls.__qualname__})
        _SCRIPTED_CLASSES[cls] = scripted_cls
    wrapper = object.__new__(scripted_cls)
    state = dict(module.__dict__)
    for key in ("_parameters", "_buffers", "_modules"):
        if key in state:
            state[key] = dict(state[key])
    state["_original_name"] = cls.__name__
    state["_scripted"] = scripted
    wrapper.__dict__.update(state)
    return wrapper


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """A module becomes a ScriptModule sharing its parameters; a function a ScriptFunction; a
    class is returned as it is. Everything runs as Python (NOTE [jit runs eagerly])."""
    _deprecated("script", "Please switch to `torch.compile` or `torch.export`.")
    if builtins.isinstance(obj, (ScriptFunction, _script_module_base())):
        return obj
    if builtins.isinstance(obj, _nn_module()):
        return _as_script_module(obj, scripted=True)
    if builtins.isinstance(obj, type):
        return obj
    if callable(obj):
        return ScriptFunction(obj, scripted=True)
    raise RuntimeError(f"Type '{type(obj).__name__}' cannot be compiled since it is not a "
                       "function, a class or an nn.Module")


def _run_example(fn, example_inputs, example_kwarg_inputs):
    if example_kwarg_inputs is not None:
        return fn(**example_kwarg_inputs)
    inputs = example_inputs if builtins.isinstance(example_inputs, tuple) else \
        (example_inputs,)
    return fn(*inputs)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Run `func` once on the example inputs (with `is_tracing()` True) and return it as a
    ScriptModule or ScriptFunction that runs the Python code."""
    _deprecated("trace", "Please switch to `torch.compile` or `torch.export`.")
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("trace(): example_inputs or example_kwarg_inputs must be given")
    with _flag(_TRACING, _TRACING[0] + 1):
        _run_example(func, example_inputs, example_kwarg_inputs)
    if builtins.isinstance(func, _nn_module()):
        return _as_script_module(func, scripted=False)
    return func if builtins.isinstance(func, ScriptFunction) else ScriptFunction(func, False)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
                 _compilation_unit=None, example_inputs_is_kwarg=False, _store_inputs=True):
    """Run each named method of `mod` once on its inputs and return `mod` as a ScriptModule."""
    _deprecated("trace_method", "Please switch to `torch.compile` or `torch.export`.")
    if not builtins.isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")  # noqa: TRY004
    with _flag(_TRACING, _TRACING[0] + 1):
        for method, example in inputs.items():
            method_fn = getattr(mod, method)
            if example_inputs_is_kwarg:
                _run_example(method_fn, None, example)
            else:
                _run_example(method_fn, example, None)
    return _as_script_module(mod, scripted=False)


def script_if_tracing(fn):
    """`fn` as it is: scripting it under tracing changes nothing here."""
    return fn


def _script_module_only(mod, what):
    if not builtins.isinstance(mod, _script_module_base()):
        raise RuntimeError(  # noqa: TRY004 (PyTorch's class)
            f"{what} expects a ScriptModule as input. Please use torch.jit.script "
            "or torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return mod


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """The module, checked as PyTorch checks it: a ScriptModule in eval mode."""
    _deprecated("freeze")
    return _script_module_only(mod, "Freezing")


def optimize_for_inference(mod, other_methods=None):
    """The module, checked as PyTorch checks it: a ScriptModule in eval mode."""
    _deprecated("optimize_for_inference")
    return _script_module_only(mod, "optimize_for_inference")


def save(m, f, _extra_files=None):
    _deprecated("save", "Please switch to `torch.export`.")
    raise NotImplementedError(_NO_ARCHIVE.format(what="ember.jit.save"))


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    _deprecated("load", "Please switch to `torch.export`.")
    raise NotImplementedError(_NO_ARCHIVE.format(what="ember.jit.load"))


def export_opnames(m):
    raise NotImplementedError(_NO_ARCHIVE.format(what="ember.jit.export_opnames"))


class CompilationUnit:
    """TorchScript's compilation unit: nothing compiles TorchScript source here."""

    def __init__(self, lang=None, _frames_up=0):
        raise NotImplementedError(_NO_ARCHIVE.format(what="ember.jit.CompilationUnit"))


def __getattr__(name):
    if name == "ScriptModule":
        return _script_module_base()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
