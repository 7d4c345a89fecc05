"""Guards: the facts a captured graph assumed about its inputs, checked before the graph is
reused (NOTE [how capture runs]). Each guard reads one value through its source and compares
it with what capture saw; the first that fails names itself in the recompile log."""
from __future__ import annotations

from ember.autograd.grad_mode import is_grad_enabled


class Guard:
    """One assumption: `kind` (TENSOR_MATCH, ID_MATCH, EQUALS_MATCH, LIST_LENGTH, DICT_KEYS,
    GRAD_MODE, NO_HOOKS, ALIASING, SIZE_RELATION), the source read and the value expected."""

    __slots__ = ("_test", "expected", "inline", "kind", "source")

    def __init__(self, kind, source, expected, test, inline=None):
        self.kind = kind
        self.source = source
        self.expected = expected
        self._test = test
        # NOTE [guards as one function]: how `compile_check` writes this test inline
        self.inline = inline

    def check(self, frame) -> bool:
        return self._test(frame)

    def describe(self) -> str:
        where = self.source.name() if self.source is not None else "global"
        return f"{self.kind} {where} (expected {self.expected!r})"

    def __repr__(self):
        return self.describe()


def tensor_facts(t):
    """What TENSOR_MATCH compares: type, dtype, device, shape, strides (in bytes),
    requires_grad, leafness (every fact capture may have read off the fake tensor; the
    storage offset is not one: reading it is a graph break). Read off the tensor's own
    fields: guards run at every call of compiled code."""
    data = t._data
    return (type(t), t._dtype, t._device, data.shape, data.strides, t._requires_grad,
            t._grad_fn is None)


def tensor_match(source, t, dynamic_dims=None):
    """`dynamic_dims`: the dims any size (2 or more) passes (NOTE [dynamic dimensions])."""
    facts = tensor_facts(t)
    if not dynamic_dims:    # (the set only shrinks while capture runs)
        return Guard("TENSOR_MATCH", source, facts,
                     lambda frame: tensor_facts(source.get(frame)) == facts,
                     inline=("tensor", facts))
    from ember._dynamo.dynamic import tensor_test
    return Guard("TENSOR_MATCH", source, facts, tensor_test(source, facts, dynamic_dims))


def id_match(source, obj):
    expected = id(obj)
    return Guard("ID_MATCH", source, expected, lambda frame: id(source.get(frame)) == expected,
                 inline=("id", expected))


def equals_match(source, value):
    kind = type(value)
    return Guard("EQUALS_MATCH", source, value,
                 lambda frame: type(v := source.get(frame)) is kind and v == value,
                 inline=("equals", kind, value))


def length_match(source, obj):
    kind, size = type(obj), len(obj)
    return Guard("LIST_LENGTH", source, size,
                 lambda frame: type(v := source.get(frame)) is kind and len(v) == size)


def size_relation(source, dim, op, value, flipped, result):
    """A dynamic size compared with a number during capture still compares the same way
    (NOTE [dynamic dimensions])."""
    def test(frame):
        size = source.get(frame).shape[dim]
        return (op(value, size) if flipped else op(size, value)) == result
    symbol = f"size({dim}) {op.__name__} {value}" if not flipped else \
        f"{value} {op.__name__} size({dim})"
    return Guard("SIZE_RELATION", source, f"{symbol} is {result}", test)


def grad_mode(enabled):
    return Guard("GRAD_MODE", None, enabled, lambda frame: is_grad_enabled() == enabled,
                 inline=("grad", enabled))


def no_hooks(source):
    """The module still has no hooks, so inlining `forward` alone stays its call."""
    def test(frame):
        module = source.get(frame)
        from ember._dynamo.variables.nn_module import _has_hooks
        return not _has_hooks(module)
    return Guard("NO_HOOKS", source, True, test, inline=("hooks",))


def aliasing(sources, pattern):
    """The objects read through `sources` are the same or distinct as at capture: `pattern[i]`
    is the index of the first source holding the same object as source i."""
    sources = tuple(sources)
    pattern = tuple(pattern)

    def test(frame):
        first = {}
        return tuple(first.setdefault(id(s.get(frame)), i)
                     for i, s in enumerate(sources)) == pattern

    inline = ("aliases", sources, pattern)
    if pattern == tuple(range(len(pattern))):
        count = len(sources)

        def test(frame):  # noqa: F811 -- all distinct, the common case: one set of ids
            return len({id(s.get(frame)) for s in sources}) == count
        inline = ("distinct", sources)
    return Guard("ALIASING", None, pattern, test, inline)


def first_failure(guards, frame):
    """The first guard that no longer holds, or None. A source that can no longer be read
    (an attribute deleted, a list grown shorter) fails its guard."""
    for guard in guards:
        try:
            ok = guard._test(frame)
        except (AttributeError, KeyError, IndexError, TypeError):
            ok = False
        if not ok:
            return guard
    return None


def equals_match_keys(source, mapping):
    """A dict read during capture: still a dict, with the same keys in the same order."""
    keys = tuple(mapping)
    return Guard("DICT_KEYS", source, keys,
                 lambda frame: type(v := source.get(frame)) is dict and tuple(v) == keys)


