"""Parse operator schemas written in PyTorch's syntax.

    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"

gives the op's name and overload, its arguments (type, name, default, keyword-only) and the
types it returns. The registry uses this to know which arguments are tensors; the binding
generator uses it to write each function's Python signature.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Argument:
    name: str
    type: str            # as written, alias annotation removed: "Tensor", "int[1]?", "Scalar"
    default: object      # a Python value, or NO_DEFAULT
    kwarg_only: bool
    mutable: bool        # written as Tensor(a!)

    @property
    def has_default(self) -> bool:
        return self.default is not _NO_DEFAULT

    @property
    def base_type(self) -> str:
        """The type without `?` and without a list length: "int[]" for "int[2]?"."""
        text = self.type.rstrip("?")
        return re.sub(r"\[\d+\]", "[]", text)

    @property
    def optional(self) -> bool:
        return self.type.endswith("?")

    @property
    def is_tensor(self) -> bool:
        return self.base_type == "Tensor"

    @property
    def is_tensor_list(self) -> bool:
        return self.base_type in ("Tensor[]", "Tensor?[]")

    @property
    def is_int_list(self) -> bool:
        return self.base_type in ("int[]", "SymInt[]")


@dataclass(frozen=True)
class Schema:
    name: str
    overload: str
    arguments: tuple
    returns: tuple        # return types as written, e.g. ("Tensor", "Tensor")
    text: str

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    def __str__(self) -> str:
        return self.text


NO_DEFAULT = _NO_DEFAULT

_SCHEMA_RE = re.compile(r"^\s*([\w.]+)\s*\((.*)\)\s*->\s*(.+?)\s*$")
_ALIAS_RE = re.compile(r"\((\w+!?)\)|\(\w+ -> \*\)")


def _split_top_level(text: str) -> list:
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return parts


def _parse_default(text: str, type_text: str):
    text = text.strip()
    if text == "None":
        return None
    if text == "True":
        return True
    if text == "False":
        return False
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        if not inner:
            return ()
        return tuple(_parse_default(p, "int") for p in inner.split(","))
    if text.startswith(("'", '"')):
        return text[1:-1]
    if text in ("contiguous_format", "long", "float", "Mean"):
        return {"Mean": 1}.get(text, text)
    try:
        value = int(text)
        if type_text.startswith("int[") or type_text.startswith("SymInt["):
            return (value,)
        return value
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError as exc:
        raise ValueError(f"schema: can't parse default value {text!r}") from exc


def _parse_argument(text: str, kwarg_only: bool) -> Argument:
    mutable = "!" in text.split(" ")[0]
    text = _ALIAS_RE.sub("", text)
    default = _NO_DEFAULT
    if "=" in text:
        text, default_text = text.split("=", 1)
    else:
        default_text = None
    type_text, name = text.strip().rsplit(" ", 1)
    type_text = type_text.strip()
    if default_text is not None:
        default = _parse_default(default_text, type_text)
    return Argument(name.strip(), type_text, default, kwarg_only, mutable)


def parse_schema(text: str) -> Schema:
    match = _SCHEMA_RE.match(text)
    if match is None:
        raise ValueError(f"schema: can't parse {text!r}")
    full, args_text, returns_text = match.groups()
    name, _, overload = full.partition(".")
    arguments, kwarg_only = [], False
    for part in _split_top_level(args_text):
        if part == "*":
            kwarg_only = True
            continue
        arguments.append(_parse_argument(part, kwarg_only))
    returns_text = returns_text.strip()
    if returns_text.startswith("("):
        returns_text = returns_text[1:-1]
    returns = tuple(_ALIAS_RE.sub("", r).strip().split(" ")[0]
                    for r in _split_top_level(returns_text) if r.strip())
    return Schema(name, overload, tuple(arguments), returns, text)
