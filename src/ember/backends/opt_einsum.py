"""ember.backends.opt_einsum: whether `einsum` orders its contractions with the opt_einsum
package. `is_available()` says whether that package is installed; `enabled` and `strategy` start
as PyTorch's do (on, "auto", when it is there)."""
from __future__ import annotations

import contextlib
import importlib.util

from ember.backends._props import ContextProp, PropModule, global_flag, wrap  # noqa: F401

_STRATEGIES = ("auto", "greedy", "optimal")


def is_available() -> bool:
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum():
    """The opt_einsum module, or None when it is not installed."""
    if not is_available():
        return None
    import opt_einsum
    return opt_einsum


enabled = is_available()
strategy = "auto" if enabled else None


def set_flags(_enabled=None, _strategy=None) -> tuple:
    global enabled, strategy
    previous = (enabled, strategy)
    if _enabled is not None:
        if _enabled and not is_available():
            raise ValueError("opt_einsum is not available, so setting `enabled` to True will "
                             "not reap the benefits of calculating an optimal path for einsum. "
                             "torch.einsum will fall back to contracting from left to right.")
        enabled = bool(_enabled)
    if _strategy is not None:
        if _strategy not in _STRATEGIES:
            raise ValueError(f"strategy must be one of {_STRATEGIES}, got {_strategy!r}")
        strategy = _strategy
    return previous


@contextlib.contextmanager
def flags(enabled=None, strategy=None):
    previous = set_flags(enabled, strategy)
    try:
        yield
    finally:
        globals().update(enabled=previous[0], strategy=previous[1])


class OptEinsumModule(PropModule):
    """This module with its flags as properties (NOTE [back-end flags are module properties])."""

    enabled = global_flag(globals(), 'enabled')
    strategy = global_flag(globals(), 'strategy')


wrap(__name__, OptEinsumModule)
