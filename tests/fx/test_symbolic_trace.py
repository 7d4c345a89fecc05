"""symbolic_trace, Tracer and Proxy against torch.fx: the same modules and functions traced in
both libraries give the same nodes (ops, names, targets, arguments), the same generated code
(modulo `torch.` / `ember.`, NOTE [fx call arguments in canonical form] in fx_compare.py), and
GraphModules that compute what the eager program does."""
from __future__ import annotations

import math
import operator
import warnings

import pytest
import torch
import torch.fx

import ember
import ember.fx
from fx.fx_compare import (
    LIBS,
    canonical_calls,
    copy_weights,
    inputs,
    node_rows,
    same_text,
    same_values,
)


def helper_scaled(a, b):
    return a * b + 1


torch.fx.wrap("helper_scaled")
ember.fx.wrap("helper_scaled")
torch.fx.wrap("len")
ember.fx.wrap("len")


@torch.fx.wrap
def helper_decorated_torch(a):
    return a.sum() * 2


@ember.fx.wrap
def helper_decorated_ember(a):
    return a.sum() * 2


# ---------------------------------------------------------------- the programs, per library

def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=-1))


def conv_net(lib):
    nn, F = lib.nn, lib.nn.functional

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.fc = nn.Linear(4 * 2 * 2, 5)

        def forward(self, x):
            x = self.pool(F.relu(self.bn(self.conv(x))))
            x = lib.flatten(x, 1)
            return F.log_softmax(self.fc(x), dim=1)

    return ConvNet().eval()


def with_module_list(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.register_buffer("shift", lib.arange(4.0))

        def forward(self, x):
            return self.lin(x).tanh() + self.shift

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block(), Block()])
            self.scale = nn.Parameter(lib.full((4,), 0.5))
            self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Identity()})

        def forward(self, x):
            for block in self.blocks:
                x = block(x) * self.scale
            return self.heads["a"](x), self.heads["b"](x)

    return Stack()


def ops_program(lib):
    F = lib.nn.functional

    def program(x, y):
        a = (x * 2 + y)[0, 1:] @ y[:, 1:].t()
        b = lib.cat([x, y], dim=0).view(-1, x.shape[1]).mean(dim=1, keepdim=True)
        c = F.softmax(x, dim=-1) - 1 / (x.abs() + 1)
        d = x[..., None].size(0) * x.size()[1] + x.numel()
        e = lib.where(x > 0, x, y) ** 2 // 3
        f = -x, ~(x > y), x % 2, 2 - x, x != y
        g = lib.relu(x).transpose(0, 1).reshape(3, 2).to(lib.float64)
        return a, b, c, d, e, f, g, abs(x), x.dtype

    return program


def varargs_program(lib):
    def program(x, *rest, scale=2.0, **named):
        return x * scale + rest[0] - named["bias"]

    return program


def constants_program(lib):
    def program(x):
        return lib.ones(3) + x, x + lib.ones(3), lib.ones(2) * 2, x * math.pi

    return program


# ---------------------------------------------------------------- comparisons


def traced_pair(make, concrete_args=None, tracer_class=None):
    traced = {}
    for name, lib in LIBS.items():
        root = make(lib)
        if tracer_class is not None:
            graph = tracer_class[name]().trace(root, concrete_args)
            gm = lib.fx.GraphModule(root if isinstance(root, lib.nn.Module) else
                                    lib.nn.Module(), graph)
        else:
            gm = lib.fx.symbolic_trace(root, concrete_args=concrete_args)
        canonical_calls(gm)
        traced[name] = (root, gm)
    return traced


def check_same_trace(traced, with_code=True):
    (_, t_gm), (_, e_gm) = traced["torch"], traced["ember"]
    assert node_rows(e_gm.graph) == node_rows(t_gm.graph)
    same_text(str(t_gm.graph), str(e_gm.graph))
    if with_code:
        same_text(t_gm.code, e_gm.code)
    assert type(e_gm).__name__ == type(t_gm).__name__


