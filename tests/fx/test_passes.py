"""Interpreter, Transformer, subgraph_rewriter.replace_pattern and ShapeProp against torch.fx:
the same GraphModules run, transformed, rewritten and shape-propagated in both libraries."""
from __future__ import annotations

import operator

import pytest
import torch
import torch.fx
import torch.fx.passes.shape_prop

import ember
import ember.fx
import ember.fx.passes.shape_prop
from fx.fx_compare import (
    LIBS,
    canonical_calls,
    copy_weights,
    inputs,
    node_rows,
    same_text,
    same_values,
)


def small_model(lib):
    nn = lib.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 4)
            self.conv = nn.Conv2d(2, 2, 1)

        def forward(self, x, img, scale=1.0):
            h = lib.sigmoid(self.lin(x)) + x.relu().sum(dim=1, keepdim=True) * scale
            return lib.sigmoid(h).t(), self.conv(img), h.shape

    return Model()


def traced_models():
    traced = {}
    for name, lib in LIBS.items():
        root = small_model(lib)
        traced[name] = (root, lib.fx.symbolic_trace(root))
    copy_weights(traced["torch"][0], traced["ember"][0])
    copy_weights(traced["torch"][1], traced["ember"][1])
    return traced


def model_inputs():
    return inputs((2, 3), (1, 2, 3, 3))


def test_interpreter_runs_like_the_module():
    traced = traced_models()
    t_in, e_in = model_inputs()
    t_out = torch.fx.Interpreter(traced["torch"][1]).run(*t_in)
    e_out = ember.fx.Interpreter(traced["ember"][1]).run(*e_in)
    same_values(t_out, e_out, rtol=1e-5, atol=1e-6)
    same_values(e_out, traced["ember"][1](*e_in))
    same_values(ember.fx.Interpreter(traced["ember"][1]).run(*e_in, 2.0),
                traced["ember"][1](*e_in, 2.0))


def test_interpreter_env_and_garbage_collection():
    traced = traced_models()
    t_in, e_in = model_inputs()
    envs = {}
    for name, args in (("torch", t_in), ("ember", e_in)):
        lib = LIBS[name]
        kept = lib.fx.Interpreter(traced[name][1], garbage_collect_values=False)
        kept.run(*args)
        dropped = lib.fx.Interpreter(traced[name][1])
        dropped.run(*args)
        envs[name] = (sorted(n.name for n in kept.env), sorted(n.name for n in dropped.env),
                      {k.name: sorted(v.name for v in vs)
                       for k, vs in dropped.user_to_last_uses.items()})
    assert envs["ember"] == envs["torch"]


def test_interpreter_boxed_run_and_initial_env():
    traced = traced_models()
    t_in, e_in = model_inputs()
    results = {}
    for name, args in (("torch", t_in), ("ember", e_in)):
        lib = LIBS[name]
        gm = traced[name][1]
        boxed = [*args, 2.0]
        out = lib.fx.Interpreter(gm).boxed_run(boxed)
        with pytest.raises(RuntimeError) as info:
            lib.fx.Interpreter(gm).boxed_run(list(args))
        assert "expected 3 arguments for placeholders but received 2" in str(info.value)
        nodes = {n.name: n for n in gm.graph.nodes}
        relu_value = args[0].relu() * 0 + 5
        seeded = lib.fx.Interpreter(gm).run(*args, initial_env={nodes["relu"]: relu_value})
        results[name] = (boxed, out, seeded)
    assert results["ember"][0] == [] == results["torch"][0]
    same_values(results["torch"][1:], results["ember"][1:], rtol=1e-5, atol=1e-6)


def test_interpreter_overrides_see_every_node():
    traced = traced_models()
    t_in, e_in = model_inputs()
    logs = {}
    for name, args in (("torch", t_in), ("ember", e_in)):
        lib = LIBS[name]
        interpreter = _logging_interpreter(lib)(traced[name][1])
        out = interpreter.run(*args)
        logs[name] = (interpreter.log, out)
    assert logs["ember"][0] == logs["torch"][0]
    same_values(logs["torch"][1], logs["ember"][1], rtol=1e-5, atol=1e-6)


