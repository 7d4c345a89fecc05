"""Anomaly detection: `detect_anomaly` / `set_detect_anomaly`.

While it is on, every node recorded keeps the stack of the forward call that made it
(`node.metadata["traceback_"]`), and the engine checks each node's gradients: a NaN raises
"Function 'XBackward0' returned nan values in its Nth output." (with `check_nan`), and any error
in a node's backward is preceded by a warning that shows where that node was made.
"""
from __future__ import annotations

import os
import warnings


class _AnomalyState:
    __slots__ = ("check_nan", "enabled")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


state = _AnomalyState()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (`detect_anomaly`, `set_detect_anomaly`)."""
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection also checks gradients for NaN."""
    return state.check_nan


def _enable(mode: bool, check_nan: bool) -> None:
    state.enabled = bool(mode)
    state.check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on for its body."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = state.enabled
        self.prev_check_nan = state.check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self.prev, self.prev_check_nan = state.enabled, state.check_nan
        _enable(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        _enable(self.prev, self.prev_check_nan)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return func(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on or off; as a context manager it restores the old setting."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = state.enabled, state.check_nan
        _enable(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _enable(self.prev, self.prev_check_nan)


_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_frame(frame) -> bool:
    """A frame of the user's program: not ember's own (bindings, dispatch, `ember.run`) nor
    runpy's, so the stack reads as PyTorch's does, from the script's own lines."""
    return not (frame.filename.startswith(_EMBER_DIR) or frame.filename.endswith("runpy.py")
                or frame.filename == "<frozen runpy>")


def remember_forward_stack(node) -> None:
    """Called by the recorder when anomaly mode is on."""
    import traceback  # (only with anomaly mode on: NOTE [what import ember loads])
    frames = [f for f in traceback.extract_stack() if _user_frame(f)]
    node.metadata["traceback_"] = traceback.format_list(frames)


def warn_forward_stack(node) -> None:
    stack = (node.metadata_ or {}).get("traceback_")
    if stack:
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                      f"the error:\n{''.join(stack)}", UserWarning, stacklevel=2)


def check_nan(node, grads) -> None:
    for k, g in enumerate(grads):
        if g is not None and bool(g.isnan().any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {k}th "
                               "output.")
