"""Calls from the op families into the layers above them, through names those layers set when
they load: the inversion that keeps every import pointing downward (NOTE [upcalls]).

NOTE [upcalls]: `_core` and `_ops` never import `ember.autograd`, `ember.nn` or the facade
(the layers contract in pyproject.toml, checked by tests/test_import_layers.py). Where an op
needs one of them (a custom Function, `autograd.grad` inside a second derivative, a grad-mode
block, the nn.functional composite behind a top-level `ember.*` loss), it calls the name here.
ember.autograd sets its names at the end of its import (autograd/__init__.py) and the facade
sets `nn_module`, `accelerator_available` and `public` (ember/__init__.py); `import ember` does
both before any op can run, so none is None when an op reads it (`worker_info` is the one that
may stay None, see below). Grad mode itself is read through `dispatch.state.grad_enabled`.
"""
from __future__ import annotations

# Set by ember.autograd.
grad = None                  # autograd.grad
enable_grad = None           # grad_mode.enable_grad
no_grad = None               # grad_mode.no_grad
# Function: autograd.Function, the base of the ops' custom Functions; loaded on first read
# (`_loaders`, below).
node_class_named = None      # graph.node_class_named: a backward node class by its name
set_anomaly_enabled = None   # anomaly_mode._enable(mode, check_nan)

# Set by the facade (ember/__init__.py).
# name -> the module ember.nn.<name>, imported on first use (ember.nn loads lazily; the
# top-level losses and layers that are nn composites, and stft's padding, call through it).
nn_module = None
accelerator_available = None    # () -> ember.accelerator.is_available() (pin_memory)
# name -> the public function ember.<name> (its generated binding, which parses the arguments
# as PyTorch's parser does), for frontends that hand a user's call on to another public one.
public = None
# () -> None: loads ember._decomp (a `__torch_dispatch__` subclass is being defined, so the
# composites' decompositions must be in place: NOTE [composites decompose under modes]).
load_decompositions = None

# Set by ember.utils.data's worker module when it loads: () -> the calling DataLoader worker's
# WorkerInfo or None. Still None means no DataLoader was ever made, so no worker exists
# (ember._random picks a thread worker's own generator through it).
worker_info = None

# name -> () -> value: a name loaded on its first read (`__getattr__`), then set here, so a
# layer's module that only some ops need is not imported by `import ember` (autograd.Function).
_loaders: dict = {}


def __getattr__(name: str):
    load = _loaders.get(name)
    if load is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = load()
    return value
