"""Utilities as in torch.utils: checkpointing (`checkpoint`), backend registration,
`_python_dispatch` (TorchDispatchMode), `_pytree`, and `alias_torch()` (make `import torch`
resolve to ember in this process). `hooks` (RemovableHandle), `data` (datasets, samplers, DataLoader), `dlpack`,
`model_zoo` (ember.hub's load_url)."""
from ember.utils._alias import alias_torch, unalias_torch  # noqa: F401


def __getattr__(name):
    # Submodules load on first use: `ember.utils.checkpoint.checkpoint(...)`.
    if name in ("checkpoint", "backend_registration", "hooks", "data", "tensorboard",
                "benchmark", "dlpack", "model_zoo"):
        import importlib
        return importlib.import_module(f"ember.utils.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
