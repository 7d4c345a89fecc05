"""ember.nn: `Module` and the layers (`modules/`), their functional forms (`functional`, built on
registry ops), `Parameter`/`Buffer` (`parameter.py`), initialisers (`init`) and utilities
(`utils`), `DataParallel` (`parallel`)."""
from ember.nn import attention, functional, init, parallel, utils  # noqa: F401
from ember.nn.modules import *
from ember.nn.modules import Module  # noqa: F401
from ember.nn.parallel import DataParallel  # noqa: F401
from ember.nn.parameter import (  # noqa: F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
from ember.nn._factory import factory_kwargs  # noqa: F401

# Loaded on first use (NOTE [what import ember loads]): the type aliases, the convolution
# gradients and the quantization namespaces (aliases of ember.ao.nn, nn/_ao_alias.py).
_LAZY_SUBMODULES = frozenset({"common_types", "grad", "intrinsic", "qat", "quantizable",
                              "quantized"})


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        import importlib
        module = importlib.import_module(f"ember.nn.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ember.nn' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES)
