"""The calls each decomposition is checked on: every OpInfo sample run in ember under a
dispatch mode that records the calls of decomposed ops (composites included, as themselves),
so a decomposition meets the arguments its op really gets from the public functions."""
from __future__ import annotations

import functools

from opinfo import collect

import ember
from ember._decomp import decomposition_table
from ember.utils._python_dispatch import TorchDispatchMode

# Calls kept per op and dtype: enough for the shapes, dims and options the samples vary.
PER_OP_AND_DTYPE = 12
DTYPES = ("float64", "float32", "int64", "bool", "complex128")


class _Capture(TorchDispatchMode):
    _sees_composites = True     # composites arrive as themselves, with their arguments

    def __init__(self, calls):
        super().__init__()
        self.calls = calls

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in decomposition_table:
            kept = self.calls.setdefault(func, {})
            key = _dtype_of(args)
            if len(kept.setdefault(key, [])) < PER_OP_AND_DTYPE:
                kept[key].append((tuple(args), dict(kwargs)))
        return func(*args, **kwargs)


def _dtype_of(args):
    for a in args:
        if isinstance(a, ember.Tensor):
            return str(a.dtype)
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, ember.Tensor):
                    return str(b.dtype)
    return "none"


@functools.cache
def captured():
    """{op: [(args, kwargs), ...]} over the whole OpInfo table."""
    calls: dict = {}
    for info in collect.OPINFOS:
        fn = info.function(ember)
        for dtype_name in info.dtypes:
            if dtype_name not in DTYPES:
                continue
            for sample in collect.samples(info, dtype_name):
                with _Capture(calls):
                    collect.run(fn, ember, sample)
    return {op: [c for by_dtype in found.values() for c in by_dtype]
            for op, found in calls.items()}