def _logging_interpreter(lib):
    class Logging(lib.fx.Interpreter):
        def __init__(self, module):
            super().__init__(module)
            self.log = []

        def run_node(self, n):
            self.log.append((n.op, n.name))
            return super().run_node(n)

        def call_function(self, target, args, kwargs):
            if target is lib.sigmoid:
                return lib.tanh(*args, **kwargs)
            return super().call_function(target, args, kwargs)

    return Logging


def test_interpreter_errors():
    messages = {}
    for name, lib in LIBS.items():
        caught = []
        gm = lib.fx.symbolic_trace(lambda x: x.view(5))
        with pytest.raises(RuntimeError) as info:
            lib.fx.Interpreter(gm).run()
        caught.append(str(info.value).split("\nOriginal traceback:")[0])
        with pytest.raises(RuntimeError) as info:
            lib.fx.Interpreter(gm).run(lib.ones(3))
        caught.append(str(info.value).split("\nOriginal traceback:")[0])
        interp = lib.fx.Interpreter(gm)
        with pytest.raises(RuntimeError) as info:
            interp.fetch_attr("nothere.w")
        caught.append(str(info.value))
        output = gm.graph.output_node()
        with pytest.raises(RuntimeError) as info:
            interp.map_nodes_to_values(output.args, output)
        caught.append(str(info.value))
        messages[name] = caught
    assert messages["ember"] == messages["torch"]


