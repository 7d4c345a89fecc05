"""Splitting a joint forward+backward graph into a forward graph and a backward graph.

A joint graph (aot_autograd.py) has placeholders `primals_<i>` then `tangents_<i>` and returns
`(*forward_outputs, *gradients)`. A partitioner returns `(fw_module, bw_module)`: the forward
returns `(*forward_outputs, *saved)`, the backward takes `(*saved, *tangents)` and returns the
gradients.

NOTE [what the forward saves]: every node that does not depend on a tangent runs in the
forward (it is known there, and running it later would need its inputs kept anyway); the
values the backward reads from it are saved. `default_partition` saves exactly those.
`min_cut_rematerialization_partition` then trades saved values for recomputation with one
greedy rule. A saved value made by a cheap op (a view, or pointwise arithmetic without a
transcendental function: add, mul, relu, where, comparisons ...) can be recomputed from its
frontier: walking back through cheap ops, the first values that are saved, primals (inputs
the caller keeps alive anyway, so free) or made by ops that are not cheap. It is recomputed
in the backward when the frontier's values not saved yet take fewer bytes than it (or none);
then all cheap saved values left are tried together the same way (relu's output and its mask
both come from the matmul before them: saving that one value beats saving both). Matmuls, convolutions, reductions, transcendental functions (exp, tanh, erf ...),
random ops and ops that write their inputs are never recomputed. PyTorch's partitioner solves
a min-cut over the same choice; this rule is its greedy, local version.
"""
from __future__ import annotations

import operator

from ember._core.dispatch.inplace_out import InplaceOp, OpForm
from ember._core.registry import OpDef
from ember.fx import Graph, GraphModule

__all__ = ["default_partition", "min_cut_rematerialization_partition"]

# NOTE [what the forward saves]: ops cheap enough to recompute in the backward.
CHEAP_OPS = frozenset((
    "view", "_unsafe_view", "reshape", "permute", "t", "transpose", "expand", "unsqueeze",
    "squeeze", "slice", "select", "alias", "detach", "clone", "_to_copy",
    "add", "sub", "mul", "div", "neg", "relu", "where", "le", "lt", "ge", "gt", "eq", "ne",
    "threshold_backward", "maximum", "minimum", "clamp", "abs", "sign", "fill", "zeros_like",
    "ones_like", "full_like", "bitwise_not", "logical_not", "type_as",
))


def _op_name(target) -> str | None:
    if isinstance(target, InplaceOp):
        return None             # writes: never recomputed
    if isinstance(target, OpForm):
        target = target.op
    if isinstance(target, OpDef):
        return target.schema.name.split("::")[-1]
    return None


def _recomputable(node) -> bool:
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        return False
    return _op_name(node.target) in CHEAP_OPS


def _tangent_dependent(joint) -> set:
    dependent = set()
    for node in joint.graph.nodes:
        is_tangent = node.op == "placeholder" and node.name.startswith("tangents")
        if is_tangent or any(a in dependent for a in node.all_input_nodes):
            dependent.add(node)
    return dependent


def _nbytes(node) -> int:
    val = node.meta.get("val")
    if val is None or not hasattr(val, "shape"):
        return 0
    n = 1
    for s in val.shape:
        n *= s
    return n * val.dtype.itemsize


def default_partition(joint_module, _joint_inputs=None, *, num_fwd_outputs):
    """(fw_module, bw_module): everything not depending on a tangent runs in the forward, and
    what the backward reads of it is saved (NOTE [what the forward saves])."""
    fw, bw, _, _ = _partition(joint_module, num_fwd_outputs, recompute=False)
    return fw, bw


def min_cut_rematerialization_partition(joint_module, _joint_inputs=None, compiler="inductor",
                                        *, num_fwd_outputs, **kwargs):
    """As `default_partition`, with cheap saved values recomputed in the backward instead
    (NOTE [what the forward saves])."""
    fw, bw, _, _ = _partition(joint_module, num_fwd_outputs, recompute=True)
    return fw, bw


