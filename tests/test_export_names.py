"""`ember.export` against `torch.export`: the same module (same weights) exported by both gives
the same graph signature, and `ep.module()` the same outputs; inputs that differ from the
examples are refused by both; save/load round-trips; the dynamic-shape objects behave alike
(ember specializes every size: NOTE [export specializes sizes])."""
from __future__ import annotations

import io

import numpy as np
import pytest
import torch

import ember


def _model(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 4)
            self.bn = lib.nn.BatchNorm1d(4)
            self.register_buffer("offset", lib.ones(4))
            self.register_buffer("scratch", lib.zeros(4), persistent=False)

        def forward(self, x, y=None, scale=2.0):
            out = lib.relu(self.bn(self.lin(x))) + self.offset
            if y is not None:
                out = out + y.sum()
            return out * scale, out.mean(dim=0)
    return Block()


def _pair():
    ours, theirs = _model(ember), _model(torch)
    state = {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in
             theirs.state_dict().items()}
    ours.load_state_dict(state)
    return ours, theirs


def _inputs(lib, batch=5, seed=0):
    rng = np.random.default_rng(seed)
    return (lib.from_numpy(rng.standard_normal((batch, 3)).astype(np.float32)),
            lib.from_numpy(rng.standard_normal(2).astype(np.float32)))


def _close(a, b):
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("mode", ["train", "eval"])
def test_exported_module_matches_torch(mode):
    ours, theirs = _pair()
    getattr(ours, mode)()
    getattr(theirs, mode)()
    x_e, y_e = _inputs(ember)
    x_t, y_t = _inputs(torch)
    ep_e = ember.export.export(ours, (x_e,), {"y": y_e, "scale": 3.0})
    ep_t = torch.export.export(theirs, (x_t,), {"y": y_t, "scale": 3.0})
    sig_e, sig_t = ep_e.graph_signature, ep_t.graph_signature
    assert sig_e.parameters == sig_t.parameters
    assert sig_e.buffers == sig_t.buffers
    assert sig_e.non_persistent_buffers == sig_t.non_persistent_buffers
    assert sig_e.user_inputs == sig_t.user_inputs
    assert [(s.kind.name, s.target, s.persistent) for s in sig_e.input_specs] == \
        [(s.kind.name, s.target, s.persistent) for s in sig_t.input_specs]
    assert list(ep_e.state_dict) == list(ep_t.state_dict)
    assert len(sig_e.user_outputs) == len(sig_t.user_outputs) == 2
    x2_e, y2_e = _inputs(ember, seed=1)
    x2_t, y2_t = _inputs(torch, seed=1)
    _close(ep_e.module()(x2_e, y=y2_e, scale=3.0), ep_t.module()(x2_t, y=y2_t, scale=3.0))
    if mode == "eval":
        _close(ep_e.module()(x2_e, y=y2_e, scale=3.0), ours(x2_e, y=y2_e, scale=3.0))


def test_inputs_unlike_the_examples_are_refused():
    ours, theirs = _pair()
    for lib, model in ((ember, ours), (torch, theirs)):
        x, y = _inputs(lib)
        ep = lib.export.export(model, (x,), {"y": y})
        with pytest.raises(AssertionError, match=r"Guard failed: x.size\(\)\[0\] == 5"):
            ep.module()(_inputs(lib, batch=6)[0], y=y)          # another size
        with pytest.raises((RuntimeError, ValueError)):
            ep.module()(x)                                       # another structure
        with pytest.raises(RuntimeError, match="Unable to call ExportedProgram directly"):
            ep(x, y=y)


def test_export_argument_errors():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="Expected `mod` to be an instance of"):
            lib.export.export(lambda x: x, (lib.ones(1),))
        with pytest.raises(Exception, match="Expecting `args` to be a tuple"):
            lib.export.export(lib.nn.ReLU(), [lib.ones(1)])


