"""`ember.backends` against PyTorch (CPU build): every flag starts at PyTorch's default, is
settable and read back, the `flags()` context managers restore, `set_flags` returns the previous
values, and what needs hardware answers as a PyTorch without it does."""
from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
import torch

import ember

# (module, flag, a value to set): defaults compared with PyTorch's
FLAGS = [
    ("cudnn", "enabled", False), ("cudnn", "benchmark", True), ("cudnn", "deterministic", True),
    ("cudnn", "allow_tf32", False), ("cudnn", "benchmark_limit", None),
    ("cudnn", "fp32_precision", "ieee"), ("cudnn", "depthwise_kernel", "auto"),
    ("mkldnn", "enabled", False), ("mkldnn", "deterministic", True),
    ("mkldnn", "allow_tf32", None), ("mkldnn", "fp32_precision", "ieee"),
    ("miopen", "immediate", True), ("quantized", "engine", "fbgemm"),
    ("", "fp32_precision", "ieee"),
]


def _module(lib, name):
    return lib.backends if not name else getattr(lib.backends, name)


@pytest.mark.parametrize("module,flag,value", FLAGS, ids=[f"{m}.{f}" for m, f, _ in FLAGS])
def test_flag_default_and_set(module, flag, value):
    theirs, ours = _module(torch, module), _module(ember, module)
    assert getattr(ours, flag) == getattr(theirs, flag)
    old = getattr(ours, flag)
    try:
        setattr(ours, flag, value)
        assert getattr(ours, flag) == value
        if module != "quantized":                   # (its engine is no module global)
            assert getattr(ours.m, flag) == value   # the wrapped module sees the assignment
    finally:
        setattr(ours, flag, old)
    assert getattr(ours, flag) == getattr(theirs, flag)


def test_fp32_precision_holders_match():
    # in fresh interpreters: PyTorch's legacy precision switches (set_float32_matmul_precision,
    # allow_tf32), which other tests set, feed these holders
    code = ("import {lib} as t\nb = t.backends\nprint([h.fp32_precision for h in (b.cudnn.conv, "
            "b.cudnn.rnn, b.mkldnn.matmul, b.mkldnn.conv, b.mkldnn.rnn, b.cuda.matmul)], "
            "b.fp32_precision, b.cudnn.fp32_precision, b.mkldnn.fp32_precision)\n")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    assert outs[0] == outs[1]
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Unknown precision"):
            lib.backends.cudnn.conv.fp32_precision = "fast"


def test_cuda_matmul_flags_match():
    for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction", "allow_fp16_accumulation"):
        assert getattr(ember.backends.cuda.matmul, name) == \
            getattr(torch.backends.cuda.matmul, name), name


@pytest.mark.parametrize("module", ["cudnn", "mkldnn", "miopen", "opt_einsum", "nnpack", ""])
def test_set_flags_returns_the_previous_values(module):
    theirs, ours = _module(torch, module), _module(ember, module)
    if module == "nnpack":     # set_flags needs its one argument
        before_t, before_o = theirs.set_flags(True), ours.set_flags(True)
        assert len(before_t) == len(before_o) == 1
        theirs.set_flags(*before_t)
        ours.set_flags(*before_o)
        return
    assert ours.set_flags() == theirs.set_flags()


def test_flags_context_managers_restore():
    for lib in (torch, ember):
        with lib.backends.cudnn.flags(enabled=False, benchmark=True, deterministic=True):
            inside = (lib.backends.cudnn.enabled, lib.backends.cudnn.benchmark,
                      lib.backends.cudnn.deterministic)
        assert inside == (False, True, True)
        assert (lib.backends.cudnn.enabled, lib.backends.cudnn.benchmark) == (True, False)
        with lib.backends.mkldnn.flags(enabled=False):
            assert lib.backends.mkldnn.enabled is False
        assert lib.backends.mkldnn.enabled is True
        with lib.backends.miopen.flags(immediate=True):
            assert lib.backends.miopen.immediate is True
        assert lib.backends.miopen.immediate is False
        with lib.backends.flags(fp32_precision="tf32"):
            assert lib.backends.fp32_precision == "tf32"
        assert lib.backends.fp32_precision == "none"


def test_quantized_engine_is_checked():
    assert ember.backends.quantized.supported_engines == torch.backends.quantized.supported_engines
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="not a valid value for quantized engine"):
            lib.backends.quantized.engine = "tpu"


def test_opt_einsum_follows_the_package():
    for name in ("is_available", "get_opt_einsum"):
        assert (getattr(ember.backends.opt_einsum, name)() is None) == \
            (getattr(torch.backends.opt_einsum, name)() is None)
    assert ember.backends.opt_einsum.is_available() == torch.backends.opt_einsum.is_available()
    assert ember.backends.opt_einsum.enabled == torch.backends.opt_einsum.enabled
    assert ember.backends.opt_einsum.strategy == torch.backends.opt_einsum.strategy


