"""Hand-written public functions that check their arguments as PyTorch's parser does.

NOTE [checked entries]: a public function written in Python (a composite of registry ops in
`torch.linalg`, `torch.fft`, `torch.special` ...) declares PyTorch's schema for itself:

    @checked("fft_ihfft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2,-1], str? norm=None)")
    def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None): ...

Each call tests the arguments it was given with one cheap type test apiece (a tensor is a
Tensor, an int a plain 64-bit int, a str a str, None where the schema allows it); only when
one fails are they checked as the generated bindings check theirs (`arguments`, NOTE
[argument parsing]): converted as PyTorch's parser converts them (a NumPy integer for an int,
bytes for a str) or refused with its TypeError (`fft_ihfft2(): argument 'input' (position 1)
must be Tensor, not list`); several schemas are overloads, and a call that fits none is the
"invalid combination of arguments" TypeError. A foreign exception from the body (NumPy's
AxisError ...) becomes PyTorch's class through `arguments.explain`. An int for a sized int
list ("int[1]") is repeated to its length; an unsized one refuses it.

Keywords are PyTorch's names (`input` for the schema's `self`): a positional schema argument
is the function's parameter at the same position, whatever the function calls it (`A`), and
that name is then refused as a keyword, as PyTorch refuses it; keyword-only arguments must
have the schema's names. `out` and other keyword-only extras are the body's to check. When a
function mode or an argument's class wants the call (`state.entry`, then the arguments), the
body gets it unchecked, so that it reaches __torch_function__ first (NOTE [the public
entry]); a subclass merely defined somewhere changes nothing. The public entry reads
the body's parameters (`checked_body`). A plain positional call costs about half a
microsecond over the body (one test per argument); the schemas are parsed on the first call.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect

from ember._core import arguments, dispatch
from ember._core.dispatch.process_state import state
from ember._core.schema import parse_schema

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _tensor_test():
    tensor = dispatch.Tensor

    def test(v):
        # (an object with __torch_function__ is the body's to hand over, as PyTorch's parser
        # does)
        return isinstance(v, tensor) or hasattr(type(v), "__torch_function__")
    return test


def _plain_int(v):
    return type(v) is int and _INT64_MIN <= v <= _INT64_MAX


def _plain_int_list(v):
    return type(v) in (tuple, list) and all(_plain_int(item) for item in v) or \
        type(v).__name__ == "Size"


def _plain_tensors(v):
    return type(v) in (tuple, list) and all(isinstance(item, dispatch.Tensor) for item in v)


_FAST = {
    "int": _plain_int, "SymInt": _plain_int, "int[]": _plain_int_list,
    "SymInt[]": _plain_int_list,
    "float": lambda v: type(v) is float or type(v) is int and _INT64_MIN <= v <= _INT64_MAX,
    "Scalar": lambda v: type(v) is float or type(v) is int and _INT64_MIN <= v <= _INT64_MAX,
    "bool": lambda v: v is True or v is False,
    "str": lambda v: type(v) is str,
    "Tensor[]": _plain_tensors, "Tensor?[]": _plain_tensors,
}


class _Entry:
    """One schema of a checked function: what `arguments` reads of an op entry, plus the
    fast test of each argument by name."""

    def __init__(self, text, positional, parameters):
        self.schema = parse_schema(text if "->" in text else text + " -> Tensor")
        self.python_name = self.schema.name
        args = self.schema.arguments
        self.tensor_positions = tuple(i for i, a in enumerate(args) if a.is_tensor)
        self.index = {}                               # python parameter name -> schema index
        self.renames = {}                   # PyTorch's keyword -> the function's parameter
        for i, arg in enumerate(args):
            visible = "input" if arg.name == "self" else arg.name
            name = positional[i] if not arg.kwarg_only and i < len(positional) else visible
            if name not in parameters:
                raise TypeError(f"checked: {self.schema.name} has no parameter {name!r}")
            if name != visible:
                self.renames[visible] = name
            self.index[name] = i
        self.names = list(self.index)
        # (an overload whose required argument is missing is no fit: `fbgemm_pack_quantized_
        # matrix(t, 1)` fits neither (input) nor (input, K, N))
        self.required = frozenset(name for name, i in self.index.items()
                                  if not args[i].has_default)
        self.foreign = frozenset()    # parameters only other overloads have (set by _build)
        self.tests = {}
        for name, i in self.index.items():
            arg = args[i]
            base = arg.base_type
            test = _tensor_test() if base == "Tensor" else _FAST.get(base) or (
                arguments._fast_test(base)[0] if base in arguments.CHECKS else None)
            if test is not None and arg.optional:
                test = functools.partial(_or_none, test)
            self.tests[name] = test

    def plain(self, named) -> bool:
        if self.foreign and not self.foreign.isdisjoint(named) or \
                not self.required.issubset(named):
            return False
        for name, value in named.items():
            test = self.tests.get(name)
            if test is not None and not test(value):
                return False
        return True

    def parse(self, named, keywords=()):
        """The given values converted as PyTorch's parser converts them, or its TypeError;
        None if a required argument is missing (the body's own TypeError says so).
        `keywords`: the names given by keyword, whose position PyTorch's messages leave out."""
        if self.foreign and not self.foreign.isdisjoint(named):
            raise TypeError(f"{self.python_name}(): an argument of another overload")
        values = []
        for i, arg in enumerate(self.schema.arguments):
            name = self.names[i]
            if name in named:
                values.append(named[name])
            elif arg.has_default:
                values.append(arg.default)
            else:
                return None
        called = self if not keywords else _AsCalled(self, keywords)
        converted = list(arguments._first_parser_error(called, tuple(values), self.python_name,
                                                       False, True))
        for i, arg in enumerate(self.schema.arguments):
            if arg.is_int_list and type(converted[i]) is int:
                # An int for an int list: PyTorch repeats it to the list's length, if the
                # schema gives one ("int[1]"); an int list of no length refuses it.
                length = arg.type.split("[")[1].split("]")[0]
                if not length:
                    visible = "input" if arg.name == "self" else arg.name
                    keyword = arg.kwarg_only or self.names[i] in keywords
                    arguments.refuse((self.python_name, visible, None if keyword else i + 1),
                                     "tuple of ints", converted[i])
                converted[i] = (converted[i],) * int(length)
        return {name: converted[self.index[name]] for name in named if name in self.index}


class _AsCalled:
    """An entry's schema with the arguments given by keyword marked keyword-only (for the
    messages)."""

    def __init__(self, entry, keywords):
        arguments_ = tuple(
            dataclasses.replace(arg, kwarg_only=True) if name in keywords else arg
            for name, arg in zip(entry.names, entry.schema.arguments))
        self.schema = dataclasses.replace(entry.schema, arguments=arguments_)
        self.tensor_positions = entry.tensor_positions
        self.python_name = entry.python_name


def _handed_over(args, kwargs) -> bool:
    """Whether the call goes to __torch_function__ (a function mode, or an argument whose
    class overrides it): only then is it the body's, unchecked. `state.entry` alone says only
    that such a class exists somewhere in the process."""
    return dispatch.stack.torch_function_wanted(args + tuple(kwargs.values()) if kwargs
                                                else args)


def _or_none(test, value):
    return value is None or test(value)


def checked(*schemas):
    """Decorator: check a hand-written function's arguments against PyTorch's schema(s)
    (NOTE [checked entries]). The schemas are parsed on the first call (import stays cheap);
    `entry.checked_build()` parses them now (tests do, for every checked function)."""
    def decorate(fn):
        table = []      # [positional names, entries, renames, hidden, tests by position]

        def build():
            if not table:
                table.extend(_build(fn, schemas))
            return table

        @functools.wraps(fn)
        def entry(*args, **kwargs):
            positional, entries, renames, hidden, tests = table or build()
            checking = not (state.entry and _handed_over(args, kwargs))
            if not kwargs and tests is not None and checking:
                # The common call: positional values of one schema, each passing its test.
                for test, value in zip(tests, args):
                    if test is not None and not test(value):
                        break
                else:
                    try:
                        return fn(*args)
                    except Exception as exc:
                        arguments.explain(exc, entries[0].python_name)
                        raise
            if kwargs and renames:
                kwargs = _renamed(kwargs, renames, hidden, entries[0].python_name)
            named = dict(zip(positional, args), **kwargs) if kwargs else \
                dict(zip(positional, args))
            if checking and not any(e.plain(named) for e in entries):
                named = _parse(entries, named, args, kwargs)
                if named is not None:
                    # (positional values past the schema's stay, so that Python's own
                    # TypeError refuses them rather than zip dropping them)
                    args = tuple(named.get(p, a) for p, a in zip(positional, args)) + \
                        args[len(positional):]
                    kwargs = {k: named.get(k, v) for k, v in kwargs.items()}
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                # Foreign exceptions become PyTorch's (NOTE [argument parsing]).
                arguments.explain(exc, entries[0].python_name)
                raise
        entry.checked_body = fn          # (what the body's locals() are the parameters of)
        entry.checked_build = build
        return entry
    return decorate


def _build(fn, schemas):
    signature = inspect.signature(fn)
    positional = [p.name for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    entries = [_Entry(text, positional, signature.parameters) for text in schemas]
    everywhere = frozenset(name for e in entries for name in e.index)
    for e in entries:
        e.foreign = everywhere - frozenset(e.index)    # (a value for one fits no overload)
    renames = {k: v for e in entries for k, v in e.renames.items()}
    # (a parameter's own name is refused as a keyword only where no overload calls it so:
    # quantize_per_tensor's `zero_point` is one overload's name, `zero_points` another's)
    visible = frozenset("input" if a.name == "self" else a.name
                        for e in entries for a in e.schema.arguments)
    tests = tuple(entries[0].tests.get(name) for name in positional) if len(entries) == 1 \
        else None
    return positional, entries, renames, frozenset(renames.values()) - visible, tests


def _renamed(kwargs, renames, hidden, name):
    """Keywords by PyTorch's names (`input` for the schema's `self`) as the function's own
    parameters; the function's own names where PyTorch's differ are refused, as PyTorch's
    parser refuses them."""
    out = {}
    for key, value in kwargs.items():
        if key in hidden:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
        out[renames.get(key, key)] = value
    return out


def _parse(entries, named, args, kwargs):
    if len(entries) == 1:
        return entries[0].parse(named, kwargs.keys())
    for e in entries:
        try:
            converted = e.parse(named, kwargs.keys())
        except TypeError:
            continue
        if converted is not None:      # (an overload missing a required argument fits not)
            return converted
    first = entries[0]
    name = first.python_name.split(".")[0]
    return _raise(arguments._combination_error(
        name, [arguments.type_name(v) for v in args] +
        [f"{k}={arguments.type_name(v)}" for k, v in kwargs.items()],
        [e.schema for e in entries], False))


def _raise(exc):
    raise exc


def body_of(func):
    """The function a checked entry wraps, for the public entry's reading of its parameters
    (NOTE [the public entry]); `func` itself otherwise (also a wrapper that copied an entry's
    attributes, as functools.wraps does)."""
    body = getattr(func, "checked_body", None)
    return body if body is not None and getattr(func, "__code__", None) is _ENTRY_CODE else func


_ENTRY_CODE = checked("entry(Tensor self)")(lambda input: input).__code__
