"""ember.jit: TorchScript's front, running eagerly (NOTE [jit runs eagerly]).

NOTE [jit runs eagerly]: ember has no TorchScript compiler and no TorchScript archive format.
`script` and `trace` give a ScriptModule (the module's own class with ScriptModule mixed in,
sharing its parameters, buffers and submodules; state_dict keys unchanged) or a ScriptFunction,
and calling either runs the Python code. What model code asks in passing answers as compiled
code would: `is_scripting()` is True while a scripted module or function runs, except inside
`ignore`d functions (which TorchScript leaves to Python); `is_tracing()` is True while `trace`
runs its example inputs. `annotate`, `unused`, `export`, `interface`, `Attribute` and `Final`
leave the code as written, `isinstance` checks typing generics (`List[int]`, `Dict[str, Tensor]`,
`Optional[...]`) at run time, `fork` runs its function at once. `freeze` and
`optimize_for_inference` check their input as PyTorch does and return it. What needs the format
itself (`save`, `load`, `CompilationUnit`, `export_opnames`, `code`, `graph`) raises
NotImplementedError naming what to use instead. The deprecation warnings are PyTorch 2.13's.
"""
from __future__ import annotations

import typing
import warnings

from ember.jit._runtime import (
    Future,
    fork,
    isinstance,
    wait,
)
from ember.jit._script import (
    CompilationUnit,
    ScriptFunction,
    ScriptModule,
    _deprecated,
    export_opnames,
    freeze,
    load,
    optimize_for_inference,
    run_as_python,
    save,
    script,
    script_if_tracing,
    trace,
    trace_module,
)
from ember.jit._script import is_scripting as _is_scripting
from ember.jit._script import is_tracing as _is_tracing

Final = typing.Final

__all__ = [
    "Attribute",
    "CompilationUnit",
    "Error",
    "Future",
    "ScriptFunction",
    "ScriptModule",
    "annotate",
    "enable_onednn_fusion",
    "export",
    "export_opnames",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "isinstance",
    "load",
    "onednn_fusion_enabled",
    "optimize_for_inference",
    "save",
    "script",
    "script_if_tracing",
    "set_fusion_strategy",
    "strict_fusion",
    "trace",
    "trace_module",
    "unused",
    "wait",
]


class Error(Exception):
    """The error a TorchScript program raises at run time (never raised by eager code)."""


def is_scripting() -> bool:
    """True while a scripted module or function runs (outside `ignore`d code), as compiled
    TorchScript sees it (NOTE [jit runs eagerly])."""
    return _is_scripting()


def is_tracing() -> bool:
    """True while `trace` runs its example inputs through the function."""
    return _is_tracing()


def annotate(the_type, the_value):
    """The value, as given: the type only informs TorchScript's compiler."""
    return the_value


def Attribute(value, type=None):
    """The value, as given: the type only informs TorchScript's compiler."""
    return value


def ignore(drop=False, **kwargs):
    """Leave a function to Python: it always is here. Both `@ignore` and `@ignore(drop=...)`."""
    if callable(drop):
        return run_as_python(drop)
    return run_as_python


def unused(fn):
    """Leave a function out of compilation: it always runs as Python here."""
    return fn


def export(fn):
    """Mark a method as a compilation entry point: it runs as Python here."""
    return fn


def interface(obj):
    """Declare a TorchScript interface type: the class, unchanged."""
    return obj


_FUSION_STRATEGY = [("STATIC", 2), ("DYNAMIC", 10)]
_ONEDNN_FUSION = [False]


def set_fusion_strategy(strategy):
    """Store the fusion strategy (no fuser runs) and return the previous one."""
    global _FUSION_STRATEGY
    _deprecated("set_fusion_strategy")
    previous, _FUSION_STRATEGY = _FUSION_STRATEGY, [tuple(s) for s in strategy]
    return previous


def enable_onednn_fusion(enabled: bool) -> None:
    """Store the oneDNN fusion switch (no fuser runs)."""
    _ONEDNN_FUSION[0] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    return _ONEDNN_FUSION[0]


class strict_fusion:
    """A context in which TorchScript would insist on fusing everything: nothing to do here."""

    def __enter__(self):
        warnings.warn("Only works in script mode", UserWarning, stacklevel=2)
        return self

    def __exit__(self, *exc):
        return False

