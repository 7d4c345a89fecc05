"""The OpInfo table gathered from the infos_* modules, the samples each check runs (contiguous
and non-contiguous), and the helpers that run one sample in ember or PyTorch."""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

from opinfo import core
from opinfo.core import T, to_lib


def _collect():
    import opinfo
    from opinfo.known import KNOWN
    infos = []
    for module in pkgutil.iter_modules(opinfo.__path__):
        if module.name.startswith("infos_"):
            infos.extend(importlib.import_module(f"opinfo.{module.name}").OPINFOS)
    for info in infos:
        info.known = tuple(info.known) + KNOWN.get(info.name, ())
    return infos


OPINFOS = _collect()
CASES = [pytest.param(info, d, id=f"{info.name}-{d}") for info in OPINFOS for d in info.dtypes]


def noncontig(value):
    if isinstance(value, T):
        return dataclasses.replace(value, noncontig=True)
    if isinstance(value, list):
        return [noncontig(v) for v in value]
    if isinstance(value, tuple):
        return tuple(noncontig(v) for v in value)
    if isinstance(value, dict):
        return {k: noncontig(v) for k, v in value.items()}
    return value


def samples(info, dtype_name, seed=0, noncontiguous=True):
    """The OpInfo's samples, each followed by its non-contiguous twin (where it has one)."""
    make = core.make_maker(seed)
    for sample in info.samples(make, dtype_name):
        yield sample
        if not noncontiguous:
            continue
        nc = core.Sample(noncontig(sample.args), noncontig(sample.kwargs),
                         sample.name + "/noncontig", sample.inplace_ok)
        if nc.args != sample.args or nc.kwargs != sample.kwargs:
            yield nc


def run(fn, lib, sample, device=None):
    """(result, exception, materialized args): the call's outcome, whichever it is."""
    args = to_lib(sample.args, lib, device)
    kwargs = to_lib(sample.kwargs, lib, device)
    try:
        return fn(*args, **kwargs), None, (args, kwargs)
    except Exception as exc:  # noqa: BLE001 -- the class is what we compare
        return None, exc, (args, kwargs)


def run_declared(info, check, sample_name, where, body):
    """Run `body` (one check of one sample) as `info.known` declares: not at all for a Skip,
    expecting an AssertionError for an XFail. What `body` returns where it ran and passed."""
    known = info.known_for(check, sample_name)
    if isinstance(known, core.XFail):
        try:
            body()
        except AssertionError:
            return False
        raise AssertionError(f"{where}: declared to fail ({known.reason}) but passes; "
                             "remove the XFail")
    if known is not None:
        return False
    return body()


def tensors_in(value):
    """Every tensor (of either library) in nested args / kwargs, in order."""
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_in(v)]
    if type(value).__name__ in ("Tensor", "Parameter"):
        return [value]
    return []


def with_grad(sample, info):
    """The sample with requires_grad on its floating tensor arguments (those in a list too)."""
    def mark(value, chosen):
        if isinstance(value, T):
            if chosen and value.array.dtype.kind in "fc":
                return dataclasses.replace(value, requires_grad=True)
            return value
        if isinstance(value, list):
            return [mark(v, chosen) for v in value]
        return value
    args = tuple(mark(v, info.grad_args is None or i in info.grad_args)
                 for i, v in enumerate(sample.args))
    return core.Sample(args, sample.kwargs, sample.name, sample.inplace_ok)


def grad_inputs(args):
    return [t for t in tensors_in(args) if t.requires_grad]


def substitute(value, replacements):
    """`value` with each tensor that requires grad swapped for the next of `replacements`."""
    if isinstance(value, list):
        return [substitute(v, replacements) for v in value]
    if isinstance(value, tuple):
        return tuple(substitute(v, replacements) for v in value)
    if type(value).__name__ in ("Tensor", "Parameter") and value.requires_grad:
        return next(replacements)
    return value
