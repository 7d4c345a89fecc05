"""utils.benchmark.Timer: run counts, autorange budgets, and the printed Measurement laid out
as PyTorch lays it out."""
import re

import torch.utils.benchmark as tbench

import ember.utils.benchmark as ebench


def _shape(text):
    """The printed measurement with numbers, units and addresses blanked."""
    text = re.sub(r"0x[0-9a-f]+", "ADDR", text)
    text = re.sub(r"(torch|ember)\.utils\.benchmark[\w.]*Measurement", "MEASUREMENT", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return re.sub(r"\b(ns|us|ms|s)\b", "UNIT", text)


def test_timeit_runs_the_statement_the_asked_number_of_times():
    calls = []
    measurement = ebench.Timer("calls.append(1)", globals={"calls": calls}).timeit(500)
    assert len(calls) == 500 + 5           # plus the warm-up of number // 100
    assert measurement.number_per_run == 500 and len(measurement.times) == 1


class _Clock:
    """A timer that advances one microsecond per reading: the same times in both libraries,
    whatever the machine is doing."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1e-6
        return self.now


def test_printed_measurements_look_like_pytorchs():
    kwargs = {"stmt": "x + y", "setup": "x = torch.ones(8); y = torch.ones(8)",
              "label": "add", "sub_label": "small", "description": "float32"}
    ours = ebench.Timer(timer=_Clock(), **kwargs).timeit(100)
    theirs = tbench.Timer(timer=_Clock(), **kwargs).timeit(100)
    assert _shape(repr(ours)) == _shape(repr(theirs))
    assert ours.median == theirs.median
    from torch.utils.benchmark.utils.common import Measurement, TaskSpec
    times = [1e-3, 1.2e-3, 0.9e-3, 3e-3, 1.1e-3]
    ours = ebench.Measurement(10, times, ebench.TaskSpec("f(x)", "pass", label="f"))
    theirs = Measurement(10, times, TaskSpec("f(x)", "pass", label="f"))
    assert _shape(repr(ours)) == _shape(repr(theirs))
    assert (ours.median, ours.mean) == (theirs.median, theirs.mean)


def test_blocked_autorange_fills_its_budget():
    measurement = ebench.Timer("sum(range(50))").blocked_autorange(min_run_time=0.05)
    assert sum(measurement.raw_times) >= 0.05
    assert measurement.median > 0 and measurement.iqr >= 0