def partition_report(joint_module, num_fwd_outputs, recompute):
    """(saved names, recomputed names): what a partition saves and what it recomputes."""
    _, _, saved, recomputed = _partition(joint_module, num_fwd_outputs, recompute)
    return [n.name for n in saved], [n.name for n in recomputed]


def _partition(joint, num_fwd_outputs, recompute):
    nodes = list(joint.graph.nodes)
    output = nodes[-1]
    outs = list(output.args[0])
    fw_outs, grads = outs[:num_fwd_outputs], outs[num_fwd_outputs:]
    dependent = _tangent_dependent(joint)
    primals = [n for n in nodes if n.op == "placeholder" and n not in dependent]
    tangents = [n for n in nodes if n.op == "placeholder" and n in dependent]
    bw_nodes = [n for n in nodes if n in dependent and n.op != "placeholder"]
    needed = set()
    for g in grads:
        if hasattr(g, "op"):
            needed.add(g)
    for n in reversed(bw_nodes):
        if n in needed or any(u in needed for u in n.users):
            needed.add(n)
    bw_nodes = [n for n in bw_nodes if n in needed]
    bw_set = set(bw_nodes)
    saved = []
    for n in nodes:
        if n in dependent or n.op == "output":
            continue
        if any(u in bw_set for u in n.users) or n in grads:
            saved.append(n)
    recomputed = []
    if recompute:
        saved, recomputed = _rematerialize(saved, set(primals))
        saved, recomputed = _views_before_copies(saved, recomputed, set(primals))
    fw = _forward_module(joint, primals, fw_outs, saved)
    bw = _backward_module(joint, saved, tangents, recomputed, bw_nodes, grads)
    return fw, bw, saved, recomputed


def _frontier(node, saved, primals, memo) -> set:
    """What recomputing `node` reads: walking back through cheap ops, the first values that
    are saved, primals, constants, or made by an op that is not cheap."""
    found = memo.get(node)
    if found is None:
        found = set()
        for a in node.all_input_nodes:
            if a in saved or a in primals or a.op == "get_attr" or not _recomputable(a):
                found.add(a)
            else:
                found |= _frontier(a, saved, primals, memo)
        memo[node] = found
    return found


