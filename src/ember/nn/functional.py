"""`ember.nn.functional` (imported as F): the stateless forms of the layers. Each function is a
registry op or a composite of registry ops; they live in `ember.nn._functional`, one file per
family. The convolutions are read on first use (`__getattr__` below): their op families load
then (NOTE [op families load on first use])."""
from ember.nn._functional.activation import *
from ember.nn._functional.attention import *
from ember.nn._functional.distance import *
from ember.nn._functional.dropout import *
from ember.nn._functional.embedding import *
from ember.nn._functional.fold import *
from ember.nn._functional.grouped import *
from ember.nn._functional.linear import *
from ember.nn._functional.linear_loss import *
from ember.nn._functional.loss import *
from ember.nn._functional.normalization import *
from ember.nn._functional.padding import *
from ember.nn._functional.pooling import *
from ember.nn._functional.sampling import *
from ember.nn._functional.helpers import *


from ember.nn._functional import conv as _conv

__all__ = [*sorted(  # noqa: PLE0604  (ruff cannot see that these are names)
    name for name in globals() if not name.startswith("_")), *_conv.__all__]


def __getattr__(name: str):
    # `F.grad` is ember.nn.grad (the convolution gradients), loaded on first use.
    if name == "grad":
        import ember.nn.grad
        return ember.nn.grad
    if name in _conv.__all__:
        value = globals()[name] = getattr(_conv, name)
        return value
    raise AttributeError(f"module 'ember.nn.functional' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_conv.__all__))
