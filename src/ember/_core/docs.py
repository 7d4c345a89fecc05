"""Docstrings of the generated bindings, attached once at import from the op registry.

An op's text lives in one place, its kernel's docstring (`OpDef.doc`). The generated
`ember.<name>` function carries it as it is; the `Tensor.<name>` method, the in-place
`Tensor.<name>_` and the operator dunders carry it behind one line saying which form they
are. A hand-written frontend keeps its own docstring; one without gets the text of the ops
registered under its name (in-place forms marked as such).

Attaching is a loop of attribute stores over strings that already exist (no parsing, no
`inspect`): about half a millisecond of `import ember` (benchmarks/bench_import.py).
"""
from __future__ import annotations

from ember._core.registry import FRONTENDS, OPS, Frontend, on_indexed_frontend

_DUNDER_FORMS = {
    "forward": "Operator form: `self {symbol} other` calls `ember.{name}(self, other)`.",
    "reflect": "Reflected operator form: `other {symbol} self` calls `ember.{name}(other, self)`.",
    "inplace": "In-place operator form: `self {symbol}= other` writes `ember.{name}(self, other)`"
               " into `self`.",
    "unary": "Operator form: `{symbol}` calls `ember.{name}(self)`.",
}

_SYMBOLS = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
    "rshift": ">>", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "neg": "-self", "pos": "+self", "abs": "abs(self)", "invert": "~self",
}


def _dedent(doc: str) -> str:
    """The docstring without the indentation of the code it was written in (kernels are
    module-level functions, so their continuation lines are indented by four spaces)."""
    return doc.strip().replace("\n    ", "\n")


def _symbol(dunder: str) -> str:
    stem = dunder.strip("_")
    if stem not in _SYMBOLS and stem[:1] in ("r", "i"):
        stem = stem[1:]
    return _SYMBOLS.get(stem, stem)


def _method_doc(name: str, text: str, has_function: bool) -> str:
    if not has_function:
        return text
    return f"Method form of `ember.{name}`, with the tensor as `input`.\n\n{text}"


def _inplace_doc(name: str, text: str) -> str:
    return (f"In-place form of `Tensor.{name}`: writes the result into `self` and returns "
            f"`self`.\n\n{text}")


def _combined(ops) -> str:
    """One text for the overloads of one Python name: each overload's doc, the primary one
    (no overload name, else the first registered) first."""
    ordered = sorted(ops, key=lambda op: "." in op.name)      # (no overload name first)
    texts = []
    for op in ordered:
        if op.doc and _dedent(op.doc) not in texts:
            texts.append(_dedent(op.doc))
    return "\n\n".join(texts)


def attach(namespace: dict, methods: type, frontends: bool = True) -> None:
    """Set `__doc__` on the generated functions in `namespace` (the bindings module's globals)
    and on the generated methods of `methods`, then fill frontends that have none."""
    module = namespace["__name__"]
    generated = methods.__dict__
    by_name: dict = {}
    for op in OPS.values():
        by_name.setdefault(op.python_name, []).append(op)
        if not op.doc:
            continue
        name, text = op.python_name, _dedent(op.doc)
        fn = namespace.get(name)
        if op.function and fn is not None and fn.__module__ == module:
            fn.__doc__ = text
        fn = generated.get(name)
        if op.method and fn is not None and fn.__module__ == module:
            fn.__doc__ = _method_doc(name, text, op.function)
        fn = generated.get(name + "_")
        if op.inplace and fn is not None and fn.__module__ == module:
            fn.__doc__ = _inplace_doc(name, text)
        for dunder, how in op.dunders.items():
            form = _DUNDER_FORMS[how].format(symbol=_symbol(dunder), name=name)
            fn = generated.get(dunder)
            if fn is not None and fn.__module__ == module:
                fn.__doc__ = f"{form}\n\n{text}"
    if not frontends:
        return
    for fe in FRONTENDS.values():
        if type(fe) is Frontend:    # (the others as their families load: NOTE [op families
            _fill_frontend(fe, by_name.get(fe.name))      # load on first use])
    on_indexed_frontend(lambda fe: _fill_frontend(fe, by_name.get(fe.name)))


def _fill_frontend(fe, ops) -> None:
    if not ops:
        return
    text = _combined(ops)
    if not text:
        return
    for fn in (fe.function if fe.is_function else None, fe.method):
        if fn is not None and not fn.__doc__:
            fn.__doc__ = text
    if fe.inplace_method is not None and not fe.inplace_method.__doc__:
        fe.inplace_method.__doc__ = _inplace_doc(fe.name, text)
    for dunder, fn in fe.dunders.items():
        if not fn.__doc__:
            fn.__doc__ = f"Operator form `{dunder}` of `ember.{fe.name}`.\n\n{text}"
