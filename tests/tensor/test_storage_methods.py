"""Tensor methods about memory rather than values (src/ember/_ops/tensor_storage.py), against
PyTorch: set_ in its four overloads, share_memory_ / is_shared, pin_memory, the moves to absent
devices, record_stream; and ember.Stream / ember.Event on the CPU."""
from __future__ import annotations

import multiprocessing
import os
import warnings

import numpy as np
import pytest
import torch

import ember


def _run(lib, fn):
    """fn(lib): its result, or (exception class, message)."""
    try:
        return fn(lib)
    except Exception as exc:  # noqa: BLE001 -- the class and message are what we compare
        return type(exc), str(exc)


def _same(fn, *, message=True):
    got, expected = _run(ember, fn), _run(torch, fn)
    if isinstance(expected, tuple) and isinstance(expected[0], type):
        assert isinstance(got, tuple) and isinstance(got[0], type), got
        assert issubclass(got[0], expected[0]), (got, expected)
        if message:
            assert got[1].split("\n")[0] == expected[1].split("\n")[0], (got, expected)
        return
    assert not (isinstance(got, tuple) and isinstance(got[0], type)), got
    np.testing.assert_equal(_plain(got), _plain(expected))


def _plain(value):
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if hasattr(value, "numpy"):
        return value.detach().numpy()
    return value


def _geometry(t):
    return [t.detach().numpy(), tuple(t.shape), tuple(t.stride()), t.storage_offset()]


# --------------------------------------------------------------------------- set_

def test_set_to_a_tensor_shares_its_memory_and_geometry():
    def case(lib):
        source = lib.arange(12.).reshape(3, 4)[:, 1:3]
        t = lib.zeros(2)
        result = t.set_(source)
        source.mul_(10)                                   # visible through t
        return [result is t, t.untyped_storage().data_ptr() ==
                source.untyped_storage().data_ptr()] + _geometry(t)
    _same(case)


@pytest.mark.parametrize("args", [
    (),                       # the whole storage, contiguous
    (1, (2, 2), (1, 2)),      # offset, sizes and strides
    (2, (3,)),                # offset and sizes: contiguous strides
    (0, (0,)),
    (3, (2, 2)),              # reaches past the end: the storage grows
])
def test_set_to_a_storage(args):
    def case(lib):
        base = lib.arange(6.)
        t = lib.zeros(1).set_(base.untyped_storage(), *args)
        values = t.numpy().reshape(-1)[: 6 - (args[0] if args else 0)]   # grown: uninitialised
        return [values, tuple(t.shape), tuple(t.stride()), t.storage_offset()]
    _same(case)


def test_set_to_a_storage_writes_through_to_its_tensor():
    def case(lib):
        base = lib.arange(6.)
        t = lib.zeros(1).set_(base.untyped_storage(), 1, (2, 2), (2, 1))
        t.fill_(-1)
        return base
    _same(case)


