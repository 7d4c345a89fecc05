"""Turning a real value read through a source into a VariableTracker, with the guards that
make the capture valid for the next call with the same facts."""
from __future__ import annotations

import types

from ember._dynamo import guards
from ember._dynamo.source import AttrSource, GetItemSource
from ember._dynamo.variables.base import ConstantVariable, is_constant_value
from ember._dynamo.variables.builtin import BuiltinVariable, is_builtin
from ember._dynamo.variables.containers import DictVariable, ListVariable, TupleVariable
from ember._dynamo.variables.functions import (
    CaptureConstantVariable,
    ClassVariable,
    EmberFunctionVariable,
    GradModeQueryVariable,
    PythonModuleVariable,
    UnsupportedCallableVariable,
    UserFunctionVariable,
    UserMethodVariable,
    UserObjectVariable,
    is_ember_function,
    is_in_graph_function,
    is_library_function,
)
from ember._dynamo.variables.nn_module import NNModuleVariable
from ember._dynamo.variables.tensor import TensorMethodVariable, TensorVariable


def wrap(og, value, source):
    """The variable for `value`, found at `source` (memoised per object, so two sources of
    one list or tensor give one variable, and the ALIASING guard pins that)."""
    from ember._tensor import Tensor
    from ember.nn import Module
    if is_constant_value(value):
        og.add_guard(guards.equals_match(source, value))
        return ConstantVariable(value, source)
    if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType):
        # a bound method is made afresh at each attribute read: guard its object instead
        owner = wrap(og, value.__self__, AttrSource(source, "__self__"))
        if isinstance(owner, TensorVariable):
            return TensorMethodVariable(owner, value.__func__.__name__)
        if is_ember_function(value.__func__) and \
                not value.__func__.__module__.startswith("ember.nn.modules"):
            return UnsupportedCallableVariable(value, "an ember method outside the op set",
                                               source)
        return UserMethodVariable(value.__func__, owner, source)
    known = og.seen(value, source)
    if known is not None:
        return known
    if isinstance(value, Tensor):
        var = og.add_input(source, value)
    elif isinstance(value, Module):
        og.add_guard(guards.id_match(source, value))
        var = NNModuleVariable(value, source)
    elif type(value) in (list, tuple):
        og.add_guard(guards.length_match(source, value))
        items = [wrap(og, item, GetItemSource(source, i)) for i, item in enumerate(value)]
        var = (ListVariable if type(value) is list else TupleVariable)(items, source)
    elif type(value) is dict and all(type(k) in (str, int) for k in value):
        og.add_guard(guards.equals_match_keys(source, value))
        var = DictVariable({k: wrap(og, v, GetItemSource(source, k)) for k, v in value.items()},
                           source)
    else:
        og.add_guard(guards.id_match(source, value))
        var = _wrap_object(value, source)
    og.remember(value, var)
    return var


def _wrap_object(value, source):
    if isinstance(value, types.ModuleType):
        return PythonModuleVariable(value, source)
    if getattr(value, "_ember_dynamo_disable", False):
        return UnsupportedCallableVariable(value, "marked ember.compiler.disable", source)
    if is_builtin(value):
        return BuiltinVariable(value, source)
    if isinstance(value, types.FunctionType):
        if is_in_graph_function(value):
            return EmberFunctionVariable(value, source)
        if value.__name__ in ("is_compiling", "is_dynamo_compiling") and \
                is_ember_function(value):
            return CaptureConstantVariable(value, source)
        if value.__name__ == "is_grad_enabled" and is_ember_function(value):
            return GradModeQueryVariable(value, source)
        if is_ember_function(value) and not value.__module__.startswith("ember.nn.modules"):
            return UnsupportedCallableVariable(value, "an ember function outside the op set",
                                               source)
        if is_library_function(value):
            return UnsupportedCallableVariable(value, "a library function (not user code)",
                                               source)
        return UserFunctionVariable(value, source)
    if isinstance(value, type):
        return ClassVariable(value, source)
    if callable(value) and not hasattr(value, "__dict__"):
        return UnsupportedCallableVariable(value, "a C function capture cannot follow", source)
    return UserObjectVariable(value, source)


__all__ = ["wrap"]