def test_disable_global_flags_freezes_assignment():
    code = ("import {lib} as t\nt.backends.disable_global_flags()\nprint(t.backends.flags_frozen())\n"
            "try:\n    t.backends.cudnn.benchmark = True\nexcept RuntimeError as e:\n"
            "    print(str(e).split(' flags')[1])\n"
            "with t.backends.cudnn.flags(benchmark=True):\n    print(t.backends.cudnn.benchmark)\n")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    assert outs[0] == outs[1]
    assert outs[0].split() [0] == "True"


def test_hardware_answers_as_without_it():
    b_t, b_e = torch.backends, ember.backends
    same = [lambda b: b.cudnn.is_available(), lambda b: b.cudnn.version(),
            lambda b: b.cudnn.is_acceptable(None if b is b_e else torch.ones(1)),
            lambda b: b.mps.is_available(), lambda b: b.mps.is_built(),
            lambda b: b.cuda.is_built(), lambda b: b.cuda.is_flash_attention_available(),
            lambda b: b.cuda.is_ck_sdpa_available(), lambda b: b.cusparselt.is_available(),
            lambda b: b.cusparselt.version(), lambda b: b.cusparselt.get_max_alg_id(),
            lambda b: b.kleidiai.is_available(), lambda b: b.mkldnn.is_acl_available(),
            lambda b: b.mha.get_fastpath_enabled(), lambda b: b.cuda.cudnn_sdp_enabled(),
            lambda b: b.cuda.fp16_bf16_reduction_math_sdp_allowed(),
            lambda b: b.python_native.available_dsls, lambda b: b.python_native.all_dsls,
            lambda b: b.python_native.is_dsl_disabled("triton"),
            lambda b: b.python_native.get_dsl_operations("triton"),
            lambda b: b.cuda.preferred_linalg_library().name,
            lambda b: b.cuda.preferred_blas_library().name,
            lambda b: b.cuda.preferred_blas_library("cublas").name,
            lambda b: b.cuda.preferred_rocm_fa_library().name]
    for index, call in enumerate(same):
        assert call(b_e) == call(b_t), index
    assert ember.backends.cudnn.CUDNN_TENSOR_DTYPES == {ember.float16, ember.float32,
                                                       ember.float64}
    assert len(torch.backends.cudnn.CUDNN_TENSOR_DTYPES) == 3


@pytest.mark.parametrize("call", [
    lambda b: b.mps.is_macos13_or_newer(), lambda b: b.mps.is_macos_or_newer(14, 0),
    lambda b: b.cuda.preferred_linalg_library("magma"),
    lambda b: b.cuda.preferred_linalg_library("cusolver"),
    lambda b: b.cuda.preferred_blas_library("cublaslt"),
    lambda b: b.cuda.cufft_plan_cache[0],
])
def test_hardware_calls_raise_like_torch(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch.backends)
    with pytest.raises(RuntimeError) as ours:
        call(ember.backends)
    assert str(ours.value) == str(theirs.value)


def test_attention_checks_and_sdp_kernel():
    q_t, q_e = torch.ones(1, 1, 2, 4), ember.ones(1, 1, 2, 4)
    p_t = torch.backends.cuda.SDPAParams(q_t, q_t, q_t, None, 0.0, False, False)
    p_e = ember.backends.cuda.SDPAParams(q_e, q_e, q_e, None, 0.0, False, False)
    for name in ("can_use_flash_attention", "can_use_efficient_attention",
                 "can_use_cudnn_attention"):
        assert getattr(ember.backends.cuda, name)(p_e) == getattr(torch.backends.cuda, name)(p_t)
    for lib in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.backends.cuda.sdp_kernel(enable_flash=False, enable_math=True):
                assert not lib.backends.cuda.flash_sdp_enabled()
        assert lib.backends.cuda.flash_sdp_enabled()


def test_cpu_capability_matches_torch():
    ours = ember.backends.cpu.get_cpu_capability()
    theirs = torch.backends.cpu.get_cpu_capability()
    if theirs in ("DEFAULT", "AVX2", "AVX512"):
        assert ours == theirs
    else:                                   # Arm / s390x / Power: the names PyTorch uses there
        assert ours in ("DEFAULT", "SVE256", theirs)


def test_verbose_context_managers():
    for lib in (torch, ember):
        with lib.backends.mkldnn.verbose(lib.backends.mkldnn.VERBOSE_ON):
            pass
        with lib.backends.mkl.verbose(lib.backends.mkl.VERBOSE_ON):
            pass
    assert (ember.backends.mkldnn.VERBOSE_ON_CREATION, ember.backends.mkl.VERBOSE_OFF) == \
        (torch.backends.mkldnn.VERBOSE_ON_CREATION, torch.backends.mkl.VERBOSE_OFF)