def test_set_to_a_typed_storage_by_keyword():
    def case(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = lib.arange(6, dtype=lib.int32)
            t = lib.zeros(1, dtype=lib.int32).set_(source=base.storage(), storage_offset=2,
                                                   size=(2,))
        return _geometry(t)
    _same(case)


def test_set_with_no_arguments_empties_the_tensor():
    def case(lib):
        t = lib.arange(4.)
        t.set_()
        return [tuple(t.shape), t.untyped_storage().nbytes(), t.dtype == lib.float32]
    _same(case)


def test_set_bumps_nothing_on_the_source_and_keeps_requires_grad_under_no_grad():
    def case(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            x.set_(lib.arange(3.))
        return [x.requires_grad, x.detach()]
    _same(case)


@pytest.mark.parametrize("name", ["int32", "float64", "bool", "float16", "bfloat16", "int64",
                                  "complex64", "uint8", "int8", "int16"])
def test_set_refuses_another_dtype_with_torch_message(name):
    _same(lambda lib: lib.zeros(2).set_(lib.zeros(2, dtype=getattr(lib, name))))


@pytest.mark.parametrize("case", [
    lambda lib: lib.ones(2, requires_grad=True).set_(lib.zeros(2)),
    lambda lib: lib.zeros(1).set_(lib.arange(6.).untyped_storage(), -1, (2,)),
    lambda lib: lib.zeros(1).set_(lib.arange(6.).untyped_storage(), 0, (2,), (1, 2)),
    lambda lib: lib.zeros(1).set_(lib.zeros(2, device="meta")),
    lambda lib: lib.zeros(1).set_(lib.zeros(3, dtype=lib.int64).storage()),
])
def test_set_bad_calls_raise_torch_errors(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(case)


@pytest.mark.parametrize("case", [
    lambda lib: lib.zeros(1).set_(3),
    lambda lib: lib.zeros(1).set_(lib.arange(3.), 1),
    lambda lib: lib.zeros(1).set_(lib.arange(3.).untyped_storage(), 1),
])
def test_set_unmatched_overloads_are_type_errors(case):
    _same(case)


def test_set_on_a_view_detaches_it_from_its_base():
    def case(lib):
        a = lib.arange(6.)
        v = a[1:3]
        v.set_(lib.ones(5))
        v.fill_(7)
        return [a, v]
    _same(case)


def test_set_then_autograd_flows_through_the_new_values():
    def case(lib):
        w = lib.zeros(3)
        w.set_(lib.arange(3.))
        w.requires_grad_(True)
        (w * w).sum().backward()
        return w.grad
    _same(case)


# --------------------------------------------------------------------------- share_memory_

def test_share_memory_keeps_values_and_marks_the_tensor_shared():
    def case(lib):
        t = lib.arange(6.).reshape(2, 3)[:, 1:]
        before = t.is_shared()
        result = t.share_memory_()
        return [before, result is t, t.is_shared(), t.share_memory_() is t] + _geometry(t)
    _same(case)


def _child_adds_one(tensor_array_holder):
    tensor_array_holder.add_(1)
    os._exit(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_share_memory_is_seen_by_a_forked_process():
    t = ember.zeros(4)
    t.share_memory_()
    context = multiprocessing.get_context("fork")
    process = context.Process(target=_child_adds_one, args=(t,))
    process.start()
    process.join(30)
    assert process.exitcode == 0
    np.testing.assert_array_equal(t.numpy(), np.ones(4, np.float32))


def test_module_share_memory_shares_every_parameter():
    model = ember.nn.Linear(3, 2)
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())


# --------------------------------------------------------------------------- others

def test_pin_memory_without_an_accelerator():
    if ember.accelerator.is_available():     # a plug-in device (tests/plugins) is installed
        t = ember.arange(3.)
        pinned = t.pin_memory()
        assert pinned is not t
        np.testing.assert_array_equal(pinned.numpy(), t.numpy())
        return
    _same(lambda lib: lib.zeros(3).pin_memory())


def test_pin_memory_to_the_cpu_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(lambda lib: lib.zeros(3).pin_memory("cpu"))


@pytest.mark.parametrize("name", ["xpu", "ipu", "mtia"])
def test_absent_devices_raise_torch_errors(name):
    _same(lambda lib: getattr(lib.zeros(2), name)())


def test_record_stream_on_the_cpu():
    _same(lambda lib: lib.zeros(2).record_stream(None))
    _same(lambda lib: lib.zeros(2).record_stream(lib.Stream("cpu")), message=False)


def test_cpu_stream_and_event_answer_as_torch():
    def case(lib):
        s = lib.Stream("cpu")
        e = lib.Event("cpu")
        return [repr(s), repr(e), s.query(), s.device_index, s.stream_id, e.query(),
                s == lib.Stream("cpu"), s.synchronize()]
    _same(case)
    _same(lambda lib: lib.Event("cpu").record())
    _same(lambda lib: lib.Stream("cpu").wait_event(lib.Event("cpu")))


def test_error_classes_and_function_guards():
    for name in ("AcceleratorError", "OutOfMemoryError", "FatalError"):
        assert [c.__name__ for c in getattr(ember, name).__mro__] == \
            [c.__name__ for c in getattr(torch, name).__mro__]
    assert ember.DisableTorchFunctionSubclass is ember._C.DisableTorchFunctionSubclass
    with ember.DisableTorchFunction():
        assert ember.arange(3).sum().item() == 3
    assert ember.thread_safe_generator() is None


@pytest.mark.parametrize("device", ["ipu", "xla"])
def test_deprecated_autocast_switches(device):
    def case(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            default = getattr(lib, f"get_autocast_{device}_dtype")()
            was = getattr(lib, f"is_autocast_{device}_enabled")()
            getattr(lib, f"set_autocast_{device}_enabled")(True)
            now = lib.is_autocast_enabled(device)
            getattr(lib, f"set_autocast_{device}_enabled")(False)
            getattr(lib, f"set_autocast_{device}_dtype")(lib.float16)
            changed = lib.get_autocast_dtype(device)
            getattr(lib, f"set_autocast_{device}_dtype")(default)
        messages = sorted({str(w.message) for w in caught})
        return [str(default).split(".")[1], was, now, str(changed).split(".")[1],
                [m.replace("torch.", "").split(" (Triggered")[0] for m in messages],
                {w.category.__name__ for w in caught}]
    _same(case)
