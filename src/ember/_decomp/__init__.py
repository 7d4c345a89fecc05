"""`ember._decomp` (torch._decomp): decompositions of ops into other registry ops, keyed by the op
entries of `ember.ops.aten`. `registry.py` holds the tables and the public functions; the
decompositions live one family a file; `composite.py` gives PyTorch's CompositeImplicit ops
theirs, which run above autograd under dispatch modes (NOTE [composites decompose under modes]).
"""
from ember._decomp import (  # noqa: F401
    activations,
    composite,
    composite_misc,
    contractions,
    factories,
    losses,
    norms,
    pointwise,
    products,
    shapes,
)
from ember._decomp.registry import (
    core_aten_decompositions,
    decomposition_table,
    get_decompositions,
    global_decomposition_table,
    meta_table,
    pre_autograd_decomposition_table,
    register_decomposition,
    remove_decompositions,
)

__all__ = [
    "core_aten_decompositions",
    "decomposition_table",
    "get_decompositions",
    "global_decomposition_table",
    "meta_table",
    "pre_autograd_decomposition_table",
    "register_decomposition",
    "remove_decompositions",
]
