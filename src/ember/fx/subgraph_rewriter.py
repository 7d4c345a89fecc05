"""`replace_pattern(gm, pattern, replacement)`: find every place where the graph computes
what `pattern` computes and put `replacement`'s computation there instead.

NOTE [what a pattern match is]: the pattern's placeholders match any value; every other
pattern node matches a graph node of the same op and target whose arguments match the
pattern node's arguments (nodes recursively, constants by equality), each pattern node to
one graph node and no graph node twice. Matching starts at the nodes the pattern returns (the
anchors) and walks back through their arguments. A match is kept only when the matched nodes
other than the returned ones are used by nothing outside the match (so erasing them loses
nothing), and when it shares no node with a match kept before it (graph order).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ember.fx.graph import Graph
from ember.fx.graph_module import GraphModule
from ember.fx.node import Node


class Match(NamedTuple):
    """One replaced place: the pattern's (first) returned node, and the map from pattern
    nodes to what they matched (graph nodes; a placeholder may match a constant)."""

    anchor: Node
    nodes_map: dict[Node, Node]


def _graph_of(pattern) -> Graph:
    if isinstance(pattern, GraphModule):
        return pattern.graph
    if isinstance(pattern, Graph):
        return pattern
    from ember.fx.tracer._symbolic_trace import symbolic_trace
    return symbolic_trace(pattern).graph


def _returned_nodes(graph: Graph) -> list[Node]:
    found: list[Node] = []
    value = graph.output_node().args[0]
    values = value if isinstance(value, (tuple, list)) else (value,)
    for item in values:
        if isinstance(item, Node):
            found.append(item)
    return found


class _Matcher:
    """Matches one pattern graph against a graph. NOTE [what a pattern match is]"""

    def __init__(self, pattern: Graph) -> None:
        self.pattern = pattern
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        self.anchors = _returned_nodes(pattern)

    def match(self, graph: Graph) -> list[dict[Node, Node]]:
        kept: list[dict[Node, Node]] = []
        taken: set = set()
        first = self.anchors[0]
        for candidate in graph.nodes:
            nodes_map: dict[Node, Node] = {}
            if not self._match_node(first, candidate, nodes_map):
                continue
            if not self._match_other_anchors(graph, nodes_map):
                continue
            internal = {g for p, g in nodes_map.items() if p.op != "placeholder"}
            if internal & taken or not self._contained(nodes_map, internal):
                continue
            taken |= internal
            kept.append(nodes_map)
        return kept

    def _match_other_anchors(self, graph: Graph, nodes_map: dict) -> bool:
        for anchor in self.anchors[1:]:
            if anchor in nodes_map:
                continue
            for candidate in graph.nodes:
                trial = dict(nodes_map)
                if self._match_node(anchor, candidate, trial):
                    nodes_map.clear()
                    nodes_map.update(trial)
                    break
            else:
                return False
        return True

    def _match_node(self, p: Node, g: Node, nodes_map: dict) -> bool:
        if p in nodes_map:
            return nodes_map[p] is g
        if any(g is matched for matched in nodes_map.values()):
            return False        # two pattern nodes never stand for one graph node
        if p.op == "placeholder":
            nodes_map[p] = g
            return True
        if p.op != g.op or p.target != g.target:
            return False
        if len(p.args) != len(g.args) or set(p.kwargs) != set(g.kwargs):
            return False
        nodes_map[p] = g
        pairs = list(zip(p.args, g.args)) + [(p.kwargs[k], g.kwargs[k]) for k in p.kwargs]
        if all(self._match_arg(pa, ga, nodes_map) for pa, ga in pairs):
            return True
        del nodes_map[p]
        return False

    def _match_arg(self, pa, ga, nodes_map: dict) -> bool:
        if isinstance(pa, Node) and pa.op == "placeholder" and not isinstance(ga, Node):
            # an input of the pattern stands for a constant of the graph too
            if pa in nodes_map:
                return type(nodes_map[pa]) is type(ga) and nodes_map[pa] == ga
            nodes_map[pa] = ga
            return True
        if isinstance(pa, Node):
            return isinstance(ga, Node) and self._match_node(pa, ga, nodes_map)
        if isinstance(pa, (tuple, list)):
            return isinstance(ga, (tuple, list)) and len(pa) == len(ga) and \
                all(self._match_arg(a, b, nodes_map) for a, b in zip(pa, ga))
        if isinstance(ga, Node):
            return False
        return type(pa) is type(ga) and pa == ga

    def _contained(self, nodes_map: dict, internal: set) -> bool:
        returned = {nodes_map[a] for a in self.anchors}
        for g in internal - returned:
            if any(user not in internal for user in g.users):
                return False
        return True


def replace_pattern(gm: GraphModule, pattern: Callable | GraphModule,
                    replacement: Callable | GraphModule) -> list[Match]:
    """Replace every non-overlapping match of `pattern` in `gm`'s graph by `replacement`
    (functions or modules with the same number of inputs; traced when not GraphModules);
    recompiles `gm` and returns the matches."""
    graph = gm.graph
    pattern_graph = _graph_of(pattern)
    replacement_graph = _graph_of(replacement)
    matcher = _Matcher(pattern_graph)
    found = matcher.match(graph)
    replacement_placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    matches = []
    for nodes_map in found:
        returned = [nodes_map[a] for a in matcher.anchors]
        val_map = {r: nodes_map[p]
                   for r, p in zip(replacement_placeholders, matcher.placeholders)}
        users = {user for node in returned for user in node.users}
        first_user = next((n for n in graph.nodes if n in users), None)
        with graph.inserting_before(first_user):
            value = graph.graph_copy(replacement_graph, val_map)
        new_values = value if isinstance(value, (tuple, list)) else (value,)
        for old, new in zip(returned, new_values):
            old.replace_all_uses_with(new)
        for pattern_node in reversed(pattern_graph.nodes):
            if pattern_node.op not in ("placeholder", "output"):
                graph.erase_node(nodes_map[pattern_node])
        matches.append(Match(anchor=matcher.anchors[0], nodes_map=nodes_map))
    gm.recompile()
    return matches
