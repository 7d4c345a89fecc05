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
    return Guard("ID_MATCH", source, expected, lambda frame: id(source.get(frame)) == expected)


def equals_match(source, value):
    kind = type(value)
    return Guard("EQUALS_MATCH", source, value,
                 lambda frame: type(v := source.get(frame)) is kind and v == value)


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
    return Guard("NO_HOOKS", source, True, test)


def aliasing(sources, pattern):
    """The objects read through `sources` are the same or distinct as at capture: `pattern[i]`
    is the index of the first source holding the same object as source i."""
    sources = tuple(sources)
    pattern = tuple(pattern)

    def test(frame):
        first = {}
        return tuple(first.setdefault(id(s.get(frame)), i)
                     for i, s in enumerate(sources)) == pattern

    inline = None
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
# guards are also written as one generated function (`compile_check`): each tensor's fields
# read once, compared inline, the arguments reached by name, the common guards (TENSOR_MATCH
# with static sizes, GRAD_MODE, all-distinct ALIASING on arguments) without a call of their
# own; any other guard is called as it is. It answers exactly what `first_failure(...) is
# None` answers (a source that cannot be read fails); `first_failure` still names the guard
# that failed when it says no.
def compile_check(guards):
    from ember._dynamo.source import LocalSource
    ns = {"_grad": is_grad_enabled, "_errors": (AttributeError, KeyError, IndexError,
                                                TypeError)}
    lines, values = [], {}

    def const(value):
        name = f"_c{len(ns)}"
        ns[name] = value
        return name

    def local(source):
        """The variable holding an argument read through `source` (read once)."""
        if source.local_name not in values:
            var = f"v{len(values)}"
            values[source.local_name] = var
            lines.append(f"{var} = A[{source.local_name!r}]")
        return values[source.local_name]

    for guard in guards:
        inline = guard.inline
        if inline is not None and inline[0] == "tensor" and type(guard.source) is LocalSource:
            kind, dtype, device, shape, strides, requires_grad, leaf = inline[1]
            t = local(guard.source)
            lines.append(f"if type({t}) is not {const(kind)} or {t}._dtype != {const(dtype)}"
                         f" or {t}._device != {const(device)} or {t}._data.shape != "
                         f"{shape!r} or {t}._data.strides != {strides!r} or "
                         f"{t}._requires_grad != {requires_grad!r} or "
                         f"({t}._grad_fn is None) != {leaf!r}: return False")
        elif inline is not None and inline[0] == "grad":
            lines.append(f"if _grad() != {inline[1]!r}: return False")
        elif inline is not None and inline[0] == "distinct" and \
                all(type(s) is LocalSource for s in inline[1]):
            ids = ", ".join(f"id({local(s)})" for s in inline[1])
            lines.append(f"if len({{{ids}}}) != {len(inline[1])}: return False")
        else:
            lines.append(f"if not {const(guard._test)}(frame): return False")
    body = "\n".join("        " + line for line in lines + ["return True"])
    source = (f"def check(frame):\n    A = frame[0]\n    try:\n{body}\n"
              f"    except _errors:\n        return False\n")
    exec(compile(source, "<ember guards>", "exec"), ns)  # noqa: S102
    check = ns["check"]
    check.source = source
    return check
