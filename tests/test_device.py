"""`ember.device`: parsing, errors, equality, hashing, printing, and the default device."""
import pickle
import warnings

import pytest
import torch

import ember

GOOD = ["cpu", "cuda", "cuda:1", "meta", "cpu:0", "mps", "xla:2", "cuda:10"]
BAD = ["cuda:01", "cuda:-1", "cuda:x", "foo", "", "cuda:1:2", " cpu", "CPU", "cuda: 1", "cuda:"]


def _outcome(fn):
    try:
        return fn()
    except Exception as error:  # noqa: BLE001  (the class is what we compare)
        return type(error)


@pytest.mark.parametrize("text", GOOD)
def test_device_from_string(text):
    t, e = torch.device(text), ember.device(text)
    assert (e.type, e.index) == (t.type, t.index)
    assert repr(e) == repr(t)
    assert str(e) == str(t)


@pytest.mark.parametrize("text", BAD)
def test_bad_device_string_raises_like_torch(text):
    expected = _outcome(lambda: torch.device(text))
    assert isinstance(expected, type)
    assert _outcome(lambda: ember.device(text)) is expected


def test_invalid_index_message():
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:01'"):
        ember.device("cuda:01")
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        ember.device("foo")


@pytest.mark.parametrize("args", [("cuda", 1), ("cpu", 0), ("meta", None), ("cuda:1", 1),
                                  ("cuda", -1), ("cuda", True), (None,), (1.5,), ("cuda", "1")])
def test_device_from_type_and_index(args):
    expected = _outcome(lambda: torch.device(*args))
    got = _outcome(lambda: ember.device(*args))
    if isinstance(expected, type):
        assert got is expected
    else:
        assert repr(got) == repr(expected)


def test_device_keywords_and_device_argument():
    assert repr(ember.device(type="cuda", index=2)) == repr(torch.device(type="cuda", index=2))
    assert ember.device(ember.device("cuda:1")) == ember.device("cuda:1")
    expected = _outcome(lambda: torch.device(torch.device("cuda:1"), 2))
    assert _outcome(lambda: ember.device(ember.device("cuda:1"), 2)) is expected


def test_device_equality_and_hash():
    assert ember.device("cpu") == ember.device("cpu")
    assert ember.device("cuda:1") == ember.device("cuda", 1)
    assert ember.device("cuda") != ember.device("cuda:0")
    assert (ember.device("cpu") == "cpu") == (torch.device("cpu") == "cpu")
    assert hash(ember.device("cuda:1")) == hash(ember.device("cuda", 1))
    assert len({ember.device("cpu"), ember.device("cpu"), ember.device("meta")}) == 2
    assert {ember.device("meta"): 1}[ember.device("meta")] == 1


def test_device_pickles():
    for text in ("cpu", "cuda:3", "meta"):
        assert pickle.loads(pickle.dumps(ember.device(text))) == ember.device(text)


def test_tensor_device_attribute():
    assert ember.zeros(2).device == ember.device("cpu")
    assert repr(ember.zeros(2).device) == repr(torch.zeros(2).device)
    assert ember.zeros(2, device="meta").device == ember.device("meta")
    assert ember.zeros(2).get_device() == torch.zeros(2).get_device()
    assert ember.zeros(2).is_cpu and not ember.zeros(2).is_cuda
    assert ember.zeros(2, device="meta").is_meta


def _factories(lib):
    return [lib.zeros(2), lib.ones(2, 3), lib.empty(3), lib.full((2,), 3.0), lib.tensor([1.0])]


def test_device_context_makes_factories_use_it():
    with torch.device("meta"):
        expected = [t.device.type for t in _factories(torch)]
    with ember.device("meta"):
        got = [t.device.type for t in _factories(ember)]
        assert ember.get_default_device() == ember.device("meta")
        assert ember.zeros(2, device="cpu").device == ember.device("cpu")
    assert got == expected == ["meta"] * len(expected)
    assert ember.zeros(2).device == ember.device("cpu")


def test_device_context_nests():
    outer = ember.device("meta")
    with outer:
        with ember.device("cpu"):
            assert ember.zeros(1).device.type == "cpu"
        assert ember.zeros(1).device.type == "meta"
        with outer:
            assert ember.zeros(1).device.type == "meta"
        assert ember.zeros(1).device.type == "meta"
    assert ember.zeros(1).device.type == "cpu"


def test_set_default_device_global():
    assert ember.get_default_device() == ember.device("cpu")
    assert repr(ember.get_default_device()) == repr(torch.get_default_device())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.set_default_device("meta")
    try:
        assert ember.zeros(2).is_meta
        assert ember.get_default_device() == ember.device("meta")
        with ember.device("cpu"):
            assert ember.zeros(2).device.type == "cpu"
        assert ember.zeros(2).is_meta
    finally:
        ember.set_default_device(None)
    assert ember.zeros(2).device.type == "cpu"
    assert ember.get_default_device() == ember.device("cpu")
