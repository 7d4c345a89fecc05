"""The argument orders PyTorch's parser still accepts for a few ops besides their schema's.

NOTE [deprecated argument orders]: PyTorch's Python bindings of addmm, addmv, addr, addbmm,
baddbmm, addcmul and addcdiv also take the orders of their old signatures, with the Scalars
first and everything positional:

    torch.addr(beta, input, alpha, vec1, vec2)     x.addr_(beta, vec1, vec2)
    torch.addcdiv(input, value, tensor1, tensor2)  x.addcdiv_(value, tensor1=t1, tensor2=t2)

Its parser tries the schema's signature first, then each old one, and the first that binds
(every argument of the right kind) wins. When none does, the error is the one of the schema's
signature if the number of arguments fits it (the old signatures are hidden from messages),
else "received an invalid combination of arguments".

A registry entry lists its old orders as argument names (`deprecated_forms`); the generated
binding (tools/gen_bindings.py) takes its tensors positionally only and, by name, keyword-only,
so that `x.addr_(2, vec1=a, vec2=b)` does not collide with the schema's positions, and calls
`bind` here whenever the call is not the plain positional one. The plain call pays a few
identity tests.
"""
from __future__ import annotations

import numbers

import numpy as np


class _NotGiven:
    """The default of a binding's parameter that tells an argument left out."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


NOT_GIVEN = _NotGiven()


def bind(op, name: str, method: bool, positional: tuple, keywords: dict) -> tuple:
    """Every schema argument of `op`, in the schema's order, from a call whose positional
    arguments (self first for a method) and keywords (NOT_GIVEN where left out; a Scalar
    keyword equal to its default counts as left out) are given."""
    positional = tuple(v for v in positional if v is not NOT_GIVEN)
    schema_args = op.schema.arguments
    defaults = {a.name: a.default for a in schema_args if a.has_default}
    keywords = {k: v for k, v in keywords.items() if v is not NOT_GIVEN and not (
        k in defaults and type(v) is type(defaults[k]) and v == defaults[k])}
    if not method and "input" in keywords:       # (the schema's `self` is `input` here)
        keywords["self"] = keywords.pop("input")
    leading = positional[:1] if method else ()
    given = positional[1:] if method else positional
    number_tensors = op.name in _NUMBERS_AS_TENSORS
    for number, signature in enumerate(_signatures(op, method)):
        bound = _try(signature, given, keywords, number_tensors and number > 0)
        if bound is not None:
            if number:
                _warn(op, name, method, signature)
            values = {**defaults, **bound}
            if method:
                values[schema_args[0].name] = leading[0]
            return tuple(values[a.name] for a in schema_args)
    raise _error(op, name, method, given, keywords)


def _signatures(op, method):
    """[(name, base type, kwarg_only, has_default)] per signature, the schema's first."""
    by_name = {a.name: a for a in op.schema.arguments}
    first = op.schema.arguments[1:] if method else op.schema.arguments
    found = [[(a.name, a.base_type, a.kwarg_only, a.has_default) for a in first]]
    for order in op.deprecated_forms:
        names = [n for n in order if not (method and n == op.schema.arguments[0].name)]
        found.append([(n, by_name[n].base_type, False, False) for n in names])
    return found


def _warn(op, name, method, old):
    """PyTorch's warning (once per process) for a call in an old order."""
    from ember._core.checks import _warn_once
    with_out = op.out and not method
    _warn_once(f"deprecated form {name} {old}", lambda: (
        f"This overload of {name} is deprecated:\n\t{name}{_text(op, old, method, with_out)}\n"
        f"Consider using one of the following signatures instead:\n\t{name}"
        f"{_text(op, _signatures(op, method)[0], method, with_out)}"))


