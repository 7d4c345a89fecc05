"""ember.backends.cuda: `matmul.allow_tf32` (PyTorch's other spelling of the float32 matmul
precision: True is "high", False "highest"), the reduced-precision reduction flags, and the
scaled-dot-product attention kernel switches (stored; ember has one attention kernel)."""
from __future__ import annotations

from typing import ClassVar

from ember import _switches


def is_built() -> bool:
    """Whether ember can run CUDA tensors (through CuPy)."""
    import ember.cuda
    return ember.cuda.is_available()


class _Matmul:
    """`ember.backends.cuda.matmul`: the cuBLAS flags; unknown names raise AttributeError."""

    __slots__ = ()
    _flags: ClassVar[dict] = {"allow_fp16_reduced_precision_reduction": True,
                               "allow_bf16_reduced_precision_reduction": True,
                               "allow_fp16_accumulation": False}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _switches.get_float32_matmul_precision() != "highest"
        if name in _Matmul._flags:
            return _Matmul._flags[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _switches.set_float32_matmul_precision("high" if value else "highest")
        elif name in _Matmul._flags:
            _Matmul._flags[name] = bool(value)
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = _Matmul()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    return _sdp["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp["math"]


def enable_math_sdp(enabled: bool) -> None:
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp["cudnn"] = bool(enabled)
