"""Calls that fit none of an op's overloads get PyTorch's TypeError (NOTE [the parser's errors
come first]): movedim with an int beside a sequence, narrow with a tensor start and no length,
clamp with a tensor bound beside a number, the factories without a size."""
from __future__ import annotations

import pytest
import torch

import ember


@pytest.mark.parametrize("case", [
    lambda lib: lib.zeros(2, 3, 4).movedim(0, (1,)),
    lambda lib: lib.movedim(lib.zeros(2, 3, 4), (0,), 1),
    lambda lib: lib.narrow(lib.zeros(2, 3), 0, lib.tensor(0), None),
    lambda lib: lib.clamp(lib.zeros(2, 3), lib.zeros(2, 3), 1),
    lambda lib: lib.clamp(lib.zeros(2, 3), 0, lib.ones(2, 3)),
    lambda lib: lib.zeros(2, 3).clamp(min=lib.zeros(2, 3), max=2.5),
    lambda lib: lib.randn(),
    lambda lib: lib.randn(device="cpu"),
    lambda lib: lib.rand(),
    lambda lib: lib.zeros(2).new_ones(),
    lambda lib: lib.zeros(2).new_zeros(),
])
def test_unmatched_calls_are_type_errors(case):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(TypeError) as caught:
            case(lib)
        messages.append(str(caught.value).split("()")[0])      # the name PyTorch reports
    assert messages[0] == messages[1]


@pytest.mark.parametrize("case", [
    lambda lib: lib.zeros(2, 3, 4).movedim((0, 1), (1, 0)).shape,
    lambda lib: lib.narrow(lib.zeros(2, 3), 0, lib.tensor(1), 1).shape,
    lambda lib: lib.clamp(lib.arange(6.), lib.full((6,), 1.0), lib.full((6,), 4.0)).tolist(),
    lambda lib: lib.clamp(lib.arange(6.), None, lib.full((6,), 4.0)).tolist(),
    lambda lib: lib.clamp(lib.arange(6.), 1, 4).tolist(),
    lambda lib: lib.randn(()).shape,
    lambda lib: lib.zeros(2).new_ones(()).shape,
])
def test_matching_calls_still_work(case):
    assert tuple(case(ember)) == tuple(case(torch))
