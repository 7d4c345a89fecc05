"""Fusion: which stored values are computed inside another kernel's loop, and the order of
the kernels and extern calls.

Every `ComputedBuffer` starts as its own kernel (inlined pointwise values already live inside
their readers, NOTE [when a value is realized]). Then, in program order, a stored Pointwise is
moved into the kernel of its first reader when that kernel reads it at its own loop positions
(NOTE [fused producers are stored where they are computed]): an elementwise chain becomes one
loop, and a pointwise value feeding a reduction (softmax's exp feeding its sum) is computed and
stored inside the reduction's loop.
"""
from __future__ import annotations

import heapq

from ember._inductor.codegen_c import NotFusable, kernel_for
from ember._inductor.ir import ComputedBuffer, Pointwise


class KernelGroup:
    """One generated loop nest: `node` and the producers fused into it."""

    def __init__(self, node, fused=(), siblings=()):
        self.node = node
        self.fused = list(fused)
        self.siblings = list(siblings)      # NOTE [sibling kernels share a loop]
        self.kernel = None

    def generate(self, name):
        self.kernel = kernel_for(name, self.node, self.fused, self.siblings)
        return self.kernel

    def reads(self) -> set:
        return {n for n, (_, written) in self.kernel.params.items() if not written}

    def writes(self) -> list:
        return [self.node] + self.siblings + self.fused


def schedule(steps) -> list:
    """`steps` (ComputedBuffer | ExternStep) as KernelGroup | ExternStep, producers fused."""
    items = [KernelGroup(s) if isinstance(s, ComputedBuffer) else s for s in steps]
    for i, item in enumerate(items):
        if isinstance(item, KernelGroup):
            item.generate(f"kernel{i}")
    items = _dependency_order(items)
    i = 0
    while i < len(items):
        item = items[i]
        if isinstance(item, KernelGroup) and type(item.node.data) is Pointwise:
            consumer = _first_reader(items, i)
            if consumer is not None and _try_fuse(item, consumer):
                del items[i]
                continue
        i += 1
    items = _siblings_joined(items)
    for n, item in enumerate(items):
        if isinstance(item, KernelGroup):
            item.generate(f"kernel{n}")
    return items


# NOTE [sibling kernels share a loop]: two pointwise kernels over the same shape that read a
# common buffer (GELU's output and, for the backward, its derivative, both from the same
# matmul result) run as one loop storing both: the shared loads are made once, and a common
# subexpression (the erf of both) is computed once by the C compiler. The later kernel moves
# up to the earlier one, so it may join only when everything it reads is already written there
# (by a step before, not by the earlier kernel itself: that one's stores land in the same
# iteration, at positions the later one might read elsewhere) and it has no fused reduction.
_SIBLING_WINDOW = 400


def _siblings_joined(items) -> list:
    written = set()           # buffers written by the steps before position i
    out = list(items)
    i = 0
    while i < len(out):
        item = out[i]
        if _can_lead(item):
            mine = {b.name for b in item.writes()}
            between = set()
            j = i + 1
            while j < len(out) and j <= i + _SIBLING_WINDOW:
                other = out[j]
                if _can_lead(other) and other.node.shape == item.node.shape:
                    reads = other.reads()
                    if reads & item.reads() and not reads & (mine | between) and \
                            _joined(item, other):
                        del out[j]
                        mine = {b.name for b in item.writes()}
                        continue
                between.update(_produces(other))
                j += 1
        written.update(_produces(item))
        i += 1
    return out


def _can_lead(item) -> bool:
    return isinstance(item, KernelGroup) and type(item.node.data) is Pointwise


def _joined(first, other) -> bool:
    trial = KernelGroup(first.node, first.fused + other.fused,
                        first.siblings + [other.node] + other.siblings)
    try:
        trial.generate(first.kernel.name)
    except NotFusable:
        return False
    first.fused, first.siblings, first.kernel = trial.fused, trial.siblings, trial.kernel
    return True


# NOTE [a value realized after its first reader]: a kernel loads through boxes when its C is
# written, after the whole graph is lowered (ir.py: realizing a box swaps its data for a read of
# the new buffer). So a Pointwise inlined into an earlier kernel (a reduction) and realized only
# later (for an extern call that needs it in memory) is read by that earlier kernel from the
# buffer, whose step was appended at the end of the program order. The steps are therefore put
# in dependency order before fusion: each runs after the steps writing what it reads, program
# order kept wherever it already is one (the earlier kernel then reads the stored value, and may
# compute it in its own loop: NOTE [fused producers are stored where they are computed]).
def _dependency_order(items) -> list:
    writer = {}
    for n, item in enumerate(items):
        for name in _produces(item):
            writer[name] = n
    waits = [0] * len(items)
    readers = [[] for _ in items]
    for n, item in enumerate(items):
        for before in {writer[name] for name in _consumes(item) if name in writer} - {n}:
            waits[n] += 1
            readers[before].append(n)
    ready = [n for n in range(len(items)) if waits[n] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        n = heapq.heappop(ready)
        order.append(items[n])
        for reader in readers[n]:
            waits[reader] -= 1
            if waits[reader] == 0:
                heapq.heappush(ready, reader)
    if len(order) != len(items):
        raise RuntimeError("inductor: the lowered steps read each other in a cycle")
    return order


def _produces(item) -> list:
    if isinstance(item, KernelGroup):
        return [b.name for b in item.writes()]
    if item.outputs is None:
        return [item.view_name]
    return [b.name for b in item.outputs if b is not None]


def _consumes(item) -> set:
    if isinstance(item, KernelGroup):
        return item.reads()
    return {arg.view.view_name if arg.view is not None else arg.buffer.name
            for arg in item.tensor_args()}


def _reads_of(item) -> set:
    if isinstance(item, KernelGroup):
        return item.reads()
    names = set()
    for arg in item.tensor_args():
        names.update(arg.reads if arg.view is not None else (arg.buffer.name,))
    return names


def _first_reader(items, i):
    names = {b.name for b in items[i].writes()}
    for item in items[i + 1:]:
        if _reads_of(item) & names:
            return item if isinstance(item, KernelGroup) else None
    return None


def _try_fuse(producer, consumer) -> bool:
    trial = KernelGroup(consumer.node, consumer.fused + producer.writes())
    try:
        trial.generate(consumer.kernel.name)
    except NotFusable:
        return False
    consumer.fused = trial.fused
    consumer.kernel = trial.kernel
    return True
