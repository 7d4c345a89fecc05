"""The layers: `Module` (module.py, its hooks and state-dict loading beside it) and one file
per family of layers, each listing its public classes in `__all__`."""
from ember.nn.modules.activation import *  # noqa: F403
from ember.nn.modules.adaptive import *  # noqa: F403
from ember.nn.modules.batchnorm import *  # noqa: F403
from ember.nn.modules.channelshuffle import *  # noqa: F403
from ember.nn.modules.container import *  # noqa: F403
from ember.nn.modules.conv import *  # noqa: F403
from ember.nn.modules.distance import *  # noqa: F403
from ember.nn.modules.dropout import *  # noqa: F403
from ember.nn.modules.flatten import *  # noqa: F403
from ember.nn.modules.fold import *  # noqa: F403
from ember.nn.modules.instancenorm import *  # noqa: F403
from ember.nn.modules.lazy import *  # noqa: F403
from ember.nn.modules.linear import *  # noqa: F403
from ember.nn.modules.linear_cross_entropy_options import *  # noqa: F403
from ember.nn.modules.loss import *  # noqa: F403
from ember.nn.modules.module import Module  # noqa: F401
from ember.nn.modules.multihead import *  # noqa: F403
from ember.nn.modules.normalization import *  # noqa: F403
from ember.nn.modules.padding import *  # noqa: F403
from ember.nn.modules.pixelshuffle import *  # noqa: F403
from ember.nn.modules.pooling import *  # noqa: F403
from ember.nn.modules.rnn import *  # noqa: F403
from ember.nn.modules.sparse import *  # noqa: F403
from ember.nn.modules.transformer import *  # noqa: F403
from ember.nn.modules.upsampling import *  # noqa: F403

# What `from ember.nn.modules import *` (and so `ember.nn`) exports: the families' public
# classes, not the family submodules themselves.
__all__ = ["Module"]
from ember.nn.modules import (  # noqa: E402
    activation,
    adaptive,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    linear_cross_entropy_options,
    loss,
    multihead,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)

for _family in (activation, adaptive, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm, lazy, linear, linear_cross_entropy_options, loss, multihead, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling):
    __all__ += _family.__all__
del _family
