"""ember.backends.cudnn: the cuDNN flags scripts set (`benchmark`, `deterministic`, `enabled`,
`allow_tf32`, `fp32_precision`) with PyTorch's defaults, `set_flags` and the `flags` context
manager. ember calls no cuDNN, so the flags are stored and read back and change no computation;
`is_available()` is False and `version()` None, as in a PyTorch without cuDNN."""
from __future__ import annotations

import contextlib

from ember._core import dtype as _dt
from ember.backends._precision import FP32Precision
from ember.backends._props import ContextProp, PropModule, global_flag, wrap  # noqa: F401

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True
fp32_precision = "none"
depthwise_kernel = "auto"
conv = FP32Precision("cudnn", "conv")
rnn = FP32Precision("cudnn", "rnn")

CUDNN_TENSOR_DTYPES = {_dt.float16, _dt.float32, _dt.float64}

_NAMES = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32",
          "fp32_precision", "depthwise_kernel")


def is_available() -> bool:
    """False: ember has no cuDNN back-end."""
    return False


def version() -> None:
    """None: no cuDNN is loaded."""


def is_acceptable(tensor) -> bool:
    """Whether cuDNN would run on `tensor`: never, without cuDNN."""
    return False


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none", _depthwise_kernel=None) -> tuple:
    """Set the given flags (None leaves one as it is); returns the previous values."""
    module = globals()
    previous = tuple(module[name] for name in _NAMES)
    new = (_enabled, _benchmark, _benchmark_limit, _deterministic, _allow_tf32,
           _fp32_precision, _depthwise_kernel)
    for name, value in zip(_NAMES, new):
        if value is None or name == "benchmark_limit" and previous[2] is None:
            continue
        module[name] = value
    return previous


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
    """Set the flags inside the block and restore the previous values after it."""
    previous = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
                         fp32_precision, depthwise_kernel)
    try:
        yield
    finally:
        globals().update(zip(_NAMES, previous))


class CudnnModule(PropModule):
    """This module with its flags as properties (NOTE [back-end flags are module properties])."""

    enabled = global_flag(globals(), 'enabled')
    benchmark = global_flag(globals(), 'benchmark')
    benchmark_limit = global_flag(globals(), 'benchmark_limit')
    deterministic = global_flag(globals(), 'deterministic')
    allow_tf32 = global_flag(globals(), 'allow_tf32')
    fp32_precision = global_flag(globals(), 'fp32_precision')
    depthwise_kernel = global_flag(globals(), 'depthwise_kernel')


wrap(__name__, CudnnModule)
