"""Binding a call's arguments to a function's parameters, for inlining (the rules of
CPython's own call: positional, keyword, defaults, *args, **kwargs)."""
from __future__ import annotations

import inspect

from ember._dynamo.exc import unimplemented
from ember._dynamo.variables.base import ConstantVariable, is_constant_value
from ember._dynamo.variables.containers import DictVariable, TupleVariable


def bind_arguments(fn, args, kwargs) -> dict:
    """Parameter name -> variable. A call that would raise TypeError is a graph break, so the
    eager call raises it."""
    code = fn.__code__
    names = code.co_varnames
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    positional, keyword_only = names[:npos], names[npos:npos + nkw]
    rest = npos + nkw
    star = names[rest] if code.co_flags & inspect.CO_VARARGS else None
    starstar = names[rest + (star is not None)] if code.co_flags & inspect.CO_VARKEYWORDS \
        else None
    bound = {}
    for name, value in zip(positional, args):
        bound[name] = value
    extra = list(args[npos:])
    if extra and star is None:
        unimplemented(f"{fn.__name__}() given too many positional arguments")
    if star is not None:
        bound[star] = TupleVariable(extra)
    spill = {}
    for name, value in kwargs.items():
        if name in bound:
            unimplemented(f"{fn.__name__}() got multiple values for {name!r}")
        if name in positional[code.co_posonlyargcount:] or name in keyword_only:
            bound[name] = value
        elif starstar is not None:
            spill[name] = value
        else:
            unimplemented(f"{fn.__name__}() got an unexpected keyword argument {name!r}")
    if starstar is not None:
        bound[starstar] = DictVariable(spill)
    defaults = fn.__defaults__ or ()
    first_default = npos - len(defaults)
    for i, name in enumerate(positional):
        if name not in bound:
            if i < first_default:
                unimplemented(f"{fn.__name__}() missing argument {name!r}")
            bound[name] = _default(defaults[i - first_default], name)
    kwdefaults = fn.__kwdefaults__ or {}
    for name in keyword_only:
        if name not in bound:
            if name not in kwdefaults:
                unimplemented(f"{fn.__name__}() missing keyword argument {name!r}")
            bound[name] = _default(kwdefaults[name], name)
    return bound


def _default(value, name):
    if not is_constant_value(value):
        unimplemented(f"default value of parameter {name!r} is not a constant")
    return ConstantVariable(value)
