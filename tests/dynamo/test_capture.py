"""What capture records, against torch._dynamo on the same programs: graph and break counts,
the ops of every graph by name, results equal to eager."""
import copy

import pytest
import torch
from tests.dynamo.common import arrays, assert_same_capture, explain_both, same_values, tensors

import ember

VALUES = arrays(0, (3, 4), (3, 4))


def straight(lib):
    def f(x, y):
        a = x * y + 1
        return lib.relu(a).sum(dim=1), a.t()
    return f


def with_print(lib):
    def f(x, y):
        a = x + y
        print("between graphs")
        return a * 2
    return f


def data_dependent_branch(lib):
    def f(x, y):
        s = (x * y).sum()
        if s > 0:
            return x - y
        return x + y
    return f


def inlined_helpers(lib):
    def scale(t, k=3.0):
        return t * k

    def f(x, y):
        parts = [scale(x), scale(y, k=0.5)]
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        return lib.cat([total, x], dim=0)
    return f


def item_read(lib):
    def f(x, y):
        k = x.sum().item()
        return y * k
    return f


def break_in_inlined_call(lib):
    def noisy(t):
        print("inside")
        return t + 1

    def f(x, y):
        a = x.sin()
        b = noisy(a)
        return b * y
    return f


PROGRAMS = [straight, with_print, data_dependent_branch, inlined_helpers, item_read,
            break_in_inlined_call]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_graphs_and_breaks_match_pytorch(program, capsys):
    theirs, ours = explain_both(program, lambda lib: tensors(lib, VALUES))
    assert_same_capture(theirs, ours)
    assert ours.graph_count >= 1


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_compiled_result_equals_eager(program, capsys):
    for values in (VALUES, [-v for v in VALUES]):
        fn = program(ember)
        compiled = ember.compile(fn, backend="eager")
        expected = program(torch)(*tensors(torch, values))
        for _ in range(2):
            same_values(compiled(*tensors(ember, values)), expected)


def test_custom_backend_receives_the_graph_module():
    seen = []

    def backend(gm, example_inputs):
        seen.append((gm, example_inputs))
        return gm.forward

    x, y = tensors(ember, VALUES)
    out = ember.compile(straight(ember), backend=backend)(x, y)
    (gm, example_inputs), = seen
    torch_seen = []

    def torch_backend(gm, example_inputs):
        torch_seen.append((gm, example_inputs))
        return gm.forward

    torch._dynamo.reset()
    torch.compile(straight(torch), backend=torch_backend)(*tensors(torch, VALUES))
    (tgm, texamples), = torch_seen
    assert type(gm).__name__ == "GraphModule" and isinstance(gm, ember.nn.Module)
    from tests.dynamo.common import ops_of
    assert ops_of(gm) == ops_of(tgm)
    assert [tuple(t.shape) for t in example_inputs] == [tuple(t.shape) for t in texamples]
    assert all(a is b for a, b in zip(example_inputs, (x, y)))
    same_values(out, straight(torch)(*tensors(torch, VALUES)))


def test_module_forward_is_inlined_with_parameters_as_inputs():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
    torch.manual_seed(0)
    models = {torch: build(torch), ember: build(ember)}
    for p_e, p_t in zip(models[ember].parameters(), models[torch].parameters()):
        with ember.no_grad():
            p_e.copy_(ember.tensor(p_t.detach().numpy()))
    graphs, outs = {}, {}
    torch._dynamo.reset()
    for lib, model in models.items():
        graphs[lib] = []

        def backend(gm, example_inputs, seen=graphs[lib]):
            seen.append(gm)
            return gm.forward
        outs[lib] = lib.compile(model, backend=backend)(lib.tensor(VALUES[0]))
    from tests.dynamo.common import ops_of
    assert [ops_of(g) for g in graphs[ember]] == [ops_of(g) for g in graphs[torch]]
    assert [n.op for n in graphs[ember][0].graph.nodes].count("placeholder") == \
        [n.op for n in graphs[torch][0].graph.nodes].count("placeholder") == 5
    same_values(outs[ember], outs[torch])
    outs[ember].sum().backward()
    outs[torch].sum().backward()
    same_values(models[ember][0].weight.grad, models[torch][0].weight.grad)


