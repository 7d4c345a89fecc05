"""`ember.nn.functional` (imported as F): the stateless forms of the layers. Each function is a
registry op or a composite of registry ops; they live in `ember.nn._functional`, one file per
family."""
from ember.nn._functional.activation import *
from ember.nn._functional.attention import *
from ember.nn._functional.conv import *
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


def __getattr__(name: str):
    # `F.grad` is ember.nn.grad (the convolution gradients), loaded on first use.
    if name == "grad":
        import ember.nn.grad
        return ember.nn.grad
    raise AttributeError(f"module 'ember.nn.functional' has no attribute '{name}'")
