"""ember.optim: `Optimizer` (optimizer.py: groups, state, state dicts, hooks) and one file per
algorithm; `lr_scheduler` loads on first use."""
from ember.optim.adam import Adam
from ember.optim.adamw import AdamW
from ember.optim.optimizer import Optimizer
from ember.optim.sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer"]


def __getattr__(name):
    if name in ("lr_scheduler", "swa_utils"):
        import importlib
        return importlib.import_module(f"ember.optim.{name}")
    raise AttributeError(f"module 'ember.optim' has no attribute '{name}'")
