"""ember.fx's Graph, Node and GraphModule built by hand, the same way in torch.fx (the oracle):
printed graphs, generated code, names, editing, copying, lint and dead-code elimination."""
from __future__ import annotations

import copy
import operator
import warnings

import pytest
import torch
import torch.fx

import ember
import ember.fx
from fx.fx_compare import LIBS, copy_weights, inputs, node_rows, same_graph, same_text, same_values


def build(lib):
    """One graph with every kind of node, operators, a keyword call, getattr and a default."""
    fx = lib.fx
    g = fx.Graph()
    x = g.placeholder("x")
    y = g.placeholder("y", default_value=2)
    lin = g.call_module("l", (x,))
    p = g.get_attr("p")
    a = g.call_function(operator.add, (lin, p))
    b = g.call_function(lib.add, (a, 1), {"alpha": 2})
    r = g.call_function(lib.nn.functional.relu, (b,))
    shape = g.call_function(getattr, (b, "shape"))
    first = g.call_function(operator.getitem, (shape, 0))
    v = g.call_method("view", (r, first, -1))
    s = g.call_method("sum", (v,), {"dim": 0, "keepdim": True})
    n = g.call_function(operator.neg, (s,))
    g.output({"o": n, "t": (b, y)})
    return g


def root(lib):
    module = lib.nn.Module()
    module.l = lib.nn.Linear(4, 3)
    module.p = lib.nn.Parameter(lib.ones(3))
    return module


def test_printed_graph_matches():
    same_text(str(build(torch)), str(build(ember)))


def test_node_structure_matches():
    same_graph(build(torch), build(ember))


def test_generated_code_matches():
    t, e = build(torch), build(ember)
    same_text(t.python_code("self").src, e.python_code("self").src)
    same_text(torch.fx.GraphModule(root(torch), t).code, ember.fx.GraphModule(root(ember), e).code)


def test_graph_module_runs_like_torch():
    t_root, e_root = root(torch), root(ember)
    copy_weights(t_root, e_root)
    t_gm = torch.fx.GraphModule(t_root, build(torch))
    e_gm = ember.fx.GraphModule(e_root, build(ember))
    (tx,), (ex,) = inputs((2, 4))
    same_values(t_gm(tx), e_gm(ex))
    same_values(t_gm(tx, 5), e_gm(ex, 5))


def test_graph_module_copies_targets_into_bare_modules():
    results = {}
    for name, lib in LIBS.items():
        sub = lib.nn.Module()
        sub.lin = lib.nn.Linear(3, 3)
        sub.register_buffer("b", lib.zeros(3))
        top = lib.nn.Module()
        top.sub = sub
        g = lib.fx.Graph()
        x = g.placeholder("x")
        out = g.call_function(operator.add, (g.call_module("sub.lin", (x,)), g.get_attr("sub.b")))
        g.output(out)
        gm = lib.fx.GraphModule(top, g, "Named")
        results[name] = (type(gm).__name__, sorted(k for k, _ in gm.named_buffers()),
                         sorted(k for k, _ in gm.named_parameters()),
                         [(k, type(m).__name__) for k, m in gm.named_modules()][1:],
                         gm.sub.lin is sub.lin, gm.sub is sub, isinstance(gm, lib.fx.GraphModule))
        assert str(gm).startswith("Named(")
    assert results["ember"] == results["torch"]


def test_graph_module_from_dict_and_bad_roots():
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        g.output(g.call_function(operator.mul, (x, g.get_attr("a.w"))))
        gm = lib.fx.GraphModule({"a.w": lib.ones(2)}, g)
        assert [k for k, _ in gm.named_buffers()] == ["a.w"]
    errors = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        g.output(g.get_attr("missing"))
        caught = []
        for bad_root in ({}, 3):
            with pytest.raises(Exception) as info:
                lib.fx.GraphModule(bad_root, g)
            caught.append((type(info.value).__name__, str(info.value)))
        errors[name] = caught
    assert errors["ember"] == errors["torch"]


