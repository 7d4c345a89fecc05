"""The decomposition tables and torch._decomp's public functions over them.

A table maps an op entry (`ember.ops.aten.addcmul.default`, an `OpDef`) to a Python function
taking the op's arguments as its schema names them and returning what the op returns,
computed with other registry ops. Decompositions never run by themselves (except the
composites', NOTE [composites decompose under modes]): a compiler or a test asks for them.
"""
from __future__ import annotations

from ember._core.registry import OpDef
from ember.ops import OpOverloadPacket

global_decomposition_table: dict = {"post_autograd": {}, "pre_autograd": {}, "meta": {}}
decomposition_table = global_decomposition_table["post_autograd"]
pre_autograd_decomposition_table = global_decomposition_table["pre_autograd"]
meta_table = global_decomposition_table["meta"]

# The entries of ember's own decompositions that PyTorch's core_aten_decompositions() has too:
# they lower to the core ATen set (pointwise, reductions, views, addmm/bmm/convolution,
# indexing).
_CORE: set = set()


def _overloads(aten_op) -> list:
    """The op entries one argument of register_decomposition / get_decompositions names."""
    if isinstance(aten_op, OpDef):
        return [aten_op]
    if isinstance(aten_op, OpOverloadPacket):
        return [getattr(aten_op, name) for name in aten_op.overloads()]
    if isinstance(aten_op, (list, tuple)):
        return [op for item in aten_op for op in _overloads(item)]
    # (PyTorch's checks here are assertions.)
    raise AssertionError(f"expected OpOverloadPacket, got {type(aten_op)}")


def _check_type(type) -> None:
    if type not in global_decomposition_table:
        raise AssertionError(f"type must be one of post_autograd, pre_autograd, or meta, got "
                             f"{type}")


def register_decomposition(aten_op, registry=None, *, type="post_autograd", unsafe=False):
    """Decorator: `fn` decomposes `aten_op` (an overload, a packet: every overload, or a list
    of them) in `registry` (default: the global table of `type`)."""
    _check_type(type)
    table = global_decomposition_table[type] if registry is None else registry

    def decorate(fn):
        for op in _overloads(aten_op):
            if op in table:
                raise RuntimeError(f"duplicate registrations for {op}")
            table[op] = fn
        return fn
    return decorate


def get_decompositions(aten_ops, type="post_autograd") -> dict:
    """{overload: decomposition} for the registered decompositions of `aten_ops` (overloads or
    packets; a packet brings every overload of it that has one)."""
    _check_type(type)
    table = global_decomposition_table[type]
    return {op: table[op] for op in _overloads(list(aten_ops)) if op in table}


def remove_decompositions(decompositions: dict, aten_ops) -> None:
    """Drop the overloads `aten_ops` names (packets: all of theirs) from `decompositions`."""
    for op in _overloads(list(aten_ops)):
        decompositions.pop(op, None)


def core_aten_decompositions() -> dict:
    """{overload: decomposition} lowering to PyTorch's core ATen op set (a fresh dict)."""
    return {op: decomposition_table[op] for op in _CORE}


def decomposes(*aten_ops, core=True):
    """ember's own registrations: into the post-autograd table, and into the core set unless
    `core` is False (PyTorch's core table does not decompose that op)."""
    register = register_decomposition(list(aten_ops))

    def decorate(fn):
        register(fn)
        if core:
            _CORE.update(_overloads(list(aten_ops)))
        return fn
    return decorate
