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


def test_printed_measurements_look_like_pytorchs():
    kwargs = {"stmt": "x + y", "setup": "x = torch.ones(8); y = torch.ones(8)",
              "label": "add", "sub_label": "small", "description": "float32"}
    ours = repr(ebench.Timer(**kwargs).timeit(100))
    theirs = repr(tbench.Timer(**kwargs).timeit(100))
    assert _shape(ours) == _shape(theirs)
    ours = repr(ebench.Timer("sum(range(10))").blocked_autorange(min_run_time=0.05))
    assert "measurements" in ours and "runs per measurement" in ours and "Median:" in ours


def test_blocked_autorange_fills_its_budget():
    measurement = ebench.Timer("sum(range(50))").blocked_autorange(min_run_time=0.05)
    assert sum(measurement.raw_times) >= 0.05
    assert measurement.median > 0 and measurement.iqr >= 0
