"""torch.utils._pytree's public functions: nested containers ("pytrees") flattened to their
leaves and a TreeSpec, rebuilt, mapped over, and searched; containers registered by users
(`register_pytree_node`) take part like the built-in ones (tuple, list, dict, namedtuple,
OrderedDict, defaultdict, deque). `ember.utils._pytree` re-exports these names; its private
helpers, which ember.func uses, stay as they are."""
from __future__ import annotations

import collections
import dataclasses
from typing import Any

__all__ = ["Context", "DumpableContext", "FlattenFn", "FromDumpableContextFn", "LeafSpec",
           "PyTree", "PyTreeSpec", "ToDumpableContextFn", "TreeSpec", "UnflattenFn",
           "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "is_structseq",
           "is_structseq_class", "is_structseq_instance", "key_get", "keystr",
           "register_pytree_node", "tree_all", "tree_all_only", "tree_any", "tree_any_only",
           "tree_flatten", "tree_flatten_with_path", "tree_is_leaf", "tree_iter",
           "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_", "tree_map_only",
           "tree_map_only_", "tree_map_with_path", "tree_structure", "tree_unflatten",
           "treespec_dumps", "treespec_loads", "treespec_pprint"]

PyTree = Any
Context = Any
FlattenFn = Any
UnflattenFn = Any
DumpableContext = Any
ToDumpableContextFn = Any
FromDumpableContextFn = Any


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


@dataclasses.dataclass(frozen=True)
class _Node:
    flatten: Any            # tree -> (children, context)
    unflatten: Any          # (children, context) -> tree
    keys: Any               # (tree, context) -> key entries of the children
    name: str


SUPPORTED_NODES: dict = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None) -> None:
    """Make `cls` a container: `flatten_fn(x) -> (children, context)`,
    `unflatten_fn(children, context) -> x`."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")

    def keys(tree, context):
        if flatten_with_keys_fn is not None:
            return [k for k, _ in flatten_with_keys_fn(tree)[0]]
        return [SequenceKey(i) for i in range(len(flatten_fn(tree)[0]))]

    SUPPORTED_NODES[cls] = _Node(flatten_fn, unflatten_fn, keys,
                                 serialized_type_name or f"{cls.__module__}.{cls.__qualname__}")


def _register_builtins():
    sequence_keys = lambda tree, context: [SequenceKey(i) for i in range(len(tree))]
    mapping_keys = lambda tree, context: [MappingKey(k) for k in context]
    SUPPORTED_NODES[tuple] = _Node(lambda t: (list(t), None), lambda c, _: tuple(c),
                                   sequence_keys, "builtins.tuple")
    SUPPORTED_NODES[list] = _Node(lambda t: (list(t), None), lambda c, _: list(c),
                                  sequence_keys, "builtins.list")
    SUPPORTED_NODES[dict] = _Node(lambda t: (list(t.values()), list(t.keys())),
                                  lambda c, keys: dict(zip(keys, c)), mapping_keys,
                                  "builtins.dict")
    SUPPORTED_NODES[collections.OrderedDict] = _Node(
        lambda t: (list(t.values()), list(t.keys())),
        lambda c, keys: collections.OrderedDict(zip(keys, c)), mapping_keys,
        "collections.OrderedDict")
    SUPPORTED_NODES[collections.defaultdict] = _Node(
        lambda t: (list(t.values()), [t.default_factory, list(t.keys())]),
        lambda c, ctx: collections.defaultdict(ctx[0], zip(ctx[1], c)),
        lambda tree, ctx: [MappingKey(k) for k in ctx[1]], "collections.defaultdict")
    SUPPORTED_NODES[collections.deque] = _Node(
        lambda t: (list(t), t.maxlen), lambda c, maxlen: collections.deque(c, maxlen=maxlen),
        sequence_keys, "collections.deque")
    SUPPORTED_NODES[collections.namedtuple] = _Node(
        lambda t: (list(t), type(t)), lambda c, cls: cls(*c),
        lambda tree, cls: [GetAttrKey(f) for f in cls._fields], "collections.namedtuple")


_register_builtins()


def is_namedtuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and \
        isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    """A namedtuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    # (ember's return types are namedtuples; PyTorch's C structseqs have n_fields)
    return isinstance(cls, type) and issubclass(cls, tuple) and \
        hasattr(cls, "n_fields") and hasattr(cls, "n_sequence_fields")


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree):
    kind = type(tree)
    if kind in SUPPORTED_NODES:
        return kind
    if is_namedtuple_class(kind):
        return collections.namedtuple
    return None


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether `tree` is a leaf: not a registered container, or one `is_leaf` says is."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) is None


