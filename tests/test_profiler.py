"""ember.profiler: events of every op and record_function range, PyTorch's table layout,
schedules stepping like PyTorch's, chrome traces, and no cost once closed."""
import json

import pytest
import torch
import torch.profiler as tprof

import ember
import ember.profiler as eprof


def _run(lib):
    x = lib.ones(4, 4, requires_grad=True)
    with lib.profiler.record_function("forward"):
        y = (x @ x).relu().sum()
    y.backward()


def test_ops_and_ranges_are_recorded_with_nesting():
    with eprof.profile(record_shapes=True) as prof:
        _run(ember)
    events = prof.events()
    names = [e.name for e in events]
    assert "forward" in names and "aten::relu" in names and "aten::sum" in names
    forward = next(e for e in events if e.name == "forward")
    assert forward.is_user_annotation
    assert {c.name for c in forward.cpu_children} >= {"aten::matmul", "aten::relu", "aten::sum"}
    assert forward.cpu_time_total >= sum(c.cpu_time_total for c in forward.cpu_children)
    averages = {e.key: e for e in prof.key_averages()}
    assert averages["aten::matmul"].count == 3          # forward and the two backward products
    matmul = next(e for e in events if e.name == "aten::matmul")
    assert matmul.input_shapes == [[4, 4], [4, 4]]


def _header(table):
    return [line for line in table.splitlines() if "Name" in line][0].split()


@pytest.mark.parametrize("memory,shapes", [(False, False), (True, False), (False, True)])
def test_table_columns_match_pytorch(memory, shapes):
    with eprof.profile(record_shapes=shapes, profile_memory=memory) as ours:
        _run(ember)
    with tprof.profile(activities=[tprof.ProfilerActivity.CPU], record_shapes=shapes,
                       profile_memory=memory) as theirs:
        _run(torch)
    ours_table = ours.key_averages(group_by_input_shape=shapes).table(
        sort_by="cpu_time_total", row_limit=5)
    their_table = theirs.key_averages(group_by_input_shape=shapes).table(
        sort_by="cpu_time_total", row_limit=5)
    assert _header(ours_table) == _header(their_table)
    assert ours_table.strip().splitlines()[-1].startswith("Self CPU time total: ")
    assert len(ours_table.splitlines()) == 5 + 5


@pytest.mark.parametrize("kwargs", [{"wait": 1, "warmup": 1, "active": 2},
                                    {"wait": 0, "warmup": 1, "active": 1, "repeat": 2},
                                    {"wait": 2, "warmup": 1, "active": 3, "skip_first": 3}])
def test_schedule_matches_pytorch(kwargs):
    ours, theirs = eprof.schedule(**kwargs), tprof.schedule(**kwargs)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def test_scheduled_windows_call_on_trace_ready_with_the_active_steps_only():
    traces = []

    def ready(prof):
        traces.append(sorted({e.name for e in prof.events()}))
    with eprof.profile(schedule=eprof.schedule(wait=1, warmup=1, active=1, repeat=2),
                       on_trace_ready=ready) as prof:
        for step in range(8):
            x = ember.ones(3)
            (x + step).exp() if step in (2, 5) else (x * step)
            prof.step()
    assert traces == [["aten::add", "aten::exp", "aten::ones"]] * 2


def test_chrome_trace_is_valid_json(tmp_path):
    with eprof.profile() as prof:
        _run(ember)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {"forward", "aten::relu"} <= {e["name"] for e in spans}
    assert all(e["dur"] >= 0 for e in spans)


def test_closed_profiler_leaves_the_fast_path_and_ranges_free():
    from ember._core.dispatch import process_state
    with eprof.profile():
        ember.ones(2) + 1
    assert not process_state.state.slow
    with eprof.record_function("nothing open"):
        ember.ones(2) + 1
    assert not process_state.state.slow


def test_in_place_ops_are_recorded_under_their_in_place_name():
    def step(lib):
        w = lib.ones(3, requires_grad=True)
        (w * 2).sum().backward()
        with lib.no_grad():
            w.sub_(w.grad, alpha=0.1)
            w.mul_(2)

    names = {}
    for lib, prof_mod in ((torch, tprof), (ember, eprof)):
        with prof_mod.profile() as prof:
            step(lib)
        names[lib.__name__] = {e.key for e in prof.key_averages()}
    for name in ("aten::sub_", "aten::mul_"):
        assert name in names["torch"] and name in names["ember"]
