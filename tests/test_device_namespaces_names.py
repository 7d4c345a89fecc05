"""`ember.accelerator`, `ember.cpu`, `ember.futures`, `ember.types` and the profiler's
`DeviceType` against PyTorch (CPU build, no accelerator)."""
from __future__ import annotations

import pytest
import torch

import ember

pytestmark = pytest.mark.skipif(torch.accelerator.is_available(),
                                reason="compares the answers without an accelerator")


@pytest.fixture(autouse=True)
def _no_accelerator(monkeypatch):
    """ember without an accelerator (the development environment's test plug-in device would
    otherwise be one)."""
    monkeypatch.setattr(ember.accelerator, "current_accelerator",
                        lambda check_available=False: None)

NEEDS_ACCELERATOR = [
    lambda a: a.current_device_idx(), lambda a: a.current_stream(), lambda a: a.empty_cache(),
    lambda a: a.empty_host_cache(), lambda a: a.get_device_capability(),
    lambda a: a.get_memory_info(), lambda a: a.memory_stats(), lambda a: a.memory_allocated(),
    lambda a: a.max_memory_allocated(), lambda a: a.memory_reserved(),
    lambda a: a.max_memory_reserved(), lambda a: a.reset_accumulated_memory_stats(),
    lambda a: a.reset_peak_memory_stats(), lambda a: a.set_device_idx(0),
    lambda a: a.Graph(), lambda a: a.device_index(0).__enter__(),
]


@pytest.mark.parametrize("call", NEEDS_ACCELERATOR)
def test_accelerator_calls_without_one(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch.accelerator)
    with pytest.raises(RuntimeError) as ours:
        call(ember.accelerator)
    assert str(ours.value).startswith(str(theirs.value))


def test_accelerator_answers():
    for lib in (torch, ember):
        with lib.accelerator.device_index(None):
            pass
    assert ember.accelerator.device_count() == torch.accelerator.device_count()


def test_cpu_streams_and_events():
    for lib in (torch, ember):
        cpu = lib.cpu
        stream = cpu.current_stream()
        assert isinstance(stream, cpu.Stream)
        event = cpu.Event()
        assert event.query() is True
        assert event.record() is None and event.wait() is None and event.synchronize() is None
        with cpu.stream(cpu.Stream()):
            pass
        assert cpu.is_initialized() is True
        assert stream.wait_stream(cpu.Stream()) is None
    ours, theirs = ember.cpu.get_capabilities(), torch.cpu.get_capabilities()
    shared = set(ours) & set(theirs) & {"avx", "avx2", "fma3", "sse4_2", "avx512f", "f16c"}
    assert {k: ours[k] for k in shared} == {k: theirs[k] for k in shared}


def test_futures():
    for lib in (torch, ember):
        first, second = lib.futures.Future(), lib.futures.Future()
        first.set_result(1)
        second.set_result(2)
        assert [f.wait() for f in lib.futures.collect_all([first, second]).wait()] == [1, 2]
        assert lib.futures.wait_all([first, second]) == [1, 2]
    assert ember.futures.Future is ember.Future


def test_types_and_profiler_device_type():
    assert ember.types.Number == (int | float | bool) or \
        set(ember.types.Number.__args__) == set(torch.types.Number.__args__)
    assert isinstance(ember.ones(2).untyped_storage(), ember.types.Storage)   # (not in PyTorch)
    assert ember.types.Device.__args__[1:] == torch.types.Device.__args__[1:]
    assert list(ember.profiler.DeviceType.__members__) == \
        list(torch.profiler.DeviceType.__members__)
    assert [int(v) for v in ember.profiler.DeviceType.__members__.values()] == \
        [int(v) for v in torch.profiler.DeviceType.__members__.values()]
    assert ember.profiler.kineto_available() is False
