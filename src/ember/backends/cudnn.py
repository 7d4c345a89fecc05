"""ember.backends.cudnn: the cuDNN flags scripts set (`benchmark`, `deterministic`, `enabled`,
`allow_tf32`) and the `flags` context manager. ember calls no cuDNN, so the flags are stored
and read back and change no computation; `is_available()` is False."""
from __future__ import annotations

import contextlib

enabled = True
benchmark = False
benchmark_limit = None
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: ember has no cuDNN back-end."""
    return False


def version() -> None:
    """None: no cuDNN is loaded."""


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True):
    """Set the flags inside the block and restore the previous values after it."""
    module = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    previous = {name: module[name] for name in names}
    module.update(enabled=enabled, benchmark=benchmark, deterministic=deterministic,
                  allow_tf32=allow_tf32)
    if previous["benchmark_limit"] is not None:
        module["benchmark_limit"] = benchmark_limit
    try:
        yield
    finally:
        module.update(previous)