def test_fullgraph_raises_unsupported_at_the_first_break():
    for lib in (torch, ember):
        lib._dynamo.reset()
        fn = lib.compile(data_dependent_branch(lib), fullgraph=True, backend="eager")
        with pytest.raises(lib._dynamo.exc.Unsupported) as info:
            fn(*tensors(lib, VALUES))
        assert isinstance(info.value, lib._dynamo.exc.TorchDynamoException)
        assert isinstance(info.value, RuntimeError)
    assert "data-dependent" in str(info.value).lower()


def test_explain_output_fields():
    theirs, ours = explain_both(with_print, lambda lib: tensors(lib, VALUES))
    for name in ("graphs", "graph_count", "graph_break_count", "break_reasons", "op_count",
                 "ops_per_graph", "out_guards", "compile_times"):
        assert hasattr(ours, name) and hasattr(theirs, name), name
    assert ours.op_count == theirs.op_count
    assert [[op.__name__ for op in ops] for ops in ours.ops_per_graph] == \
        [[op.__name__ for op in ops] for ops in theirs.ops_per_graph]
    (reason,), (their_reason,) = ours.break_reasons, theirs.break_reasons
    assert "print" in reason.reason and "print" in their_reason.reason
    assert reason.graph_break and reason.user_stack[-1].lineno == \
        their_reason.user_stack[-1].lineno - (with_print.__code__.co_firstlineno -
                                              with_print.__code__.co_firstlineno)
    kinds = {g.kind for g in ours.out_guards}
    assert {"TENSOR_MATCH", "GRAD_MODE"} <= kinds


def test_disabled_function_is_a_graph_break():
    def build(lib):
        @lib.compiler.disable
        def helper(t):
            return t * 3

        def f(x, y):
            return helper(x + y) - 1
        return f
    theirs, ours = explain_both(build, lambda lib: tensors(lib, VALUES))
    assert_same_capture(theirs, ours)
    f = build(ember)
    assert f.__code__ is not None and ember.compiler.disable(f) is not f
    assert ember.compiler.disable(f).__wrapped__ is f


def test_is_compiling_is_true_inside_capture():
    def build(lib):
        def f(x):
            if lib.compiler.is_compiling():
                return x + 1
            return x - 1
        return f
    x = VALUES[0]
    torch._dynamo.reset()
    expected = torch.compile(build(torch), backend="eager")(torch.tensor(x))
    got = ember.compile(build(ember), backend="eager")(ember.tensor(x))
    same_values(got, expected)
    same_values(build(ember)(ember.tensor(x)), build(torch)(torch.tensor(x)))


def test_cnn_with_batch_norm_is_one_graph_and_updates_running_stats():
    def build(lib):
        class CNN(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = lib.nn.Conv2d(3, 4, 3)
                self.bn = lib.nn.BatchNorm2d(4)
                self.pool = lib.nn.MaxPool2d(2)
                self.fc = lib.nn.Linear(36, 5)

            def forward(self, x):
                x = self.pool(lib.relu(self.bn(self.conv(x))))
                return self.fc(lib.flatten(x, 1))
        return CNN()
    image = arrays(3, (2, 3, 8, 8))[0]
    models = {torch: build(torch), ember: build(ember)}
    with ember.no_grad():
        for p_e, p_t in zip(models[ember].parameters(), models[torch].parameters()):
            p_e.copy_(ember.tensor(p_t.detach().numpy()))
    counts, outs = {}, {}
    for lib, model in models.items():
        lib._dynamo.reset()
        counts[lib] = lib._dynamo.explain(copy.deepcopy(model))(lib.tensor(image)).graph_count
        outs[lib] = [lib.compile(model, backend="eager")(lib.tensor(image)) for _ in range(2)]
    assert counts[ember] == counts[torch] == 1
    same_values(outs[ember], outs[torch])
    same_values(models[ember].bn.running_mean, models[torch].bn.running_mean)
    assert int(models[ember].bn.num_batches_tracked) == int(models[torch].bn.num_batches_tracked)


def test_item_assignment_and_views_of_inputs_like_eager():
    def f(x, base):
        x[0] = 5.0
        y = x * 2
        y[1:] = 0
        return y + base.storage_offset(), base * 1
    results = {}
    for lib in (torch, ember):
        lib._dynamo.reset()
        compiled = lib.compile(f, backend="eager")
        outs = []
        for start in (1, 2):
            x, storage = lib.ones(3), lib.arange(6.0)
            outs.append((compiled(x, storage[start:start + 3]), x))
        results[lib] = outs
    same_values(results[ember], results[torch])
