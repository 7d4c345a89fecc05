"""Collectives on Python objects: broadcast_object_list, all_gather_object, gather_object,
scatter_object_list, plus monitored_barrier.

NOTE [objects travel as weights-only checkpoints]: PyTorch pickles the objects and unpickles
what arrives with the full unpickler, so a peer can make every rank run code. ember serialises
them with `ember.save` and reads them with `ember.load(weights_only=True)`: tensors, containers,
numbers, strings and the globals added by `ember.serialization.add_safe_globals` arrive; any
other class or callable is refused with the weights-only error.
"""
from __future__ import annotations

import io
import time

import numpy as np

from ember.distributed.group import resolve
from ember.distributed.work import DistBackendError, Work

__all__ = [
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "monitored_barrier",
    "scatter_object_list",
]


def _dumps(obj):
    import ember
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    return np.frombuffer(buffer.getvalue(), np.uint8)


def _loads(data):
    import ember
    return ember.load(io.BytesIO(data.tobytes()), weights_only=True)


def _run(pg, requests, what):
    Work(pg._comm, requests, what, pg).wait()


def _root(pg, rank, group_rank, what):
    if group_rank is not None:
        return group_rank
    return pg._group_rank(0 if rank is None else rank, what)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank `src`'s `object_list` items into every rank's `object_list` (same length)."""
    pg = resolve(group)
    if pg is None:
        return
    root = _root(pg, src, group_src, "broadcast_object_list")
    data = _dumps(list(object_list)) if pg.rank() == root else None
    size = np.array([0 if data is None else data.size], np.int64)
    _run(pg, pg._comm.broadcast(size, root), "broadcast_object_list")
    if data is None:
        data = np.empty(int(size[0]), np.uint8)
    _run(pg, pg._comm.broadcast(data, root), "broadcast_object_list")
    if pg.rank() != root:
        object_list[:] = _loads(data)


def _gather_bytes(pg, data, root, what):
    """Every rank's bytes: a list on every rank (root None) or on `root` (None elsewhere)."""
    size = np.array([data.size], np.int64)
    sizes = np.empty(pg.size(), np.int64)
    here = root is None or pg.rank() == root
    if root is None:
        _run(pg, pg._comm.allgather(size, sizes), what)
    else:
        _run(pg, pg._comm.gather(size, sizes if here else None, root), what)
    width = int(sizes.max()) if here else 0
    if root is not None:
        width_arr = np.array([width], np.int64)
        _run(pg, pg._comm.broadcast(width_arr, root), what)
        width = int(width_arr[0])
    padded = np.zeros(width, np.uint8)
    padded[:data.size] = data
    recv = np.empty(width * pg.size(), np.uint8) if here else None
    if root is None:
        _run(pg, pg._comm.allgather(padded, recv), what)
    else:
        _run(pg, pg._comm.gather(padded, recv, root), what)
    if not here:
        return None
    return [recv[i * width:i * width + int(sizes[i])] for i in range(pg.size())]


