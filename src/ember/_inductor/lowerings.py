"""The lowering table: `ember.ops.aten` overload -> f(graph, node, *args, **kwargs) giving the
IR of the op's result (a TensorBox, or a tuple of them). Ops absent here run as extern calls.
Result shapes and dtypes are read off the node's `meta['val']` (type promotion is the
dispatcher's business, already done while tracing). The entries live by family in
lowering_views.py, lowering_pointwise.py and lowering_reductions.py.
"""
from __future__ import annotations

from ember._inductor.codegen_c import c_type
from ember.ops import aten

LOWERINGS: dict = {}


def register(*names):
    """Register for the overloads named ("add.Tensor"); an overload ember does not define
    can never reach a graph and is passed over."""
    def decorate(fn):
        for name in names:
            packet, _, overload = name.partition(".")
            found = getattr(aten, packet, None)
            op = getattr(found, overload, None) if found is not None and \
                overload in found.overloads() else None
            if op is not None:
                LOWERINGS[op] = fn
        return fn
    return decorate


def _val(node):
    v = node.meta["val"]
    return tuple(v.shape), v.dtype


def cast(v: str, dtype) -> str:
    return f"(({c_type(dtype)})({v}))"
