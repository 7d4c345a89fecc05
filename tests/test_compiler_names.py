"""`ember.compiler` against `torch.compiler`: the default backend and the stance around
`compile`, config defaults, guard filters on the same entries, and the eager behaviour of the
region / substitution / NumPy wrappers."""
from __future__ import annotations

import types
import warnings

import numpy as np
import pytest
import torch

import ember


def test_config_defaults_match():
    for name in ("job_id", "pgo_extra_read_key", "pgo_extra_write_key", "cache_key_tag",
                 "force_disable_caches", "dynamic_sources", "dynamic_values",
                 "unbacked_sources", "force_cudagraph_gc"):
        assert getattr(ember.compiler.config, name) == getattr(torch.compiler.config, name), name
    assert ember.compiler.config.recompile_limit == torch.compiler.config.recompile_limit
    old = ember.compiler.config.recompile_limit
    ember.compiler.config.recompile_limit = 3
    try:
        assert ember._dynamo.config.recompile_limit == 3
    finally:
        ember.compiler.config.recompile_limit = old


def test_default_backend():
    for lib in (torch, ember):
        assert lib.compiler.get_default_backend() == "inductor"
    calls = []

    def counting(gm, example_inputs):
        calls.append(1)
        return gm.forward
    ember.compiler.set_default_backend(counting)
    try:
        assert ember.compiler.get_default_backend() is counting
        f = ember.compile(lambda x: x.sin() + 1)
        x = ember.arange(4.0)
        assert ember.equal(f(x), x.sin() + 1)
        assert calls                                  # the default backend compiled it
    finally:
        ember.compiler.set_default_backend("inductor")
    for lib in (torch, ember):
        lib.compiler.set_default_backend("no-such-backend")  # looked up when compile runs
        try:
            with pytest.raises(Exception, match="no-such-backend"):
                lib.compile(lambda x: x + 1)(lib.ones(1))
        finally:
            lib.compiler.set_default_backend("inductor")


def test_force_eager_stance():
    calls = []

    def counting(gm, example_inputs):
        calls.append(1)
        return gm.forward
    f = ember.compile(lambda x: x * 2, backend=counting)
    m = ember.compile(ember.nn.Linear(2, 2), backend=counting)
    x = ember.ones(3, 2)
    with ember.compiler.set_stance("force_eager"):
        assert ember.equal(f(ember.arange(3.0)), ember.arange(3.0) * 2)
        m(x)
    assert not calls
    f(ember.arange(3.0))
    m(x)
    assert len(calls) == 2
    assert isinstance(m, ember._dynamo.OptimizedModule)

    @ember.compiler.set_stance("force_eager")
    def run():
        return f(ember.arange(5.0))
    run()
    assert len(calls) == 2
    # an unknown stance is accepted, and refused at the compiled call
    with ember.compiler.set_stance("sideways"), pytest.raises(ValueError, match="Invalid stance"):
        f(ember.arange(3.0))
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="force_backend"):
            lib.compiler.set_stance("force_eager", force_backend="eager")


def _entry(guard_type, value=None, is_global=False, builtin=False, nn_module=False):
    source = types.SimpleNamespace(is_unspecialized_builtin_nn_module=lambda: builtin,
                                   is_unspecialized_nn_module=lambda: nn_module)
    return types.SimpleNamespace(guard_type=guard_type, value=value, is_global=is_global,
                                 orig_guard=types.SimpleNamespace(source=source), name="x",
                                 has_value=value is not None, derived_guard_types=())


@pytest.mark.parametrize("name", [
    "skip_guard_on_inbuilt_nn_modules_unsafe", "skip_guard_on_all_nn_modules_unsafe",
    "keep_tensor_guards_unsafe", "skip_guard_on_globals_unsafe", "skip_all_guards_unsafe",
    "keep_portable_guards_unsafe"])
def test_guard_filters_agree(name):
    def entries(lib):
        return [_entry("TENSOR_MATCH", lib.ones(1)), _entry("TENSOR_MATCH", lib.ones(1),
                                                             is_global=True),
                _entry("TENSOR_MATCH", lib.nn.Parameter(lib.ones(1))),
                _entry("ID_MATCH", builtin=True, nn_module=True), _entry("SHAPE_ENV"),
                _entry("GLOBAL_STATE", is_global=True), _entry("TYPE_MATCH", nn_module=True)]
    assert getattr(ember.compiler, name)(entries(ember)) == \
        getattr(torch.compiler, name)(entries(torch))
    if name == "keep_tensor_guards_unsafe":
        assert ember.compiler.keep_tensor_guards_unsafe(entries(ember), keep_parameters=True) \
            == torch.compiler.keep_tensor_guards_unsafe(entries(torch), keep_parameters=True)


def test_eager_answers_match():
    for call in (lambda c: c.is_exporting(), lambda c: c.is_compiling(),
                 lambda c: c.is_dynamo_compiling(), lambda c: c.cudagraph_mark_step_begin()):
        assert call(ember.compiler) == call(torch.compiler)
    # (PyTorch's answer is bytes once anything was compiled in this process; ember keeps none)
    assert ember.compiler.save_cache_artifacts() is None
    for lib in (torch, ember):
        first = lib.compiler.set_enable_guard_collectives(True)
        assert lib.compiler.set_enable_guard_collectives(first) is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.compiler.load_cache_artifacts(b"x" * 40) is None
    assert torch.compiler.load_cache_artifacts(b"x" * 40) is None


def test_region_substitution_and_numpy_wrappers():
    for lib in (torch, ember):
        @lib.compiler.nested_compile_region
        def region(x):
            return x + 1
        assert region(lib.ones(2)).tolist() == [2.0, 2.0]

        def original(x):
            return x

        @lib.compiler.substitute_in_graph(original)
        def stand_in(x):
            return x
        assert stand_in(3) == 3

        @lib.compiler.wrap_numpy
        def numpy_fn(a, b):
            assert isinstance(a, np.ndarray)
            return np.sum(a * b, axis=0)
        out = numpy_fn(lib.arange(6.0).reshape(2, 3), lib.ones(2, 3))
        assert isinstance(out, lib.Tensor) and out.tolist() == [3.0, 5.0, 7.0]
