"""The op table's samples under a logging TorchDispatchMode in both libraries: the ATen ops each
call reaches the mode as, in order, against PyTorch's.

Every OpInfo (its first dtype, contiguous samples; samples PyTorch refuses are left out) is in
AGREE, whose op lists must equal PyTorch's, or in DIFFERS, whose lists still differ somewhere
(strictly: one that comes to agree fails here until it moves to AGREE, so AGREE only grows).
`python tests/decomp/test_dispatch_sweep.py` prints the differences (the first differing
sample of each op)."""
from __future__ import annotations

import importlib
import pathlib
import sys

import pytest
import torch

import ember

if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from opinfo.collect import OPINFOS, samples  # noqa: E402
from opinfo.core import to_lib  # noqa: E402


def _logging_mode(T):
    base = importlib.import_module(f"{T.__name__}.utils._python_dispatch").TorchDispatchMode

    class Log(base):
        def __init__(self):
            super().__init__()
            self.log = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.log.append(str(func))
            return func(*args, **(kwargs or {}))
    return Log


def _logs(T, info):
    """(ops the mode saw, exception class name or None) per sample."""
    mode_class = _logging_mode(T)
    fn = info.function(T)
    found = []
    for sample in samples(info, info.dtypes[0], noncontiguous=False):
        args, kwargs = to_lib(sample.args, T), to_lib(sample.kwargs, T)
        mode = mode_class()
        error = None
        try:
            with mode:
                fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- the outcome is what is compared
            error = type(exc).__name__
        found.append((sample.name, mode.log, error))
    return found


def difference(info):
    """The first sample whose op list differs from PyTorch's: (name, theirs, ours), or None.
    Samples PyTorch refuses are left out; ember refusing one PyTorch runs is a difference."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, ours = _logs(torch, info), _logs(ember, info)
    assert len(theirs) == len(ours)
    ran = 0
    for (name, t_log, t_error), (_, e_log, e_error) in zip(theirs, ours):
        if t_error is not None:
            continue
        ran += 1
        if e_error is not None or e_log != t_log:
            return name, t_log, e_log if e_error is None else e_log + [f"raised {e_error}"]
    return None if ran else "PyTorch runs none of the samples"


# OpInfos whose samples (of their first dtype) PyTorch refuses every one of: nothing to compare.
REFUSED = ("float_power_",)
_SWEPT = {info.name: info for info in OPINFOS if info.dtypes and info.name not in REFUSED}

# The OpInfos whose calls reach a dispatch mode as the same ATen ops as PyTorch's.
AGREE = sorted(pathlib.Path(__file__).with_name("dispatch_sweep_agree.txt").read_text()
               .splitlines())
# The ones that still differ (see this file's docstring for how to list how).
DIFFERS = sorted(set(_SWEPT) - set(AGREE))


@pytest.mark.parametrize("name", AGREE)
def test_dispatch_ops_equal_pytorchs(name):
    found = difference(_SWEPT[name])
    assert found is None, f"{name} sample {found[0]}: torch {found[1]}, ember {found[2]}"


@pytest.mark.parametrize("name", DIFFERS)
def test_a_differing_op_still_differs(name):
    assert difference(_SWEPT[name]) is not None, (
        f"{name}: now agrees with PyTorch; add it to dispatch_sweep_agree.txt")


@pytest.mark.parametrize("name", REFUSED)
def test_pytorch_refuses_every_sample_of(name):
    info = next(info for info in OPINFOS if info.name == name)
    assert difference(info) == "PyTorch runs none of the samples"


def test_the_sweep_covers_hundreds_of_ops():
    assert set(AGREE) <= set(_SWEPT)
    assert len(_SWEPT) > 500 and len(AGREE) > 400


if __name__ == "__main__":
    for name in DIFFERS:
        found = difference(_SWEPT[name])
        if found is not None:
            print(f"{name} [{found[0]}]\n  torch: {found[1]}\n  ember: {found[2]}")
