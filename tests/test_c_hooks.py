"""The private `torch._C` hooks libraries call answer as PyTorch's do on a CPU-only machine
(the oracle is asked the same question in the same order)."""
import pytest
import torch

import ember
from ember import _C as ours

theirs = torch._C


def _both(name, *args):
    return getattr(ours, name)(*args), getattr(theirs, name)(*args)


@pytest.mark.parametrize("name,args", [
    ("_log_api_usage_once", ("torchmetrics.metric",)),
    ("_get_tracing_state", ()),
    ("_get_cudnn_enabled", ()),
    ("_get_mkldnn_enabled", ()),
    ("_are_functorch_transforms_active", ()),
    ("_jit_can_fuse_on_gpu", ()),
    ("_jit_texpr_fuser_enabled", ()),
    ("_jit_can_fuse_on_cpu", ()),
    ("_get_deterministic_algorithms", ()),
    ("_get_warnAlways", ()),
])
def test_queries_answer_as_pytorch(name, args):
    mine, oracle = _both(name, *args)
    assert mine == oracle and type(mine) is type(oracle)


def test_log_api_usage_refuses_a_non_string():
    with pytest.raises(TypeError):
        theirs._log_api_usage_once(3)
    with pytest.raises(TypeError):
        ours._log_api_usage_once(3)


@pytest.mark.parametrize("name,query", [
    ("_set_grad_enabled", "is_grad_enabled"),
    ("_set_cudnn_enabled", "_get_cudnn_enabled"),
    ("_set_mkldnn_enabled", "_get_mkldnn_enabled"),
    ("_set_warnAlways", "_get_warnAlways"),
])
def test_setters_set_what_the_query_reads(name, query):
    before = _both(query)
    try:
        for value in (False, True, False):
            assert _both(name, value) == (None, None)
            assert _both(query) == (value, value)
    finally:
        getattr(ours, name)(before[0])
        getattr(theirs, name)(before[1])


def test_set_grad_enabled_is_the_grad_mode():
    ours._set_grad_enabled(False)
    try:
        assert not ember.is_grad_enabled()
        assert not (ember.ones(2, requires_grad=True) * 2).requires_grad
    finally:
        ours._set_grad_enabled(True)
    assert ember.is_grad_enabled()


def test_nvfuser_switches_do_nothing():
    for name in ("_jit_set_nvfuser_enabled", "_jit_set_nvfuser_guard_mode"):
        assert _both(name, True) == (None, None)


def test_cuda_internals_are_absent_as_on_a_cpu_build():
    for name in ("_cuda_isInBadFork", "_cuda_getDeviceCount"):
        assert hasattr(ours, name) == hasattr(theirs, name)


@pytest.mark.parametrize("name", ["_jit_set_profiling_mode", "_jit_set_profiling_executor"])
def test_jit_switches_return_the_previous_value(name):
    first = _both(name, False)
    try:
        assert _both(name, True) == (False, False)
        assert type(first[0]) is type(first[1])
    finally:
        getattr(ours, name)(first[0])
        getattr(theirs, name)(first[1])


def test_jit_fuser_overrides():
    for name, query in [("_jit_override_can_fuse_on_cpu", "_jit_can_fuse_on_cpu"),
                        ("_jit_override_can_fuse_on_gpu", "_jit_can_fuse_on_gpu")]:
        before = _both(query)
        _both(name, False)
        assert _both(query) == (False, False)
        getattr(ours, name)(before[0])
        getattr(theirs, name)(before[1])


def test_functorch_transform_is_seen():
    seen = []

    def f(x):
        seen.append(ours._are_functorch_transforms_active())
        return (x * x).sum()

    ember.func.grad(f)(ember.ones(2))
    seen_torch = []

    def g(x):
        seen_torch.append(theirs._are_functorch_transforms_active())
        return (x * x).sum()

    torch.func.grad(g)(torch.ones(2))
    assert seen == seen_torch == [True]


def test_parse_to():
    def convert(module, value):
        return getattr(module, value) if value in ("float64", "float16") else value

    for args, kwargs in [(("cpu",), {}), ((), {"dtype": "float64"}), (("cpu", "float16"), {}),
                         ((), {"device": "cpu", "non_blocking": True})]:
        mine = ours._nn._parse_to(*[convert(ember, a) for a in args],
                                  **{k: convert(ember, v) for k, v in kwargs.items()})
        oracle = theirs._nn._parse_to(*[convert(torch, a) for a in args],
                                      **{k: convert(torch, v) for k, v in kwargs.items()})
        assert str(mine).replace("ember", "torch") == str(oracle)


def test_classes_and_missing_names():
    assert ours.TensorBase is ember.Tensor and isinstance(ember.ones(1), ours.TensorBase)
    assert ours.Generator is ember.Generator
    assert ours._has_torch_function((ember.ones(1),)) is False
    with pytest.raises(AttributeError):
        ours.definitely_not_there  # noqa: B018