def _text(op, signature, method, with_out) -> str:
    """A signature as PyTorch's messages show it: (Number beta, Tensor input, ...)."""
    from ember._core.arguments import _SHOWN_TYPES
    defaults = {a.name: a.default for a in op.schema.arguments}
    parts, star = [], False
    for param_name, base, kwarg_only, has_default in signature:
        if kwarg_only and not star:
            parts.append("*")
            star = True
        shown = "input" if param_name == "self" and not method else param_name
        text = f"{_SHOWN_TYPES.get(base, base)} {shown}"
        parts.append(text + (f" = {defaults[param_name]}" if has_default else ""))
    if with_out:
        parts += ([] if star else ["*"]) + ["Tensor out = None"]
    return f"({', '.join(parts)})"


# Ops whose old orders take a Python number where the order names a Tensor (PyTorch's parser
# wraps it: torch.add(x, 2, 3) is x + 2 * 3).
_NUMBERS_AS_TENSORS = frozenset({"add.Tensor"})


def _try(signature, given, keywords, number_tensors=False):
    """{name: value} when the call binds to `signature` with every argument of its kind."""
    positional_names = [p[0] for p in signature if not p[2]]
    if len(given) > len(positional_names):
        return None
    bound = dict(zip(positional_names, given))
    names = {p[0] for p in signature}
    for key, value in keywords.items():
        if key not in names or key in bound:
            return None
        bound[key] = value
    for param_name, base, _, has_default in signature:
        if param_name not in bound:
            if not has_default:
                return None
            continue
        if not _fits(base, bound[param_name]) and not (
                number_tensors and base == "Tensor" and _fits("Scalar", bound[param_name])):
            return None
    return bound


def _fits(base, value) -> bool:
    from ember._core.dispatch import Tensor
    if base == "Tensor":
        return isinstance(value, Tensor)
    if base == "Scalar":
        # PyTorch's Scalar: a Python or NumPy number, or a 0-d tensor that needs no grad.
        if isinstance(value, Tensor):
            return value.dim() == 0 and not value.requires_grad
        return isinstance(value, (numbers.Number, np.number, np.bool_))
    return True


def _error(op, name, method, given, keywords) -> TypeError:
    """The schema signature's own error when the count of arguments fits it, else PyTorch's
    "invalid combination" message. The checks go in PyTorch's order: the count of positional
    arguments, then each parameter in turn (missing, or of the wrong kind), then the keywords
    left over."""
    from ember._core.arguments import type_name
    signature = _signatures(op, method)[0]
    count = len(given) + len(keywords)
    required = sum(1 for p in signature if not p[3])
    positional_names = [p[0] for p in signature if not p[2]]
    if not required <= count <= len(signature):
        got = [type_name(v) if i < len(signature) and _fits(signature[i][1], v) and
               not signature[i][2] else f"!{type_name(v)}!" for i, v in enumerate(given)]
        got += [f"{k}={type_name(v)}" for k, v in keywords.items()]
        return TypeError(f"{name}() received an invalid combination of arguments - got "
                         f"({', '.join(got)}), but expected "
                         f"{_text(op, signature, method, op.out and not method)}")
    if len(given) > len(positional_names):
        return TypeError(f"{name}() takes {len(positional_names)} positional arguments but "
                         f"{len(given)} were given")
    for i, (param_name, base, kwarg_only, has_default) in enumerate(signature):
        shown = "input" if param_name == "self" else param_name
        if i < len(given):
            value = given[i]
        elif param_name in keywords:
            value = keywords[param_name]
        elif has_default:
            continue
        else:
            missing = [p[0] for p in signature[i:] if not p[3] and p[0] not in keywords]
            return TypeError(f'{name}() missing {len(missing)} required positional arguments: '
                             f'"{shown}"')
        if not _fits(base, value):
            at = "" if kwarg_only else f" (position {i + 1})"
            expected = "Number" if base == "Scalar" else base
            return TypeError(f"{name}(): argument '{shown}'{at} must be {expected}, not "
                             f"{type_name(value)}")
    for key in keywords:
        if key in positional_names[:len(given)]:
            return TypeError(f"{name}(): argument '{key}' given by name ('{key}') and "
                             f"position ({positional_names.index(key) + 1})")
        if key not in {p[0] for p in signature}:
            return TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    return TypeError(f"{name}(): the arguments fit none of its signatures")
