"""`x[index] = value`, list indices, sort and any/all reach a logging TorchDispatchMode as the
ATen ops PyTorch's calls do (NOTE [setitem as ops]): a number enters through lift_fresh, the
basic part of the index as views, then fill_, copy_ (with a view and expand where the value
is broadcast) or index_put_."""
from __future__ import annotations

import numpy as np
import pytest
from decomp.test_modes import _logger

import ember
from ember.utils._python_dispatch import TorchDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchTDMode

_CASES = {
    "number into a slice": lambda lib, x, e: x.__setitem__(slice(0, 2), 1.0),
    "number into a row": lambda lib, x, e: x.__setitem__(1, 1.0),
    "number into an element": lambda lib, x, e: x.__setitem__((1, 2), 1.0),
    "number into all": lambda lib, x, e: x.__setitem__(slice(None), 1.0),
    "number through an ellipsis": lambda lib, x, e: x.__setitem__(Ellipsis, 1.0),
    "0-d tensor into a slice": lambda lib, x, e: x.__setitem__(slice(0, 2), e["s"]),
    "row broadcast into a slice": lambda lib, x, e: x.__setitem__(slice(0, 2), e["v"]),
    "row into a row": lambda lib, x, e: x.__setitem__(0, e["v"]),
    "columns into columns": lambda lib, x, e: x.__setitem__((slice(None), slice(1, 3)),
                                                            x[:, 4:].clone()),
    "through None": lambda lib, x, e: x.__setitem__((None, 0), e["v"]),
    "number under a mask": lambda lib, x, e: x.__setitem__(x > 0, 0.0),
    "0-d tensor under a mask": lambda lib, x, e: x.__setitem__(x > 0, e["s"]),
    "number at indices": lambda lib, x, e: x.__setitem__(e["i"], 0.0),
    "rows at indices": lambda lib, x, e: x.__setitem__(e["i"], e["v"]),
    "number at a list": lambda lib, x, e: x.__setitem__([0, 2], 0.0),
    "slice and indices": lambda lib, x, e: x.__setitem__((slice(1, 3), e["i"]), 5.0),
    "int into a float tensor": lambda lib, x, e: x.__setitem__(1, 3),
    "True": lambda lib, x, e: x.__setitem__(True, 1.0),
    "False": lambda lib, x, e: x.__setitem__(False, 1.0),
    "0-d True mask": lambda lib, x, e: x.__setitem__(lib.tensor(True), 2.0),
    "0-d False mask": lambda lib, x, e: x.__setitem__(lib.tensor(False), 2.0),
    "0-d mask and a row": lambda lib, x, e: x.__setitem__((lib.tensor(True), 0), e["s"]),
    "read under a 0-d mask": lambda lib, x, e: x[lib.tensor(True)],
    "read under a 0-d False mask": lambda lib, x, e: x[lib.tensor(False)],
    "read at True": lambda lib, x, e: x[True],
    "strided slice": lambda lib, x, e: x.__setitem__((slice(None), slice(0, 6, 2)), 1.0),
    "read at a list": lambda lib, x, e: x[[0, 2]],
    "sort": lambda lib, x, e: x.sort(),
    "sort, dim": lambda lib, x, e: lib.sort(x, 0),
    "stable sort": lambda lib, x, e: x.sort(stable=True),
    "any": lambda lib, x, e: (x > 0).any(),
    "any over a dim": lambda lib, x, e: (x > 0).any(0),
    "all over dims": lambda lib, x, e: (x > 0).all((0, 1)),
}


def _logged(lib, mode_class, case):
    # (inputs from NumPy: PyTorch's randn differs in last bits by CPU capability)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 6)).astype(np.float32))
    extra = {"s": lib.tensor(2.0), "v": lib.tensor(rng.standard_normal(6).astype(np.float32)),
             "i": lib.tensor([0, 2])}
    mode = mode_class()
    with mode:
        _CASES[case](lib, x, extra)
    return mode.names, x


@pytest.mark.parametrize("case", list(_CASES))
def test_setitem_and_friends_reach_the_mode_as_pytorchs_ops(case):
    ours, x = _logged(ember, _logger(TorchDispatchMode), case)
    theirs, y = _logged(torch, _logger(TorchTDMode), case)
    assert ours == theirs
    assert x.tolist() == y.tolist()
