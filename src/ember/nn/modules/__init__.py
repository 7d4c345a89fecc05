"""The layers: `Module` (module.py, its hooks and state-dict loading beside it) and one file
per family of layers, each listing its public classes in `__all__`."""
from ember.nn.modules.activation import *
from ember.nn.modules.batchnorm import *
from ember.nn.modules.channelshuffle import *
from ember.nn.modules.container import *
from ember.nn.modules.conv import *
from ember.nn.modules.distance import *
from ember.nn.modules.dropout import *
from ember.nn.modules.flatten import *
from ember.nn.modules.fold import *
from ember.nn.modules.instancenorm import *
from ember.nn.modules.lazy import *
from ember.nn.modules.linear import *
from ember.nn.modules.loss import *
from ember.nn.modules.module import Module  # noqa: F401
from ember.nn.modules.multihead import *
from ember.nn.modules.normalization import *
from ember.nn.modules.padding import *
from ember.nn.modules.pixelshuffle import *
from ember.nn.modules.pooling import *
from ember.nn.modules.rnn import *
from ember.nn.modules.sparse import *
from ember.nn.modules.transformer import *
from ember.nn.modules.upsampling import *
