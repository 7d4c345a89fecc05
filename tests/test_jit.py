# ruff: noqa: UP045 (typing.Optional is what TorchScript users write)
"""ember.jit's eager front against torch.jit: what model code calls (is_scripting, is_tracing,
annotate, ignore, unused, export, isinstance, fork/wait) behaves as in PyTorch, script/trace
give callables with the same results and state_dict keys, freeze's checks raise PyTorch's
errors, and what needs TorchScript's archive format raises NotImplementedError."""
import typing

import numpy as np
import pytest
import torch

import ember


def _model(T):
    class Block(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = T.nn.Linear(4, 3)
            self.scale: typing.Final[float] = 2.0

        def forward(self, x):
            y = T.jit.annotate(list[T.Tensor], [])
            y.append(self.fc(x) * self.scale)
            if not T.jit.is_scripting():
                y.append(self.helper(x))
            return y[0] + y[-1].sum()

        @T.jit.ignore
        def helper(self, x):
            return x.sum(1, keepdim=True)

        @T.jit.unused
        def unused_method(self, x):
            return x

        @T.jit.export
        def extra(self, x):
            return self.fc(x).relu()

    T.manual_seed(0)
    return Block()


@pytest.mark.parametrize("how", ["script", "trace"])
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_scripted_module_runs_as_the_module(how):
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    outputs, keys, kinds = [], [], []
    for T in (torch, ember):
        model = _model(T)
        compiled = T.jit.script(model) if how == "script" else \
            T.jit.trace(model, (T.tensor(x),))
        outputs.append(compiled(T.tensor(x)).detach().numpy())
        keys.append(list(compiled.state_dict()))
        kinds.append((isinstance(compiled, T.jit.ScriptModule),
                      isinstance(compiled, T.nn.Module), compiled.fc.weight is model.fc.weight,
                      compiled.training))
    np.testing.assert_allclose(outputs[1], outputs[0], rtol=1e-6)
    assert keys[1] == keys[0]
    assert kinds[1] == kinds[0]


def test_script_and_trace_functions():
    def twice(x):
        return x * 2

    results = []
    for T in (torch, ember):
        seen = []

        def spy(x, T=T, seen=seen):
            seen.append((T.jit.is_tracing(), T.jit.is_scripting()))
            return x + 1

        with pytest.warns(DeprecationWarning, match="torch.jit.trace"):
            traced = T.jit.trace(spy, (T.ones(2),))
        after = (T.jit.is_tracing(), T.jit.is_scripting())
        with pytest.warns(DeprecationWarning, match="torch.jit.script"):
            scripted = T.jit.script(twice)
        results.append((seen[0], after, traced(T.ones(3)).tolist(), scripted(T.ones(2)).tolist(),
                        scripted.name, callable(traced)))
    assert results[1] == results[0]


@pytest.mark.parametrize("value, kind", [
    ([1, 2], list[int]), ([1, "a"], list[int]), ({"a": 1}, dict[str, int]),
    ({"a": "b"}, dict[str, int]), ((1, 2.0), tuple[int, float]),
    ((1, 2), tuple[int, float]), (None, typing.Optional[int]), (3, typing.Optional[int]),
    ("x", typing.Optional[int]), (3, int), ([], list[str]),
])
def test_isinstance_matches_torch(value, kind):
    assert ember.jit.isinstance(value, kind) == torch.jit.isinstance(value, kind)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore:Only works in script mode")
def test_fork_wait_annotate_attribute():
    for T in (torch, ember):
        future = T.jit.fork(lambda a, b: a * b, 3, b=4)
        assert T.jit.wait(future) == 12 and future.wait() == 12
        assert T.jit.annotate(int, 5) == 5
    assert ember.jit.Attribute(3, int) == 3 and ember.jit.Final is torch.jit.Final


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore:Only works in script mode")
def test_freeze_checks_as_torch():
    for T in (torch, ember):
        plain = T.nn.Linear(2, 2)
        with pytest.raises(RuntimeError, match="expects a ScriptModule"):
            T.jit.freeze(plain)
        with pytest.raises(RuntimeError, match="expects a ScriptModule"):
            T.jit.optimize_for_inference(plain)
        scripted = T.jit.script(plain)
        with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
            T.jit.freeze(scripted)
        frozen = T.jit.freeze(scripted.eval())
        assert frozen(T.ones(1, 2)).shape == (1, 2)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore:Only works in script mode")
def test_archive_format_is_refused_clearly(tmp_path):
    scripted = ember.jit.script(ember.nn.Linear(2, 2))
    for call in (lambda: ember.jit.save(scripted, tmp_path / "m.pt"),
                 lambda: scripted.save(str(tmp_path / "m.pt")),
                 lambda: ember.jit.load(tmp_path / "m.pt"), lambda: scripted.code,
                 lambda: ember.jit.CompilationUnit()):
        with pytest.raises(NotImplementedError, match="state_dict"):
            call()
    assert not (tmp_path / "m.pt").exists()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore:Only works in script mode")
def test_fusion_switches_store_values():
    for T in (torch, ember):
        previous = T.jit.set_fusion_strategy([("DYNAMIC", 3)])
        assert T.jit.set_fusion_strategy(previous) == [("DYNAMIC", 3)]
        assert T.jit.onednn_fusion_enabled() is False
        with T.jit.strict_fusion():
            pass


def test_onnx_front_answers_and_refuses(tmp_path):
    assert ember.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    assert issubclass(ember.onnx.OnnxExporterError, RuntimeError)
    with pytest.raises(ember.onnx.OnnxExporterError, match="cannot export to ONNX"):
        ember.onnx.export(ember.nn.Linear(2, 2), (ember.ones(1, 2),), str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()
