"""`ember.compile`'s front against PyTorch's: what a program can observe of a compiled module or
function, and the argument errors (capture itself: tests/dynamo/)."""
import pytest
import torch

import ember


def _both(build):
    return build(torch), build(ember)


def test_compiled_module_is_an_optimized_module_around_the_original():
    for lib in (torch, ember):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU())
        compiled = lib.compile(model)
        assert type(compiled).__name__ == "OptimizedModule"
        assert compiled._orig_mod is model
        assert compiled.get_submodule("_orig_mod.0") is model[0] and compiled.training
        compiled.eval()
        assert not model.training
    theirs, ours = _both(lambda lib: lib.compile(lib.nn.Linear(2, 3)))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.in_features == theirs.in_features == 2
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]


def test_compiled_module_computes_what_the_original_does():
    torch.manual_seed(0)
    ember.manual_seed(0)
    theirs, ours = _both(lambda lib: lib.nn.Linear(5, 2))
    x = torch.randn(4, 5)
    out_t = torch.compile(theirs)(x)
    out_e = ember.compile(ours)(ember.tensor(x.numpy()))
    assert out_e.detach().numpy() == pytest.approx(out_t.detach().numpy(), rel=1e-6)
    out_e.sum().backward()
    out_t.sum().backward()
    assert ours.weight.grad.numpy() == pytest.approx(theirs.weight.grad.numpy(), rel=1e-6)


def test_compiled_function_keeps_its_name_and_runs():
    for lib in (torch, ember):
        def double(x):
            """twice x"""
            return x * 2
        compiled = lib.compile(double)
        assert compiled.__name__ == "double" and compiled.__doc__ == "twice x"
        assert compiled.__wrapped__ is double
        assert compiled(lib.tensor(3.0)).item() == 6.0
        decorated = lib.compile(mode="reduce-overhead")(double)
        assert decorated(lib.tensor(1.0)).item() == 2.0
        assert lib.compile(double, disable=True) is double
        model = lib.nn.Linear(1, 1)
        assert lib.compile(model, disable=True) is model
        assert model.compile(mode="max-autotune") is None


@pytest.mark.parametrize("kwargs", [
    {"mode": "fast"}, {"mode": "default", "options": {}}, {"backend": "nope"},
])
def test_bad_arguments_raise_what_pytorch_raises(kwargs):
    def f(x):
        return x
    with pytest.raises(Exception) as theirs:
        torch.compile(f, **kwargs)
    with pytest.raises(Exception) as ours:
        ember.compile(f, **kwargs)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    assert isinstance(ours.value, RuntimeError) == isinstance(theirs.value, RuntimeError)
    assert str(ours.value) == str(theirs.value)


def test_not_callable_is_an_assertion_error():
    with pytest.raises(AssertionError, match="A callable function is expected"):
        torch.compile(3)
    with pytest.raises(AssertionError, match="A callable function is expected"):
        ember.compile(3)


def test_compiler_namespace():
    assert ember.compiler.is_compiling() is torch.compiler.is_compiling() is False
    assert ember._dynamo.list_backends() == torch._dynamo.list_backends()
    def f():
        return 1
    for lib in (torch, ember):
        disabled = lib.compiler.disable(f)
        assert disabled is not f and disabled.__wrapped__ is f and disabled() == 1
        assert lib.compiler.disable()(f).__wrapped__ is f
    assert ember._dynamo.reset() is None
