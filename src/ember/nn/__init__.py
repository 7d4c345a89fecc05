"""ember.nn: `Module` and the layers (`modules/`), their functional forms (`functional`, built on
registry ops), `Parameter`/`Buffer` (`parameter.py`), initialisers (`init`) and utilities
(`utils`)."""
from ember.nn import attention, functional, init, utils  # noqa: F401
from ember.nn.modules import *
from ember.nn.modules import Module  # noqa: F401
from ember.nn.parameter import (  # noqa: F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