@pytest.mark.parametrize("make,shapes", [
    (mlp, [(5, 6)]), (conv_net, [(2, 3, 4, 4)]), (with_module_list, [(3, 4)]),
])
def test_modules_trace_and_run_like_torch(make, shapes):
    traced = traced_pair(make)
    check_same_trace(traced)
    (t_root, t_gm), (e_root, e_gm) = traced["torch"], traced["ember"]
    copy_weights(t_root, e_root)
    copy_weights(t_gm, e_gm)
    t_in, e_in = inputs(*shapes)
    same_values(t_root(*t_in), e_gm(*e_in), rtol=1e-4, atol=1e-5)
    same_values(e_root(*e_in), e_gm(*e_in), rtol=1e-6, atol=1e-7)
    assert sorted(k for k, _ in e_gm.named_parameters()) == \
        sorted(k for k, _ in t_gm.named_parameters())
    assert sorted(k for k, _ in e_gm.named_buffers()) == sorted(k for k, _ in t_gm.named_buffers())
    for t_node, e_node in zip(t_gm.graph.nodes, e_gm.graph.nodes):
        t_stack = t_node.meta.get("nn_module_stack")
        e_stack = e_node.meta.get("nn_module_stack")
        assert (e_stack is None) == (t_stack is None)
        if t_stack:
            assert [(k, v[0], v[1].__name__) for k, v in e_stack.items()] == \
                [(k, v[0], v[1].__name__) for k, v in t_stack.items()]


@pytest.mark.parametrize("make,shapes", [
    (ops_program, [(2, 3), (2, 3)]), (constants_program, [(3,)]),
])
def test_functions_trace_and_run_like_torch(make, shapes):
    traced = traced_pair(make)
    check_same_trace(traced)
    t_in, e_in = inputs(*shapes)
    (t_fn, _), (e_fn, e_gm) = traced["torch"], traced["ember"]
    expected = t_fn(*t_in)
    same_values(expected[:-1], e_gm(*e_in)[:-1], rtol=1e-5, atol=1e-6)
    assert str(e_gm(*e_in)[-1]) == str(expected[-1]).replace("torch", "ember")
    same_values(e_fn(*e_in)[:-1], e_gm(*e_in)[:-1])


def test_varargs_and_keyword_only():
    traced = traced_pair(varargs_program)
    check_same_trace(traced)
    t_in, e_in = inputs((2,), (2,), (2,))
    (_, t_gm), (_, e_gm) = traced["torch"], traced["ember"]
    same_values(t_gm(t_in[0], 2.0, t_in[1], bias=t_in[2]),
                e_gm(e_in[0], 2.0, e_in[1], bias=e_in[2]))
    same_values(t_gm(t_in[0], 3.0, t_in[1], bias=t_in[2]),
                e_gm(e_in[0], 3.0, e_in[1], bias=e_in[2]))


def test_concrete_args():
    def make(lib):
        def program(x, flag, n=None, scale=1.0):
            y = x + 1 if flag else x - 1
            return y if n is None else y * n * scale
        return program

    for concrete in ({"flag": True, "n": None}, {"flag": False, "n": None},
                     {"flag": True, "n": None, "scale": 2.0}):
        traced = traced_pair(make, concrete_args=dict(concrete))
        check_same_trace(traced)
        t_in, e_in = inputs((3,))
        (_, t_gm), (_, e_gm) = traced["torch"], traced["ember"]
        given = [concrete[k] for k in ("flag", "n", "scale") if k in concrete]
        same_values(t_gm(t_in[0], *given), e_gm(e_in[0], *given))
        caught = {}
        for name, gm, x in (("torch", t_gm, t_in[0]), ("ember", e_gm, e_in[0])):
            with pytest.raises(AssertionError) as info:
                gm(x, not concrete["flag"], *given[1:])
            caught[name] = str(info.value)
        assert caught["ember"] == caught["torch"]


def test_concrete_args_placeholder_and_tuple():
    def make(lib):
        def program(x, y):
            return x * y
        return program

    traced = {}
    for name, lib in LIBS.items():
        traced[name] = (None, lib.fx.symbolic_trace(make(lib), concrete_args={"y": lib.fx.PH}))
    check_same_trace(traced)
    rows = {}
    for name, lib in LIBS.items():
        with pytest.raises(RuntimeError) as info:
            lib.fx.Tracer().trace(make(lib), concrete_args=(1,))
        rows[name] = str(info.value)
    assert rows["ember"] == rows["torch"]


