"""How `export` is told which sizes may vary (`Dim`, `dims`, `ShapesCollection`,
`AdditionalInputs`). ember's export specializes every size (its tracer has no symbolic sizes,
NOTE [export specializes sizes]): a size declared static or left out is checked when the
exported module runs; declaring one dynamic raises at export."""
from __future__ import annotations

import enum


class _DimHint(enum.Enum):
    AUTO = enum.auto()
    STATIC = enum.auto()
    DYNAMIC = enum.auto()


class Dim:
    """A named size that may vary within [min, max]."""

    AUTO = _DimHint.AUTO
    STATIC = _DimHint.STATIC
    DYNAMIC = _DimHint.DYNAMIC

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None):
        low = 0 if min is None else min
        high = int(1e18) if max is None else max
        if high < low:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        if not name.isidentifier():
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        self.__name__ = name
        self.min, self.max = low, high

    def __repr__(self) -> str:
        return f"Dim('{self.__name__}', min={self.min}, max={self.max})"


class Constraint:
    """A constraint on a dimension's size (what `Dim` objects express)."""


def dims(*names: str, min: int | None = None, max: int | None = None) -> tuple:
    return tuple(Dim(name, min=min, max=max) for name in names)


class ShapesCollection:
    """dynamic_shapes built tensor by tensor: `shapes[tensor] = (dim, None)`."""

    def __init__(self) -> None:
        self._shapes: dict = {}

    def __setitem__(self, tensor, shape) -> None:
        self._shapes[id(tensor)] = (tensor, shape)

    def __getitem__(self, tensor):
        return self._shapes[id(tensor)][1]

    def __len__(self) -> int:
        return len(self._shapes)

    def dynamic_shapes(self, m, args, kwargs=None):
        from ember.utils import _pytree
        leaves = _pytree.tree_leaves((args, kwargs or {}))
        return [self._shapes.get(id(leaf), (None, None))[1] for leaf in leaves]


class AdditionalInputs:
    """dynamic_shapes inferred from more example inputs: sizes that differ between them are
    dynamic."""

    def __init__(self) -> None:
        self._examples: list = []

    def add(self, args, kwargs=None) -> None:
        self._examples.append((args, kwargs or {}))

    def dynamic_shapes(self, m, args, kwargs=None):
        from ember.utils import _pytree
        base = _pytree.tree_leaves((args, kwargs or {}))
        varying = [None] * len(base)
        for example in self._examples:
            for i, (a, b) in enumerate(zip(base, _pytree.tree_leaves(example))):
                if hasattr(a, "shape") and tuple(a.shape) != tuple(b.shape):
                    varying[i] = {d: Dim.DYNAMIC for d in range(a.dim())
                                  if a.shape[d] != b.shape[d]}
        return varying


def check_static(dynamic_shapes) -> None:
    """Refuse a dynamic size (NOTE [export specializes sizes])."""
    from ember.utils import _pytree
    if dynamic_shapes is None:
        return
    for leaf in _pytree.tree_leaves(dynamic_shapes, is_leaf=lambda x: isinstance(x, Dim)):
        if isinstance(leaf, Dim) or leaf in (Dim.AUTO, Dim.DYNAMIC):
            raise NotImplementedError(
                "ember.export: dynamic sizes are not supported, every size is specialized to "
                "the example inputs' (NOTE [export specializes sizes])")
