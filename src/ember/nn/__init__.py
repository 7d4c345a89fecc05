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