class TreeSpec:
    """The shape of a pytree: a node's type, its context (keys, class ...) and its children's
    specs; a leaf's spec has no type."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_nodes = 1 + sum(s.num_nodes for s in self.children_specs)
        self.num_leaves = 1 if type is None else sum(s.num_leaves for s in self.children_specs)
        self.num_children = len(self.children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and (self.type, self.context,
                                                 self.children_specs) == (
            other.type, other.context, other.children_specs)

    def __hash__(self):
        return hash((self.type, self.num_nodes))

    def __repr__(self, indent=0):
        if self.is_leaf():
            return "*"
        name = "namedtuple" if self.type is collections.namedtuple else self.type.__name__
        pad = " " * (indent + 2)
        inner = f",\n{pad}".join(s.__repr__(indent + 2) for s in self.children_specs)
        return f"TreeSpec({name}, {self.context!r}, [{inner}])"

    def unflatten(self, leaves):
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self}).")
        return _build(iter(leaves), self)

    def flatten_up_to(self, tree):
        """The subtrees of `tree` at this spec's leaves (`tree` has this spec's containers)."""
        if self.is_leaf():
            return [tree]
        kind = _node_type(tree)
        if kind is not self.type:
            raise ValueError(f"Node type mismatch; expected {self.type}, but got "
                             f"{type(tree)}.")
        children, context = SUPPORTED_NODES[kind].flatten(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                             f"{len(children)}.")
        if kind in (dict, collections.OrderedDict) and set(context) != set(self.context):
            raise ValueError(f"Node context mismatch for custom node type {kind}.")
        if kind in (dict, collections.OrderedDict):
            children = [tree[k] for k in self.context]
        out = []
        for child, spec in zip(children, self.children_specs):
            out.extend(spec.flatten_up_to(child))
        return out


class LeafSpec(TreeSpec):
    """The spec of a leaf."""

    def __init__(self):
        super().__init__(None, None, [])


PyTreeSpec = TreeSpec


def _build(leaves, spec):
    if spec.is_leaf():
        return next(leaves)
    children = [_build(leaves, child) for child in spec.children_specs]
    return SUPPORTED_NODES[spec.type].unflatten(children, spec.context)


def _flatten(tree, is_leaf, leaves):
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return LeafSpec()
    kind = _node_type(tree)
    children, context = SUPPORTED_NODES[kind].flatten(tree)
    return TreeSpec(kind, context, [_flatten(c, is_leaf, leaves) for c in children])


def tree_flatten(tree, is_leaf=None):
    """(the leaves of `tree` in order, its TreeSpec)."""
    leaves = []
    spec = _flatten(tree, is_leaf, leaves)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The pytree of `treespec`'s shape holding `leaves`."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance "
                        f"of TreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_leaves(tree, is_leaf=None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree, is_leaf=None):
    """The leaves of `tree`, one at a time."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_node_type(tree)].flatten(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """`tree` with each leaf x replaced by func(x, *the matching leaves of `rests`), which
    must have `tree`'s containers down to its leaves."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(leaves, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Call func on every leaf (with the matching leaves of `rests`) for its effect; returns
    `tree`."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _only(type_or_pred):
    if isinstance(type_or_pred, (type, tuple)):
        return lambda x: isinstance(x, type_or_pred)
    if callable(type_or_pred):
        return type_or_pred
    raise TypeError(f"Expected a type, a tuple of types or a predicate, got "
                    f"{type(type_or_pred)}")


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    """tree_map of `func` over the leaves that are of the type(s) or meet the predicate;
    other leaves stay."""
    wanted = _only(type_or_types_or_pred)
    return tree_map(lambda x: func(x) if wanted(x) else x, tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    wanted = _only(type_or_types_or_pred)
    return tree_map_(lambda x: func(x) if wanted(x) else None, tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(pred(x) for x in tree_iter(tree, is_leaf))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(pred(x) for x in tree_iter(tree, is_leaf))


def tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    wanted = _only(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if wanted(x))


def tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    wanted = _only(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if wanted(x))


# --------------------------------------------------------------------------- paths

def _with_path(tree, is_leaf, path, out):
    if tree_is_leaf(tree, is_leaf):
        out.append((path, tree))
        return
    node = SUPPORTED_NODES[_node_type(tree)]
    children, context = node.flatten(tree)
    for key, child in zip(node.keys(tree, context), children):
        _with_path(child, is_leaf, (*path, key), out)


def tree_flatten_with_path(tree, is_leaf=None):
    """([(key path, leaf) ...], TreeSpec): each leaf with the keys that reach it."""
    out = []
    _with_path(tree, is_leaf, (), out)
    return out, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """tree_map with each leaf's key path as func's first argument."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(path, x, *xs) for (path, x), *xs in zip(pairs, *others))


def keystr(kp) -> str:
    """A key path as the indexing that follows it: "['a'][1].x"."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    for key in kp:
        obj = key.get(obj)
    return obj


# --------------------------------------------------------------------------- serialising specs

_BY_NAME = None


def _spec_to_json(spec):
    import json
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_NODES[spec.type]
    context = spec.context
    if spec.type is collections.namedtuple:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't "
            "register a serializated_type_name. Please register using `_register_namedtuple`.")
    if spec.type is collections.defaultdict:
        raise NotImplementedError("treespec_dumps: a defaultdict's factory cannot be serialised")
    return {"type": node.name, "context": json.dumps(context),
            "children_spec": [_spec_to_json(c) for c in spec.children_specs]}


def treespec_dumps(treespec, protocol=None) -> str:
    """The spec as a JSON string (built-in containers; a namedtuple's needs registering, as in
    PyTorch)."""
    import json  # (on first use: `import ember.nn` does not need it)
    return json.dumps([1, _spec_to_json(treespec)])


def _spec_from_json(data):
    import json
    global _BY_NAME
    if data["type"] is None:
        return LeafSpec()
    _BY_NAME = {node.name: kind for kind, node in SUPPORTED_NODES.items()}
    kind = _BY_NAME[data["type"]]
    context = json.loads(data["context"])
    return TreeSpec(kind, context, [_spec_from_json(c) for c in data["children_spec"]])


def treespec_loads(serialized: str) -> TreeSpec:
    import json  # (on first use: `import ember.nn` does not need it)
    _protocol, data = json.loads(serialized)
    return _spec_from_json(data)


def treespec_pprint(treespec) -> str:
    """The spec drawn as a pytree of '*' leaves."""
    return repr(_build(iter(["*"] * treespec.num_leaves), treespec)).replace("'*'", "*")
