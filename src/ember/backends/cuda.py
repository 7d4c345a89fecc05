"""ember.backends.cuda: `matmul.allow_tf32` (PyTorch's other spelling of the float32 matmul
precision: True is "high", False "highest"), the reduced-precision reduction flags, and the
scaled-dot-product attention kernel switches (stored; ember has one attention kernel)."""
from __future__ import annotations

import contextlib
import enum
from typing import ClassVar

from ember import _switches
from ember.backends._precision import FP32Precision


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
    _precision = FP32Precision("cuda", "matmul", default="none")

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _switches.get_float32_matmul_precision() != "highest"
        if name in _Matmul._flags:
            return _Matmul._flags[name]
        if name == "fp32_precision":
            return _Matmul._precision.fp32_precision
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _switches.set_float32_matmul_precision("high" if value else "highest")
        elif name in _Matmul._flags:
            _Matmul._flags[name] = bool(value)
        elif name == "fp32_precision":
            _Matmul._precision.fp32_precision = value
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = _Matmul()
cuBLASModule = _Matmul

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


_sdp["fp16_bf16_reduction_math"] = False


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    _sdp["fp16_bf16_reduction_math"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    return _sdp["fp16_bf16_reduction_math"]


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True):
    """The deprecated context manager of the four attention switches."""
    import warnings
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                  "context manager will be removed. Please see `torch.nn.attention.sdpa_kernel()`"
                  " for the new context manager, with updated signature.", FutureWarning,
                  stacklevel=3)
    previous = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient,
                cudnn=enable_cudnn)
    try:
        yield
    finally:
        _sdp.update(previous)


class SDPAParams:
    """The inputs of one scaled-dot-product attention call, as the kernel checks see them."""

    def __init__(self, query, key, value, attn_mask, dropout: float, is_causal: bool,
                 enable_gqa: bool = False) -> None:
        self.query, self.key, self.value, self.attn_mask = query, key, value, attn_mask
        self.dropout, self.is_causal, self.enable_gqa = dropout, is_causal, enable_gqa


def is_flash_attention_available() -> bool:
    """False: ember has no fused flash-attention kernel (its attention is the math one)."""
    return False


def is_ck_sdpa_available() -> bool:
    return False


def can_use_flash_attention(params: SDPAParams, debug: bool = False) -> bool:
    return False


def can_use_efficient_attention(params: SDPAParams, debug: bool = False) -> bool:
    return False


def can_use_cudnn_attention(params: SDPAParams, debug: bool = False) -> bool:
    return False


class _LinalgBackend(enum.IntEnum):
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.IntEnum):
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


class _ROCmFABackend(enum.IntEnum):
    Default = 0
    AOTriton = 1
    Ck = 2


_preferred = {"linalg": _LinalgBackend.Default, "blas": _BlasBackend.Cublas,
              "rocm_fa": _ROCmFABackend.Default}


def _prefer(kind: str, enum_type, backend, needs_cuda: dict):
    if backend is None:
        return _preferred[kind]
    if isinstance(backend, str):
        key = backend.lower()
        choice = {member.name.lower(): member for member in enum_type}.get(key)
        if choice is None:
            raise RuntimeError(f"Unknown input value. Choose from: "
                               f"{', '.join(m.name.lower() for m in enum_type)}.")
    else:
        choice = enum_type(backend)
    if choice.name in needs_cuda and not is_built():
        raise RuntimeError(f"Cannot set preferred backend to {needs_cuda[choice.name]} if "
                           f"PyTorch has not been compiled with {needs_cuda[choice.name]}.")
    _preferred[kind] = choice
    return choice


def preferred_linalg_library(backend=None):
    """Which library CUDA linear algebra prefers ('default', 'cusolver', 'magma')."""
    return _prefer("linalg", _LinalgBackend, backend, {"Cusolver": "cuSOLVER", "Magma": "MAGMA"})


def preferred_blas_library(backend=None):
    """Which library CUDA matmuls prefer ('cublas', 'cublaslt', 'ck')."""
    return _prefer("blas", _BlasBackend, backend, {"Cublaslt": "cuBLASLt", "Ck": "CK"})


def preferred_rocm_fa_library(backend=None):
    return _prefer("rocm_fa", _ROCmFABackend, backend, {})


def _workspace(what: str, size):
    from ember._backends.cuda import _require, not_supported
    _require()
    raise not_supported(f"torch.backends.cuda.{what}")


def cublas_workspace_size(size=None) -> int:
    return _workspace("cublas_workspace_size", size)


def cublaslt_workspace_size(size=None) -> int:
    return _workspace("cublaslt_workspace_size", size)


def blas_workspace_size(size=None, backend=None) -> int:
    return _workspace("blas_workspace_size", size)


class cuFFTPlanCache:
    """The cuFFT plan cache of one device (CuPy keeps its own; ember has none to size)."""

    def __init__(self, device_index: int) -> None:
        from ember._backends.cuda import device_count
        if not 0 <= device_index < device_count():
            raise RuntimeError(f"cufft_plan_cache: expected 0 <= device index < "
                               f"{device_count()}, but got device with index {device_index}")
        self.device_index = device_index

    size = property(lambda self: 0)
    max_size = property(lambda self: 0)

    def clear(self) -> None:
        pass


class cuFFTPlanCacheAttrContextProp:
    """A plan-cache attribute read and set through the current device's cache."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, objtype=None):
        from ember._backends.cuda import current_device
        return getattr(cufft_plan_cache[current_device()], self.name)


class cuFFTPlanCacheManager:
    """`cufft_plan_cache[i]`: device i's cache; `cufft_plan_cache.size`: the current one's."""

    size = cuFFTPlanCacheAttrContextProp("size")
    max_size = cuFFTPlanCacheAttrContextProp("max_size")

    def __getitem__(self, device) -> cuFFTPlanCache:
        from ember._backends.cuda import _index
        return cuFFTPlanCache(_index(device))

    def clear(self) -> None:
        from ember._backends.cuda import current_device
        self[current_device()].clear()


cufft_plan_cache = cuFFTPlanCacheManager()
