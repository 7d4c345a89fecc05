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
from dataclasses import dataclass, field
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

    def __init__(self, pattern: Graph, ignore_literals: bool = False) -> None:
        self.pattern = pattern
        self.ignore_literals = ignore_literals
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
        return self.ignore_literals or (type(pa) is type(ga) and pa == ga)

    def _contained(self, nodes_map: dict, internal: set) -> bool:
        returned = {nodes_map[a] for a in self.anchors}
        for g in internal - returned:
            if any(user not in internal for user in g.users):
                return False
        return True


@dataclass
class ReplacedPatterns:
    """One replaced place, as `replace_pattern_with_filters` reports it: the pattern's
    (first) returned node, the pattern node -> match map, and the nodes put in."""

    anchor: Node
    nodes_map: dict[Node, Node]
    replacements: list[Node]


@dataclass
class InternalMatch:
    """A match as the filters and the replacement callback see it: the pattern's returned
    nodes, the pattern node -> graph node map, the graph values the pattern's inputs matched
    and the graph nodes its returned nodes matched."""

    anchors: list[Node]
    nodes_map: dict[Node, Node] = field(default_factory=dict)
    placeholder_nodes: list = field(default_factory=list)
    returning_nodes: list[Node] = field(default_factory=list)
    name_node_map: dict[str, Node] = field(default_factory=dict)


def replace_pattern(gm: GraphModule, pattern: Callable | GraphModule,
                    replacement: Callable | GraphModule) -> list[Match]:
    """Replace every non-overlapping match of `pattern` in `gm`'s graph by `replacement`
    (functions or modules with the same number of inputs; traced when not GraphModules);
    recompiles `gm` and returns the matches."""
    done = _replace(gm, pattern, replacement, None, False, None)
    return [Match(anchor=match.anchors[0], nodes_map=match.nodes_map) for match, _ in done]


def replace_pattern_with_filters(gm: GraphModule, pattern, replacement=None,
                                 match_filters: list | None = None,
                                 ignore_literals: bool = False, replacement_callback=None,
                                 node_name_match: str = "") -> list[ReplacedPatterns]:
    """`replace_pattern`, keeping only the matches every filter
    `f(match, original_graph, pattern_graph)` accepts; `ignore_literals` lets a constant of
    the pattern match any constant; `replacement_callback(match, original_graph,
    pattern_graph)` may choose the replacement graph per match."""
    if node_name_match:
        raise NotImplementedError("replace_pattern_with_filters(node_name_match=...) is not "
                                  "implemented in ember yet")
    done = _replace(gm, pattern, replacement, match_filters, ignore_literals,
                    replacement_callback)
    return [ReplacedPatterns(match.anchors[0], match.nodes_map, new) for match, new in done]


def _replace(gm, pattern, replacement, match_filters, ignore_literals, replacement_callback):
    graph = gm.graph
    pattern_graph = _graph_of(pattern)
    matcher = _Matcher(pattern_graph, ignore_literals)
    matches = []
    for nodes_map in matcher.match(graph):
        match = InternalMatch(list(matcher.anchors), nodes_map,
                              [nodes_map[p] for p in matcher.placeholders],
                              [nodes_map[a] for a in matcher.anchors])
        if all(keep(match, graph, pattern_graph) for keep in match_filters or ()):
            matches.append(match)
    done = []
    for match in matches:
        if replacement_callback is not None:
            replacement_graph = replacement_callback(match, graph, pattern_graph)
        else:
            replacement_graph = _graph_of(replacement)
        done.append((match, _put_in(graph, pattern_graph, match, replacement_graph)))
    gm.recompile()
    return done


def _put_in(graph: Graph, pattern_graph: Graph, match: InternalMatch,
            replacement_graph: Graph) -> list[Node]:
    """Copy the replacement before the first user of the matched results, reroute those
    users, erase the matched nodes; returns the nodes put in."""
    placeholders = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    val_map = dict(zip(placeholders, match.placeholder_nodes))
    users = {user for node in match.returning_nodes for user in node.users}
    first_user = next((n for n in graph.nodes if n in users), None)
    with graph.inserting_before(first_user):
        value = graph.graph_copy(replacement_graph, val_map)
    new_values = value if isinstance(value, (tuple, list)) else (value,)
    for old, new in zip(match.returning_nodes, new_values):
        old.replace_all_uses_with(new)
    for pattern_node in reversed(pattern_graph.nodes):
        if pattern_node.op not in ("placeholder", "output"):
            graph.erase_node(match.nodes_map[pattern_node])
    return [val_map[n] for n in replacement_graph.nodes
            if n.op not in ("placeholder", "output")]
