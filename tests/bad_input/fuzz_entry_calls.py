"""The worker's side of the entry-point families (fuzz_entries_*.py): the call a description
names, made with one library. `target(lib, call)` gives (function, args, kwargs) with the
values already built; building a module is part of the call, so a refused constructor is the
call's outcome.
"""
from __future__ import annotations

from fuzz_values import build, tensor_values


def _fill_parameters(lib, module):
    """The same small values in both libraries' parameters, so results compare exactly."""
    with lib.no_grad():
        for parameter in module.parameters():
            shape = tuple(parameter.shape)
            parameter.copy_(lib.tensor(tensor_values(shape, "float64") / 4).to(parameter.dtype))


def _module_call(lib, call, args, kwargs):
    ctor_args = [build(desc, lib) for desc in call["ctor_args"]]
    ctor_kwargs = {name: build(desc, lib) for name, desc in call["ctor_kwargs"].items()}
    module = getattr(lib.nn, call["name"])(*ctor_args, **ctor_kwargs)
    if any(True for _ in module.parameters()):
        _fill_parameters(lib, module)
    return module(*args, **kwargs)


def _setitem(target, index, value):
    target[index] = value
    return target


def target(lib, call):
    """(function, args, kwargs) of a drawn entry-point call."""
    form = call["form"]
    args = [build(desc, lib) for desc in call["args"]]
    kwargs = {name: build(desc, lib) for name, desc in call["kwargs"].items()}
    if form == "functional":
        return getattr(lib.nn.functional, call["name"]), args, kwargs
    if form == "module":
        return (lambda *a, **k: _module_call(lib, call, a, k)), args, kwargs
    if form == "legacy":
        if call["name"] == "new":
            return build(call["base"], lib).new, args, kwargs
        return getattr(lib, call["name"]), args, kwargs
    if form == "getitem":
        return (lambda t, i: t[i]), args, kwargs
    if form == "setitem":
        return _setitem, args, kwargs
    if form == "namespace":                         # linalg, fft, special
        return getattr(getattr(lib, call["namespace"]), call["name"]), args, kwargs
    if form == "api":                               # ember.* functions and Tensor methods
        if call["namespace"] == "Tensor":
            return getattr(args[0], call["name"]), args[1:], kwargs
        return getattr(lib, call["name"]), args, kwargs
    return getattr(lib, call["name"]), args, kwargs       # tensor, asarray, frombuffer, load