def test_dynamic_sizes_are_refused_by_ember():
    model = ember.nn.Linear(3, 2)
    batch = ember.export.Dim("batch")
    with pytest.raises(NotImplementedError, match="dynamic sizes"):
        ember.export.export(model, (ember.ones(4, 3),), dynamic_shapes=({0: batch},))
    ep = ember.export.export(model, (ember.ones(4, 3),), dynamic_shapes=({0: None},))
    assert ep.module()(ember.ones(4, 3)).shape == (4, 2)


def test_save_load_round_trip(tmp_path):
    ours, _ = _pair()
    ours.eval()
    x, y = _inputs(ember)
    ep = ember.export.export(ours, (x,), {"y": y})
    for target in (io.BytesIO(), tmp_path / "program.pt2"):
        extra = {"note": "hello"}
        ember.export.save(ep, target, extra_files=extra)
        if isinstance(target, io.BytesIO):
            target.seek(0)
        read_extra = {}
        loaded = ember.export.load(target, extra_files=read_extra)
        assert read_extra == extra
        _close(loaded.module()(x, y=y), ep.module()(x, y=y))
        assert str(loaded.graph_signature) == str(ep.graph_signature)
    with pytest.raises(TypeError):
        ember.export.save(ours, io.BytesIO())


def test_unflatten_and_run_decompositions():
    ours, theirs = _pair()
    ours.eval()
    theirs.eval()
    x, y = _inputs(ember)
    ep = ember.export.export(ours, (x,), {"y": y})
    flat = ember.export.unflatten(ep)
    assert sorted(n for n, _ in flat.named_parameters()) == \
        sorted(n for n, _ in torch.export.unflatten(
            torch.export.export(theirs, _inputs(torch)[:1], {"y": _inputs(torch)[1]}))
            .named_parameters())
    _close(flat(x, y=y), ep.module()(x, y=y))
    again = ep.run_decompositions(ember.export.default_decompositions())
    _close(again.module()(x, y=y), ep.module()(x, y=y))
    assert isinstance(again, ember.export.ExportedProgram)


def test_is_exporting_during_export():
    seen = {}
    for lib in (ember, torch):
        class Probe(lib.nn.Module):
            def forward(self, x, lib=lib):
                seen[lib.__name__] = lib.compiler.is_exporting()
                return x + 1
        lib.export.export(Probe(), (lib.ones(2),))
        assert not lib.compiler.is_exporting()
    assert seen == {"ember": True, "torch": True}


def test_dim_objects():
    for lib in (ember, torch):
        d = lib.export.Dim("batch", min=2, max=64)
        assert (d.__name__, d.min, d.max) == ("batch", 2, 64)
        a, b = lib.export.dims("a", "b", max=8)
        assert (a.__name__, b.__name__, a.max) == ("a", "b", 8)
        with pytest.raises((AssertionError, ValueError)):
            lib.export.Dim("bad", min=5, max=2)
        assert len({repr(h) for h in (lib.export.Dim.AUTO, lib.export.Dim.STATIC,
                                      lib.export.Dim.DYNAMIC)}) == 3
        shapes = lib.export.ShapesCollection()
        t = lib.ones(2, 3)
        shapes[t] = (d, None)
        assert shapes[t] == (d, None)
    assert len(ember.export.default_decompositions()) == 0 or \
        isinstance(ember.export.default_decompositions(), dict)


def test_register_dataclass_inputs():
    import dataclasses

    for lib in (ember, torch):
        @dataclasses.dataclass
        class Pair:
            a: object
            b: object
        lib.export.register_dataclass(Pair)

        class Add(lib.nn.Module):
            def forward(self, p):
                return p.a + p.b
        ep = lib.export.export(Add(), (Pair(lib.ones(2), lib.ones(2)),))
        assert ep.module()(Pair(lib.ones(2), 2 * lib.ones(2))).tolist() == [3.0, 3.0]