def test_each_graph_module_has_its_own_forward():
    for lib in LIBS.values():
        g1, g2 = lib.fx.Graph(), lib.fx.Graph()
        for g, fn in ((g1, operator.add), (g2, operator.mul)):
            x = g.placeholder("x")
            g.output(g.call_function(fn, (x, x)))
        a, b = lib.fx.GraphModule(lib.nn.Module(), g1), lib.fx.GraphModule(lib.nn.Module(), g2)
        assert type(a) is not type(b)
        three = lib.tensor(3.0)
        assert (a(three).item(), b(three).item()) == (6.0, 9.0)


def test_recompile_after_editing():
    outputs = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(operator.add, (x, 1))
        g.output(a)
        gm = lib.fx.GraphModule(lib.nn.Module(), g)
        before = gm(lib.tensor([2.0])).item()
        with gm.graph.inserting_after(a):
            m = gm.graph.call_function(operator.mul, (a, 10))
        a.replace_all_uses_with(m, delete_user_cb=lambda user, m=m: user is not m)
        stale = gm(lib.tensor([2.0])).item()
        gm.recompile()
        outputs[name] = (before, stale, gm(lib.tensor([2.0])).item(), gm.code)
    assert outputs["ember"][:3] == outputs["torch"][:3] == (3.0, 3.0, 30.0)
    same_text(outputs["torch"][3], outputs["ember"][3])


def test_unique_names():
    # Each library keeps its own module's name for the code ("torch" / "ember"), not the other.
    hints = ["add", "add", "add_1", "foo_03", "1for", "for", "a.b-c", "foo_3", "foo", "sum",
             "getattr", "x", "LIB", "OTHER", "inf", "ConvBN2dMod", "Foo", "_", "", "foo_0",
             "device", "nan", "NoneType"]
    names = {}
    for name, lib in LIBS.items():
        other = "ember" if name == "torch" else "torch"
        g = lib.fx.Graph()
        x = g.placeholder("x")
        names[name] = [g.create_node("call_function", operator.mul, (x, x),
                                     name=h.replace("LIB", name).replace("OTHER", other)).name
                       .replace(name, "LIB").replace(other, "OTHER") for h in hints]
    assert names["ember"] == names["torch"]


def test_names_from_targets():
    rows = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        for target in ("layers.0", "ConvBN2d", "HTTPServer", "__add__", "sum", "sum", "0.a"):
            g.call_method(target, (x,))
        for fn in (operator.add, operator.add, lib.relu, getattr, lib.nn.functional.relu):
            g.call_function(fn, (x,))
        rows[name] = [n.name for n in g.nodes]
    assert rows["ember"] == rows["torch"]


def test_node_links_users_and_inputs():
    for lib in LIBS.values():
        g = build(lib)
        nodes = list(g.nodes)
        assert [n.next for n in nodes[:-1]] == nodes[1:]
        assert [n.prev for n in nodes[1:]] == nodes[:-1]
    t, e = build(torch), build(ember)
    for tn, en in zip(t.nodes, e.nodes):
        assert [u.name for u in en.users] == [u.name for u in tn.users]
        assert [i.name for i in en.all_input_nodes] == [i.name for i in tn.all_input_nodes]
        assert en.format_node() == tn.format_node().replace("torch.", "ember.")
        assert repr(en) == repr(tn)


def test_args_are_immutable():
    messages = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        n = g.call_function(lib.cat, ([x, x],), {"dim": 0})
        caught = []
        for mutate in (lambda n=n, x=x: n.args[0].append(x),
                       lambda n=n: n.kwargs.update(dim=1),
                       lambda n=n: n.args[0].__setitem__(0, 1)):
            with pytest.raises(Exception) as info:
                mutate()
            caught.append((type(info.value).__name__,
                           str(info.value).replace("torch.fx", "ember.fx")))
        caught.append((type(n.args[0]).__name__, type(n.kwargs).__name__,
                       hash(n.args[0]) == hash(type(n.args[0])([x, x]))))
        messages[name] = caught
    assert messages["ember"][-1] == messages["torch"][-1]
    assert [m[0] for m in messages["ember"][:3]] == [m[0] for m in messages["torch"][:3]]
    assert [m[1].replace("torch", "ember") for m in messages["torch"][:3]] == \
        [m[1].replace("torch", "ember") for m in messages["ember"][:3]]


