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
import numpy as np  # noqa: E402
import fuzz_worker  # noqa: E402
from edge_values import (build_edge, build_grid, build_labels, build_probabilities,  # noqa: E402
                         build_signs)

_plain_build = fuzz_values.build
_plain_summarize = fuzz_values.summarize


def build(desc, lib):
    if desc[0] == "edge":
        return build_edge(desc, lib)
    if desc[0] == "probs":
        return build_probabilities(desc, lib)
    if desc[0] == "labels":
        return build_labels(desc, lib)
    if desc[0] == "signs":
        return build_signs(desc, lib)
    if desc[0] == "grid":
        return build_grid(desc, lib)
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


def run(lib, call):
    """fuzz_worker's call, with templated entries (form "path") besides; an answer
    carries the largest finite magnitude among the inputs (the judge's scale for sums that
    cancel)."""
    args = [build(desc, lib) for desc in call["args"]]
    kwargs = {name: build(desc, lib) for name, desc in call["kwargs"].items()}
    # (before a method's self leaves the arguments: its values count too)
    scale, nonfinite = _magnitude(lib, list(args) + list(kwargs.values()))
    if call["form"] == "path":
        target = _resolve(lib, call["name"], call["seed"])
    elif call["form"] == "function":
        target = getattr(lib, call["name"])
    else:
        target = getattr(args[0], call["name"])
        args = args[1:]
    try:
        result = target(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  (the class is what the parent compares)
        return ("raised", fuzz_values.describe_error(exc))
    try:
        return ("ok", summarize(result, lib), scale, nonfinite)
    except Exception as exc:  # noqa: BLE001
        return ("raised", ("SummaryFailed",) + fuzz_values.describe_error(exc)[1:])


def _resolve(lib, path, seed):
    """lib.<path>; a module's constructor call ("nn.Linear(4, 3)") is made with the library's
    generator seeded to `seed`, so both libraries draw the same weights."""
    if "(" not in path:
        target = lib
        for part in path.split("."):
            target = getattr(target, part)
        return target
    lib.manual_seed(seed)
    return eval(path[len("nn."):], {}, vars(lib.nn))  # noqa: S307  (the template's own text)


def _magnitude(lib, values):
    """(the largest finite magnitude, whether a NaN or an infinity is present or reachable)
    over the float and complex tensors in `values`: reachable where twice a tensor's magnitudes
    sum past its dtype's largest value, so a sum inside the op (an FFT's butterflies; a
    Hermitian input's mirrored half counts twice) overflows."""
    largest, nonfinite = 0.0, False
    for value in values:
        if isinstance(value, (list, tuple)):
            inner, inner_nonfinite = _magnitude(lib, value)
            largest, nonfinite = max(largest, inner), nonfinite or inner_nonfinite
        elif isinstance(value, lib.Tensor) and value.numel() and (
                value.is_floating_point() or value.is_complex()):
            plain = value.detach()
            plain = plain.abs() if plain.is_complex() else plain
            array = np.abs(np.array(plain.double().tolist(), dtype=np.float64))
            finite = np.isfinite(array)
            nonfinite = nonfinite or not finite.all() or \
                2 * float(array[finite].sum()) > lib.finfo(value.dtype).max
            if finite.any():
                largest = max(largest, float(array[finite].max()))
    return largest, nonfinite


fuzz_worker.build = build
fuzz_worker.summarize = summarize
fuzz_worker._run = run

if __name__ == "__main__":
    fuzz_worker.main()
