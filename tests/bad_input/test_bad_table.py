"""Two hundred and more wrong (or nearly wrong) calls across the API, each made on ember and on
PyTorch and compared: the exception class and a stable fragment of PyTorch's message, the
warnings' classes, or the equal result where PyTorch accepts the call. The cases are in
bad_table_cases.py; test_bad_calls.py holds the argument-parsing ones."""

import warnings

import numpy as np
import pytest
import torch
from tests.bad_input.bad_table_cases import CASES

import ember


def _plain(value):
    """A result as plain Python data comparable across the two libraries."""
    if isinstance(value, (torch.Tensor, ember.Tensor)):
        return ("tensor", str(value.dtype).split(".")[1], tuple(value.shape), value.tolist())
    if isinstance(value, (torch.Size, ember.Size)):
        return ("size", tuple(value))
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, (type(None), bool, int, float, str, np.generic)):
        return value
    if isinstance(value, (torch.device, ember.device)):
        return ("device", str(value))
    return ("object", type(value).__name__)


def _outcome(lib, call):
    """(class or "ok", message or plain result, [(warning class, message)]). Warn-once
    warnings are given every time (warn-always), so the order the cases run in does not
    matter."""
    lib.set_warn_always(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = "ok", _plain(call(lib))
        except Exception as exc:  # noqa: BLE001  (the class is what is compared)
            result = type(exc), str(exc)
        finally:
            lib.set_warn_always(False)
    ember.set_default_dtype(ember.float32)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    ember.set_grad_enabled(True)
    return result + (
        [
            (w.category, str(w.message))
            for w in caught
            if not issubclass(w.category, DeprecationWarning)
        ],
    )


# Cases where ember still differs, each with the reason; strict, so a fix shows up as XPASS.
KNOWN_DIFFERENT: dict = {}


def _params():
    for label, call, fragment in CASES:
        marks = (
            [pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENT[label])]
            if label in KNOWN_DIFFERENT
            else []
        )
        yield pytest.param(label, call, fragment, id=label, marks=marks)


@pytest.mark.parametrize("label, call, fragment", list(_params()))
def test_same_outcome_as_torch(label, call, fragment):
    want = _outcome(torch, call)
    got = _outcome(ember, call)
    # The same class, or a subclass of it (what catches PyTorch's error catches ember's).
    assert (
        got[0] == want[0] or want[0] != "ok" and got[0] != "ok" and issubclass(got[0], want[0])
    ), f"ember: {got}, torch: {want}"
    if want[0] == "ok":
        assert got[1] == want[1]
    assert [c for c, _ in got[2]] == [c for c, _ in want[2]], f"ember: {got}, torch: {want}"
    if fragment is not None:
        texts = (
            (want[1], got[1])
            if want[0] != "ok"
            else (" ".join(m for _, m in want[2]), " ".join(m for _, m in got[2]))
        )
        assert fragment in texts[0], texts[0]  # the fragment is PyTorch's text
        assert fragment in texts[1], texts[1]


def test_table_is_large():
    assert len(CASES) >= 200
    assert len({label for label, _, _ in CASES}) == len(CASES)
