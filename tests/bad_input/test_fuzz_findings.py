"""Calls the fuzzer (tests/bad_input/fuzz_*.py) found answered differently from PyTorch, kept
as plain cases: the outcome (result or exception class and message) and the warnings."""
import warnings

import pytest
import torch

import ember

CASES = {
    "nanmean complex": lambda L: L.nanmean(L.ones(2, 3, dtype=L.complex64)),
    "nanmean complex to float64": lambda L: L.ones(2, dtype=L.complex64).nanmean(
        dtype=L.float64),
    "scalar_tensor complex": lambda L: L.scalar_tensor(1 + 1j),
    "scalar_tensor complex into double": lambda L: L.scalar_tensor(2 + 1j, dtype=L.float64),
    "scalar_tensor real complex": lambda L: L.scalar_tensor(1 + 0j),
    "scalar_tensor complex into complex": lambda L: L.scalar_tensor(1 + 1j, dtype=L.complex64),
    "adjoint of a 0-d tensor": lambda L: L.adjoint(L.tensor(1.0 + 2j)),
    "adjoint method of a 0-d tensor": lambda L: L.tensor(3.0).adjoint(),
    "adjoint of a 1-d tensor": lambda L: L.adjoint(L.tensor([1.0, 2.0])),
    "adjoint of a list": lambda L: L.adjoint([1.0, 2.0]),
    "mvlgamma_ with p past int64 (was a hang)": lambda L: L.ones(3).mvlgamma_(1 << 63),
    "mvlgamma with p too large to count": lambda L: L.mvlgamma(L.ones(3), 1 << 62),
}


def _outcome(lib, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(lib)
        except Exception as exc:  # noqa: BLE001 -- the class is what is compared
            outcome = (type(exc).__name__, str(exc))
        else:
            outcome = ("result", result.tolist(), str(result.dtype).split(".")[-1])
    return outcome, sorted({(w.category.__name__, str(w.message)[:60]) for w in caught})


@pytest.fixture
def warn_always():
    """Warn-once warnings every time in both libraries, so test order does not matter."""
    before = torch.is_warn_always_enabled(), ember.is_warn_always_enabled()
    torch.set_warn_always(True)
    ember.set_warn_always(True)
    yield
    torch.set_warn_always(before[0])
    ember.set_warn_always(before[1])


@pytest.mark.parametrize("label", list(CASES))
def test_same_outcome_and_warnings_as_pytorch(label, warn_always):
    assert _outcome(ember, CASES[label]) == _outcome(torch, CASES[label])
