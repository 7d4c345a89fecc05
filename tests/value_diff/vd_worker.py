"""One library's side of the value-differential fuzzer: the bad-input fuzzer's worker
(tests/bad_input/fuzz_worker.py) with edge tensors among the values it builds and the strides
of tensor results in its summaries.

    python tests/value_diff/vd_worker.py ember|torch
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bad_input"))

import fuzz_values  # noqa: E402
import fuzz_worker  # noqa: E402
from edge_values import build_edge  # noqa: E402

_plain_build = fuzz_values.build
_plain_summarize = fuzz_values.summarize


def build(desc, lib):
    if desc[0] == "edge":
        return build_edge(desc, lib)
    if desc[0] in ("list", "tuple"):
        items = [build(item, lib) for item in desc[1]]
        return items if desc[0] == "list" else tuple(items)
    return _plain_build(desc, lib)


def summarize(value, lib):
    """The plain summary, with a tensor's strides and the sign bits of its zeros added."""
    summary = _plain_summarize(value, lib)
    if summary[0] == "tensor" and summary[3] is not None:
        strides = tuple(value.stride()) if value.layout == lib.strided else None
        return summary + (strides,)
    if summary[0] == "sequence":
        return ("sequence", [summarize(item, lib) for item in value])
    return summary


fuzz_worker.build = build
fuzz_worker.summarize = summarize

if __name__ == "__main__":
    fuzz_worker.main()
