"""Nested tuples, lists, dicts and namedtuples of leaves ("pytrees"): flatten to a list of
leaves plus a spec, rebuild from them, and match a prefix tree (vmap's in_dims) against a spec.
Used by ember.func."""
from __future__ import annotations

from ember._core import dispatch

_LEAF = ("leaf",)


def _flatten(tree):
    leaves = []
    spec = _flatten_into(tree, leaves)
    return leaves, spec


def _flatten_into(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return (type(tree), None, tuple(_flatten_into(x, leaves) for x in tree))
    if isinstance(tree, dict):
        keys = tuple(tree.keys())
        return (type(tree), keys, tuple(_flatten_into(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return _LEAF


def _unflatten(leaves, spec):
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec):
    if spec is _LEAF or spec == _LEAF:
        return next(it)
    kind, keys, children = spec
    values = [_build(it, child) for child in children]
    if keys is not None:
        return kind(zip(keys, values))
    if kind is tuple or kind is list:
        return kind(values)
    return kind(*values)  # a namedtuple


def _spec_str(spec):
    if spec == _LEAF:
        return "*"
    kind, keys, children = spec
    parts = [_spec_str(c) for c in children]
    if keys is not None:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
    if kind is list:
        return "[" + ", ".join(parts) + "]"
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _broadcast_prefix(prefix, spec):
    """Flatten `prefix` (a tree whose leaves apply to whole subtrees of `spec`) to one value
    per leaf of `spec`; None when the structures do not match."""
    out = []
    return out if _broadcast_into(prefix, spec, out) else None


def _count_leaves(spec):
    if spec == _LEAF:
        return 1
    return sum(_count_leaves(c) for c in spec[2])


def _broadcast_into(prefix, spec, out):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * _count_leaves(spec))
        return True
    if spec == _LEAF:
        return False
    kind, keys, children = spec
    if type(prefix) is not kind and not (isinstance(prefix, tuple) and issubclass(kind, tuple)):
        return False
    if keys is not None:
        if set(prefix.keys()) != set(keys):
            return False
        return all(_broadcast_into(prefix[k], c, out) for k, c in zip(keys, children))
    if len(prefix) != len(children):
        return False
    return all(_broadcast_into(p, c, out) for p, c in zip(prefix, children))


def _tree_map(fn, tree):
    leaves, spec = _flatten(tree)
    return _unflatten([fn(x) for x in leaves], spec)


def _is_tensor(x):
    return isinstance(x, dispatch.Tensor)


# torch.utils._pytree's public functions (_pytree_api.py).
from ember.utils._pytree_api import *
from ember.utils._pytree_api import __all__  # noqa: F401
