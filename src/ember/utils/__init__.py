"""Utilities as in torch.utils: data loading, checkpointing, hooks, backend registration,
`_python_dispatch` (TorchDispatchMode), and `alias_torch()` (make `import torch` resolve to
ember in this process)."""
from ember.utils._alias import alias_torch, unalias_torch  # noqa: F401


def __getattr__(name):
    # Submodules load on first use: `ember.utils.checkpoint.checkpoint(...)`.
    if name in ("checkpoint", "backend_registration", "data", "hooks"):
        import importlib
        return importlib.import_module(f"ember.utils.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
