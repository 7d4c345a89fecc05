"""TorchScript's type objects (`ember.IntType.get()`, `ember.ListType(t)` ...), as libraries read
them from operator schemas (`schema.arguments[0].type`): each prints as TorchScript writes the
type, has a `kind()`, and answers `isSubtypeOf`. ember has no TorchScript compiler; these
describe types, nothing compiles against them."""
from __future__ import annotations

__all__ = ["AnyType", "AwaitType", "BoolType", "ClassType", "ComplexType", "DeviceObjType",
           "DictType", "EnumType", "FloatType", "FutureType", "InferredType", "IntType",
           "InterfaceType", "ListType", "NoneType", "NumberType", "OptionalType",
           "PyObjectType", "RRefType", "StreamObjType", "StringType", "SymBoolType",
           "SymIntType", "TensorType", "TupleType", "Type", "UnionType"]


class Type:
    """A TorchScript type."""

    _text = "Type"

    def str(self) -> str:
        return self._text

    def annotation_str(self) -> str:
        return self._text

    __str__ = str

    def __repr__(self) -> str:
        return self._text

    def kind(self) -> str:
        return type(self).__name__

    def containedTypes(self) -> list:
        return []

    def is_interface_type(self) -> bool:
        return False

    def isSubtypeOf(self, other) -> bool:
        if isinstance(other, AnyType) or self == other:
            return True
        if isinstance(other, OptionalType):
            return isinstance(self, NoneType) or self.isSubtypeOf(other.getElementType())
        if isinstance(other, UnionType):
            return any(self.isSubtypeOf(arm) for arm in other.containedTypes())
        return False

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.containedTypes() == other.containedTypes()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._text))


class _Singleton(Type):
    _instance = None

    @classmethod
    def get(cls):
        if cls.__dict__.get("_instance") is None:
            cls._instance = cls()
        return cls._instance


def _simple(name: str, text: str, doc: str):
    return type(name, (_Singleton,), {"_text": text, "__doc__": doc, "_instance": None,
                                      "__module__": __name__})


AnyType = _simple("AnyType", "Any", "Any value.")
BoolType = _simple("BoolType", "bool", "A Python bool.")
ComplexType = _simple("ComplexType", "complex", "A Python complex.")
DeviceObjType = _simple("DeviceObjType", "Device", "A device.")
FloatType = _simple("FloatType", "float", "A Python float.")
IntType = _simple("IntType", "int", "A Python int.")
NoneType = _simple("NoneType", "NoneType", "None.")
NumberType = _simple("NumberType", "number", "An int, float or complex (a Scalar).")
PyObjectType = _simple("PyObjectType", "PyObject", "Any Python object.")
StreamObjType = _simple("StreamObjType", "Stream", "A stream.")
StringType = _simple("StringType", "str", "A Python str.")
SymBoolType = _simple("SymBoolType", "bool", "A symbolic bool.")
SymIntType = _simple("SymIntType", "int", "A symbolic int (SymInt).")
InferredType = _simple("InferredType", "Any", "A type to be inferred.")


def _number_subtype(self, other) -> bool:
    return isinstance(other, NumberType) or Type.isSubtypeOf(self, other)


for _cls in (IntType, FloatType, ComplexType):
    _cls.isSubtypeOf = _number_subtype


class TensorType(_Singleton):
    """A tensor (shape, dtype and device unspecified)."""

    _text = "Tensor"
    _instance = None

    @classmethod
    def getInferred(cls):
        return cls.get()

    @classmethod
    def create_from_tensor(cls, tensor):
        return cls.get()

    def dtype(self):
        return None

    def device(self):
        return None

    def dim(self):
        return None

    def sizes(self):
        return None

    def requires_grad(self):
        return None


class _Container(Type):
    _name = ""

    def __init__(self, *contained) -> None:
        self._contained = list(contained)

    def containedTypes(self) -> list:
        return list(self._contained)

    @property
    def _text(self) -> str:
        return f"{self._name}[{', '.join(str(t) for t in self._contained)}]"


class ListType(_Container):
    _name = "List"

    def getElementType(self):
        return self._contained[0]

    @staticmethod
    def ofInts():
        return ListType(IntType.get())

    @staticmethod
    def ofFloats():
        return ListType(FloatType.get())

    @staticmethod
    def ofTensors():
        return ListType(TensorType.get())

    @staticmethod
    def ofBools():
        return ListType(BoolType.get())

    @staticmethod
    def ofStrings():
        return ListType(StringType.get())


class OptionalType(_Container):
    _name = "Optional"

    def getElementType(self):
        return self._contained[0]

    @staticmethod
    def ofTensor():
        return OptionalType(TensorType.get())


class TupleType(_Container):
    _name = "Tuple"

    def __init__(self, elements) -> None:
        super().__init__(*elements)

    def elements(self) -> list:
        return self.containedTypes()


class UnionType(_Container):
    _name = "Union"

    def __init__(self, types) -> None:
        super().__init__(*sorted(types, key=str))


class DictType(_Container):
    _name = "Dict"

    def getKeyType(self):
        return self._contained[0]

    def getValueType(self):
        return self._contained[1]


class FutureType(_Container):
    _name = "Future"

    def getElementType(self):
        return self._contained[0]


class AwaitType(FutureType):
    _name = "Await"


class RRefType(FutureType):
    _name = "RRef"


class ClassType(Type):
    """A TorchScript class, by qualified name."""

    def __init__(self, qualified_name: str) -> None:
        self._qualified = qualified_name

    @property
    def _text(self) -> str:
        return self._qualified

    def name(self) -> str:
        return self._qualified.rsplit(".", 1)[-1]

    def qualified_name(self) -> str:
        return self._qualified


class InterfaceType(ClassType):
    def is_interface_type(self) -> bool:
        return True


class EnumType(ClassType):
    def __init__(self, qualified_name: str, value_type=None, enum_names_values=()) -> None:
        super().__init__(qualified_name)
        self._value_type = value_type
        self._values = list(enum_names_values)
