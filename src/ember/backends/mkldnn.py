"""ember.backends.mkldnn: oneDNN's flags. ember does not call oneDNN (its CPU kernels are
NumPy's), so `is_available()` is False and the flags (PyTorch's defaults) are stored for the
scripts that set them."""
from __future__ import annotations

import contextlib

from ember.backends._precision import FP32Precision
from ember.backends._props import ContextProp, PropModule, global_flag, wrap  # noqa: F401

enabled = True
deterministic = False
allow_tf32 = None
fp32_precision = "none"
matmul = FP32Precision("mkldnn", "matmul", default="none")
conv = FP32Precision("mkldnn", "conv", default="none")
rnn = FP32Precision("mkldnn", "rnn", default="none")

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

_NAMES = ("enabled", "deterministic", "allow_tf32", "fp32_precision")


def is_available() -> bool:
    """False: ember does not use oneDNN."""
    return False


def is_acl_available() -> bool:
    """False: no Arm Compute Library either."""
    return False


class verbose:
    """`with verbose(VERBOSE_ON):` turns on oneDNN's logging inside the block (nothing to log)."""

    def __init__(self, level: int) -> None:
        self.level = level

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None,
              _fp32_precision="none") -> tuple:
    module = globals()
    previous = tuple(module[name] for name in _NAMES)
    for name, value in zip(_NAMES, (_enabled, _deterministic, _allow_tf32, _fp32_precision)):
        if value is not None:
            module[name] = value
    return previous


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    previous = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        globals().update(zip(_NAMES, previous))


class MkldnnModule(PropModule):
    """This module with its flags as properties (NOTE [back-end flags are module properties])."""

    enabled = global_flag(globals(), 'enabled')
    deterministic = global_flag(globals(), 'deterministic')
    allow_tf32 = global_flag(globals(), 'allow_tf32')
    fp32_precision = global_flag(globals(), 'fp32_precision')


wrap(__name__, MkldnnModule)
