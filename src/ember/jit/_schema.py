"""`ember.FunctionSchema`, `ember.Argument` and `ember.parse_schema`: PyTorch's view of an
operator schema, over ember's own parser (ember/_core/schema.py). Argument types are the
TorchScript type objects of _types.py (`Scalar` reads as `number`, as in PyTorch)."""
from __future__ import annotations

import re

from ember._core import schema as _core_schema
from ember.jit import _types as T

_SCALARS = {"Tensor": T.TensorType, "int": T.IntType, "SymInt": T.SymIntType,
            "float": T.FloatType, "bool": T.BoolType, "str": T.StringType,
            "Scalar": T.NumberType, "complex": T.ComplexType, "Device": T.DeviceObjType,
            "ScalarType": T.IntType, "Layout": T.IntType, "MemoryFormat": T.IntType,
            "Generator": T.AnyType, "Stream": T.StreamObjType, "Any": T.AnyType,
            "Storage": T.AnyType, "Dimname": T.StringType, "t": T.AnyType, "None": T.NoneType}


def jit_type(text: str):
    """The type object of a schema type as written ("int[2]?" -> Optional[List[int]])."""
    text = text.strip()
    if text.endswith("?"):
        return T.OptionalType(jit_type(text[:-1]))
    if text.endswith("]"):
        return T.ListType(jit_type(re.sub(r"\[\d*\]$", "", text)))
    if text in _SCALARS:
        return _SCALARS[text].get()
    if text.startswith("(") and text.endswith(")"):
        return T.TupleType([jit_type(part) for part in text[1:-1].split(",") if part.strip()])
    raise RuntimeError(f"Unknown type name '{text}'")


class Argument:
    """One argument (or return) of a FunctionSchema."""

    def __init__(self, core, *, is_return: bool = False) -> None:
        self._core = core
        self.name = core.name
        self.type = jit_type(core.type)
        self.real_type = self.type
        self.kwarg_only = core.kwarg_only
        self.has_default_value = core.has_default
        default = core.default if core.has_default else None
        self.default_value = list(default) if isinstance(default, tuple) else default
        self.is_write = core.mutable
        self.is_out = core.mutable and core.kwarg_only and not is_return
        self.alias_info = None
        match = re.search(r"\[(\d+)\]", core.type)
        self.N = int(match.group(1)) if match else None

    def __str__(self) -> str:
        return f"{self._core.type} {self.name}".strip()

    __repr__ = __str__


class FunctionSchema:
    """A parsed operator schema: `name` ('aten::add'), `overload_name`, `arguments`,
    `returns`."""

    def __init__(self, core, namespace: str = "") -> None:
        self._core = core
        self.name = f"{namespace}::{core.name}" if namespace else core.name
        self.overload_name = core.overload
        self.arguments = [Argument(a) for a in core.arguments]
        self.returns = [Argument(_core_schema.Argument("", r, _core_schema.NO_DEFAULT, False,
                                                       False), is_return=True)
                        for r in core.returns]

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments)

    def __str__(self) -> str:
        namespace = self.name.split("::")[0] + "::" if "::" in self.name else ""
        return namespace + str(self._core)

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, FunctionSchema) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def parse_schema(schema: str) -> FunctionSchema:
    """Parse 'ns::name.overload(args) -> returns' (the namespace is optional)."""
    namespace, sep, rest = schema.strip().partition("::")
    if not sep or "(" in namespace:
        namespace, rest = "", schema.strip()
    return FunctionSchema(_core_schema.parse_schema(rest), namespace)
