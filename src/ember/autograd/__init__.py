"""Reverse-mode automatic differentiation: the graph (graph.py), the engine (engine.py) and
grad modes (grad_mode.py). Importing this package connects the recorder to the dispatcher;
custom Functions (function.py) and `Variable` load on first use."""
from ember.autograd import graph  # noqa: F401  (installs the recorder)
from ember.autograd import inplace  # noqa: F401  (installs the in-place recorder)
from ember.autograd.engine import backward, grad
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ember.autograd.anomaly_mode import (
    detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly,
)
from ember.autograd.grad_mode import (
    enable_grad, enforce_grad_layout_policy, inference_mode, is_grad_enabled,
    is_inference_mode_enabled, no_grad, set_grad_enabled, set_multithreading_enabled,
)

__all__ = [
    "backward", "grad", "gradcheck", "gradgradcheck", "GradcheckError", "Function",
    "FunctionCtx", "once_differentiable", "Variable", "no_grad", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
    "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "forward_ad", "functional", "graph", "NestedIOFunction", "set_multithreading_enabled",
    "enforce_grad_layout_policy",
]


# Loaded on first use: name -> the module that defines it.
_LAZY = {"Function": "function", "FunctionCtx": "function", "NestedIOFunction": "function",
         "once_differentiable": "function", "Variable": "variable"}


# Submodules PyTorch's autograd has as attributes, loaded on first read here
# (`ember.autograd.functional.jacobian`, `ember.autograd.variable.Variable`).
_LAZY_SUBMODULES = ("forward_ad", "functional", "function", "variable")


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _load(name)
    if name in _LAZY:
        value = globals()[name] = getattr(_load(_LAZY[name]), name)
        return value
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_SUBMODULES))


def _load(module):
    import importlib
    return importlib.import_module(f"ember.autograd.{module}")


def _install_upcalls():
    """Hand the op families what they call in autograd (NOTE [upcalls])."""
    from ember._core import upcalls
    from ember.autograd.anomaly_mode import _enable
    from ember.autograd.graph import node_class_named
    upcalls.grad = grad
    upcalls.enable_grad = enable_grad
    upcalls.no_grad = no_grad
    upcalls._loaders["Function"] = lambda: _load("function").Function
    upcalls.node_class_named = node_class_named
    upcalls.set_anomaly_enabled = _enable


_install_upcalls()
