"""The partitioners: what the forward saves and what the backward recomputes (NOTE [what the
forward saves]), counted on a small function whose graph is known, and gradients against
torch's autograd (the oracle)."""
import numpy as np
import pytest

import ember
from ember._decomp import core_aten_decompositions
from ember._functorch.aot_autograd import aot_function
from ember._functorch.partitioners import (
    default_partition,
    min_cut_rematerialization_partition,
    partition_report,
)


def f(x, w):
    a = x @ w
    b = a.relu()
    c = b * 2 + 1
    d = c.tanh()
    return (d * c).sum()


def _joint():
    ember.manual_seed(0)
    x, w = ember.randn(4, 5), ember.randn(5, 6, requires_grad=True)
    compiled = aot_function(f, lambda gm, ex: gm.forward,
                            decompositions=core_aten_decompositions())
    compiled(x, w).backward()
    return compiled.entries[0].joint_graph


def _nbytes(joint, names):
    nodes = {n.name: n for n in joint.graph.nodes}
    total = 0
    for name in names:
        val = nodes[name].meta["val"]
        total += val.numel() * val.element_size()
    return total


def test_default_partition_saves_what_the_backward_reads():
    joint = _joint()
    saved, recomputed = partition_report(joint, 1, recompute=False)
    assert recomputed == []
    # tanh's output, its alias for tanh_backward, the mask of relu, c, and x's transpose
    assert sorted(saved) == sorted(["add_tensor", "tanh_default", "detach_default_2",
                                    "le_tensor", "permute_default"])


def test_min_cut_recomputes_cheap_ops_and_never_tanh_or_mm():
    joint = _joint()
    saved, recomputed = partition_report(joint, 1, recompute=True)
    assert sorted(saved) == ["mm_default", "primals_1", "tanh_default"]
    assert len(recomputed) == 9
    assert not any(n.startswith(("tanh", "mm", "sum")) for n in recomputed)
    default_saved, _ = partition_report(joint, 1, recompute=False)
    # primals are kept by the caller anyway: they count nothing
    assert _nbytes(joint, [s for s in saved if not s.startswith("primals")]) < \
        _nbytes(joint, default_saved)


@pytest.mark.parametrize("partition", [default_partition, min_cut_rematerialization_partition])
def test_partitioned_gradients_match_torch(partition):
    torch = pytest.importorskip("torch")
    ember.manual_seed(1)
    x, w = ember.randn(4, 5), ember.randn(5, 6, requires_grad=True)
    compiled = aot_function(f, lambda gm, ex: gm.forward, partition_fn=partition,
                            decompositions=core_aten_decompositions())
    loss = compiled(x, w)
    loss.backward()
    tx = torch.from_numpy(np.array(x.numpy()))
    tw = torch.from_numpy(np.array(w.detach().numpy())).requires_grad_()
    tloss = f(tx, tw)
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
    forward, backward = compiled.entries[0].forward_graph, compiled.entries[0].backward_graph
    for node in forward.graph.nodes:
        assert not node.name.startswith("tangents")
    assert sum(n.op == "placeholder" and n.name.startswith("tangents")
               for n in backward.graph.nodes) == 1
