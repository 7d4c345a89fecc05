"""Lists, tuples, dicts, ranges and their iterators during capture. A container that came
from outside (it has a source) and is changed during capture is a side effect: the replay
writes its new contents into the real object after the graph runs (NOTE [how capture runs])."""
from __future__ import annotations

from ember._dynamo.exc import unimplemented
from ember._dynamo.variables.base import ConstantVariable, VariableTracker


class BaseListVariable(VariableTracker):
    def __init__(self, items, source=None, kind=None):
        self.items = list(items)
        self.source = source
        self.kind = kind

    def python_type(self):
        return self.kind

    def is_constant(self):
        return all(i.is_constant() for i in self.items)

    def as_constant(self):
        return self.kind(i.as_constant() for i in self.items)

    def truth(self, tx):
        return bool(self.items)

    def unpack(self, tx):
        return list(self.items)

    def getitem(self, tx, index):
        key = index.as_constant()
        if isinstance(key, slice):
            return type(self)(self.items[key], kind=self.kind if self.kind in (list, tuple)
                              else tuple)
        return self.items[key]

    def getattr(self, tx, name):
        return MethodOf(self, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "index" or name == "count":
            values = [i.as_constant() for i in self.items]
            return ConstantVariable(getattr(values, name)(*[a.as_constant() for a in args]))
        unimplemented(f"{self.kind.__name__}.{name}")


class TupleVariable(BaseListVariable):
    """A tuple (or a named tuple such as a `return_types` result: `kind` is its class)."""

    def __init__(self, items, source=None, kind=tuple):
        super().__init__(items, source, kind)

    def rebuild(self, og):
        if self.source is not None:
            return super().rebuild(og)
        parts = [i.rebuild(og) for i in self.items]
        kind = self.kind
        if kind is tuple:
            return lambda frame, outputs: tuple(p(frame, outputs) for p in parts)
        if hasattr(kind, "_fields"):
            return lambda frame, outputs: kind(*[p(frame, outputs) for p in parts])
        return lambda frame, outputs: kind([p(frame, outputs) for p in parts])


class ListVariable(BaseListVariable):
    """A list: its methods change `items` and, for a list from outside, record the change."""

    def __init__(self, items, source=None, kind=list):
        super().__init__(items, source, kind)

    def call_method(self, tx, name, args, kwargs):
        if kwargs:
            unimplemented(f"list.{name} with keyword arguments")
        if name == "append":
            self.items.append(args[0])
        elif name == "extend":
            self.items.extend(args[0].unpack(tx))
        elif name == "insert":
            self.items.insert(args[0].as_constant(), args[1])
        elif name == "pop":
            value = self.items.pop(*[a.as_constant() for a in args])
            tx.output.mark_mutated(self)
            return value
        elif name == "clear":
            self.items.clear()
        elif name == "reverse":
            self.items.reverse()
        else:
            return super().call_method(tx, name, args, kwargs)
        tx.output.mark_mutated(self)
        return ConstantVariable(None)

    def setitem(self, tx, index, value):
        key = index.as_constant()
        if isinstance(key, slice):
            self.items[key] = value.unpack(tx)
        else:
            self.items[key] = value
        tx.output.mark_mutated(self)

    def rebuild(self, og):
        if self.source is not None:
            return super().rebuild(og)
        parts = [i.rebuild(og) for i in self.items]
        return once_per_replay(self, lambda frame, outputs: [p(frame, outputs) for p in parts])


class DictVariable(VariableTracker):
    """A dict with constant keys."""

    def __init__(self, items, source=None):
        self.items = dict(items)
        self.source = source

    def python_type(self):
        return dict

    def truth(self, tx):
        return bool(self.items)

    def unpack(self, tx):
        return [ConstantVariable(k) for k in self.items]

    def getitem(self, tx, index):
        key = index.as_constant()
        if key not in self.items:
            unimplemented(f"missing dict key {key!r}")
        return self.items[key]

    def setitem(self, tx, index, value):
        self.items[index.as_constant()] = value
        tx.output.mark_mutated(self)

    def getattr(self, tx, name):
        return MethodOf(self, name)

    def call_method(self, tx, name, args, kwargs):
        if name == "get":
            key = args[0].as_constant()
            return self.items.get(key, args[1] if len(args) > 1 else ConstantVariable(None))
        if name in ("keys", "values", "items"):
            if name == "keys":
                return TupleVariable([ConstantVariable(k) for k in self.items])
            if name == "values":
                return TupleVariable(list(self.items.values()))
            return TupleVariable([TupleVariable([ConstantVariable(k), v])
                                  for k, v in self.items.items()])
        if name == "update" and not kwargs:
            self.items.update(args[0].items)
            tx.output.mark_mutated(self)
            return ConstantVariable(None)
        unimplemented(f"dict.{name}")

    def rebuild(self, og):
        if self.source is not None:
            return super().rebuild(og)
        parts = [(k, v.rebuild(og)) for k, v in self.items.items()]
        return once_per_replay(self, lambda frame, outputs: {k: p(frame, outputs)
                                                             for k, p in parts})


class MethodOf(VariableTracker):
    """`container.method` before it is called."""

    def __init__(self, owner, name):
        self.owner = owner
        self.name = name

    def call(self, tx, args, kwargs):
        return self.owner.call_method(tx, self.name, args, kwargs)

    def rebuild(self, og):
        owner, name = self.owner.rebuild(og), self.name
        return lambda frame, outputs: getattr(owner(frame, outputs), name)


def once_per_replay(var, build):
    """A container made during capture is rebuilt once per replay, so every place that
    holds it (the stack, a local, another container) gets the same object back."""
    key = id(var)

    def get(frame, outputs):
        memo = frame[1]
        if key not in memo:
            memo[key] = build(frame, outputs)
        return memo[key]
    return get


class IteratorVariable(VariableTracker):
    """An iterator over known items (a list, a tuple, a range, a module list): FOR_ITER
    takes them one by one, so loops unroll into the graph."""

    def __init__(self, items):
        # a list's own `items` is read live, so appending while iterating behaves as in Python
        self.items = items
        self.position = 0

    def next(self):
        if self.position >= len(self.items):
            return None
        self.position += 1
        return self.items[self.position - 1]

    def unpack(self, tx):
        rest = self.items[self.position:]
        self.position = len(self.items)
        return rest
