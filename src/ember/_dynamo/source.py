"""Sources: where a value read during capture lives in the frame (an argument, a global, an
attribute or item of another source). Guards and the replay read values through them."""
from __future__ import annotations


class Source:
    """Reads one value from a frame's state (`frame[0]` is the dict of its arguments)."""

    def get(self, frame):
        raise NotImplementedError

    def name(self) -> str:
        raise NotImplementedError

    def __eq__(self, other):
        return type(other) is type(self) and other.name() == self.name()

    def __hash__(self):
        return hash(self.name())

    def __repr__(self):
        return self.name()


class LocalSource(Source):
    def __init__(self, local_name):
        self.local_name = local_name

    def get(self, frame):
        return frame[0][self.local_name]

    def name(self):
        return f"L[{self.local_name!r}]"


class GlobalSource(Source):
    """A global of the function's module: the module's dict is held, so an inlined function
    from another module reads its own globals."""

    def __init__(self, global_name, namespace):
        self.global_name = global_name
        self.namespace = namespace

    def get(self, frame):
        return self.namespace[self.global_name]

    def name(self):
        module = self.namespace.get("__name__", "?")
        return f"G[{self.global_name!r}]" if module == "__main__" else \
            f"G[{self.global_name!r}]@{module}"

    def __eq__(self, other):
        return type(other) is GlobalSource and other.global_name == self.global_name and \
            other.namespace is self.namespace

    def __hash__(self):
        return hash(self.global_name)


class BuiltinSource(Source):
    """A builtin the code names without a global of that name (`print`, `len`)."""

    def __init__(self, builtin_name, table):
        self.builtin_name = builtin_name
        self.table = table

    def get(self, frame):
        return self.table[self.builtin_name]

    def name(self):
        return f"G['__builtins__'][{self.builtin_name!r}]"


class CellSource(Source):
    """A closure variable: the cell is held, its contents read at each check."""

    def __init__(self, cell, var_name):
        self.cell = cell
        self.var_name = var_name

    def get(self, frame):
        return self.cell.cell_contents

    def name(self):
        return f"L[{self.var_name!r}] (closure)"

    def __eq__(self, other):
        return type(other) is CellSource and other.cell is self.cell

    def __hash__(self):
        return id(self.cell)


class AttrSource(Source):
    def __init__(self, base: Source, attr: str):
        self.base = base
        self.attr = attr

    def get(self, frame):
        return getattr(self.base.get(frame), self.attr)

    def name(self):
        return f"{self.base.name()}.{self.attr}"


class GetItemSource(Source):
    def __init__(self, base: Source, index):
        self.base = base
        self.index = index

    def get(self, frame):
        return self.base.get(frame)[self.index]

    def name(self):
        return f"{self.base.name()}[{self.index!r}]"


def placeholder_name(source: Source) -> str:
    """A graph placeholder's name from its source, as PyTorch spells them (`L['x']` -> L_x_)."""
    text = source.name()
    for old, new in (("['", "_"), ("']", "_"), ("[", "_"), ("]", "_"), (".", "_"), ("'", "")):
        text = text.replace(old, new)
    return "".join(c if c.isalnum() or c == "_" else "_" for c in text)