def test_editing_arguments():
    rows = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x, y = g.placeholder("x"), g.placeholder("y")
        a = g.call_function(operator.add, (x, y))
        b = g.call_function(operator.mul, (a, x), {"k": a})
        g.output(b)
        b.update_arg(1, y)
        b.update_kwarg("k", x)
        log = [str(g)]
        b.replace_input_with(a, y)
        log.append(str(g))
        changed = y.replace_all_uses_with(x)
        log.append((sorted(c.name for c in changed), str(g)))
        b.args = (a, a)
        b.kwargs = {}
        log.append((str(g), list(a.users), list(x.users), list(y.users)))
        rows[name] = log
    assert [str(r) for r in rows["ember"]] == [str(r) for r in rows["torch"]]


def test_erase_node_refusals_and_iteration_while_erasing():
    results = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(operator.add, (x, 1))
        b = g.call_function(operator.mul, (a, 2))
        dead = [g.call_function(operator.sub, (x, i)) for i in range(3)]
        g.output(b)
        with pytest.raises(RuntimeError) as info:
            g.erase_node(a)
        log = [str(info.value)]
        other = lib.fx.Graph()
        with pytest.raises(RuntimeError) as info:
            other.erase_node(dead[0])
        log.append(str(info.value))
        for node in g.nodes:       # erase while iterating
            if node.target is operator.sub:
                g.erase_node(node)
        log.append((len(g.nodes), [n.name for n in g.nodes], list(x.users), dead[0].args))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g.erase_node(dead[0])
        log.append([str(w.message) for w in caught])
        log.append([n.name for n in reversed(g.nodes)])
        results[name] = log
    assert str(results["ember"]) == str(results["torch"])


def test_inserting_before_and_after():
    rows = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        out = g.output(x)
        with g.inserting_before(out):
            a = g.call_function(operator.add, (x, 1))
        with g.inserting_after(x):
            b = g.call_function(operator.mul, (x, 2))
            c = g.call_function(operator.mul, (b, 3))
        with g.inserting_before():
            d = g.placeholder("first")
        with g.inserting_after():
            e = g.call_function(operator.neg, (x,))
        g.call_function(operator.pos, (a,))
        a.prepend(c)
        x.append(d)
        rows[name] = ([n.name for n in g.nodes], str(e.prev), str(e.next))
    assert rows["ember"] == rows["torch"]


def test_copies():
    for lib in LIBS.values():
        g = build(lib)
        clone = copy.deepcopy(g)
        assert str(clone) == str(g)
        assert all(a is not b for a, b in zip(clone.nodes, g.nodes))
        other = lib.fx.Graph()
        z = other.placeholder("z")
        val_map = {next(iter(g.nodes)): z}
        value = other.graph_copy(g, val_map)
        other.output(value)
        assert [n.name for n in other.nodes][:2] == ["z", "y"]
    t, e = torch.fx.Graph(), ember.fx.Graph()
    for g, src in ((t, build(torch)), (e, build(ember))):
        val_map = {}
        for node in src.nodes:
            val_map[node] = g.node_copy(node, val_map.__getitem__)
            val_map[node].meta["seen"] = 1
    same_text(str(t), str(e))


