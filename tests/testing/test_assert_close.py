"""ember.testing.assert_close against torch.testing.assert_close: the same exception class and
the same report text (with torch's names read as ember's) for each pair of inputs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

NAN = float("nan")


def _outcome(lib, make):
    try:
        make(lib)
    except Exception as error:  # noqa: BLE001 -- the class and text are what we compare
        text = str(error).replace("torch.", "ember.").replace("ember._tensor.", "ember.")
        return type(error), text
    return None


CASES = {
    "close floats": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0])),
    "one element off": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0, 3.0]),
                                                        L.tensor([1.0, 2.5, 3.0])),
    "within rtol": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0]),
                                                    L.tensor([1.0, 2.000001])),
    "integers": lambda L: L.testing.assert_close(L.tensor([1, 2, 3]), L.tensor([1, 5, 3])),
    "bools": lambda L: L.testing.assert_close(L.tensor([True, False]), L.tensor([True, True])),
    "0-d": lambda L: L.testing.assert_close(L.tensor(1.0), L.tensor(1.5)),
    "2-d index": lambda L: L.testing.assert_close(L.tensor([[0.0, 1.0], [2.0, 3.0]]),
                                                  L.tensor([[1.0, 1.0], [2.0, 3.5]])),
    "float16": lambda L: L.testing.assert_close(L.tensor([0.1, 1.0, 7.0]).half(),
                                                L.tensor([0.2, 1.0, 3.0]).half()),
    "bfloat16": lambda L: L.testing.assert_close(L.tensor([0.1, 1.0]).bfloat16(),
                                                 L.tensor([0.2, 1.0]).bfloat16()),
    "complex": lambda L: L.testing.assert_close(L.tensor([1 + 1j, 2j]), L.tensor([1 + 1j, 3j])),
    "nan": lambda L: L.testing.assert_close(L.tensor([NAN, 1.0]), L.tensor([NAN, 1.0])),
    "equal_nan": lambda L: L.testing.assert_close(L.tensor([NAN, 1.0]), L.tensor([NAN, 1.0]),
                                                  equal_nan=True),
    "explicit tolerances": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.2]),
                                                            rtol=0.01, atol=0.1),
    "lone rtol": lambda L: L.testing.assert_close(L.ones(2), L.ones(2), rtol=1.0),
    "lone atol": lambda L: L.testing.assert_close(L.ones(2), L.ones(2), atol=1.0),
    "shape": lambda L: L.testing.assert_close(L.ones(2), L.ones(3)),
    "dtype": lambda L: L.testing.assert_close(L.ones(2), L.ones(2, dtype=L.float64)),
    "dtype unchecked": lambda L: L.testing.assert_close(L.ones(2), L.zeros(2, dtype=L.float64),
                                                        check_dtype=False),
    "mixed int and float": lambda L: L.testing.assert_close(L.tensor([1, 2]),
                                                            L.tensor([1.0, 2.5]),
                                                            check_dtype=False),
    "stride": lambda L: L.testing.assert_close(L.ones(2, 3), L.ones(3, 2).t(), check_stride=True),
    "stride unchecked": lambda L: L.testing.assert_close(L.ones(2, 3), L.ones(3, 2).t()),
    "device": lambda L: L.testing.assert_close(L.ones(2, device="meta"), L.ones(2)),
    "both meta": lambda L: L.testing.assert_close(L.ones(2, device="meta"),
                                                  L.zeros(2, device="meta")),
    "msg string": lambda L: L.testing.assert_close(L.ones(2), L.zeros(2), msg="boom"),
    "msg callable": lambda L: L.testing.assert_close(L.ones(2), L.zeros(2),
                                                     msg=lambda m: f"Header\n\n{m}\n\nFooter"),
    "msg not used for lengths": lambda L: L.testing.assert_close([1], [1, 2], msg="boom"),
    "python floats": lambda L: L.testing.assert_close(1.0, 1.5),
    "python ints": lambda L: L.testing.assert_close(1, 2),
    "int vs float": lambda L: L.testing.assert_close(1, 1.0),
    "int vs float unchecked": lambda L: L.testing.assert_close(1, 1.0, check_dtype=False),
    "complex numbers": lambda L: L.testing.assert_close(1 + 2j, 1 + 3j),
    "numpy scalars": lambda L: L.testing.assert_close(np.float32(1.0), np.float32(2.0),
                                                      check_dtype=False),
    "nan numbers": lambda L: L.testing.assert_close(NAN, NAN),
    "nan numbers equal_nan": lambda L: L.testing.assert_close(NAN, NAN, equal_nan=True),
    "sequence lengths": lambda L: L.testing.assert_close([1, 2], [1, 2, 3]),
    "nested sequences": lambda L: L.testing.assert_close(
        [L.ones(2), (L.ones(3), L.ones(2))], [L.ones(2), (L.ones(3), L.ones(3))]),
    "mapping keys": lambda L: L.testing.assert_close({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "mapping values": lambda L: L.testing.assert_close({"a": L.ones(2)}, {"a": L.zeros(2)}),
    "numpy arrays": lambda L: L.testing.assert_close(np.ones(3), np.zeros(3)),
    "tensor vs numpy": lambda L: L.testing.assert_close(L.ones(3), np.zeros(3)),
    "tensor vs list": lambda L: L.testing.assert_close(L.ones(3), [1.0, 1.0, 1.0]),
    "none": lambda L: L.testing.assert_close(None, 1),
    "both none": lambda L: L.testing.assert_close(None, None),
    "booleans": lambda L: L.testing.assert_close(True, False),
    "strings": lambda L: L.testing.assert_close("a", "a"),
    "empty": lambda L: L.testing.assert_close(L.ones(0), L.ones(0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_same_outcome_and_report_as_pytorch(name):
    make = CASES[name]
    assert _outcome(ember, make) == _outcome(torch, make)


def test_reports_stay_pytorchs_layout():
    with pytest.raises(AssertionError) as caught:
        ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 3.0]))
    lines = str(caught.value).split("\n")
    assert lines[:3] == ["Tensor-likes are not close!", "", "Mismatched elements: 1 / 2 (50.0%)"]


def test_assert_allclose_is_deprecated_with_looser_defaults():
    for lib in (ember, torch):
        with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated"):
            lib.testing.assert_allclose(lib.tensor([1.0, 2.0]), [1.0, 2.00001])
    make = lambda L: L.testing.assert_allclose(L.tensor([1.0, 2.0]), [1.0, 2.1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert _outcome(ember, make) == _outcome(torch, make)
        make = lambda L: L.testing.assert_allclose(L.tensor([NAN]), [NAN])
        assert _outcome(ember, make) is None and _outcome(torch, make) is None
