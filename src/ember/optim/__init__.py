"""ember.optim: `Optimizer` (optimizer.py: groups, state, state dicts, hooks) and one file per
algorithm; `lr_scheduler` loads on first use."""
from ember.optim._stateless import swap_in_optimizer_params_and_state
from ember.optim.adadelta import Adadelta
from ember.optim.adafactor import Adafactor
from ember.optim.adagrad import Adagrad
from ember.optim.adam import Adam
from ember.optim.adamax import Adamax
from ember.optim.adamw import AdamW
from ember.optim.asgd import ASGD
from ember.optim.lbfgs import LBFGS
from ember.optim.muon import Muon
from ember.optim.nadam import NAdam
from ember.optim.optimizer import Optimizer
from ember.optim.radam import RAdam
from ember.optim.rmsprop import RMSprop
from ember.optim.rprop import Rprop
from ember.optim.sgd import SGD
from ember.optim.sparse_adam import SparseAdam

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SparseAdam",
           "swap_in_optimizer_params_and_state"]


def __getattr__(name):
    if name in ("lr_scheduler", "swa_utils"):
        import importlib
        return importlib.import_module(f"ember.optim.{name}")
    raise AttributeError(f"module 'ember.optim' has no attribute '{name}'")