def _swapper(lib):
    class Swap(lib.fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is lib.sigmoid:
                return lib.neg(*args, **kwargs)
            return super().call_function(target, args, kwargs)

        def call_method(self, target, args, kwargs):
            if target == "relu":
                return args[0].abs()
            return super().call_method(target, args, kwargs)

    return Swap


def test_transformer_builds_a_new_graph_module():
    traced = traced_models()
    new = {}
    for name, lib in LIBS.items():
        gm = traced[name][1]
        before = gm.code
        new[name] = _swapper(lib)(gm).transform()
        assert gm.code == before
        canonical_calls(new[name])
    assert type(new["ember"]).__name__ == type(new["torch"]).__name__
    assert node_rows(new["ember"].graph) == node_rows(new["torch"].graph)
    same_text(new["torch"].code, new["ember"].code)
    t_in, e_in = model_inputs()
    same_values(new["torch"](*t_in), new["ember"](*e_in), rtol=1e-5, atol=1e-6)
    assert new["ember"].lin is traced["ember"][1].lin


def test_identity_transformer_keeps_the_program():
    traced = traced_models()
    t_in, e_in = model_inputs()
    copies = {name: LIBS[name].fx.Transformer(traced[name][1]).transform() for name in LIBS}
    for gm in copies.values():
        canonical_calls(gm)
    same_text(copies["torch"].code, copies["ember"].code)
    same_values(copies["torch"](*t_in), copies["ember"](*e_in), rtol=1e-5, atol=1e-6)


def _rewrite_case(lib, pattern_kind):
    def program(x, y):
        a = lib.sigmoid(x) * y
        b = lib.sigmoid(a) * a
        c = lib.sigmoid(y).relu() * lib.sigmoid(b)
        return c + b.sum(), lib.sigmoid(x) * 3

    if pattern_kind == "unary":
        def pattern(x):
            return lib.sigmoid(x)

        def replacement(x):
            return lib.tanh(x) * 0.5 + 0.5
    elif pattern_kind == "binary":
        def pattern(x, y):
            return lib.sigmoid(x) * y

        def replacement(x, y):
            return lib.mul(lib.tanh(x), y)
    else:                       # a pattern whose inside is used elsewhere: no match there
        def pattern(x):
            s = lib.sigmoid(x)
            return s.relu()

        def replacement(x):
            return x.neg()
    return program, pattern, replacement


@pytest.mark.parametrize("pattern_kind", ["unary", "binary", "contained"])
def test_replace_pattern(pattern_kind):
    results = {}
    for name, lib in LIBS.items():
        program, pattern, replacement = _rewrite_case(lib, pattern_kind)
        gm = lib.fx.symbolic_trace(program)
        matches = lib.fx.subgraph_rewriter.replace_pattern(gm, pattern, replacement)
        canonical_calls(gm)
        results[name] = (gm, [(m.anchor.name, sorted((p.name, str(g))
                                                     for p, g in m.nodes_map.items()))
                              for m in matches])
    assert results["ember"][1] == results["torch"][1]
    assert node_rows(results["ember"][0].graph) == node_rows(results["torch"][0].graph)
    same_text(results["torch"][0].code, results["ember"][0].code)
    t_in, e_in = inputs((2, 3), (2, 3))
    same_values(results["torch"][0](*t_in), results["ember"][0](*e_in), rtol=1e-5, atol=1e-6)
    assert type(ember.fx.replace_pattern(ember.fx.symbolic_trace(lambda x: x), lambda x: x.relu(),
                                         lambda x: x)) is list


def test_replace_pattern_with_graph_modules_and_literals():
    results = {}
    for name, lib in LIBS.items():
        def program(x):
            return x.add(1).add(2), x + 1
        def pattern(x):
            return x.add(1)
        def replacement(x):
            return x.sub(-1)
        gm = lib.fx.symbolic_trace(program)
        matches = lib.fx.replace_pattern(gm, lib.fx.symbolic_trace(pattern),
                                         lib.fx.symbolic_trace(replacement))
        results[name] = (len(matches), [n.name for n in gm.graph.nodes], gm.code)
    assert results["ember"][:2] == results["torch"][:2]
    same_text(results["torch"][2], results["ember"][2])


def test_shape_prop_metadata():
    traced = traced_models()
    t_in, e_in = model_inputs()
    metas = {}
    for name, args in (("torch", t_in), ("ember", e_in)):
        module = torch.fx.passes.shape_prop if name == "torch" else ember.fx.passes.shape_prop
        gm = traced[name][1]
        result = module.ShapeProp(gm).propagate(*args)
        rows = []
        for node in gm.graph.nodes:
            rows.append((node.name, _meta_text(node.meta.get("tensor_meta")),
                         node.meta.get("type").__name__ if "type" in node.meta else None))
        metas[name] = (rows, result)
    assert metas["ember"][0] == metas["torch"][0]
    same_values(metas["torch"][1], metas["ember"][1], rtol=1e-5, atol=1e-6)


def test_shape_prop_strides_and_layouts():
    metas = {}
    for name, lib in LIBS.items():
        gm = lib.fx.symbolic_trace(_layouts_program(lib))
        x = lib.arange(2 * 3 * 4 * 5, dtype=lib.float32).reshape(2, 3, 4, 5).requires_grad_()
        module = torch.fx.passes.shape_prop if lib is torch else ember.fx.passes.shape_prop
        module.ShapeProp(gm).propagate(x)
        metas[name] = [(n.name, _meta_text(n.meta.get("tensor_meta"))) for n in gm.graph.nodes]
    assert metas["ember"] == metas["torch"]


def _layouts_program(lib):
    def program(x):
        return x.permute(0, 2, 3, 1), x.contiguous(memory_format=lib.channels_last), \
            x.transpose(1, 2), x[:, :, ::2], x.unsqueeze(0).to(lib.float64)
    return program


def test_tensor_metadata_fields():
    fields = {name: module.TensorMetadata._fields
              for name, module in (("torch", torch.fx.passes.shape_prop),
                                   ("ember", ember.fx.passes.shape_prop))}
    assert fields["ember"] == fields["torch"]


def _meta_text(meta):
    if meta is None:
        return None
    if isinstance(meta, (tuple, list)) and not hasattr(meta, "_fields"):
        return [_meta_text(m) for m in meta]
    if isinstance(meta, dict):
        return {k: _meta_text(v) for k, v in meta.items()}
    if not hasattr(meta, "_fields"):
        return repr(meta)
    return (tuple(meta.shape), str(meta.dtype).split(".")[-1], meta.requires_grad,
            tuple(meta.stride), str(meta.memory_format).split(".")[-1], meta.is_quantized,
            meta.qparams)


def test_interpreter_on_a_hand_built_graph_with_varargs():
    results = {}
    for name, lib in LIBS.items():
        def program(x, *rest):
            return x + rest[0] + rest[1]
        gm = lib.fx.symbolic_trace(program)
        results[name] = lib.fx.Interpreter(gm).run(lib.ones(2), lib.ones(2), lib.ones(2))
        assert [n.op for n in gm.graph.nodes].count("placeholder") == 2
    same_values(results["torch"], results["ember"])
    assert operator.add in [n.target for n in gm.graph.nodes]
