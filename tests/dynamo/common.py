"""Helpers for capture tests: the same program written against either library, run through
both `explain`s, and the graphs' ops by name (real PyTorch is the oracle)."""
import numpy as np
import torch
import torch._dynamo

import ember
import ember._dynamo


def ops_of(gm):
    """(op, name) of every call node, in order: names compare across the libraries."""
    return [(n.op, n.target if isinstance(n.target, str) else n.target.__name__)
            for n in gm.graph.nodes if n.op in ("call_function", "call_method")]


def explain_both(build, make_args):
    """`build(lib)` -> the function; `make_args(lib)` -> its arguments. Both explains."""
    torch._dynamo.reset()
    ember._dynamo.reset()
    theirs = torch._dynamo.explain(build(torch))(*make_args(torch))
    ours = ember._dynamo.explain(build(ember))(*make_args(ember))
    return theirs, ours


def assert_same_capture(theirs, ours):
    assert ours.graph_count == theirs.graph_count
    assert ours.graph_break_count == theirs.graph_break_count
    assert [ops_of(g) for g in ours.graphs] == [ops_of(g) for g in theirs.graphs]


def same_values(ours, theirs):
    """Tensors (nested in tuples and lists) equal within float32 tolerance."""
    if isinstance(theirs, (tuple, list)):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same_values(o, t)
        return
    if isinstance(theirs, torch.Tensor):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
        return
    assert ours == theirs


def arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def tensors(lib, values):
    return [lib.tensor(v) for v in values]
