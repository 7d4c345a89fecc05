"""`ember.utils.data.graph_settings`: settings applied across a DataPipe graph (each DataPipe's
DataPipe-valued attributes are its inputs): `apply_sharding` (what a DataLoader worker does),
`apply_shuffle_settings`, `get_all_graph_pipes`."""
from __future__ import annotations

from ember.utils.data.datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["apply_random_seed", "apply_sharding", "apply_shuffle_seed", "apply_shuffle_settings",
           "get_all_graph_pipes"]


def _inputs(datapipe) -> list:
    found = []
    for value in vars(datapipe).values():
        values = value if isinstance(value, (list, tuple)) else (value,)
        found.extend(v for v in values if isinstance(v, (IterDataPipe, MapDataPipe)))
        if hasattr(value, "datapipe") and isinstance(value.datapipe, (IterDataPipe,
                                                                       MapDataPipe)):
            found.append(value.datapipe)          # fork / demux children's shared source
    return found


def get_all_graph_pipes(graph) -> list:
    """Every DataPipe reachable from `graph`, once each, the output first."""
    seen, order, stack = set(), [], [graph]
    while stack:
        pipe = stack.pop()
        if id(pipe) in seen:
            continue
        seen.add(id(pipe))
        order.append(pipe)
        stack.extend(reversed(_inputs(pipe)))
    return order


def apply_sharding(datapipe, num_of_instances: int, instance_id: int, sharding_group=None):
    """Give each shardable DataPipe of the graph its share (instance `instance_id` of
    `num_of_instances`); two shardable pipes on one path is an error, as in PyTorch."""
    def visit(pipe, above: bool):
        shardable = getattr(pipe, "is_shardable", None)
        if shardable is not None and shardable():
            if above:
                raise RuntimeError("Sharding twice on a single pipeline is likely unintended "
                                   "and will cause data loss. Sharding already applied to "
                                   f"{type(pipe).__name__} while trying to apply to {pipe}")
            pipe.apply_sharding(num_of_instances, instance_id, sharding_group)
            above = True
        for source in _inputs(pipe):
            visit(source, above)
    visit(datapipe, False)
    return datapipe


def apply_shuffle_settings(datapipe, shuffle=None):
    """Turn every shuffling DataPipe of the graph on or off (None: leave them)."""
    if shuffle is not None:
        for pipe in get_all_graph_pipes(datapipe):
            if hasattr(pipe, "set_shuffle"):
                pipe.set_shuffle(shuffle)
    return datapipe


def apply_shuffle_seed(datapipe, rng):
    return apply_random_seed(datapipe, rng)


def apply_random_seed(datapipe, rng):
    """Seed every shuffling DataPipe of the graph from the ember Generator `rng`."""
    import ember
    for pipe in get_all_graph_pipes(datapipe):
        if hasattr(pipe, "set_seed"):
            pipe.set_seed(int(ember.empty((), dtype=ember.int64).random_(generator=rng).item()))
    return datapipe