# NOTE [guards as one function]: guards run at every call of compiled code, so an entry's
# guards are also written as one generated function (`compile_check`): every object a source
# names is read once into a local (a module's parameters share the reads of the module path:
# `L['self'].blocks[0]` once for all its weights), and the common guards (TENSOR_MATCH with
# static sizes, ID_MATCH, EQUALS_MATCH, GRAD_MODE, NO_HOOKS, ALIASING: the objects first
# seen distinct by one set of ids, each repeat by `is` against its first) are compared inline;
# any other guard is called as it is. It answers what `first_failure(...) is None` answers (a
# source that cannot be read fails); `first_failure` still names the guard that failed when
# it says no. `compile_fetch` reads a graph's inputs the same way for the replay.
class _SourceWriter:
    def __init__(self, ns, lines):
        self.ns, self.lines, self.names = ns, lines, {}

    def const(self, value):
        name = f"_c{len(self.ns)}"
        self.ns[name] = value
        return name

    def read(self, source) -> str:
        """A local holding the object `source` names (read once)."""
        from ember._dynamo.source import (
            AttrSource,
            BuiltinSource,
            CellSource,
            GetItemSource,
            GlobalSource,
            LocalSource,
        )
        key = source.name()
        found = self.names.get(key)
        if found is not None:
            return found
        kind = type(source)
        if kind is LocalSource:
            expr = f"A[{source.local_name!r}]"
        elif kind is AttrSource and source.attr.isidentifier() and \
                not source.attr.startswith("__"):
            expr = f"{self.read(source.base)}.{source.attr}"
        elif kind is AttrSource and type(source.attr) is str:
            expr = f"getattr({self.read(source.base)}, {source.attr!r})"
        elif kind is GlobalSource and type(source.global_name) is str:
            expr = f"{self.const(source.namespace)}[{source.global_name!r}]"
        elif kind is BuiltinSource and type(source.builtin_name) is str:
            expr = f"{self.const(source.table)}[{source.builtin_name!r}]"
        elif kind is CellSource:
            expr = f"{self.const(source.cell)}.cell_contents"
        elif kind is GetItemSource and type(source.index) in (int, str):
            expr = f"{self.read(source.base)}[{source.index!r}]"
        else:
            expr = f"{self.const(source)}.get(frame)"
        var = f"v{len(self.names)}"
        self.names[key] = var
        self.lines.append(f"{var} = {expr}")
        return var


def compile_check(guards):
    from ember._dynamo.variables.nn_module import _has_hooks
    ns = {"_grad": is_grad_enabled, "_hooks": _has_hooks,
          "_errors": (AttributeError, KeyError, IndexError, TypeError)}
    lines = []
    w = _SourceWriter(ns, lines)
    for guard in guards:
        inline = guard.inline
        if inline is not None and inline[0] == "tensor":
            kind, dtype, device, shape, strides, requires_grad, leaf = inline[1]
            t = w.read(guard.source)
            lines.append(f"if type({t}) is not {w.const(kind)} or {t}._dtype != "
                         f"{w.const(dtype)} or {t}._device != {w.const(device)} or "
                         f"{t}._data.shape != {shape!r} or {t}._data.strides != {strides!r}"
                         f" or {t}._requires_grad != {requires_grad!r} or "
                         f"({t}._grad_fn is None) != {leaf!r}: return False")
        elif inline is not None and inline[0] == "grad":
            lines.append(f"if _grad() != {inline[1]!r}: return False")
        elif inline is not None and inline[0] == "id":
            lines.append(f"if id({w.read(guard.source)}) != {inline[1]!r}: return False")
        elif inline is not None and inline[0] == "hooks":
            # what `_has_hooks` tests: the process-wide hooks once, each module's own dicts
            if "_mf" not in ns:
                from ember.nn.modules import module as module_file
                ns["_mf"] = module_file
                lines.append("if _mf._global_forward_hooks or _mf._global_forward_pre_hooks or "
                             "_mf._global_backward_hooks or _mf._global_backward_pre_hooks: "
                             "return False")
            m = w.read(guard.source)
            lines.append(f"if {m}._forward_hooks or {m}._forward_pre_hooks or "
                         f"{m}._backward_hooks or {m}._backward_pre_hooks: return False")
        elif inline is not None and inline[0] == "distinct":
            ids = ", ".join(f"id({w.read(s)})" for s in inline[1])
            lines.append(f"if len({{{ids}}}) != {len(inline[1])}: return False")
        elif inline is not None and inline[0] == "equals":
            v = w.read(guard.source)
            lines.append(f"if type({v}) is not {w.const(inline[1])} or not ({v} == "
                         f"{w.const(inline[2])}): return False")
        elif inline is not None and inline[0] == "aliases":
            sources, pattern = inline[1], inline[2]
            names = [w.read(s) for s in sources]
            firsts = [names[i] for i, p in enumerate(pattern) if p == i]
            ids = ", ".join(f"id({n})" for n in firsts)
            lines.append(f"if len({{{ids}}}) != {len(firsts)}: return False")
            for i, p in enumerate(pattern):
                if p != i:
                    lines.append(f"if {names[i]} is not {names[p]}: return False")
        else:
            lines.append(f"if not {w.const(guard._test)}(frame): return False")
    body = "\n".join("        " + line for line in lines + ["return True"])
    source = (f"def check(frame):\n    A = frame[0]\n    try:\n{body}\n"
              f"    except _errors:\n        return False\n")
    exec(compile(source, "<ember guards>", "exec"), ns)  # noqa: S102
    check = ns["check"]
    check.source = source
    return check


def compile_fetch(sources):
    """`fetch(frame)`: the values `sources` name, as a list (NOTE [guards as one
    function])."""
    ns, lines = {}, []
    w = _SourceWriter(ns, lines)
    names = [w.read(s) for s in sources]
    body = "\n".join("    " + line for line in lines + [f"return [{', '.join(names)}]"])
    source = f"def fetch(frame):\n    A = frame[0]\n{body}\n"
    exec(compile(source, "<ember graph inputs>", "exec"), ns)  # noqa: S102
    return ns["fetch"]
