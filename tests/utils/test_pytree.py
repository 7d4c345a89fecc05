"""ember.utils._pytree's public functions against torch.utils._pytree: flattening, specs,
rebuilding, mapping (with several trees and `is_leaf`), paths, predicates, registered nodes,
serialised specs, and the errors on mismatched trees."""
import collections

import pytest
import torch.utils._pytree as torch_pytree

import ember.utils._pytree as ember_pytree

Point = collections.namedtuple("Point", "x y")
TREES = [
    1, None, [1, 2], (1, [2, (3,)]), {"b": 1, "a": [2, {"c": 3}]}, [1, None, (2, {"a": 3})],
    Point(1, [2, 3]), collections.OrderedDict(b=1, a=2), collections.deque([1, (2, 3)]),
    collections.defaultdict(int, {"z": 1, "y": (2,)}), [], {}, ((),), [[[4]]],
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_unflatten_and_spec(tree):
    results = []
    for P in (torch_pytree, ember_pytree):
        leaves, spec = P.tree_flatten(tree)
        rebuilt = P.tree_unflatten([x * 10 if isinstance(x, int) else x for x in leaves], spec)
        results.append((leaves, repr(spec), spec.num_leaves, spec.num_nodes, spec.num_children,
                        repr(rebuilt), type(rebuilt), P.tree_leaves(tree),
                        list(P.tree_iter(tree)), P.tree_is_leaf(tree),
                        [(P.keystr(k), v) for k, v in P.tree_leaves_with_path(tree)],
                        P.treespec_pprint(spec)))
    assert results[1] == results[0]


@pytest.mark.parametrize("tree", [t for t in TREES if not isinstance(
    t, (collections.defaultdict, Point))], ids=range(len(TREES) - 2))
def test_spec_serialisation(tree):
    texts = [P.treespec_dumps(P.tree_structure(tree)) for P in (torch_pytree, ember_pytree)]
    assert texts[1] == texts[0]
    spec = ember_pytree.treespec_loads(texts[1])
    assert spec == ember_pytree.tree_structure(tree)


def test_map_variants():
    for P in (torch_pytree, ember_pytree):
        tree = [1, (2, "a"), {"k": 3.0}]
        out = (P.tree_map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]),
               P.tree_map_only(int, lambda x: x * 2, tree),
               P.tree_map_only((int, float), lambda x: -x, tree),
               P.tree_map(len, [[1, 2], [3]], is_leaf=lambda x: isinstance(x, list) and
                          all(isinstance(i, int) for i in x)),
               P.tree_map_with_path(lambda kp, x, P=P: P.keystr(kp), {"a": [1, Point(2, 3)]}),
               P.tree_all(lambda x: x > 0, [1, (2,)]), P.tree_any(lambda x: x > 1, [1, 2]),
               P.tree_all_only(int, lambda x: x > 0, [1, "a"]),
               P.tree_any_only(str, lambda x: x == "b", [1, "a"]),
               P.key_get({"a": [1, Point(2, 3)]}, P.tree_leaves_with_path(
                   {"a": [1, Point(2, 3)]})[2][0]))
        seen = []
        assert P.tree_map_(seen.append, [1, (2,)]) == [1, (2,)]
        if P is torch_pytree:
            expected = (out, seen)
        else:
            assert (out, seen) == expected


@pytest.mark.parametrize("first, second", [([1, 2], [10, 20, 30]), ([1, 2], (1, 2)),
                                           ({"a": 1}, {"b": 1}), ([1, [2]], [1, 2])])
def test_mismatched_trees_raise_as_torch(first, second):
    for P in (torch_pytree, ember_pytree):
        with pytest.raises(ValueError):
            P.tree_map(lambda a, b: a, first, second)
    for P in (torch_pytree, ember_pytree):
        with pytest.raises(ValueError, match="has length 1 but the spec refers to a pytree"):
            P.tree_unflatten([1], P.tree_structure([1, 2]))


def test_registered_node():
    outputs = []
    for P in (torch_pytree, ember_pytree):
        class Pair:
            def __init__(self, a, b):
                self.a, self.b = a, b

        P.register_pytree_node(Pair, lambda p: ([p.a, p.b], "pair"),
                               lambda children, context: Pair(*children))
        leaves, spec = P.tree_flatten([Pair(1, (2, 3)), 4])
        doubled = P.tree_map(lambda x: x * 2, [Pair(1, (2, 3)), 4])
        outputs.append((leaves, spec.num_leaves, doubled[0].a, doubled[0].b, doubled[1],
                        P.tree_is_leaf(Pair(1, 2))))
        with pytest.raises(ValueError, match="already registered"):
            P.register_pytree_node(Pair, lambda p: ([], None), lambda c, x: Pair(0, 0))
    assert outputs[1] == outputs[0]


def test_unregistered_namedtuple_spec_is_not_serialised():
    for P in (torch_pytree, ember_pytree):
        with pytest.raises(NotImplementedError, match="serializated_type_name"):
            P.treespec_dumps(P.tree_structure([Point(1, 2)]))
