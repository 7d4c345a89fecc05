"""Guards and the cache: what makes a compiled entry unusable (shape, dtype, training flag,
a global's value, grad mode) counted as recompiles against torch.compile with
dynamic=False; the recompile limit; reset; the unsupported-Python-version path."""
import logging

import pytest
import torch
from tests.dynamo.common import same_values

import ember
from ember._dynamo import config, convert_frame

SCALE = {torch: 2.0, ember: 2.0}


def counting(lib, fn, **options):
    calls = []

    def backend(gm, example_inputs):
        calls.append(gm)
        return gm.forward
    lib._dynamo.reset()
    return lib.compile(fn, backend=backend, dynamic=False, **options), calls


def scaled(lib):
    def f(x):
        return x * SCALE[lib] + 1
    return f


CHANGES = {
    "shape": [lambda lib: lib.ones(2, 3), lambda lib: lib.ones(2, 3), lambda lib: lib.ones(4, 3),
              lambda lib: lib.ones(2, 3)],
    "dtype": [lambda lib: lib.ones(3), lambda lib: lib.ones(3, dtype=lib.float64),
              lambda lib: lib.ones(3)],
    "requires_grad": [lambda lib: lib.ones(3), lambda lib: lib.ones(3, requires_grad=True)],
    "stride": [lambda lib: lib.ones(3, 4), lambda lib: lib.ones(4, 3).t()],
}


@pytest.mark.parametrize("kind", sorted(CHANGES))
def test_tensor_changes_recompile_like_pytorch(kind):
    counts, results = {}, {}
    for lib in (torch, ember):
        fn, calls = counting(lib, scaled(lib))
        results[lib] = [fn(make(lib)) for make in CHANGES[kind]]
        counts[lib] = len(calls)
    assert counts[ember] == counts[torch] > 1
    same_values([r.detach() for r in results[ember]], [r.detach() for r in results[torch]])


def test_global_value_change_recompiles():
    counts = {}
    for lib in (torch, ember):
        fn, calls = counting(lib, scaled(lib))
        outs = [fn(lib.ones(3))]
        SCALE[lib] = 3.0
        outs.append(fn(lib.ones(3)))
        SCALE[lib] = 2.0
        outs.append(fn(lib.ones(3)))
        counts[lib] = (len(calls), [o[0].item() for o in outs])
    assert counts[ember] == counts[torch] == (2, [3.0, 4.0, 3.0])


def test_training_flag_and_grad_mode_recompile():
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Dropout(0.5))
    counts = {}
    for lib in (torch, ember):
        model = build(lib)
        fn, calls = counting(lib, model)
        fn(lib.ones(2, 3))
        model.eval()
        fn(lib.ones(2, 3))
        fn(lib.ones(2, 3))
        with lib.no_grad():
            fn(lib.ones(2, 3))
        model.train()
        fn(lib.ones(2, 3))
        counts[lib] = len(calls)
    assert counts[ember] == counts[torch] == 3


def test_recompile_limit_then_eager_with_one_warning(caplog, monkeypatch):
    monkeypatch.setattr(config, "recompile_limit", 2)
    counts = {}
    for lib in (torch, ember):
        fn, calls = counting(lib, scaled(lib))
        with caplog.at_level(logging.WARNING), torch._dynamo.config.patch(recompile_limit=2):
            outs = [fn(lib.ones(n)) for n in (1, 2, 3, 4, 5)]
        counts[lib] = len(calls)
        assert [o.shape[0] for o in outs] == [1, 2, 3, 4, 5]
    assert counts[ember] == counts[torch] == 2
    ours = [r for r in caplog.records if r.name == "ember._dynamo"]
    assert len(ours) == 1
    assert "recompile_limit (2)" in ours[0].getMessage()
    assert "TENSOR_MATCH L['x']" in ours[0].getMessage()


def test_reset_forgets_compiled_entries():
    for lib in (torch, ember):
        fn, calls = counting(lib, scaled(lib))
        fn(lib.ones(3))
        fn(lib.ones(3))
        assert len(calls) == 1
        lib._dynamo.reset()
        fn(lib.ones(3))
        assert len(calls) == 2


def test_unsupported_python_version_runs_eagerly_and_says_so_once(monkeypatch, caplog):
    monkeypatch.setattr(convert_frame, "SUPPORTED_PYTHON", (3, 99))
    fn, calls = counting(ember, scaled(ember))
    with caplog.at_level(logging.WARNING):
        outs = [fn(ember.ones(2)) for _ in range(3)]
    assert calls == []
    assert [o.tolist() for o in outs] == [[3.0, 3.0]] * 3
    said = [r for r in caplog.records if "captures CPython" in r.getMessage()]
    assert len(said) == 1


def test_graph_break_log(capsys):
    from ember._dynamo import _logging

    def f(x):
        y = x + 1
        print("side")
        return y
    _logging.set_logs(graph_breaks=True, recompiles=True, graph_code=True)
    try:
        fn = ember.compile(f, backend="eager")
        ember._dynamo.reset()
        fn(ember.ones(2))
        fn(ember.ones(3))
    finally:
        _logging.set_logs(graph_breaks=False, recompiles=False, graph_code=False)
    err = capsys.readouterr().err
    assert "[ember._dynamo.graph_breaks] Graph break in user code" in err
    assert "print() is a Python side effect" in err
    assert "[ember._dynamo.recompiles] Recompiling function f" in err
    assert "TENSOR_MATCH L['x']" in err
    assert "[ember._dynamo.graph_code] TRACED GRAPH of f" in err


def test_one_object_through_two_arguments_then_two_objects():
    def f(a, b):
        return a[0] + b[0] * 10
    fn, calls = counting(ember, f)
    t = (ember.ones(1),)
    results = [fn(t, t), fn((ember.ones(1),), (ember.zeros(1),))]
    expected = [f(t, t) for t in [(torch.ones(1),)]] + [f((torch.ones(1),), (torch.zeros(1),))]
    same_values(results, expected)
    assert len(calls) == 2
