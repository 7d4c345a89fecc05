"""Where each computed buffer lives: NOTE [buffer reuse]. Intermediates are flat arrays
("slots"); once a slot's buffer has been read for the last time, a later buffer of the same
dtype and size takes the slot instead of new memory. Graph outputs get slots of their own, and
so does any buffer handed to an extern call (the call's result might alias it)."""
from __future__ import annotations

from ember._inductor.ir import numel
from ember._inductor.lowering import ExternStep


class Plan:
    def __init__(self):
        self.slot_of = {}          # computed buffer name -> slot name
        self.allocations = []      # per step: [(slot, numel, dtype)] made before it
        self.slots = 0


def plan_memory(items, output_names) -> Plan:
    from ember._inductor.scheduler import _reads_of
    plan = Plan()
    last_read, escaped = {}, set()
    for i, item in enumerate(items):
        for name in _reads_of(item):
            last_read[name] = i
        if isinstance(item, ExternStep):
            escaped.update(_reads_of(item))
    free: dict = {}
    for i, item in enumerate(items):
        fresh = []
        if not isinstance(item, ExternStep):
            for buf in item.writes():
                key = (buf.dtype, numel(buf.shape))
                pool = free.get(key)
                if pool and buf.name not in output_names:
                    plan.slot_of[buf.name] = pool.pop()
                else:
                    slot = f"s{plan.slots}"
                    plan.slots += 1
                    plan.slot_of[buf.name] = slot
                    fresh.append((slot, key[1], buf.dtype))
        plan.allocations.append(fresh)
        # Buffers read for the last time here (or never read) give their slot back.
        for buf in ([] if isinstance(item, ExternStep) else item.writes()):
            if buf.name not in last_read:
                last_read[buf.name] = i
        for name, at in list(last_read.items()):
            if at == i and name in plan.slot_of and name not in output_names and \
                    name not in escaped:
                buf_key = _key_of(items, name)
                free.setdefault(buf_key, []).append(plan.slot_of[name])
    return plan


def _key_of(items, name):
    for item in items:
        if not isinstance(item, ExternStep):
            for buf in item.writes():
                if buf.name == name:
                    return (buf.dtype, numel(buf.shape))
    raise KeyError(name)