def test_concrete_args_without_a_check_warn():
    for lib in LIBS.values():
        with pytest.warns(UserWarning, match="Was not able to add assertion"):
            lib.fx.symbolic_trace(lambda x, t: x + t, concrete_args={"t": lib.ones(2)})


def test_leaf_module_override():
    def make(lib):
        nn = lib.nn

        class Inner(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(3, 3)

            def forward(self, x):
                return self.lin(x).relu()

        class Outer(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
                self.out = nn.Linear(3, 2)

            def forward(self, x):
                return self.out(self.inner(x))

        return Outer()

    def tracers(leaf):
        made = {}
        for name, lib in LIBS.items():
            def is_leaf(self, m, qualname, lib=lib):
                return leaf(lib, m, qualname)
            made[name] = type("LeafTracer", (lib.fx.Tracer,), {"is_leaf_module": is_leaf})
        return made

    # everything inside Inner is one call; Linear is traced into (F.linear on get_attr nodes)
    leaf = tracers(lambda lib, m, q: type(m).__name__ == "Inner")
    traced = traced_pair(make, tracer_class=leaf)
    check_same_trace(traced)
    assert [n.op for n in traced["ember"][1].graph.nodes].count("get_attr") == 2
    (t_root, t_gm), (e_root, e_gm) = traced["torch"], traced["ember"]
    copy_weights(t_root, e_root)
    e_gm.load_state_dict(e_root.state_dict())
    t_gm.load_state_dict(t_root.state_dict())
    t_in, e_in = inputs((2, 3))
    same_values(t_gm(*t_in), e_gm(*e_in))


def test_wrap_records_one_call():
    def make(lib):
        other = helper_decorated_torch if lib is torch else helper_decorated_ember

        def program(x):
            return helper_scaled(x, 2) + len(x) + other(x) + math.sqrt(x.size(0))
        return program

    traced = traced_pair(make)
    t_gm, e_gm = traced["torch"][1], traced["ember"][1]
    rows_t, rows_e = node_rows(t_gm.graph), node_rows(e_gm.graph)
    assert [r[:3] for r in rows_e] == [r[:3] for r in rows_t]
    same_text(t_gm.code.replace("torch.fx._symbolic_trace.wrap", "ember.fx.wrap")
              .replace("helper_decorated_torch", "helper_decorated"),
              e_gm.code.replace("helper_decorated_ember", "helper_decorated"))
    assert [n.meta.get("is_wrapped") for n in e_gm.graph.nodes] == \
        [n.meta.get("is_wrapped") for n in t_gm.graph.nodes]
    t_in, e_in = inputs((4,))
    same_values(t_gm(*t_in), e_gm(*e_in))
    # the patched globals are back after the trace
    assert helper_scaled(3, 2) == 7 and "len" not in globals()


def test_wrap_refusals():
    rows = {}
    for name, lib in LIBS.items():
        caught = []
        with pytest.raises(NotImplementedError) as info:
            lib.fx.wrap("helper_scaled")
        caught.append(str(info.value))
        with pytest.raises(Exception) as info:
            exec("wrap(3)", {"wrap": lib.fx.wrap})  # noqa: S102  (wrap at a module's top)
        caught.append((type(info.value).__name__, str(info.value)))
        rows[name] = caught
    assert rows["ember"] == rows["torch"]


@pytest.mark.parametrize("body,kind", [
    ("x if x.sum() > 0 else -x", "TraceError"),
    ("[a for a in x]", "TraceError"),
    ("len(y)", "RuntimeError"),
    ("ops.cat([*x])", "TraceError"),
    ("dict(**x)", "TraceError"),
])
def test_control_flow_on_proxies_is_refused(body, kind):
    messages = {}
    for name, lib in LIBS.items():
        program = eval(f"lambda x, y: {body}", {"ops": lib})
        with pytest.raises(Exception) as info:
            lib.fx.symbolic_trace(program)
        error = info.value
        messages[name] = (type(error).__name__, [c.__name__ for c in type(error).__mro__],
                          str(error))
        if kind == "TraceError":
            assert isinstance(error, lib.fx.proxy.TraceError)
    assert messages["ember"] == messages["torch"]
    assert messages["ember"][0] == kind


def test_len_refusal_without_wrap():
    # `len` is wrapped in this test module; a fresh module's globals see the refusal
    messages = {}
    for name, lib in LIBS.items():
        scope = {}
        exec("def program(x):\n    return len(x)\n", scope)  # noqa: S102
        scope.pop("len", None)
        with pytest.raises(RuntimeError) as info:
            lib.fx.symbolic_trace(scope["program"])
        messages[name] = str(info.value)
    assert messages["ember"] == messages["torch"]


def test_unpacking_a_proxy_and_attribute_calls():
    def make(lib):
        def program(x):
            a, b = x
            return a.foo.bar(3), b(2), x.shape
        return program

    traced = traced_pair(make)
    check_same_trace(traced)


def test_proxy_by_hand_and_tracer_pieces():
    rows = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = lib.fx.Proxy(g.placeholder("x"))
        y = (x + 1).relu()
        # NOTE [how a Proxy sees ember functions]: outside a trace ember needs the mode open
        with (ember.fx.proxy.ProxyFunctionMode() if lib is ember else _nothing()):
            z = lib.add(y, x, alpha=3)
            w = lib.nn.functional.gelu(z)[0]
        g.output((w.node, y.node))
        tracer = lib.fx.Tracer()
        tracer.root = lib.nn.Module()
        tracer.graph = lib.fx.Graph()
        made = [tracer.create_arg(v) for v in (1, "s", None, (1, [2.5]), {"k": 3}, slice(1, 2))]
        with pytest.raises(NotImplementedError) as info:
            tracer.create_arg(object)
        rows[name] = (repr(x), str(g).replace("torch._C._nn.", "ember.nn.functional.")
                      .replace("torch.", "ember."), str(made),
                      str(info.value).split(":")[0])
    assert rows["ember"] == rows["torch"]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_tracer_getattr_and_buffers_as_get_attr():
    def make(lib):
        nn = lib.nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(lib.ones(3))
                self.register_buffer("b", lib.zeros(3))
                self.plain = lib.full((3,), 2.0)
                self.sub = nn.Linear(3, 3)

            def forward(self, x):
                return x * self.w + self.b + self.plain + self.w + self.sub.weight.sum()

        return M()

    traced = traced_pair(make)
    check_same_trace(traced)


def test_path_of_unknown_module():
    messages = {}
    for name, lib in LIBS.items():
        tracer = lib.fx.Tracer()
        tracer.root = lib.nn.Module()
        tracer.submodule_paths = {}
        with pytest.raises(NameError) as info:
            tracer.path_of_module(lib.nn.ReLU())
        messages[name] = str(info.value)
    assert messages["ember"] == messages["torch"]


def test_tracing_leaves_modules_unpatched():
    before = (ember.nn.Module.__call__, ember.nn.Module.__getattr__)
    with pytest.raises(ember.fx.proxy.TraceError):
        ember.fx.symbolic_trace(lambda x: 1 if x else 0)
    assert (ember.nn.Module.__call__, ember.nn.Module.__getattr__) == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.nn.ReLU()(ember.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]


def test_operator_names_and_targets():
    def make(lib):
        def program(x, y):
            return (x + y, x - y, x * y, x / y, x // y, x % y, x ** y, x @ y, x & y, x | y,
                    x ^ y, x << y, x >> y, x == y, x != y, x < y, x > y, x <= y, x >= y,
                    -x, +x, ~x, 1 + x, 1 - x, 2 * x, 2 / x, 2 // x, 2 % x, 2 ** x, 1 & x,
                    1 | x, 1 ^ x, 1 << x, 1 >> x, x[0], x[1:2, ..., None])
        return program

    check_same_trace(traced_pair(make))


def test_symbolic_trace_names_after_the_root():
    names = {}
    for name, lib in LIBS.items():
        def my_function(x):
            return x
        names[name] = (type(lib.fx.symbolic_trace(my_function)).__name__,
                       type(lib.fx.symbolic_trace(lib.nn.ReLU())).__name__,
                       [n.op for n in lib.fx.symbolic_trace(lib.nn.ReLU()).graph.nodes])
    assert names["ember"] == names["torch"]


def test_operator_targets_are_the_operator_module():
    gm = ember.fx.symbolic_trace(lambda x: x + 1)
    assert [n.target for n in gm.graph.nodes][1] is operator.add