def all_gather_object(object_list, obj, group=None):
    """Every rank's `obj`, in rank order, into `object_list` (one slot per rank)."""
    pg = resolve(group)
    if pg is None:
        return
    pieces = _gather_bytes(pg, _dumps(obj), None, "all_gather_object")
    for i, piece in enumerate(pieces):
        object_list[i] = _loads(piece)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """Every rank's `obj` into `object_gather_list` on rank `dst`."""
    pg = resolve(group)
    if pg is None:
        return
    root = _root(pg, dst, group_dst, "gather_object")
    if pg.rank() == root and object_gather_list is None:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
    pieces = _gather_bytes(pg, _dumps(obj), root, "gather_object")
    if pieces is not None:
        for i, piece in enumerate(pieces):
            object_gather_list[i] = _loads(piece)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None):
    """Rank `src`'s `scatter_object_input_list[i]` into rank i's
    `scatter_object_output_list[0]`."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    pg = resolve(group)
    if pg is None:
        return
    root = _root(pg, src, group_src, "scatter_object_list")
    if pg.rank() == root:
        if scatter_object_input_list is None or len(scatter_object_input_list) != pg.size():
            raise ValueError("scatter_object_list: the source rank needs one object per rank in "
                             "scatter_object_input_list")
        datas = [_dumps(o) for o in scatter_object_input_list]
        width = max(d.size for d in datas)
        send = np.zeros(width * pg.size(), np.uint8)
        sizes = np.array([d.size for d in datas], np.int64)
        for i, d in enumerate(datas):
            send[i * width:i * width + d.size] = d
        header = np.array([width], np.int64)
    else:
        send, sizes, header = None, None, np.empty(1, np.int64)
    _run(pg, pg._comm.broadcast(header, root), "scatter_object_list")
    width = int(header[0])
    my_size = np.empty(1, np.int64)
    _run(pg, pg._comm.scatter(sizes, my_size, root), "scatter_object_list")
    recv = np.empty(width, np.uint8)
    _run(pg, pg._comm.scatter(send, recv, root), "scatter_object_list")
    scatter_object_output_list[0] = _loads(recv[:int(my_size[0])])


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None) -> None:
    """Send `object_list` to rank `dst` (which calls recv_object_list with a list as long)."""
    from ember.distributed.p2p import _peer
    pg = resolve(group)
    if pg is None:
        return
    peer = _peer(pg, dst, group_dst, "send_object_list")
    data = _dumps(list(object_list))
    channel = pg._ember_channel()
    _run(pg, channel.send(np.array([data.size], np.int64), peer, _OBJECT_TAG),
         "send_object_list")
    _run(pg, channel.send(data, peer, _OBJECT_TAG), "send_object_list")


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None) -> int:
    """Receive a list sent by send_object_list into `object_list`; the sender's rank."""
    from ember.distributed.p2p import _peer
    pg = resolve(group)
    if pg is None:
        return -1
    peer = None if src is None and group_src is None else _peer(pg, src, group_src,
                                                                "recv_object_list")
    channel = pg._ember_channel()
    size = np.empty(1, np.int64)
    requests = channel.recv(size, peer, _OBJECT_TAG)
    _run(pg, requests, "recv_object_list")
    sender = requests[0].source()
    data = np.empty(int(size[0]), np.uint8)
    _run(pg, channel.recv(data, sender, _OBJECT_TAG), "recv_object_list")
    object_list[:] = _loads(data)
    return pg._ranks[sender]


_OBJECT_TAG = 0x4F42
_MONITOR_TAG = 0x4D42


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """A barrier that names the ranks that did not reach it: rank 0 waits for each other rank's
    message until `timeout` (the group's by default) and raises naming the first missing rank
    (all of them with `wait_all_ranks`)."""
    pg = resolve(group)
    if pg is None:
        return
    limit = pg._timeout if timeout is None else timeout
    channel = pg._ember_channel()
    token = np.zeros(1, np.uint8)
    if pg.rank() != 0:
        Work(channel, channel.send(token, 0, _MONITOR_TAG), "monitored_barrier", pg).wait(limit)
        Work(channel, channel.recv(np.zeros(1, np.uint8), 0, _MONITOR_TAG), "monitored_barrier",
             pg).wait(limit)
        return
    pending = {r: channel.recv(np.zeros(1, np.uint8), r, _MONITOR_TAG) for r in
               range(1, pg.size())}
    deadline = time.monotonic() + limit.total_seconds()
    while pending and time.monotonic() < deadline:
        for r in [r for r, req in pending.items() if channel.test_all(req)]:
            del pending[r]
        time.sleep(0.0005)
    if pending:
        missing = sorted(pg._ranks[r] for r in pending)
        shown = missing if wait_all_ranks else missing[:1]
        pg._broken = "monitored_barrier timed out"
        names = ", ".join(str(r) for r in shown)
        raise DistBackendError(
            f"[Rank 0]: Rank{'s' if len(shown) > 1 else ''} {names} failed to pass "
            f"monitoredBarrier in {int(limit.total_seconds() * 1000)} ms")
    for r in range(1, pg.size()):
        Work(channel, channel.send(token, r, _MONITOR_TAG), "monitored_barrier", pg).wait(limit)
