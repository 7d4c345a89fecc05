"""Python side effects of compiled code equal eager's, on the first call (capture) and on
the second (replay), against PyTorch doing the same: lists and dicts changed, globals and
module attributes set, print output."""
import torch
from tests.dynamo.common import arrays, same_values, tensors

import ember

VALUES = arrays(1, (2, 3))
LOG = {torch: [], ember: []}
COUNTER = {torch: 0, ember: 0}


def run_twice(build, lib, *, compiled):
    fn = build(lib)
    if compiled:
        lib._dynamo.reset()
        fn = lib.compile(fn, backend="eager")
    return [fn(*tensors(lib, VALUES)) for _ in range(2)]


def appends_to_global(lib):
    def f(x):
        y = x.cos() + 1
        LOG[lib].append(y)
        LOG[lib].append(len(LOG[lib]))
        return y * 2
    return f


def test_global_list_appended_on_every_call():
    results = {}
    for lib in (torch, ember):
        for compiled in (False, True):
            LOG[lib].clear()
            out = run_twice(appends_to_global, lib, compiled=compiled)
            results[lib, compiled] = (out, list(LOG[lib]))
    for compiled in (False, True):
        out, log = results[ember, compiled]
        their_out, their_log = results[torch, False]
        same_values(out, their_out)
        assert len(log) == len(their_log) == 4
        for mine, theirs in zip(log, their_log):
            same_values(mine, theirs)
    assert results[ember, True][1][0] is not results[ember, True][1][2]


def prints(lib):
    def f(x):
        y = x.exp()
        print("value count", y.numel(), "shape", tuple(y.shape))
        return y - 1
    return f


def test_print_output_same_as_eager(capsys):
    outputs = {}
    for lib in (torch, ember):
        for compiled in (False, True):
            results = run_twice(prints, lib, compiled=compiled)
            outputs[lib, compiled] = (results, capsys.readouterr().out)
    expected_results, expected_text = outputs[torch, False]
    assert expected_text.count("value count 6 shape (2, 3)") == 2
    for key in ((torch, True), (ember, False), (ember, True)):
        results, text = outputs[key]
        assert text == expected_text
        same_values(results, expected_results)


def counts_calls(lib):
    def f(x):
        global COUNTER
        COUNTER = dict(COUNTER)
        COUNTER[lib] = COUNTER[lib] + 1
        return x * COUNTER[lib]
    return f


def test_global_assignment_replayed():
    global COUNTER
    seen = {}
    for lib in (torch, ember):
        for compiled in (False, True):
            COUNTER = {torch: 0, ember: 0}
            out = run_twice(counts_calls, lib, compiled=compiled)
            seen[lib, compiled] = (out, COUNTER[lib])
    for key, (out, count) in seen.items():
        assert count == seen[torch, False][1] == 2, key
        same_values(out, seen[torch, False][0])


def test_argument_containers_changed_like_eager():
    def build(lib):
        def f(x, sink, table):
            sink.append(x + 1)
            table["last"] = x.sum()
            table.pop("drop", None) if False else None
            return sink[0] * 2
        return f
    for compiled in (False, True):
        states = {}
        for lib in (torch, ember):
            fn = build(lib)
            if compiled:
                lib._dynamo.reset()
                fn = lib.compile(fn, backend="eager")
            sink, table = [], {"keep": 1}
            outs = [fn(*tensors(lib, VALUES), sink, table) for _ in range(2)]
            other = []
            outs.append(fn(*tensors(lib, VALUES), other, table))
            states[lib] = (outs, sink, other, table)
        (outs, sink, other, table), (touts, tsink, tother, ttable) = states[ember], states[torch]
        same_values(outs, touts)
        same_values(sink, tsink)
        same_values(other, tother)
        assert list(table) == list(ttable) == ["keep", "last"]
        same_values(table["last"], ttable["last"])


def test_one_list_through_two_arguments():
    """Against eager PyTorch: torch.compile 2.13 itself returns x * 0 on the third call here
    (its cache entry for two distinct lists is reused when both arguments are one list);
    ember's ALIASING guard recompiles instead."""
    def f(x, first, second):
        first.append(x)
        return x * len(second)
    results = {}
    for lib, fn in ((torch, f), (ember, ember.compile(f, backend="eager"))):
        ember._dynamo.reset()
        a, b = [], []
        x = tensors(lib, VALUES)[0]
        results[lib] = [fn(x, a, b), fn(x, a, a), fn(x, b, b), (len(a), len(b))]
    same_values(results[ember][:3], results[torch][:3])
    assert results[ember][3] == results[torch][3] == (2, 1)


def test_module_attribute_set_in_forward():
    def build(lib):
        class Counting(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.calls = 0

            def forward(self, x):
                self.calls = self.calls + 1
                return x * 2
        return Counting()
    results = {}
    for lib in (torch, ember):
        lib._dynamo.reset()
        model = build(lib)
        compiled = lib.compile(model, backend="eager")
        results[lib] = ([compiled(*tensors(lib, VALUES)) for _ in range(3)], model.calls)
    same_values(results[ember][0], results[torch][0])
    assert results[ember][1] == results[torch][1] == 3


def test_attribute_set_on_a_plain_object_runs_eagerly():
    class Box:
        pass

    def build(lib):
        def f(x, box):
            box.value = x + 1
            return box.value * 2
        return f
    results = {}
    for lib in (torch, ember):
        lib._dynamo.reset()
        box = Box()
        results[lib] = (lib.compile(build(lib), backend="eager")(*tensors(lib, VALUES), box),
                        box.value)
    same_values(results[ember], results[torch])


def test_list_grown_while_iterated():
    def f(x):
        parts = [x, x + 1]
        for p in parts:
            if len(parts) < 6:
                parts.append(p * 2)
        return parts
    compiled = ember.compile(f, backend="eager")
    ember._dynamo.reset()
    expected = f(*tensors(torch, VALUES))
    assert len(expected) == 6
    same_values(compiled(*tensors(ember, VALUES)), expected)
