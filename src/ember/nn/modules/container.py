"""Containers: `Sequential` (runs its modules in order), `ModuleList` and `ModuleDict` (hold
modules so that they are registered), `ParameterList` and `ParameterDict` (the same for
parameters; tensors put in them become Parameters). Children are named "0", "1", ... in the
list-like ones, so state-dict keys match PyTorch's."""
from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections import abc as container_abcs
from itertools import chain, islice
from typing import Self

from ember._tensor import Tensor
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["Container", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList",
           "Sequential"]


def _indent_block(text: str, spaces: int) -> str:
    # Every line after the first indented (blank ones too), as PyTorch's list printing does.
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


def _absolute_index(container, idx) -> str:
    idx = operator.index(idx)
    if not (-len(container) <= idx < len(container)):
        raise IndexError(f"index {idx} is out of range")
    if idx < 0:
        idx += len(container)
    return str(idx)


def _renumber(container) -> None:
    # After a deletion the children are named 0..n-1 again, in order.
    container._modules = OrderedDict(
        (str(i), module) for i, module in enumerate(container._modules.values()))


def _not_sequential(other) -> ValueError:
    return ValueError(f"add operator supports only objects of Sequential class, but "
                      f"{type(other)} is given.")


def _no_digit_names(names) -> list:
    return [name for name in names if not name.isdigit()]


class Container(Module):
    """Deprecated: subclass `Module` instead."""

    def __init__(self, **kwargs) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented "
                      "in `nn.Module`. Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class Sequential(Module):
    """`Sequential(*modules)` or `Sequential(OrderedDict(name=module))`: `forward` passes the
    input through each module in turn."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator, idx):
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        return next(islice(iterator, idx % size, None))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx, module) -> None:
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return _no_digit_names(super().__dir__())

    def __add__(self, other) -> Sequential:
        if not isinstance(other, Sequential):
            raise _not_sequential(other)
        combined = Sequential()
        for layer in chain(self, other):
            combined.append(layer)
        return combined

    def __iadd__(self, other) -> Self:
        if not isinstance(other, Sequential):
            raise _not_sequential(other)
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other) -> None:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other) -> Sequential:
        self._check_factor(other)
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    def __rmul__(self, other) -> Sequential:
        return self.__mul__(other)

    def __imul__(self, other) -> Self:
        self._check_factor(other)
        original = len(self)
        offset = original
        for _ in range(other - 1):
            for i in range(original):
                self.add_module(str(i + offset), self._modules[str(i)])
            offset += original
        return self

    def pop(self, key):
        """Remove the module at index (or slice) `key` and return it."""
        value = self[key]
        del self[key]
        return value

    def forward(self, input):
        for module in self:
            input = module(input)
        return input

    def append(self, module) -> Sequential:
        """Add `module` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module) -> Sequential:
        """Put `module` before position `index` (negative counts from the end)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")  # noqa: TRY004
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential) -> Sequential:
        """Append every module of `sequential` (any iterable of modules)."""
        for layer in sequential:
            self.append(layer)
        return self


class ModuleList(Module):
    """A list of modules, registered as children "0", "1", ...; it has no `forward`."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def _get_abs_string_index(self, idx) -> str:
        return _absolute_index(self, idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._get_abs_string_index(idx)]

    def __setitem__(self, idx, module) -> None:
        setattr(self, self._get_abs_string_index(idx), module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, self._get_abs_string_index(idx))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules) -> Self:
        return self.extend(modules)

    def __add__(self, other) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        # Runs of equal consecutive entries print once: "(0-2): 3 x Linear(...)".
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []                       # [first index, last index, text]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for first, last, text in runs:
            entry = f"({first}): {text}" if first == last else \
                f"({first}-{last}): {last - first + 1} x {text}"
            lines.append(_indent_block(entry, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self):
        return _no_digit_names(super().__dir__())

    def insert(self, index: int, module) -> None:
        """Put `module` before position `index`."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module) -> ModuleList:
        """Add `module` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Remove the module at index (or slice) `key` and return it."""
        value = self[key]
        del self[key]
        return value

    def extend(self, modules) -> ModuleList:
        """Append the modules of an iterable."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _update_from_pairs(container, pairs, owner: str) -> None:
    for j, pair in enumerate(pairs):
        if not isinstance(pair, container_abcs.Iterable):
            raise TypeError(f"{owner} update sequence element #{j} should be Iterable; is"
                            + type(pair).__name__)
        if len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
        container[pair[0]] = pair[1]


class ModuleDict(Module):
    """An ordered dict of modules, registered as children under their keys."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str):
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str):
        """Remove `key` and return its module."""
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        """Add (or replace) modules from a mapping or an iterable of (key, module) pairs."""
        if not isinstance(modules, container_abcs.Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            "pairs, but got " + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, container_abcs.Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            _update_from_pairs(self, modules, "ModuleDict")


def _tensor_entry_repr(value, kind_text) -> str:
    size = "x".join(str(s) for s in value.size())
    device = f" ({value.device})" if value.device.type not in ("cpu", "meta") else ""
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    return f"{kind} containing: [{kind_text} of size {size}{device}]"


class ParameterList(Module):
    """A list of parameters (tensors put in become Parameters; other objects are kept as
    they are), registered as "0", "1", ..."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx) -> str:
        return _absolute_index(self, idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx, param) -> None:
        # Every way of adding an entry ends here: the one place tensors become Parameters.
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, idx, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters) -> Self:
        return self.extend(parameters)

    def __dir__(self):
        return _no_digit_names(super().__dir__())

    def append(self, value) -> ParameterList:
        """Add `value` at the end."""
        index = len(self)
        self._size += 1
        self[index] = value
        return self

    def extend(self, values) -> ParameterList:
        """Append the values of an iterable (a tensor is not unpacked: it is refused)."""
        if not isinstance(values, container_abcs.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        lines = []
        for k, value in enumerate(self):
            if isinstance(value, Tensor):
                text = _tensor_entry_repr(value, value.dtype)
            else:
                text = "Object of type: " + type(value).__name__
            lines.append(f"  ({k}): {text}")
        return "\n".join(lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (tensors put in become Parameters), registered under
    their keys."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value) -> None:
        # Every way of adding an entry ends here: the one place tensors become Parameters.
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same entries."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in self._keys.copy():
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last (key, value) added."""
        key, _ = self._keys.popitem()
        self._keys[key] = None          # __delitem__ below needs it
        value = self[key]
        del self[key]
        return key, value

    def get(self, key, default=None):
        return self[key] if key in self else default  # noqa: SIM401 (this is get)

    def fromkeys(self, keys, default=None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters) -> None:
        """Add (or replace) entries from an OrderedDict / ParameterDict (in order), another
        mapping (sorted by key), or an iterable of (key, value) pairs."""
        if not isinstance(parameters, container_abcs.Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of "
                            "key/value pairs, but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, container_abcs.Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            _update_from_pairs(self, parameters, "ParameterDict")

    def extra_repr(self) -> str:
        from ember import typename
        lines = []
        for key, value in self.items():
            if isinstance(value, Tensor):
                text = _tensor_entry_repr(value, typename(value))
            else:
                text = "Object of type: " + type(value).__name__
            lines.append(f"  ({key}): {text}")
        return "\n".join(lines)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other) -> ParameterDict:
        combined = self.copy()
        combined.update(other)
        return combined

    def __ror__(self, other) -> ParameterDict:
        combined = other.copy()
        combined.update(self)
        return combined

    def __ior__(self, other) -> Self:
        self.update(other)
        return self
