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


def _attention(x, w, b, lib=ember):
    # heads read from one projection: merging them into matmul's batch dim needs a copy
    q, k, v = lib.nn.functional.linear(x, w, b).split(6, dim=2)
    q, k, v = (t.view(2, 4, 2, 3).transpose(1, 2) for t in (q, k, v))
    return ((q @ k.transpose(-2, -1)).softmax(-1) @ v).sum()


def test_a_copy_of_a_view_read_by_batched_matmuls_is_saved_as_the_view():
    # NOTE [a copy of a view is saved as the view], on what the forward saves without
    # recomputation (in a graph this small the recomputing rule already moves them back)
    from ember._functorch.partitioners import _views_before_copies
    ember.manual_seed(0)
    x = ember.randn(2, 4, 5, requires_grad=True)
    w = ember.randn(18, 5, requires_grad=True)
    b = ember.randn(18, requires_grad=True)
    compiled = aot_function(_attention, lambda gm, ex: gm.forward,
                            decompositions=core_aten_decompositions(),
                            partition_fn=min_cut_rematerialization_partition)
    compiled(x, w, b).backward()
    joint = compiled.entries[0].joint_graph
    nodes = {n.name: n for n in joint.graph.nodes}
    primals = {n for n in joint.graph.nodes if n.name.startswith("primals")}
    default_saved, _ = partition_report(joint, 1, recompute=False)

    def name(n):
        return str(getattr(nodes[n].target, "__name__", ""))
    copies = [n for n in default_saved if name(n).startswith("permute") and
              name(nodes[n].args[0].name).startswith("_unsafe_view")]
    assert len(copies) == 3, default_saved       # q, k and v merged for the backward's bmm
    saved, recomputed = _views_before_copies([nodes[n] for n in default_saved], [], primals)
    saved = [n.name for n in saved]
    recomputed = [n.name for n in recomputed]
    assert not set(copies) & set(saved)
    assert sum(name(n).startswith("clone") for n in recomputed) == 3
    assert not any(name(n).startswith(("clone", "_unsafe_view")) for n in saved)
    assert _nbytes(joint, saved) == _nbytes(joint, default_saved)
    import torch
    tx, tw, tb = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    _attention(tx, tw, tb, torch).backward()
    for mine, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-5,
                                   atol=1e-6)
