"""ember.backends against torch.backends: the flags scripts set and read, their defaults, the
cudnn.flags context manager, and cuda.matmul.allow_tf32 as the float32 matmul precision."""
import pytest

import ember

torch = pytest.importorskip("torch")


def _flags(lib):
    b = lib.backends
    return (b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32,
            b.cudnn.is_available(), b.cudnn.version(), b.mps.is_available(), b.mps.is_built(),
            b.cuda.matmul.allow_tf32, b.cuda.matmul.allow_fp16_reduced_precision_reduction,
            b.cuda.matmul.allow_bf16_reduced_precision_reduction, b.cuda.flash_sdp_enabled(),
            b.cuda.mem_efficient_sdp_enabled(), b.cuda.math_sdp_enabled())


def test_defaults_match_torch():
    assert _flags(ember) == _flags(torch)


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_flags_set_read_and_restore(lib):
    from importlib import import_module
    cudnn = import_module(f"{lib.__name__}.backends.cudnn")
    assert cudnn is lib.backends.cudnn
    cudnn.benchmark, cudnn.deterministic = True, True
    try:
        assert (cudnn.benchmark, cudnn.deterministic) == (True, True)
        with cudnn.flags(enabled=False, deterministic=False):
            assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, False, False)
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, True, True)
    finally:
        cudnn.benchmark, cudnn.deterministic = False, False


def test_allow_tf32_is_the_matmul_precision():
    seen = []
    for lib in (torch, ember):
        matmul = lib.backends.cuda.matmul
        matmul.allow_tf32 = True
        seen.append(lib.get_float32_matmul_precision())
        lib.set_float32_matmul_precision("highest")
        seen.append(matmul.allow_tf32)
        lib.set_float32_matmul_precision("medium")
        seen.append(matmul.allow_tf32)
        lib.set_float32_matmul_precision("highest")
    assert seen[:3] == seen[3:] == ["high", False, True]
    ember.backends.cuda.matmul.allow_tf32 = False
    assert ember.get_float32_matmul_precision() == "highest"


def test_unknown_matmul_flag_is_an_attribute_error():
    messages = []
    for lib in (torch, ember):
        with pytest.raises(AttributeError) as info:
            lib.backends.cuda.matmul.allow_tf33 = True
        messages.append(str(info.value))
        with pytest.raises(AttributeError):
            getattr(lib.backends.cuda.matmul, "allow_tf33")  # noqa: B009 -- the read is the test
    assert messages[0] == messages[1]