def test_eliminate_dead_code():
    rows = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        x = g.placeholder("x")
        unused = g.placeholder("unused")
        a = g.call_function(operator.add, (x, 1))
        g.call_function(operator.mul, (a, 2))           # dead, and makes `a` dead
        g.call_method("add_", (x, 1))                    # a method: dead to fx
        g.call_function(lib.rand, (3,))                  # random: kept
        g.call_function(operator.setitem, (x, 0, 1.0))   # side effect: kept
        g.output(x)
        changed = g.eliminate_dead_code()
        rows[name] = (changed, [n.name for n in g.nodes], g.eliminate_dead_code(),
                      [n.is_impure() for n in g.nodes], unused.name)
    assert rows["ember"] == rows["torch"]


def test_lint_failures():
    messages = {}
    for name, lib in LIBS.items():
        caught = []
        g = lib.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(operator.add, (x, 1))
        b = g.call_function(operator.mul, (a, 2))
        g.output(b)
        g.lint()
        a.append(b)            # already there: nothing changes
        b.prepend(a)
        g.lint()
        x.append(b)            # now b reads a before a is defined
        with pytest.raises(RuntimeError) as info:
            g.lint()
        caught.append(str(info.value).split("\n")[0])
        g2 = lib.fx.Graph()
        y = g2.placeholder("y")
        g2.output(g2.call_module("nothere", (y,)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gm = lib.fx.GraphModule({"nothere": lib.nn.ReLU()}, g2)
        del gm._modules["nothere"]
        with pytest.raises(RuntimeError) as info:
            gm.graph.lint()
        caught.append(str(info.value))
        g3 = lib.fx.Graph()
        foreign = g.placeholder("foreign")
        g3.output(g3.call_function(operator.neg, (foreign,)))
        with pytest.raises(RuntimeError) as info:
            g3.lint()
        caught.append(str(info.value).split("\n")[0])
        messages[name] = caught
    assert messages["ember"] == messages["torch"]


def test_bad_op_and_target():
    results = {}
    for name, lib in LIBS.items():
        g = lib.fx.Graph()
        caught = []
        with pytest.raises(AssertionError) as info:
            g.create_node("bogus", "x")
        caught.append(str(info.value))
        with pytest.raises(Exception) as info:
            g.create_node("call_function", "notcallable")
        caught.append(type(info.value).__name__)
        results[name] = caught
    assert results["ember"] == results["torch"]


def test_print_tabular_without_tabulate(capsys):
    # Without tabulate (the usual case here) both refuse with the same words; with it, both print.
    printed = {}
    for name, lib in LIBS.items():
        g = build(lib)
        try:
            import tabulate  # noqa: F401
            have = True
        except ImportError:
            have = False
        if have:
            g.print_tabular()
            printed[name] = capsys.readouterr().out
            continue
        with pytest.raises(ImportError):
            g.print_tabular()
        printed[name] = capsys.readouterr().out
    same_text(printed["torch"], printed["ember"])


def test_map_arg():
    for lib in LIBS.values():
        g = lib.fx.Graph()
        x, y = g.placeholder("x"), g.placeholder("y")
        structure = (x, [y, 1, {"k": x}], slice(x, None), "s")
        mapped = lib.fx.node.map_arg(structure, lambda n: n.name)
        assert mapped == ("x", ["y", 1, {"k": "x"}], slice("x", None), "s")
        assert type(mapped[1]).__name__ == "immutable_list"
    assert node_rows(build(ember))[0][0] == "placeholder"


def test_print_readable_and_str():
    texts = {}
    for name, lib in LIBS.items():
        gm = lib.fx.GraphModule(root(lib), build(lib), "M")
        texts[name] = (gm.print_readable(print_output=False), str(gm))
    same_text(texts["torch"][0].replace("torch.nn.Module", "ember.nn.Module"), texts["ember"][0])
    same_text(texts["torch"][1], texts["ember"][1])


def test_fx_reachable_as_attribute():
    import subprocess
    import sys
    code = ("import {0}; print(hasattr({0}, 'fx') and hasattr({0}.fx, 'GraphModule'))")
    out = [subprocess.run([sys.executable, "-c", code.format(lib)], capture_output=True,
                          text=True, check=False).stdout.strip() for lib in ("torch", "ember")]
    assert out[0] == out[1] == "True"
