"""The public entry of a hand-written public function: PyTorch's `has_torch_function` /
`handle_torch_function` at the top of its body, under its public name.

NOTE [the public entry]: a hand-written public function (an `nn.functional` function, a
frontend of `register_frontend`, a factory, a hand-written dunder) starts with

    if _state.entry and _wants(locals()):
        return _handle(public_function, locals())

`state.entry` (process_state.py) is False unless a mode, handler or guard is open or a Tensor
subclass that overrides `__torch_function__` exists (`entry_subclass`; the lazy placeholders,
which only refuse ops, are exempt), so the plain call pays one attribute test and no wrapper
frame. Otherwise, when a TorchFunctionMode is active or an argument's class
overrides `__torch_function__`, the call is handed to it as `public_function(*args, **kwargs)`
(`handle_torch_function` in stack.py: the mode is popped while its handler runs, so the body's
own calls don't reach it; the default `Tensor.__torch_function__` runs the body with subclass
handling off). When nothing asks, the body runs as usual. `locals()` at the top of a body holds
exactly its parameters, which `_split` turns back into a call.
"""
from __future__ import annotations

from ember._core.dispatch import stack

_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08


def wants(given: dict) -> bool:
    """Whether a call with these parameter values goes to __torch_function__ (PyTorch's
    has_torch_function over them; lists, tuples and a `**kwargs` dict are looked into)."""
    return stack.torch_function_wanted(_relevant(given))


def handle(func, given: dict):
    """Offer `func`, called with the parameters in `given`, to the active TorchFunctionMode and
    the overriding arguments (stack.handle_torch_function); the first answer wins. An
    operator's dunder is handed over as the method it stands for (NOTE [the function
    __torch_function__ sees], stack.py)."""
    args, kwargs = _split(func, given)
    return stack.handle_torch_function(stack.reported(func), _relevant(given), args, kwargs)


def handle_get(prop, self):
    """A property read offered as PyTorch offers it: `Tensor.<name>.__get__(self)`."""
    return stack.handle_torch_function(prop.__get__, (self,), (self,), {})


def handle_set(prop, self, value):
    """A property write offered as `Tensor.<name>.__set__(self, value)`."""
    return stack.handle_torch_function(prop.__set__, (self, value), (self, value), {})


def _relevant(given):
    values = []
    for value in given.values():
        if type(value) is dict:
            values.extend(value.values())
        else:
            values.append(value)
    return values


def _split(func, given):
    """(args, kwargs) that call `func` with the values in `given`, as the user could have
    written the call: positional parameters by position (trailing ones left at their default
    left off), keyword-only ones by name where they differ from their default."""
    if hasattr(func, "checked_body"):                   # (NOTE [checked entries])
        from ember._core.checked_entry import body_of
        func = body_of(func)
    code = func.__code__
    names = code.co_varnames
    positional = names[:code.co_argcount]
    keyword_only = names[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    rest = code.co_argcount + code.co_kwonlyargcount
    args = [given[n] for n in positional]
    if code.co_flags & _CO_VARARGS:
        args.extend(given[names[rest]])
        rest += 1
    else:
        defaults = func.__defaults__ or ()
        first = len(positional) - len(defaults)
        while len(args) > max(first, 0) and _is_default(args[-1], defaults[len(args) - 1 - first]):
            args.pop()
    keyword_defaults = func.__kwdefaults__ or {}
    kwargs = {n: given[n] for n in keyword_only
              if n not in keyword_defaults or not _is_default(given[n], keyword_defaults[n])}
    if code.co_flags & _CO_VARKEYWORDS:
        kwargs.update(given[names[rest]])
    return tuple(args), kwargs


def _is_default(value, default):
    if value is default:
        return True
    kind = type(value)
    return kind is type(default) and kind in (int, float, bool, str) and value == default