def _chain(node, frontier, primals) -> list:
    """The cheap nodes between `node`'s frontier and `node`, `node` included."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n in out or n in frontier:
            continue
        out.append(n)
        stack.extend(n.all_input_nodes)
    return out


def _rematerialize(saved, primals):
    """NOTE [what the forward saves]: first one saved value at a time, then all cheap saved
    values together (they often read one value, as relu's mask and its output)."""
    saved = list(saved)
    recomputed = []

    def cost(nodes):        # bytes newly saved to recompute `nodes` (primals are kept anyway)
        memo = {}
        frontier = set().union(*(_frontier(n, set(saved) - set(nodes), primals, memo)
                                 for n in nodes))
        new = [a for a in frontier if a not in saved and a.op != "get_attr"]
        return sum(_nbytes(a) for a in new if a not in primals), frontier, new

    def accept(nodes, frontier, new):
        for n in nodes:
            saved.remove(n)
            for c in _chain(n, frontier, primals):
                if c not in recomputed:
                    recomputed.append(c)
        saved.extend(a for a in dict.fromkeys(new) if a not in saved)

    for n in list(saved):
        if n in primals or not _recomputable(n):
            continue
        extra, frontier, new = cost([n])
        if extra == 0 or extra < _nbytes(n):
            accept([n], frontier, new)
    group = [n for n in saved if n not in primals and _recomputable(n)]
    if group:
        extra, frontier, new = cost(group)
        if extra < sum(_nbytes(n) for n in group):
            accept(group, frontier, new)
    return saved, recomputed


# NOTE [a copy of a view is saved as the view]: a saved value that is a contiguous copy
# (`clone`) of a view, seen through more views (matmul's decomposition makes attention's k as
# `permute(_unsafe_view(clone(expand(permute(view(slice(qkv)))))))`: the heads merged into one
# batch dim, which no strides can express) and read only by batched matmuls, is saved as the
# view before the copy, and the copy and the views after it are recomputed in the backward.
# The compiled forward then returns that view as a strided view of its buffer (NOTE [saved
# values leave as views] in _inductor/lowering.py) instead of writing the copy, and the
# backward's matmul reads the unmerged 4-D view as it is (NOTE [batched matmul on the unmerged
# views] in _inductor/wrapper.py). The bytes saved are the same (the view has the copy's
# elements); only views and the clone move.
_VIEW_OPS = frozenset(("view", "_unsafe_view", "reshape", "permute", "t", "transpose",
                       "expand", "unsqueeze", "squeeze", "alias", "slice", "select"))


def _views_before_copies(saved, recomputed, primals):
    saved, recomputed = list(saved), list(recomputed)
    for n in list(saved):
        chain, node = [], n
        while node.op == "call_function" and _op_name(node.target) in _VIEW_OPS and \
                node not in primals:
            chain.append(node)
            node = node.args[0]
        if not (node.op == "call_function" and _op_name(node.target) == "clone") or \
                node in primals or _nbytes(node) != _nbytes(n):
            continue
        before = node.args[0]
        if not (getattr(before, "op", None) == "call_function" and
                _op_name(before.target) in _VIEW_OPS) or before in primals or \
                not _read_by_batched_matmuls(node):
            continue
        saved.remove(n)
        if before not in saved:
            saved.append(before)
        for c in reversed([*chain, node]):
            if c not in recomputed:
                recomputed.append(c)
    return saved, recomputed


def _read_by_batched_matmuls(node) -> bool:
    """Whether every op reading `node`, through views, is a bmm (which reads the view before
    the copy as well); a copy an mm or a pointwise op reads is made in the forward anyway, so
    saving it costs nothing more."""
    for user in node.users:
        name = _op_name(user.target) if user.op == "call_function" else None
        if name in _VIEW_OPS:
            if not _read_by_batched_matmuls(user):
                return False
        elif name != "bmm":
            return False
    return True


def _forward_module(joint, primals, fw_outs, saved):
    graph = Graph()
    env = {}
    for p in primals:
        env[p] = graph.placeholder(p.name)
        env[p].meta = dict(p.meta)
    wanted = set(fw_outs) | set(saved)
    keep = set()
    order = list(joint.graph.nodes)
    for n in reversed(order):
        if n in wanted or any(u in keep for u in n.users) or _writes(n):
            keep.add(n)
    for n in order:
        if n.op in ("placeholder", "output") or n not in keep:
            continue
        if any(a not in env for a in n.all_input_nodes):
            continue        # reads a tangent: a backward node
        env[n] = graph.node_copy(n, lambda a: env[a])
    graph.output(tuple(_lookup(env, v) for v in (*fw_outs, *saved)))
    return GraphModule(joint, graph)


def _writes(node) -> bool:
    return node.op == "call_function" and isinstance(node.target, InplaceOp)


def _lookup(env, value):
    return env[value] if hasattr(value, "op") else value


def _backward_module(joint, saved, tangents, recomputed, bw_nodes, grads):
    graph = Graph()
    env = {}
    for n in saved:
        env[n] = graph.placeholder(n.name)
        env[n].meta = dict(n.meta)
    for t in tangents:
        env[t] = graph.placeholder(t.name)
        env[t].meta = dict(t.meta)
    pending = set(recomputed)

    def materialize(node):
        if node in env:
            return env[node]
        if node.op == "get_attr":
            env[node] = graph.node_copy(node)
            return env[node]
        if node not in pending:
            raise AssertionError(f"partition: {node.name} is neither saved nor recomputed")
        for a in node.all_input_nodes:
            materialize(a)
        env[node] = graph.node_copy(node, lambda a: env[a])
        return env[node]

    for n in bw_nodes:
        for a in n.all_input_nodes:
            materialize(a)
        env[n] = graph.node_copy(n, lambda a: env[a])
    graph.output(tuple(materialize(g) if hasattr(g, "op") else g for g in grads))
    return GraphModule(joint, graph)
